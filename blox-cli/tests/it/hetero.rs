//! Heterogeneous GPUs end to end: jobs run at their type's speed, Gavel places by type, and the
//! heterogeneity-aware allocation beats the agnostic one on Gavel's physical-cluster trace.

use blox_cli::{Scenario, WorkloadConfig};
use blox_core::{JobId, Time};
use blox_placement::PlacementConfig;
use blox_policies::PolicyConfig;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blox-sim-hetero-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A model twice as fast on V100 as on K80, in Gavel's table format.
fn write_table(dir: &Path) -> PathBuf {
    let p = dir.join("thr.json");
    std::fs::write(
        &p,
        r#"{"v100": {"('m', 1)": {"null": 2.0}}, "k80": {"('m', 1)": {"null": 1.0}}}"#,
    )
    .unwrap();
    p
}

#[test]
fn jobs_run_at_their_gpu_types_speed_to_the_millisecond() {
    let dir = scratch("speed");
    let table = write_table(&dir);
    let trace = dir.join("jobs.csv");
    // Two 1-GPU jobs of model m (1,000 s on a V100) and one without a model.
    std::fs::write(
        &trace,
        "job_id,arrival_s,n_gpus,duration_s,model\na,0,1,1000,m\nb,0,1,1000,m\nc,3000,1,500,\n",
    )
    .unwrap();
    let s = Scenario {
        workload: WorkloadConfig::Trace {
            paths: vec![trace],
            format: "canonical".into(),
            skip_bad_lines: false,
        },
        cluster: "1x1:v100,1x1:k80".into(),
        placement: "consolidated".parse::<PlacementConfig>().unwrap().into(),
        throughputs: Some(table),
        throughput_model: Some(blox_cli::ThroughputChoice::Constant),
        ..Scenario::default()
    };
    let r = s.run().unwrap();
    let done = |id| r.log.get(JobId(id)).unwrap().completion.unwrap();
    // Job 0 on the V100 (the lower id), job 1 on the K80 at half speed; job 2 has no model and
    // runs at the reference speed on whichever GPU it gets.
    assert_eq!(done(0), Time::from_secs(1000));
    assert_eq!(done(1), Time::from_secs(2000));
    assert_eq!(done(2), Time::from_secs(3500));
    // Without the table, both run 1,000 s.
    let plain = Scenario {
        throughputs: None,
        ..s
    };
    let r = plain.run().unwrap();
    assert_eq!(
        r.log.get(JobId(1)).unwrap().completion,
        Some(Time::from_secs(1000))
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_missing_table_is_a_clear_error_and_one_type_needs_none() {
    let s = Scenario {
        cluster: "1x4:v100+1x4:k80".into(),
        throughputs: Some("/nonexistent/thr.json".into()),
        ..Scenario::default()
    };
    let e = s.run().unwrap_err().to_string();
    assert!(e.contains("/nonexistent/thr.json"), "{e}");
    let s = Scenario {
        cluster: "2x4".into(),
        throughputs: Some("/nonexistent/thr.json".into()),
        ..Scenario::default()
    };
    assert!(s.throughput_table().unwrap().is_none());
}

/// Gavel's `max_min_fairness.trace` in the repository's `traces/` folder (`$BLOX_TRACES`
/// overrides the folder); panics naming the path if it is missing.
fn gavel_trace() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("gavel/physical_cluster/max_min_fairness.trace");
    assert!(
        t.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        t.display(),
        std::env::var_os("BLOX_TRACES")
    );
    t
}

fn avg_jct_h(trace: &Path, policy: &str) -> f64 {
    // Gavel's physical cluster: 8 V100, 16 P100, 24 K80; 6-minute rounds as in Gavel.
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(["run", "--trace"])
        .arg(trace)
        .args([
            "--trace-format",
            "gavel",
            "--cluster",
            "2x4:v100,4x4:p100,3x8:k80",
            "--placement",
            "consolidated",
            "--round",
            "360",
            "--policy",
            policy,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with(policy))
        .unwrap_or_else(|| panic!("no {policy} row in\n{text}"))
        .split_whitespace()
        .collect();
    assert_eq!(row[1], "96", "every job of the trace is tracked:\n{text}");
    row[2].parse().unwrap()
}

#[test]
fn heterogeneity_aware_gavel_beats_the_agnostic_baseline_on_gavels_trace() {
    let trace = gavel_trace();
    let aware = avg_jct_h(&trace, "gavel");
    let agnostic = avg_jct_h(&trace, "gavel:hetero=false");
    // 4.41 h against 5.01 h. The agnostic LP's optimum is far from unique (any split of a job's
    // time over the types is optimal), so the baseline's figure depends on the simplex's vertex
    // (6.86 h with the microlp simplex used earlier): the margin asked for holds for both.
    assert!(
        aware < 0.9 * agnostic,
        "heterogeneity-aware {aware} h vs agnostic {agnostic} h"
    );
    // The same scenario through the library: same policy config, same answer.
    let s = Scenario {
        workload: WorkloadConfig::Trace {
            paths: vec![trace],
            format: "gavel".into(),
            skip_bad_lines: false,
        },
        cluster: "2x4:v100,4x4:p100,3x8:k80".into(),
        round_s: 360,
        policy: "gavel".parse::<PolicyConfig>().unwrap().into(),
        placement: "consolidated".parse().unwrap(),
        ..Scenario::default()
    };
    let r = s.run().unwrap();
    assert!((r.summary.avg_jct_s / 3600.0 - aware).abs() < 0.01);
}
