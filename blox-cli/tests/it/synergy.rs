//! `--semantics synergy` as a user runs it: the issue's command line, its defaults, errors, and
//! the Figure 9 comparison.

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

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("blox-synergy-{name}-{}", std::process::id()))
}

/// The three lines Synergy prints, parsed back.
fn synergy_lines(stdout: &str) -> [f64; 3] {
    let get = |key: &str| -> f64 {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no `{key}` line in {stdout}"));
        line[key.len()..].trim().parse().unwrap()
    };
    [get("Mean = "), get("99th = "), get("99.9th = ")]
}

#[test]
fn the_issue_command_and_the_defaults_agree() {
    let dir = tmp("run");
    let d = dir.to_str().unwrap();
    let (code, full, err) = blox_sim(&[
        "run",
        "--semantics",
        "synergy",
        "--workload",
        "synergy-default",
        "--load",
        "9",
        "--class-split",
        "20,70,10",
        "--policy",
        "fifo",
        "--placement",
        "synergy:mode=tune",
        "--track",
        "4000..4999",
        "--seed",
        "42",
        "--out",
        d,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(full.contains("FIFO+tune (20,70,10)"), "{full}");
    assert!(full.contains("128 GPUs (16x8)"), "{full}");
    // Synergy's defaults under its semantics give the same run.
    let (code, short, err) = blox_sim(&["run", "--semantics", "synergy", "--policy", "fifo"]);
    assert_eq!(code, 0, "{err}");
    let stats = synergy_lines(&full);
    assert_eq!(stats, synergy_lines(&short));
    assert!(stats[0] > 0.0 && stats[1] <= stats[2]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["n_tracked"], 1000);
    assert_eq!(summary["synergy_jct"]["mean_h"].as_f64(), Some(stats[0]));
    assert_eq!(summary["synergy_jct"]["p999_h"].as_f64(), Some(stats[2]));
    assert_eq!(summary["config"]["semantics"], "synergy");
    let jobs = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    let tracked = jobs
        .lines()
        .filter(|l| l.split(',').nth(7) == Some("1"))
        .count();
    assert_eq!(tracked, 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_synergy_input_names_the_flag() {
    for (args, needle) in [
        (vec!["--class-split", "20,70"], "--class-split"),
        (vec!["--class-split", "a,b,c"], "--class-split"),
        (vec!["--placement", "synergy:mode=opt"], "matrix"),
        (
            vec!["--placement", "synergy:mode=best"],
            "fair, greedy or tune",
        ),
        (vec!["--load", "0"], "load"),
    ] {
        let mut a = vec!["run", "--semantics", "synergy", "--track", "0..10"];
        a.extend(args);
        let (code, _, err) = blox_sim(&a);
        assert_ne!(code, 0, "{a:?}");
        assert!(err.contains(needle), "{a:?}: {err}");
    }
}

#[test]
fn compare_puts_fair_and_tune_over_figure_9_splits_in_one_plot() {
    let dir = tmp("fig9");
    let d = dir.to_str().unwrap();
    let (code, out, err) = blox_sim(&[
        "compare",
        "--semantics",
        "synergy",
        "--policy",
        "fifo",
        "--placements",
        "synergy:mode=fair,synergy:mode=tune",
        "--class-splits",
        "20,70,10/33,33,33/50,0,50",
        "--track",
        "400..599",
        "--out",
        d,
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(dir.join("jct_cdf.svg")).unwrap();
    for split in ["20,70,10", "33,33,33", "50,0,50"] {
        for mech in ["fair", "tune"] {
            let label = format!("FIFO+{mech} ({split})");
            assert!(out.contains(&label), "{out}");
            assert!(svg.contains(&label), "plot lacks {label}");
        }
    }
    let csv = std::fs::read_to_string(dir.join("compare.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}
