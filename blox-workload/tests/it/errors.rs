//! One test per error path: each message names file, line and field.

use blox_workload::{
    parse_gavel, parse_trace, read_trace, GavelThroughputs, ReadOptions, TraceFormat,
};
use std::path::Path;

fn err(format: TraceFormat, text: &str) -> String {
    parse_trace(
        text.as_bytes(),
        Path::new("t.csv"),
        format,
        &ReadOptions::default(),
    )
    .map(|r| format!("unexpected success: {} jobs", r.jobs.len()))
    .unwrap_or_else(|e| e.to_string())
}

#[test]
fn canonical_errors() {
    use TraceFormat::Canonical as C;
    assert_eq!(
        err(C, "job_id,arrival_s,n_gpus,duration_s\na,0,0,10\n"),
        "t.csv:2: field `n_gpus`: `0` is not a whole number of GPUs ≥ 1"
    );
    assert_eq!(
        err(C, "job_id,arrival_s,n_gpus,duration_s\na,-3,1,10\n"),
        "t.csv:2: field `arrival_s`: `-3` is not a number ≥ 0"
    );
    assert_eq!(
        err(C, "job_id,arrival_s,n_gpus,duration_s\na,0,1\n"),
        "t.csv:2: field `duration_s`: missing value"
    );
    assert_eq!(
        err(C, "job_id,arrival_s,n_gpus,duration_s\na,0,1,0\n"),
        "t.csv:2: field `duration_s`: `0` is not a duration in seconds > 0"
    );
    assert!(err(C, "job_id,arrival_s,n_gpus\n")
        .starts_with("t.csv:1: field `duration_s`: missing column"));
    assert_eq!(err(C, ""), "t.csv:1: empty input: expected a header row");
}

#[test]
fn itp_errors() {
    use TraceFormat::Itp as I;
    let h = "job_id,submission_time,duration,num_gpu\n";
    assert_eq!(
        err(I, &format!("{h}a,0,600,1\nb,x,600,1")),
        "t.csv:3: field `submission_time`: `x` is not a number ≥ 0"
    );
    assert_eq!(
        err(I, &format!("{h}a,0,-600,1")),
        "t.csv:2: field `duration`: `-600` is not a number ≥ 0"
    );
    assert_eq!(
        err(I, &format!("{h}a,0,600,1.5")),
        "t.csv:2: field `num_gpu`: `1.5` is not a whole number ≥ 0"
    );
    assert_eq!(
        err(
            I,
            "job_id,submission_time,duration,num_gpu,deadline\na,0,600,1,soon"
        ),
        "t.csv:2: field `deadline`: `soon` is not a number ≥ 0"
    );
    assert!(err(I, "job_id,duration,num_gpu\n")
        .starts_with("t.csv:1: field `submission_time`: missing column `submission_time`"));
}

#[test]
fn pollux_errors() {
    use TraceFormat::Pollux as P;
    assert_eq!(
        err(P, "name,time,application,num_replicas,batch_size\nx-0,5,gpt9,1,32\n"),
        "t.csv:2: field `application`: unknown application `gpt9` (known: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)"
    );
    assert_eq!(
        err(P, "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09,1,1,1,a\n"),
        "t.csv:3: field `timestamp`: `2017-10-09` is not a `YYYY-MM-DD HH:MM:SS` time"
    );
    assert!(err(P, "a,b\n1,2\n").starts_with("t.csv:1: field `name`: missing column"));
}

#[test]
fn tiresias_errors() {
    assert_eq!(
        err(
            TraceFormat::Tiresias,
            "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\r\n0,1,0,606,vgg19,,30\r\n"
        ),
        "t.csv:2: field `duration`: missing value"
    );
}

