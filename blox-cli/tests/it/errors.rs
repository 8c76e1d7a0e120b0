//! Bad input gives a clear error naming what, and where.

use super::*;
use blox_cli::Scenario;

#[test]
fn unknown_names_list_what_is_accepted() {
    let e = "lsa".parse::<PolicyConfig>().unwrap_err().to_string();
    assert!(
        e.starts_with("unknown policy `lsa` (expected one of: fifo, las, srtf"),
        "{e}"
    );
    let e = "load-based:x"
        .parse::<AdmissionConfig>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("`x` is not a finite number"), "{e}");
    let e = "best"
        .parse::<blox_placement::PlacementConfig>()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("unknown placement `best`"), "{e}");
}

#[test]
fn malformed_trace_line_names_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("blox-sim-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("jobs.csv");
    std::fs::write(
        &path,
        "job_id,arrival_s,n_gpus,duration_s\nj0,0,1,100\nj1,10,1,forever\n",
    )
    .unwrap();
    let s = Scenario {
        workload: blox_cli::WorkloadConfig::canonical(path.clone()),
        ..Scenario::default()
    };
    let e = run_err(&s);
    let at = format!("{}:3: field `duration_s`: ", path.display());
    assert!(e.starts_with(&at) && e.contains("`forever`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn impossible_cluster_and_impossible_jobs_are_errors() {
    let s = Scenario {
        cluster: "0x4".into(),
        ..Scenario::default()
    };
    let e = run_err(&s);
    assert!(e.contains("invalid cluster `0x4`"), "{e}");
}

#[test]
fn optimus_outside_its_table_is_an_error() {
    let s = Scenario {
        semantics: Semantics::Blox,
        policy: PolicyConfig::Optimus.into(),
        workload: blox_cli::WorkloadConfig::BloxDefault {
            load: 2.5,
            trace_jobs: 12_000,
        },
        ..Scenario::default()
    };
    let e = run_err(&s);
    assert!(e.contains("no speed-up for load 2.5"), "{e}");
}

#[test]
fn scenario_files_reject_unknown_fields_with_a_line() {
    let dir = std::env::temp_dir().join(format!("blox-sim-scn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(&path, "semantics = \"blox\"\npolcy = { kind = \"las\" }\n").unwrap();
    let e = Scenario::from_file(&path).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}:2", path.display())), "{e}");
    assert!(e.contains("polcy"), "{e}");
    let json = dir.join("s.json");
    std::fs::write(&json, "{\"policy\": {\"kind\": \"las\", \"extra\": 1}}").unwrap();
    let e = Scenario::from_file(&json).unwrap_err().to_string();
    assert!(e.contains("extra"), "{e}");
    std::fs::write(
        &path,
        "semantics = \"blox\"\npolicy = { kind = \"srtf\" }\ntrack = \"10..20\"\n",
    )
    .unwrap();
    let s = Scenario::from_file(&path).unwrap();
    assert_eq!(s.policy, PolicyConfig::Srtf);
    assert_eq!(s.semantics, Semantics::Blox);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The error of a run that must fail (without printing a whole report if it does not).
fn run_err(s: &Scenario) -> String {
    match s.run() {
        Ok(_) => panic!("the run of {} should have failed", s.label()),
        Err(e) => e.to_string(),
    }
}

/// A reader that closes standard output early (`blox-sim compare | head -1`) ends the program
/// quietly with the SIGPIPE status, never with a panic.
#[test]
fn a_closed_standard_output_is_no_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args([
            "compare",
            "--cluster",
            "4x4",
            "--load",
            "2",
            "--track",
            "10..20",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the program prints anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
