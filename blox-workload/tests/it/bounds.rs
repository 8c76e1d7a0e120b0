//! Values beyond what a trace may hold (`MAX_TRACE_SECONDS`) are malformed lines naming file,
//! line and field, in every reader: a duration of 10^12 s, an arrival of 10^15 s and 10^308 once
//! exhausted memory in the engine instead.

use blox_workload::{
    parse_gavel, parse_trace, GavelThroughputs, ReadOptions, TraceFormat, MAX_TRACE_SECONDS,
};
use std::path::Path;

fn err(format: TraceFormat, text: &str) -> String {
    parse_trace(
        text.as_bytes(),
        Path::new("t.csv"),
        format,
        &ReadOptions::default(),
    )
    .map(|r| format!("unexpected success: {:?}", r.jobs))
    .unwrap_or_else(|e| e.to_string())
}

/// The error of `text` names line `line` and field `field` and says the value is too large.
#[track_caller]
fn too_large(format: TraceFormat, text: &str, line: u64, field: &str) {
    let e = err(format, text);
    let want = format!("t.csv:{line}: field `{field}`: ");
    assert!(e.starts_with(&want), "{format}: want `{want}…`, got `{e}`");
    assert!(
        e.contains("beyond the largest time a trace may hold"),
        "{format}: {e}"
    );
}

#[test]
fn the_bound_is_about_thirty_years() {
    assert_eq!(MAX_TRACE_SECONDS, 1e9);
    // Exactly the bound is accepted; just above it is not.
    let ok = parse_trace(
        b"job_id,arrival_s,n_gpus,duration_s\na,1e9,1,1e9\n",
        Path::new("t.csv"),
        TraceFormat::Canonical,
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(ok.jobs[0].arrival.as_secs(), 1_000_000_000);
    too_large(
        TraceFormat::Canonical,
        "job_id,arrival_s,n_gpus,duration_s\na,0,1,1000000000.5\n",
        2,
        "duration_s",
    );
}

#[test]
fn every_csv_reader_refuses_huge_arrivals_and_durations() {
    use TraceFormat::*;
    for big in ["1e12", "1e15", "1e308"] {
        let h = "job_id,arrival_s,n_gpus,duration_s\n";
        too_large(
            Canonical,
            &format!("{h}a,0,1,10\nb,0,1,{big}\n"),
            3,
            "duration_s",
        );
        too_large(Canonical, &format!("{h}a,{big},1,10\n"), 2, "arrival_s");
        let h = "job_id,submission_time,duration,num_gpu\n";
        too_large(Itp, &format!("{h}a,0,{big},1"), 2, "duration");
        too_large(Itp, &format!("{h}a,{big},10,1"), 2, "submission_time");
        let h = "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";
        too_large(Itp, &format!("{h}a,0,1,bert,{big},8,1,10\n"), 2, "deadline");
        let h = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n";
        too_large(
            Tiresias,
            &format!("{h}0,1,0,1,vgg19,{big},0\n"),
            2,
            "duration",
        );
        too_large(
            Tiresias,
            &format!("{h}0,1,{big},1,vgg19,10,0\n"),
            2,
            "submit_time",
        );
        let h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
        too_large(
            Pollux,
            &format!("{h}2017-10-09 07:01:55,{big},1,1,c\n"),
            2,
            "duration",
        );
        let h = "name,time,application,num_replicas,batch_size\n";
        too_large(Pollux, &format!("{h}bert-0,{big},bert,1,8\n"), 2, "time");
        let h = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
        too_large(
            Alibaba2023,
            &format!("{h}p,1000,1024,1,1000,,LS,Running,0,{big},0\n"),
            2,
            "deletion_time",
        );
        too_large(
            Alibaba2023,
            &format!("{h}p,1000,1024,1,1000,,LS,Running,{big},10,0\n"),
            2,
            "creation_time",
        );
        let h = "job_id,gpu_num,submit_time,duration\n";
        too_large(Helios, &format!("{h}a,1,0,{big}\n"), 2, "duration");
    }
    // Wall-clock arrivals far from the time origin.
    let h = "job_id,gpu_num,submit_time,duration\n";
    too_large(
        TraceFormat::Helios,
        &format!("{h}a,1,0,10\nb,1,1e15,10\n"),
        3,
        "submit_time",
    );
    let h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
    too_large(
        TraceFormat::Pollux,
        &format!("{h}2017-10-09 07:01:55,10,1,1,c\n9999-01-01 00:00:00,10,1,1,c\n"),
        3,
        "timestamp",
    );
}

#[test]
fn philly_and_gavel_refuse_huge_derived_values() {
    let philly = r#"[
{"jobid": "a", "user": "u", "submitted_time": "2017-10-01 00:00:00",
 "attempts": [{"start_time": "2017-10-01 00:00:00", "end_time": "9999-10-01 00:00:00",
   "detail": [{"ip": "m", "gpus": ["g0"]}]}]}
]"#;
    too_large(TraceFormat::Philly, philly, 2, "attempts");
    let mut table = GavelThroughputs::new();
    table.insert("v100", "A", 1, 1.0);
    let gavel = |line: &str| {
        parse_gavel(
            line.as_bytes(),
            Path::new("t.trace"),
            &table,
            &ReadOptions::default(),
        )
        .map(|r| format!("unexpected success: {:?}", r.jobs))
        .unwrap_or_else(|e| e.to_string())
    };
    let e = gavel("A\tcmd\tdir\t-n\t1\t1e12\t1\t1\t-1\t0\n");
    assert!(
        e.starts_with("t.trace:1: field `total_steps`: ") && e.contains("beyond the largest"),
        "{e}"
    );
    let e = gavel("A\tcmd\tdir\t-n\t1\t10\t1\t1\t-1\t1e15\n");
    assert!(
        e.starts_with("t.trace:1: field `arrival_time`: ") && e.contains("beyond the largest"),
        "{e}"
    );
    let e = gavel("A\tcmd\tdir\t-n\t1\t10\t1\t1\t1e300\t0\n");
    assert!(
        e.starts_with("t.trace:1: field `SLO`: ") && e.contains("beyond the largest"),
        "{e}"
    );
}

#[test]
fn skipping_bad_lines_skips_huge_values_too() {
    let r = parse_trace(
        b"job_id,arrival_s,n_gpus,duration_s\na,0,1,10\nb,0,1,1e12\n",
        Path::new("t.csv"),
        TraceFormat::Canonical,
        &ReadOptions::default().with_skip_bad_lines(true),
    )
    .unwrap();
    assert_eq!((r.jobs.len(), r.bad_line_count), (1, 1));
}
