//! Hand-written samples for the formats whose real files are not shipped (Philly
//! `cluster_job_log`, Helios `cluster_log.csv`), following their published schemas.

use blox_core::Time;
use blox_workload::{parse_trace, PhillyMode, ReadOptions, TraceFormat, TraceRead, WorkloadError};
use std::path::Path;

/// Philly jobs, one per line group:
/// 1. two valid attempts (600 s on 2 GPUs, then 1,500 s on 4 GPUs): summed 2,100 s;
/// 2. no attempts (dropped before t0, as Blox does; its earlier submit time is ignored);
/// 3. last attempt has `None` end time (Blox drops it; trace mode keeps the first, 3,000 s);
/// 4. one attempt of 700,000 s (outside Blox's range);
/// 5. one attempt of 1,800 s (below Blox's minimum 1,897.4 s);
/// 6. attempt with zero GPUs only (no valid attempt);
/// 7. 5,000 s on 8 GPUs over two machines.
const PHILLY: &str = r#"[
{"status": "Pass", "vc": "vc1", "jobid": "application_1", "user": "u1",
 "submitted_time": "2017-10-01 00:00:10",
 "attempts": [
  {"start_time": "2017-10-01 00:01:00", "end_time": "2017-10-01 00:11:00",
   "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]},
  {"start_time": "2017-10-01 01:00:00", "end_time": "2017-10-01 01:25:00",
   "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]},
{"status": "Killed", "vc": "vc1", "jobid": "application_2", "user": "u2",
 "submitted_time": "2017-09-01 00:00:00", "attempts": []},
{"status": "Failed", "vc": "vc2", "jobid": "application_3", "user": "u1",
 "submitted_time": "2017-10-01 00:00:00",
 "attempts": [
  {"start_time": "2017-10-01 00:00:00", "end_time": "2017-10-01 00:50:00",
   "detail": [{"ip": "m1", "gpus": ["gpu0"]}]},
  {"start_time": "2017-10-01 02:00:00", "end_time": "None",
   "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]},
{"status": "Pass", "vc": "vc2", "jobid": "application_4", "user": "u3",
 "submitted_time": "2017-10-02 00:00:00",
 "attempts": [{"start_time": "2017-10-02 00:00:00", "end_time": "2017-10-10 02:26:40",
   "detail": [{"ip": "m3", "gpus": ["gpu0"]}]}]},
{"status": "Pass", "vc": "vc2", "jobid": "application_5", "user": "u3",
 "submitted_time": "2017-10-03 00:00:00",
 "attempts": [{"start_time": "2017-10-03 00:00:00", "end_time": "2017-10-03 00:30:00",
   "detail": [{"ip": "m3", "gpus": ["gpu0"]}]}]},
{"status": "Pass", "vc": "vc2", "jobid": "application_6", "user": "u3",
 "submitted_time": "2017-10-03 00:00:00",
 "attempts": [{"start_time": "2017-10-03 00:00:00", "end_time": "2017-10-03 05:00:00",
   "detail": [{"ip": "m3", "gpus": []}]}]},
{"status": "Pass", "vc": "vc3", "jobid": "application_7", "user": "u4",
 "submitted_time": "2017-10-04 00:00:00",
 "attempts": [{"start_time": "2017-10-04 00:00:00", "end_time": "2017-10-04 01:23:20",
   "detail": [{"ip": "m4", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]},
              {"ip": "m5", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]}
]"#;

fn philly(mode: PhillyMode) -> TraceRead {
    let opts = ReadOptions::default().with_philly_mode(mode);
    parse_trace(
        PHILLY.as_bytes(),
        Path::new("cluster_job_log"),
        TraceFormat::Philly,
        &opts,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn philly_trace_mode_keeps_arrivals_summed_durations_and_gpus() {
    let r = philly(PhillyMode::Trace);
    let got: Vec<(Option<&str>, u64, u32, f64)> = r
        .jobs
        .iter()
        .map(|j| {
            (
                j.source_id.as_deref(),
                j.arrival.as_secs(),
                j.n_gpus,
                j.work_s,
            )
        })
        .collect();
    // t0 is 2017-10-01 00:00:00 (job 3): the attempt-less job 2 does not count.
    assert_eq!(
        got,
        vec![
            (Some("application_1"), 10, 4, 2_100.0),
            (Some("application_3"), 0, 1, 3_000.0),
            (Some("application_4"), 86_400, 1, 700_000.0),
            (Some("application_5"), 2 * 86_400, 1, 1_800.0),
            (Some("application_7"), 3 * 86_400, 8, 5_000.0),
        ]
    );
    assert_eq!(r.jobs[0].tenant.as_deref(), Some("u1"));
    assert_eq!(r.filtered.get("no attempts"), Some(&1));
    assert_eq!(r.filtered.get("no valid attempt"), Some(&1));
}

#[test]
fn philly_blox_mode_applies_blox_filter() {
    let r = philly(PhillyMode::Blox);
    let got: Vec<(Option<&str>, u32, u32, f64)> = r
        .jobs
        .iter()
        .map(|j| (j.source_id.as_deref(), j.n_gpus, j.class_id, j.work_s))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("application_1"), 1, 0, 2_100.0),
            (Some("application_7"), 1, 1, 5_000.0),
        ]
    );
    assert_eq!(r.filtered.get("no attempts"), Some(&1));
    // Job 3 (last attempt None) and job 6 (no GPUs).
    assert_eq!(r.filtered.get("last attempt invalid"), Some(&2));
    assert_eq!(r.filtered.get("outside Blox's duration range"), Some(&2));
    assert_eq!(r.jobs.len() + r.filtered_count() as usize, 7);
    // Blox's bounds.
    assert_eq!(blox_workload::BLOX_PHILLY_MIN_S, 60.0 * 10f64.powf(1.5));
}

#[test]
fn philly_blox_multigpu_mode_keeps_the_last_attempts_gpu_count() {
    let r = philly(PhillyMode::BloxMultiGpu);
    let got: Vec<(Option<&str>, u32, u32)> = r
        .jobs
        .iter()
        .map(|j| (j.source_id.as_deref(), j.n_gpus, j.class_id))
        .collect();
    // Job 1 ran on 2 GPUs, then 4: the last attempt's count, not the largest, as Blox.
    assert_eq!(
        got,
        vec![(Some("application_1"), 4, 0), (Some("application_7"), 8, 1)]
    );
    let dir = std::env::temp_dir().join(format!("blox-workload-philly-mg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("cluster_job_log");
    std::fs::write(&p, PHILLY).unwrap();
    assert_eq!(
        blox_workload::philly_blox_gpu_counts(&p).unwrap(),
        vec![4, 8]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn philly_blox_trace_jobs_reads_a_file() {
    let dir = std::env::temp_dir().join(format!("blox-workload-philly-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("cluster_job_log");
    std::fs::write(&p, PHILLY).unwrap();
    assert_eq!(blox_workload::philly_blox_trace_jobs(&p).unwrap(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn philly_err(json: &str) -> String {
    parse_trace(
        json.as_bytes(),
        Path::new("log.json"),
        TraceFormat::Philly,
        &ReadOptions::default(),
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn philly_errors_name_the_line_of_the_job() {
    let e = philly_err("[\n{\"attempts\": [{}], \"submitted_time\": \"2017-10-01 00:00:00\"},\n{\"attempts\": [{}], \"submitted_time\": \"yesterday\"}\n]");
    assert_eq!(
        e,
        "log.json:3: field `submitted_time`: `yesterday` is not a `YYYY-MM-DD HH:MM:SS` time"
    );
    let e = philly_err("[{\"attempts\": 3, \"submitted_time\": \"2017-10-01 00:00:00\"}]");
    assert_eq!(e, "log.json:1: field `attempts`: must be an array");
    let e = philly_err(
        "[\n\n{\"attempts\": [{\"start_time\": 5}], \"submitted_time\": \"2017-10-01 00:00:00\"}]",
    );
    assert_eq!(
        e,
        "log.json:3: field `start_time`: must be a time string or null"
    );
    let e = philly_err(
        "[{\"attempts\": [{\"detail\": {}}], \"submitted_time\": \"2017-10-01 00:00:00\"}]",
    );
    assert_eq!(e, "log.json:1: field `detail`: must be an array");
    let e = philly_err("[1]");
    assert_eq!(e, "log.json:1: a job must be a JSON object");
    let e = philly_err("{\"jobs\": []}");
    assert!(
        e.starts_with("log.json:1: not a Philly cluster_job_log"),
        "{e}"
    );
    let e = philly_err("[\n{},\n");
    assert!(
        e.starts_with("log.json:3: not a Philly cluster_job_log"),
        "{e}"
    );
    // Skipping: the bad job is counted, the rest read.
    let opts = ReadOptions::default().with_skip_bad_lines(true);
    let r = parse_trace(
        b"[1, {\"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": \"2017-10-01 01:00:00\", \"detail\": [{\"gpus\": [0]}]}], \"submitted_time\": \"2017-10-01 00:00:00\"}]",
        Path::new("log.json"),
        TraceFormat::Philly,
        &opts,
    )
    .unwrap();
    assert_eq!((r.jobs.len(), r.bad_line_count), (1, 1));
    assert_eq!(r.jobs[0].work_s, 3600.0);
}

/// A sample in the HeliosData `cluster_log.csv` layout (columns as published: job_id, user, vc,
/// gpu_num, cpu_num, node_num, state, submit_time, start_time, end_time, duration, queue).
const HELIOS: &str = "\
job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
2,uA,vc1,8,48,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:00:12,2020-04-01 01:00:12,3600,2
1,uB,vc1,0,4,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:01,2020-04-01 00:10:01,600,1
3,uA,vc2,1,6,1,CANCELLED,2020-04-01 00:01:40,2020-04-01 00:01:40,2020-04-01 00:01:40,0,0
4,uC,vc2,16,96,2,FAILED,2020-04-01 00:02:00,2020-04-01 00:03:00,2020-04-01 00:04:00,60,60
";

#[test]
fn helios_sample_follows_the_schema() {
    let r = parse_trace(
        HELIOS.as_bytes(),
        Path::new("cluster_log.csv"),
        TraceFormat::Helios,
        &ReadOptions::default(),
    )
    .unwrap();
    type Seen<'a> = (
        Option<&'a str>,
        Time,
        u32,
        f64,
        Option<f64>,
        Option<&'a str>,
    );
    let got: Vec<Seen<'_>> = r
        .jobs
        .iter()
        .map(|j| {
            (
                j.source_id.as_deref(),
                j.arrival,
                j.n_gpus,
                j.work_s,
                j.cpus,
                j.tenant.as_deref(),
            )
        })
        .collect();
    // The CPU-only job 1 (earliest) is filtered, so time zero is job 2's submission.
    assert_eq!(
        got,
        vec![
            (Some("2"), Time::ZERO, 8, 3600.0, Some(48.0), Some("uA")),
            (
                Some("4"),
                Time::from_secs(110),
                16,
                60.0,
                Some(96.0),
                Some("uC")
            ),
        ]
    );
    assert_eq!(r.filtered.get("CPU-only job"), Some(&1));
    assert_eq!(r.filtered.get("zero duration"), Some(&1));
    // A shared time origin.
    let opts = ReadOptions::default()
        .with_time_origin(blox_workload::parse_datetime("2020-04-01 00:00:00"));
    let r = parse_trace(
        HELIOS.as_bytes(),
        Path::new("c.csv"),
        TraceFormat::Helios,
        &opts,
    )
    .unwrap();
    assert_eq!(r.jobs[0].arrival, Time::from_secs(10));
}

#[test]
fn helios_errors() {
    let check = |text: &str, want: &str| {
        let e: WorkloadError = parse_trace(
            text.as_bytes(),
            Path::new("h.csv"),
            TraceFormat::Helios,
            &ReadOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), want);
    };
    check(
        "job_id,gpu_num,submit_time\n1,1,0\n",
        "h.csv:1: field `duration`: missing column `duration` in the header (a Helios cluster_log.csv needs job_id,gpu_num,submit_time,duration)",
    );
    check(
        "job_id,gpu_num,submit_time,duration\n1,1,April,5\n",
        "h.csv:2: field `submit_time`: `April` is not a `YYYY-MM-DD HH:MM:SS` time or seconds ≥ 0",
    );
    check(
        "job_id,gpu_num,submit_time,duration\n1,-1,0,5\n",
        "h.csv:2: field `gpu_num`: `-1` is not a whole number ≥ 0",
    );
    // A timestamp before a user-given origin.
    let opts = ReadOptions::default().with_time_origin(Some(100));
    let e = parse_trace(
        b"job_id,gpu_num,submit_time,duration\n1,1,50,5\n",
        Path::new("h.csv"),
        TraceFormat::Helios,
        &opts,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "h.csv:2: field `submit_time`: timestamp is before the time origin (100 s)"
    );
}