#[test]
fn alibaba_errors() {
    let h = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    assert_eq!(
        err(
            TraceFormat::Alibaba2023,
            &format!("{h}p,1000,10,1,1000,,LS,Running,0,10,later\n")
        ),
        "t.csv:2: field `scheduled_time`: `later` is not a number ≥ 0"
    );
    // Filters, not errors.
    let r = parse_trace(
        format!("{h}a,1000,10,0,0,,LS,Running,0,10,0\nb,1000,10,1,500,,BE,Pending,5,9,\nc,1,1,2,1000,,LS,Running,7,9,9\nd,1,1,1,300,,LS,Running,7,19,8\n").as_bytes(),
        Path::new("p.csv"),
        TraceFormat::Alibaba2023,
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(r.jobs.len(), 1);
    assert_eq!(r.jobs[0].n_gpus, 1, "a fractional pod counts as one GPU");
    assert_eq!(r.jobs[0].work_s, 11.0);
    assert_eq!(r.filtered_count(), 3);
}

fn table() -> GavelThroughputs {
    let mut t = GavelThroughputs::new();
    t.insert("v100", "ResNet-18 (batch size 128)", 4, 2.0);
    t
}

fn gavel_err(text: &str) -> String {
    parse_gavel(
        text.as_bytes(),
        Path::new("g.trace"),
        &table(),
        &ReadOptions::default(),
    )
    .map(|_| "unexpected success".to_owned())
    .unwrap_or_else(|e| e.to_string())
}

#[test]
fn gavel_errors_and_values() {
    let row = |steps: &str, scale: &str, slo: &str, arr: &str| {
        format!("ResNet-18 (batch size 128)\tpython3 main.py\tdir\t--num_steps\t1\t{steps}\t{scale}\t1\t{slo}\t{arr}\n")
    };
    let ok = parse_gavel(
        format!(
            "{}\r\n\n{}",
            row("100", "4", "-1.000000", "0").trim_end(),
            row("10", "4", "2.0", "30")
        )
        .as_bytes(),
        Path::new("g.trace"),
        &table(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(ok.jobs.len(), 2);
    assert_eq!(ok.jobs[0].work_s, 50.0);
    assert_eq!(ok.jobs[1].deadline, Some(blox_core::Time::from_secs(40)));
    assert_eq!(
        gavel_err("a\tb\tc\n"),
        "g.trace:1: field `num_steps_arg`: expected 10 tab-separated fields, found 3"
    );
    assert_eq!(
        gavel_err(&row("many", "4", "-1", "0")),
        "g.trace:1: field `total_steps`: `many` is not a step count ≥ 0"
    );
    assert_eq!(
        gavel_err(&row("5", "3", "-1", "0")),
        "g.trace:1: field `job_type`: no isolated throughput for (`ResNet-18 (batch size 128)`, 3) on worker type `v100` in the Gavel throughput table"
    );
    assert_eq!(
        gavel_err(&row("5", "4", "-1", "-7")),
        "g.trace:1: field `arrival_time`: `-7` is not a time in seconds ≥ 0"
    );
    let e = GavelThroughputs::from_json(b"[1]", Path::new("thr.json")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("thr.json:1: not a Gavel throughput table"),
        "{e}"
    );
}

#[test]
fn gavel_without_a_throughput_table_is_an_error() {
    let dir = std::env::temp_dir().join(format!("blox-workload-gavel-{}", std::process::id()));
    let sub = dir.join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    let p = sub.join("x.trace");
    std::fs::write(&p, "").unwrap();
    let e = read_trace(&p, TraceFormat::Gavel, &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("field `total_steps`: a Gavel trace gives steps"),
        "{e}"
    );
    // With a table beside it, an empty trace reads as no jobs.
    std::fs::write(
        sub.join("simulation_throughputs.json"),
        r#"{"v100": {"('ResNet-18 (batch size 128)', 4)": {"null": 2.0}}}"#,
    )
    .unwrap();
    let r = read_trace(&p, TraceFormat::Gavel, &ReadOptions::default()).unwrap();
    assert!(r.jobs.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn io_and_gzip_errors() {
    let e = read_trace(
        Path::new("/nonexistent/trace.csv"),
        TraceFormat::Itp,
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(e.is_io());
    assert!(e.to_string().starts_with("/nonexistent/trace.csv: "), "{e}");
    let e = parse_trace(
        &[0x1f, 0x8b, 0x08, 0x00, 0xff],
        Path::new("x.csv.gz"),
        TraceFormat::Itp,
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("x.csv.gz: corrupt gzip data"),
        "{e}"
    );
}

#[test]
fn skip_bad_lines_counts_and_keeps_examples() {
    let mut text = String::from("job_id,submission_time,duration,num_gpu\n");
    for i in 0..30 {
        if i % 2 == 0 {
            text.push_str(&format!("j{i},{i},600,1\n"));
        } else {
            text.push_str(&format!("j{i},{i},600,x\n"));
        }
    }
    text.push_str("bad,\u{0}\u{1},\"unterminated\n");
    let opts = ReadOptions::default().with_skip_bad_lines(true);
    let r = parse_trace(text.as_bytes(), Path::new("s.csv"), TraceFormat::Itp, &opts).unwrap();
    assert_eq!(r.jobs.len(), 15);
    assert_eq!(r.bad_line_count, 16);
    assert_eq!(r.bad_lines.len(), blox_workload::MAX_KEPT_BAD_LINES);
    assert_eq!(
        r.bad_lines[0].to_string(),
        "s.csv:3: field `num_gpu`: `x` is not a whole number ≥ 0"
    );
    // A bad header is fatal even when skipping.
    assert!(parse_trace(b"a,b\n1,2\n", Path::new("s.csv"), TraceFormat::Itp, &opts).is_err());
}

#[test]
fn read_traces_merges_stably_by_arrival() {
    let dir = std::env::temp_dir().join(format!("blox-workload-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.csv");
    let b = dir.join("b.csv");
    std::fs::write(
        &a,
        "job_id,submission_time,duration,num_gpu\na1,10,600,1\na2,30,600,1",
    )
    .unwrap();
    std::fs::write(
        &b,
        "job_id,arrival_s,n_gpus,duration_s\nb1,10,2,5\nb2,0,1,5\n",
    )
    .unwrap();
    let r = blox_workload::read_traces(
        &[(a, TraceFormat::Itp), (b, TraceFormat::Canonical)],
        &ReadOptions::default(),
    )
    .unwrap();
    let ids: Vec<_> = r
        .jobs
        .iter()
        .map(|j| j.source_id.as_deref().unwrap())
        .collect();
    assert_eq!(ids, ["b2", "a1", "b1", "a2"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
