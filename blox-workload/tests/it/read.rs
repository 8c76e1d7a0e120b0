//! Tests of `read` (the library's `src/read/mod.rs`) through the public API.

use blox_workload::*;
use std::path::Path;

#[test]
fn format_names_round_trip() {
    for f in TraceFormat::ALL {
        assert_eq!(f.name().parse::<TraceFormat>().unwrap(), f);
        assert_eq!(f.to_string(), f.name());
    }
    assert_eq!(
        " Alibaba2023 ".parse::<TraceFormat>().unwrap(),
        TraceFormat::Alibaba2023
    );
    let e = "csv".parse::<TraceFormat>().unwrap_err();
    assert!(e.to_string().contains("unknown trace format `csv`"));
    assert!(e.to_string().contains("helios"));
}

#[test]
fn formats_are_recognised_from_their_headers() {
    let d = |s: &str| TraceFormat::detect(s.as_bytes());
    assert_eq!(
        d("job_id,arrival_s,n_gpus,duration_s\n0,0,1,10\n"),
        Ok(TraceFormat::Canonical)
    );
    assert_eq!(
        d("job_id,submission_time,duration,num_gpu\n"),
        Ok(TraceFormat::Itp)
    );
    assert_eq!(
        d("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n"),
        Ok(TraceFormat::Tiresias)
    );
    assert_eq!(
        d("name,time,application,batch_size\n"),
        Ok(TraceFormat::Pollux)
    );
    assert_eq!(d("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration\n"), Ok(TraceFormat::Helios));
    assert_eq!(d("  [{\"jobid\": 1}]"), Ok(TraceFormat::Philly));
    assert_eq!(
        d("ResNet-50 (batch size 64)\tpython3 main.py\tdir\n"),
        Ok(TraceFormat::Gavel)
    );
    assert_eq!(d("a,b,c\n"), Err(vec![]));
    // A header with both layouts' columns fits both: say which.
    assert_eq!(
        d("job_id,arrival_s,n_gpus,duration_s,submission_time,duration,num_gpu\n"),
        Err(vec![TraceFormat::Canonical, TraceFormat::Itp])
    );
}

#[test]
fn gzip_is_detected_by_magic_bytes() {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"job_id,arrival_s,n_gpus,duration_s\na,0,1,5\n")
        .unwrap();
    let gz = enc.finish().unwrap();
    let r = parse_trace(
        &gz,
        Path::new("x.bin"),
        TraceFormat::Canonical,
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(r.jobs.len(), 1);
    let e = decompress(vec![0x1f, 0x8b, 8, 0, 1, 2], Path::new("bad.gz")).unwrap_err();
    assert!(
        e.to_string().starts_with("bad.gz: corrupt gzip data"),
        "{e}"
    );
}
