//! Differential tests against `tools/blox_reference.py`, an independent, literal Python model of
//! Blox's simulator (BLOX-SEMANTICS.md) that uses CPython's own `random`. Every tracked job's
//! first start, first credit, completion and preemption count must agree exactly, as must the
//! summary and the per-round timeline.

use super::*;
use blox_cli::Scenario;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

fn reference() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/blox_reference.py")
}

type Rows = HashMap<u32, HashMap<String, String>>;

fn read_rows(path: &std::path::Path) -> Rows {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let headers = rdr.headers().unwrap().clone();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            let m: HashMap<String, String> = headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect();
            (m["job_id"].parse().unwrap(), m)
        })
        .collect()
}

fn num(m: &HashMap<String, String>, k: &str) -> Option<f64> {
    m.get(k)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
}

/// Run the reference with `args`, and the engine with the same scenario; compare.
fn check(name: &str, args: &[&str], scenario: Scenario) {
    let dir = std::env::temp_dir().join(format!("blox-oracle-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ref_jobs = dir.join("ref_jobs.csv");
    let ref_tl = dir.join("ref_timeline.csv");
    let out = Command::new("python3")
        .arg(reference())
        .args(args)
        .arg("--out-jobs")
        .arg(&ref_jobs)
        .arg("--out-timeline")
        .arg(&ref_tl)
        .output()
        .expect("python3 runs the reference model");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ref_summary: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();

    let report = Scenario {
        out: Some(dir.join("rs")),
        ..scenario
    }
    .run()
    .unwrap();
    let ours = read_rows(&dir.join("rs/jobs.csv"));
    let theirs = read_rows(&ref_jobs);
    let w = report.scenario.track_window().unwrap();
    let mut compared = 0;
    for (id, t) in &theirs {
        if !w.map_or(true, |w| w.contains(JobId(*id))) {
            continue;
        }
        let o = ours
            .get(id)
            .unwrap_or_else(|| panic!("{name}: job {id} missing"));
        for (k_ref, k_ours) in [
            ("first_start_s", "first_start_s"),
            ("responded_s", "responded_s"),
            ("completion_s", "completion_s"),
            ("preemptions", "preemptions"),
            ("arrival_s", "arrival_s"),
        ] {
            assert_eq!(num(t, k_ref), num(o, k_ours), "{name}: job {id} {k_ref}");
        }
        compared += 1;
    }
    assert!(compared > 0);
    assert_eq!(
        ref_summary["avg_jct_s"].as_f64().unwrap(),
        report.summary.avg_jct_s,
        "{name}"
    );
    assert_eq!(
        ref_summary["avg_responsiveness_s"].as_f64().unwrap(),
        report.summary.avg_responsiveness_s,
        "{name}"
    );
    assert_eq!(
        ref_summary["preemptions_total"].as_u64().unwrap(),
        report.outcome.preemptions,
        "{name}"
    );
    assert_eq!(
        ref_summary["rounds"].as_u64().unwrap(),
        report.outcome.rounds,
        "{name}"
    );
    // The timeline's first six columns, row for row, once our stretches of skipped rounds are
    // expanded as `timeline.csv` documents (the reference writes every round).
    let ours_tl = expand_stretches(
        &std::fs::read_to_string(dir.join("rs/timeline.csv")).unwrap(),
        report.scenario.round_s * 1000,
    );
    let theirs_tl = std::fs::read_to_string(&ref_tl).unwrap();
    let cut = |s: &str| {
        s.lines()
            .map(|l| l.split(',').take(6).collect::<Vec<_>>().join(","))
            .collect::<Vec<_>>()
    };
    assert_eq!(cut(&ours_tl), cut(&theirs_tl), "{name}: timeline");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `timeline.csv` with every round written out: rows are never more than one round apart but
/// across a stretch, whose first and last rows are written and whose rounds between, one every
/// round length, hold the same values.
pub(crate) fn expand_stretches(csv: &str, round_ms: u64) -> String {
    let ms = |row: &str| -> u64 {
        let t: f64 = row.split(',').next().unwrap().parse().unwrap();
        (t * 1000.0).round() as u64
    };
    let rest = |row: &str| row.split_once(',').map(|r| r.1.to_string()).unwrap();
    let mut out = String::new();
    let mut prev: Option<&str> = None;
    for (i, row) in csv.lines().enumerate() {
        if i > 0 {
            if let Some(p) = prev {
                let (a, b) = (ms(p), ms(row));
                if b - a > round_ms {
                    assert_eq!(
                        rest(p),
                        rest(row),
                        "a gap of more than a round is a stretch"
                    );
                    assert_eq!((b - a) % round_ms, 0, "a stretch is whole rounds");
                    let mut t = a + round_ms;
                    while t < b {
                        out.push_str(&format!("{},{}\n", Time(t), rest(p)));
                        t += round_ms;
                    }
                }
            }
            prev = Some(row);
        }
        out.push_str(row);
        out.push('\n');
    }
    out
}

fn blox_scenario(
    policy: PolicyConfig,
    load: f64,
    admission: AdmissionConfig,
    track: &str,
) -> Scenario {
    Scenario {
        semantics: Semantics::Blox,
        policy: policy.into(),
        admission: admission.into(),
        workload: blox_cli::WorkloadConfig::BloxDefault {
            load,
            trace_jobs: 12_000,
        },
        track: Some(track.into()),
        ..Scenario::default()
    }
}

#[test]
fn fifo_overloaded() {
    check(
        "fifo8",
        &["--policy", "fifo", "--load", "8", "--track", "100..300"],
        blox_scenario(
            PolicyConfig::Fifo,
            8.0,
            AdmissionConfig::AcceptAll,
            "100..300",
        ),
    );
}

#[test]
fn srtf_load_based() {
    check(
        "srtf4lb",
        &[
            "--policy",
            "srtf",
            "--load",
            "4",
            "--admission",
            "load-based:1.2",
            "--track",
            "1000..1100",
        ],
        blox_scenario(
            PolicyConfig::Srtf,
            4.0,
            AdmissionConfig::LoadBased { factor: 1.2 },
            "1000..1100",
        ),
    );
}

#[test]
fn optimus_artifact_table() {
    check(
        "optimus3",
        &[
            "--policy",
            "optimus",
            "--load",
            "3",
            "--track",
            "1000..1100",
        ],
        blox_scenario(
            PolicyConfig::Optimus,
            3.0,
            AdmissionConfig::AcceptAll,
            "1000..1100",
        ),
    );
}

#[test]
fn las_time_slicing_with_starvation() {
    // Heavy preemption (over 100,000) and starvation promotions.
    check(
        "las8",
        &["--policy", "las", "--load", "8", "--track", "0..20"],
        blox_scenario(PolicyConfig::Las, 8.0, AdmissionConfig::AcceptAll, "0..20"),
    );
}

#[test]
fn multi_gpu_jobs_exercise_overshoot_failed_preemption_and_relaunch() {
    // A deterministic mix of 1-4 GPU jobs on 4 nodes x 4 GPUs, in the canonical CSV form and in
    // the reference's job-list form.
    let mut x: u64 = 12345;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut arrival = 0u64;
    let mut csv = String::from("job_id,arrival_s,n_gpus,duration_s\n");
    let mut list = Vec::new();
    for i in 0..80 {
        arrival += next() % 1500;
        let gpus = 1 + next() % 4;
        let dur = 300 + next() % 30_000;
        csv.push_str(&format!("{i},{arrival},{gpus},{dur}\n"));
        list.push(format!("{arrival}:{dur}:{gpus}"));
    }
    let dir = std::env::temp_dir().join(format!("blox-oracle-mgpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("jobs.csv");
    std::fs::write(&trace, csv).unwrap();
    let jobs_arg = list.join(",");
    for policy in ["fifo", "las", "srtf"] {
        let scenario = Scenario {
            semantics: Semantics::Blox,
            policy: policy.parse().unwrap(),
            cluster: "4x4".into(),
            workload: blox_cli::WorkloadConfig::canonical(trace.clone()),
            track: Some("0..79".into()),
            ..Scenario::default()
        };
        check(
            &format!("mgpu-{policy}"),
            &[
                "--policy",
                policy,
                "--load",
                "1",
                "--nodes",
                "4",
                "--gpus-per-node",
                "4",
                "--track",
                "0..79",
                "--custom-jobs",
                &jobs_arg,
            ],
            scenario,
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn blox_workload_scenario(
    policy: &str,
    workload: blox_cli::WorkloadConfig,
    track: &str,
) -> Scenario {
    Scenario {
        semantics: Semantics::Blox,
        policy: policy.parse().unwrap(),
        workload,
        track: Some(track.into()),
        ..Scenario::default()
    }
}

#[test]
fn blox_synthetic_multi_gpu_workload_matches_the_reference() {
    for policy in ["fifo", "las"] {
        check(
            &format!("synthetic-{policy}"),
            &[
                "--policy",
                policy,
                "--load",
                "2",
                "--workload",
                "synthetic",
                "--track",
                "100..300",
            ],
            blox_workload_scenario(
                policy,
                blox_cli::WorkloadConfig::BloxSynthetic { load: 2.0 },
                "100..300",
            ),
        );
    }
}

#[test]
fn blox_multigpu_trace_workload_matches_the_reference() {
    // A Philly log of 40 jobs whose last attempts hold 1-8 GPUs; 8 of them fall outside Blox's
    // duration range or end with an invalid attempt and are dropped.
    let mut entries = Vec::new();
    let mut kept = Vec::new();
    for i in 0..40u32 {
        let gpus = [1, 2, 4, 8, 1, 1, 2, 1][i as usize % 8];
        let secs: u32 = if i % 5 == 4 { 600 } else { 3_000 + 97 * i };
        let gpu_list: Vec<String> = (0..gpus).map(|g| format!("\"gpu{g}\"")).collect();
        let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
        entries.push(format!(
            "{{\"jobid\": \"application_{i}\", \"vc\": \"v\", \"user\": \"u\", \
             \"submitted_time\": \"2017-10-01 00:00:{:02}\", \"attempts\": [{{\"start_time\": \
             \"2017-10-02 00:00:00\", \"end_time\": \"2017-10-02 {h:02}:{m:02}:{s:02}\", \
             \"detail\": [{{\"ip\": \"m\", \"gpus\": [{}]}}]}}]}}",
            i % 60,
            gpu_list.join(", ")
        ));
        if secs > 1_898 {
            kept.push(gpus.to_string());
        }
    }
    let dir = std::env::temp_dir().join(format!("blox-oracle-philly-mg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("cluster_job_log");
    std::fs::write(&log, format!("[\n{}\n]", entries.join(",\n"))).unwrap();
    assert_eq!(kept.len(), 32);
    let gpus = kept.join(",");
    for policy in ["fifo", "srtf"] {
        check(
            &format!("philly-mg-{policy}"),
            &[
                "--policy",
                policy,
                "--load",
                "3",
                "--multigpu-gpus",
                &gpus,
                "--track",
                "50..150",
            ],
            blox_workload_scenario(
                policy,
                blox_cli::WorkloadConfig::BloxMultigpuTrace {
                    load: 3.0,
                    path: log.clone(),
                },
                "50..150",
            ),
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
