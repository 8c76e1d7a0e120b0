//! `my-blox-sim`: the whole command line with this crate's `srsf` registered.

use std::path::PathBuf;
use std::process::Command;

fn my_blox_sim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_my-blox-sim"))
        .args(args)
        .output()
        .expect("my-blox-sim runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SMALL: &[&str] = &[
    "--workload",
    "poisson",
    "--load",
    "6",
    "--jobs",
    "40",
    "--cluster",
    "4x4",
];

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("my-blox-sim-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn compare_prints_the_registered_policy_beside_a_stock_one() {
    let mut args = vec!["compare", "--policy", "srsf,las"];
    args.extend_from_slice(SMALL);
    let (ok, stdout, stderr) = my_blox_sim(&args);
    assert!(ok, "{stderr}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("srsf ") || l.starts_with("las "))
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
}

#[test]
fn scenario_files_and_sweeps_name_the_registered_policy() {
    let dir = tmp("scenario");
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "cluster = \"4x4\"\npolicy = { kind = \"srsf\" }\n\
         workload = { kind = \"poisson\", load = 6.0, jobs = 40 }\n",
    )
    .unwrap();
    let out = dir.join("run");
    let (ok, _, stderr) = my_blox_sim(&[
        "run",
        "--scenario",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"srsf\""), "{summary}");

    let sweep = dir.join("sweep");
    let (ok, _, stderr) = my_blox_sim(&[
        "sweep",
        "--scenario",
        file.to_str().unwrap(),
        "--policy",
        "srsf,fifo",
        "--seed",
        "1..2",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let csv = std::fs::read_to_string(sweep.join("results.csv")).unwrap();
    assert_eq!(
        csv.lines().filter(|l| l.contains("srsf")).count(),
        2,
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_names_and_parameters_are_clear_errors() {
    let (ok, _, stderr) = my_blox_sim(&["run", "--policy", "srsf:aging=2"]);
    assert!(!ok);
    assert!(stderr.contains("srsf"), "{stderr}");
    let (ok, _, stderr) = my_blox_sim(&["run", "--policy", "aged-srsf"]);
    assert!(!ok);
    assert!(
        stderr.contains("unknown policy `aged-srsf`") && stderr.contains("srsf"),
        "{stderr}"
    );
}
