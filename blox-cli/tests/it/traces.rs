//! Real traces end to end through `compare`. They are read from `$BLOX_TRACES` (CI sets it); a
//! test fails if the variable is set but the data is missing, and says it skipped otherwise.

use std::path::PathBuf;
use std::process::Command;

fn traces() -> Option<PathBuf> {
    match std::env::var_os("BLOX_TRACES") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("itp/raw/cluster01.csv").exists(),
                "BLOX_TRACES={} has no ITP trace",
                dir.display()
            );
            Some(dir)
        }
        None => {
            let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
            if local.join("itp/raw/cluster01.csv").exists() {
                Some(local)
            } else {
                eprintln!("skipped: set BLOX_TRACES to the shared traces folder");
                None
            }
        }
    }
}

fn compare(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn row<'a>(table: &'a str, policy: &str) -> Vec<&'a str> {
    table
        .lines()
        .find(|l| l.starts_with(policy))
        .unwrap_or_else(|| panic!("no {policy} row in\n{table}"))
        .split_whitespace()
        .collect()
}

#[test]
fn the_full_itp_trace_runs_through_compare() {
    let Some(dir) = traces() else { return };
    let mut args: Vec<String> = Vec::new();
    for i in 1..=10 {
        args.push("--trace".into());
        args.push(
            dir.join(format!("itp/raw/cluster{i:02}.csv"))
                .display()
                .to_string(),
        );
    }
    args.extend(
        [
            "--trace-format",
            "itp",
            "--cluster",
            "256x8",
            "--placement",
            "consolidated",
            "--policy",
            "fifo,las",
        ]
        .map(String::from),
    );
    let table = compare(&args);
    for p in ["fifo", "las"] {
        assert_eq!(
            row(&table, p)[1],
            "69351",
            "every ITP job is tracked and completes:\n{table}"
        );
    }
}

#[test]
fn pollux_philly_runs_through_compare() {
    let Some(dir) = traces() else { return };
    let path = dir
        .join("pollux/traces/philly.csv.gz")
        .display()
        .to_string();
    let args: Vec<String> = [
        "--trace",
        &path,
        "--trace-format",
        "pollux",
        "--cluster",
        "128x8",
        "--policy",
        "fifo,srtf",
    ]
    .map(String::from)
    .to_vec();
    let table = compare(&args);
    assert_eq!(row(&table, "fifo")[1], "82247", "{table}");
    assert_eq!(row(&table, "srtf")[1], "82247", "{table}");
}
