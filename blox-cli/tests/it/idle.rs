//! Extreme but valid waits (issue 18, item 3): a job of 10^6–10^9 s at one-second rounds runs in
//! constant memory and writes a timeline of a handful of rows, whose stretch expands to every
//! round as `timeline.csv` documents, with the statistics of the per-round timeline.

use super::oracle::expand_stretches;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blox-cli-idle-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run one canonical trace line `arrival,gpus,duration` at one-second rounds on one GPU.
fn run(dir: &Path, jobs: &[&str], extra: &[&str]) -> serde_json::Value {
    let trace = dir.join("trace.csv");
    let mut text = String::from("job_id,arrival_s,n_gpus,duration_s\n");
    for (i, j) in jobs.iter().enumerate() {
        text.push_str(&format!("{i},{j}\n"));
    }
    std::fs::write(&trace, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(["run", "--trace"])
        .arg(&trace)
        .args([
            "--trace-format",
            "canonical",
            "--round",
            "1",
            "--cluster",
            "1x1",
        ])
        .args(extra)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(dir.join("out/summary.json")).unwrap()).unwrap()
}

#[test]
fn a_million_second_job_writes_its_wait_as_one_stretch() {
    let dir = fresh("million");
    let summary = run(&dir, &["0,1,1000000"], &[]);
    let csv = std::fs::read_to_string(dir.join("out/timeline.csv")).unwrap();
    // Until now one row per second: 1,000,000 rows. Now the stretch's ends (the first round,
    // processed, and the skipped rounds after it are alike, so they are one stretch).
    assert_eq!(
        csv.lines().skip(1).collect::<Vec<_>>(),
        ["0,0,1,0,1,0,0", "999999,0,1,0,1,0,0"]
    );
    // Expanded as documented, it is every second's row.
    let full = expand_stretches(&csv, 1000);
    assert_eq!(full.lines().count(), 1 + 1_000_000);
    assert_eq!(full.lines().nth(500_001), Some("500000,0,1,0,1,0,0"));
    // The statistics count every round.
    assert_eq!(summary["cluster"]["n_samples"], 1_000_000);
    assert_eq!(summary["cluster"]["mean_utilisation"], 1.0);
    assert_eq!(summary["run"]["rounds"], 1_000_001);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_longest_valid_job_and_latest_arrival_run_and_their_outputs_are_small() {
    for (name, jobs, semantics) in [
        ("long-exact", &["0,1,1000000000"][..], "exact"),
        ("long-blox", &["0,1,1000000000"][..], "blox"),
        ("late", &["1000000000,1,10", "0,1,5"][..], "exact"),
    ] {
        let dir = fresh(name);
        let summary = run(&dir, jobs, &["--semantics", semantics]);
        for f in std::fs::read_dir(dir.join("out")).unwrap() {
            let f = f.unwrap();
            let len = f.metadata().unwrap().len();
            assert!(len < 200_000, "{name}: {:?} has {len} bytes", f.file_name());
        }
        let csv = std::fs::read_to_string(dir.join("out/timeline.csv")).unwrap();
        assert!(csv.lines().count() <= 10, "{name}: {csv}");
        assert!(
            summary["cluster"]["n_samples"].as_u64().unwrap() >= 1_000_000_000,
            "{name}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A model that decides every round (Synergy's) processes every one of a long job's rounds; the
/// rounds are alike, so the timeline stores and writes them as one stretch (it used to store
/// and write one row per round: 300,001 rows here, 10^7 and 700 MB for a 10^7 s job).
#[test]
fn a_model_that_decides_every_round_writes_alike_rounds_as_one_stretch() {
    let dir = fresh("synergy");
    let summary = run(&dir, &["0,1,300000"], &["--semantics", "synergy"]);
    let csv = std::fs::read_to_string(dir.join("out/timeline.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows.len() <= 4, "{csv}");
    assert_eq!(rows.first(), Some(&"0,0,1,0,1,0,0"));
    let full = expand_stretches(&csv, 1000);
    assert_eq!(full.lines().count(), 1 + 300_000, "{csv}");
    assert_eq!(full.lines().nth(150_001), Some("150000,0,1,0,1,0,0"));
    assert_eq!(summary["cluster"]["n_samples"], 300_000);
    assert_eq!(summary["cluster"]["mean_utilisation"], 1.0);
    assert_eq!(summary["avg_jct_s"], 300_000.0);
    std::fs::remove_dir_all(&dir).unwrap();
}
