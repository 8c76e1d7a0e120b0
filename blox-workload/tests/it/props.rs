//! No reader panics on any input; jobs that come out are well formed.

use blox_workload::{parse_gavel, parse_trace, GavelThroughputs, ReadOptions, TraceFormat};
use proptest::prelude::*;
use std::path::Path;

fn table() -> GavelThroughputs {
    let mut t = GavelThroughputs::new();
    t.insert("v100", "A", 1, 1.0);
    t
}

fn check(bytes: &[u8]) {
    for skip in [false, true] {
        let opts = ReadOptions::default().with_skip_bad_lines(skip);
        for format in TraceFormat::ALL {
            let r = if format == TraceFormat::Gavel {
                parse_gavel(bytes, Path::new("p"), &table(), &opts)
            } else {
                parse_trace(bytes, Path::new("p"), format, &opts)
            };
            if let Ok(r) = r {
                for j in &r.jobs {
                    assert!(j.n_gpus >= 1, "{format}: {j:?}");
                    assert!(j.work_s.is_finite() && j.work_s > 0.0, "{format}: {j:?}");
                }
                if !skip {
                    assert_eq!(r.bad_line_count, 0);
                }
            }
        }
    }
}

/// Headers of every format, so that random rows reach the field parsers.
const HEADERS: [&str; 9] = [
    "job_id,arrival_s,n_gpus,duration_s,model\n",
    "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n",
    "timestamp,duration,num_gpus,gpu_time,cluster\n",
    "name,time,application,num_replicas,batch_size\n",
    "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n",
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n",
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n",
    "A\tc\td\t--n\t1\t",
    "[{\"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": [{\"start_time\": ",
];

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("2017-10-01 00:00:00".to_owned()),
        Just("None".to_owned()),
        Just("cifar10".to_owned()),
        Just("1e308".to_owned()),
        Just("-1".to_owned()),
        Just("NaN".to_owned()),
        (0u64..10_000_000).prop_map(|n| n.to_string()),
        (0.0f64..1e7).prop_map(|x| x.to_string()),
        "[ -~]{0,12}",
        "\\PC{0,6}",
    ]
}

fn row() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(cell(), 0..13),
        prop::sample::select(vec![",", "\t", "\", \""]),
    )
        .prop_map(|(cells, sep)| cells.join(sep))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes);
    }

    #[test]
    fn header_plus_random_rows_never_panic(
        h in 0usize..HEADERS.len(),
        rows in prop::collection::vec(row(), 0..6),
        end in prop::sample::select(vec!["", "\n", "\r\n", "\"}]}]", "]"]),
    ) {
        let text = format!("{}{}{}", HEADERS[h], rows.join("\n"), end);
        check(text.as_bytes());
    }

    #[test]
    fn gzip_of_anything_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&bytes).unwrap();
        check(&enc.finish().unwrap());
        let mut truncated = vec![0x1f, 0x8b];
        truncated.extend_from_slice(&bytes);
        check(&truncated);
    }
}
