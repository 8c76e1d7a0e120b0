//! Cluster management through the program: node events, random failures, checkpoints, the
//! failure-rate sweep, and outputs of runs without any of it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn blox_sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blox-nodes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A light workload on 4x8: 200 jobs at 3 jobs/h, exponential durations of mean 2 h.
const SCENARIO: &str = r#"{"cluster": "4x8", "policy": {"kind": "las"}, "workload": {"kind": "poisson", "load": 3, "jobs": 200, "durations": "exponential:7200", "gpus": "1:0.5,2:0.25,4:0.15,8:0.1"}}"#;

fn scenario(dir: &Path) -> String {
    let p = dir.join("scenario.json");
    std::fs::write(&p, SCENARIO).unwrap();
    p.to_str().unwrap().to_owned()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&read(p)).unwrap()
}

#[test]
fn node_0_out_from_3600_to_7200_completes_every_job_and_reports_it() {
    let dir = tmp("window");
    let ev = dir.join("events.csv");
    std::fs::write(&ev, "time_s,node,event\n3600,0,fail\n7200,0,recover\n").unwrap();
    let out = dir.join("out");
    let (code, _, err) = blox_sim(&[
        "run",
        "--scenario",
        &scenario(&dir),
        "--node-events",
        ev.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let s = json(&out.join("summary.json"));
    assert_eq!(s["cluster"]["node_events"], 2);
    assert!(
        s["run"]["lost_gpu_s"].as_f64().unwrap() > 0.0,
        "{}",
        s["run"]
    );
    assert!(s["run"]["failures_hit"].as_u64().unwrap() > 0);
    assert_eq!(s["run"]["completed"], 200);
    let end_h = s["end_time_s"].as_f64().unwrap() / 3600.0;
    let avail = s["cluster"]["gpu_hours_available"].as_f64().unwrap();
    assert!((avail - (32.0 * end_h - 8.0)).abs() < 1e-6, "{avail}");
    let jobs = read(&out.join("jobs.csv"));
    let mut lines = jobs.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with(",source_id,gpu_types,failures"));
    let mut hit = 0;
    for l in lines {
        let cells: Vec<&str> = l.split(',').collect();
        assert!(!cells[4].is_empty(), "every job completes: {l}");
        hit += cells.last().unwrap().parse::<u64>().unwrap();
    }
    assert_eq!(hit, s["run"]["failures_hit"].as_u64().unwrap());
    let timeline = read(&out.join("timeline.csv"));
    assert!(timeline
        .lines()
        .next()
        .unwrap()
        .ends_with(",available_gpus"));
    for l in timeline.lines().skip(1) {
        let cells: Vec<&str> = l.split(',').collect();
        let t: f64 = cells[0].parse().unwrap();
        let want = if (3600.0..7200.0).contains(&t) {
            "24"
        } else {
            "32"
        };
        assert_eq!(*cells.last().unwrap(), want, "{l}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn run_failures(dir: &Path, name: &str, seed: &str) -> PathBuf {
    let out = dir.join(name);
    let (code, _, err) = blox_sim(&[
        "run",
        "--scenario",
        &scenario(dir),
        "--failures",
        "mtbf=20,mttr=1",
        "--checkpoint-interval",
        "900",
        "--max-sim-time",
        "1e9",
        "--seed",
        seed,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn seeded_failures_are_byte_identical() {
    let dir = tmp("seeded");
    let files = [
        "jobs.csv",
        "timeline.csv",
        "summary.json",
        "fairness.csv",
        "jct_cdf.csv",
        "timeline.svg",
    ];
    let a = run_failures(&dir, "a", "5");
    let first: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(a.join(f)).unwrap())
        .collect();
    // Again into the same folder (summary.json names it).
    let a = run_failures(&dir, "a", "5");
    for (f, x) in files.iter().zip(&first) {
        assert!(
            *x == std::fs::read(a.join(f)).unwrap(),
            "{f} differs between two runs of seed 5"
        );
    }
    let c = run_failures(&dir, "c", "6");
    assert_ne!(read(&a.join("jobs.csv")), read(&c.join("jobs.csv")));
    let s = json(&a.join("summary.json"));
    assert!(s["cluster"]["node_events"].as_u64().unwrap() > 10);
    assert!(s["run"]["lost_gpu_s"].as_f64().unwrap() > 0.0);
    assert_eq!(s["config"]["failures"], "mtbf=20,mttr=1");
    assert_eq!(s["config"]["checkpoint_interval_s"], 900.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn average_jct_rises_with_the_failure_rate_in_a_sweep() {
    let dir = tmp("sweep");
    let out = dir.join("sweep");
    let (code, _, err) = blox_sim(&[
        "sweep",
        "--scenario",
        &scenario(&dir),
        "--failures",
        "none;mtbf=200,mttr=0.5;mtbf=50,mttr=0.5;mtbf=12.5,mttr=0.5;mtbf=3,mttr=0.5",
        "--max-sim-time",
        "1e9",
        "--seed",
        "1..4",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let results = read(&out.join("results.csv"));
    let mut lines = results.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let jct = header.iter().position(|h| *h == "avg_jct_s").unwrap();
    let rate = header.iter().position(|h| *h == "failure_rate").unwrap();
    let mut by_rate: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        let r: f64 = if c[rate].is_empty() {
            0.0
        } else {
            c[rate].parse().unwrap()
        };
        by_rate
            .entry(r.to_bits())
            .or_default()
            .push(c[jct].parse().unwrap());
    }
    assert_eq!(by_rate.len(), 5);
    let means: Vec<f64> = by_rate
        .values()
        .map(|v| {
            assert_eq!(v.len(), 4, "four seeds per rate");
            v.iter().sum::<f64>() / 4.0
        })
        .collect();
    // BTreeMap over the bits of non-negative floats iterates by increasing rate.
    assert!(
        means.windows(2).all(|w| w[0] < w[1]),
        "not monotone: {means:?}"
    );
    let svg = read(&out.join("jct_vs_failure_rate.svg"));
    assert!(svg.contains("failures per node-hour"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_node_events_and_flags_are_clear_errors() {
    let dir = tmp("bad");
    let ev = dir.join("ev.csv");
    std::fs::write(&ev, "time_s,node,event\n10,0,leave\n20,1,melt\n").unwrap();
    let (code, _, err) = blox_sim(&[
        "run",
        "--cluster",
        "4x8",
        "--node-events",
        ev.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ev.csv:3") && err.contains("`event`") && err.contains("melt"),
        "{err}"
    );
    std::fs::write(&ev, "10,9,fail\n").unwrap();
    let (code, _, err) = blox_sim(&[
        "run",
        "--cluster",
        "4x8",
        "--node-events",
        ev.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ev.csv:1") && err.contains("node 9 does not exist"),
        "{err}"
    );
    let (code, _, err) = blox_sim(&["run", "--failures=mtbf=-1,mttr=1"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--failures") && err.contains("mtbf=-1"),
        "{err}"
    );
    let (code, _, err) = blox_sim(&["run", "--checkpoint-interval=-5"]);
    assert_eq!(code, 2);
    assert!(err.contains("--checkpoint-interval"), "{err}");
    let (code, _, err) = blox_sim(&["run", "--autoscale", "min_nodes=4,max_nodes=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--autoscale"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_autoscaler_grows_a_small_cluster_under_load() {
    let dir = tmp("auto");
    let sc = dir.join("s.json");
    std::fs::write(
        &sc,
        r#"{"cluster": "1x8", "workload": {"kind": "poisson", "load": 6, "jobs": 100, "durations": "exponential:7200", "gpus": "1:0.5,2:0.25,4:0.15,8:0.1"}}"#,
    )
    .unwrap();
    let out = dir.join("o");
    let (code, _, err) = blox_sim(&[
        "run",
        "--scenario",
        sc.to_str().unwrap(),
        "--autoscale",
        "min_nodes=1,max_nodes=4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let s = json(&out.join("summary.json"));
    assert!(s["cluster"]["node_events"].as_u64().unwrap() > 0);
    assert_eq!(s["run"]["completed"], 100);
    let mut max = 0;
    for l in read(&out.join("timeline.csv")).lines().skip(1) {
        let a: u32 = l.rsplit(',').next().unwrap().parse().unwrap();
        assert!(
            (8..=32).contains(&a),
            "within min_nodes..max_nodes nodes of 8: {a}"
        );
        max = max.max(a);
    }
    assert!(max > 8, "it grew");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runs_without_cluster_management_keep_their_formats() {
    let dir = tmp("plain");
    let out = dir.join("o");
    let (code, _, err) = blox_sim(&[
        "run",
        "--scenario",
        &scenario(&dir),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        read(&out.join("jobs.csv")).lines().next().unwrap(),
        blox_metrics::JOBS_CSV_HEADER
    );
    assert_eq!(
        read(&out.join("timeline.csv")).lines().next().unwrap(),
        blox_metrics::TIMELINE_CSV_HEADER
    );
    let s = read(&out.join("summary.json"));
    for k in [
        "node_events",
        "gpu_hours_available",
        "lost_gpu_s",
        "failures_hit",
        "checkpoint_interval_s",
        "autoscale",
    ] {
        assert!(!s.contains(k), "summary.json has {k}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
