//! Real traces end to end through `compare`. They are read from the repository's `traces/`
//! folder (`$BLOX_TRACES` overrides it); a test fails, naming the path, if the data is missing.

use std::path::PathBuf;
use std::process::Command;

fn traces() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("itp/raw/cluster01.csv");
    assert!(
        t.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        t.display(),
        std::env::var_os("BLOX_TRACES")
    );
    dir
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
    let dir = traces();
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
    let dir = traces();
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
