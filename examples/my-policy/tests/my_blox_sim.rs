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

/// A Tiresias trace of twelve jobs on two 4-GPU nodes (the shape of TIRESIAS-SEMANTICS.md's
/// appendix example), written here so the test needs no trace file.
fn tiresias_trace(dir: &std::path::Path) -> PathBuf {
    let jobs = [
        (0, 4, 0, 1800),
        (1, 2, 0, 600),
        (2, 1, 0, 5000),
        (3, 3, 100, 900),
        (4, 8, 200, 700),
        (5, 1, 200, 300),
        (6, 2, 400, 2500),
        (7, 1, 400, 1200),
        (8, 4, 1000, 400),
        (9, 2, 1000, 1000),
        (10, 1, 2000, 100),
        (11, 3, 2500, 1500),
    ];
    let mut text =
        String::from("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n");
    for (id, g, s, d) in jobs {
        text.push_str(&format!("{id},{g},{s},100,resnet50,{d},10\n"));
    }
    let path = dir.join("toy.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// The registered `srsf` runs on Tiresias' model (`--semantics tiresias`), in `run` and beside
/// Tiresias' own `dlas-gpu` in `compare`, and schedules differently from `las` there.
#[test]
fn the_registered_policy_runs_under_tiresias_semantics() {
    let dir = tmp("tiresias");
    let trace = tiresias_trace(&dir);
    let trace = trace.to_str().unwrap();
    let base = [
        "--semantics",
        "tiresias",
        "--trace",
        trace,
        "--trace-format",
        "tiresias",
        "--cluster",
        "2x4",
    ];
    let mut jcts = Vec::new();
    for policy in ["srsf", "las"] {
        let out = dir.join(policy);
        let mut args = vec!["run"];
        args.extend_from_slice(&base);
        args.extend(["--policy", policy, "--out", out.to_str().unwrap()]);
        let (ok, stdout, stderr) = my_blox_sim(&args);
        assert!(ok, "{policy}: {stderr}");
        assert!(
            stdout.contains(&format!("tiresias {policy}/count")),
            "{stdout}"
        );
        assert!(stdout.contains("12 of 12 jobs completed"), "{stdout}");
        jcts.push(std::fs::read_to_string(out.join("job.csv")).unwrap());
    }
    assert_ne!(jcts[0], jcts[1], "srsf and las gave the same job.csv");
    let mut args = vec!["compare"];
    args.extend_from_slice(&base);
    args.extend(["--policy", "srsf,dlas-gpu,las"]);
    let (ok, stdout, stderr) = my_blox_sim(&args);
    assert!(ok, "{stderr}");
    for p in ["srsf ", "dlas-gpu ", "las "] {
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with(p)).count(),
            1,
            "{p}: {stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The registered `srsf` runs under Gavel's clock too (`--semantics gavel`), beside Gavel's
/// own policy in `compare`, on a Gavel trace from the repository's `traces/` (`$BLOX_TRACES`
/// overrides the folder).
#[test]
fn the_registered_policy_runs_under_gavel_semantics() {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces")),
    };
    let trace = dir.join("gavel/physical_cluster/small_test.trace");
    assert!(
        trace.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        trace.display(),
        std::env::var_os("BLOX_TRACES")
    );
    let (ok, stdout, stderr) = my_blox_sim(&[
        "compare",
        "--semantics",
        "gavel",
        "--trace",
        trace.to_str().unwrap(),
        "--cluster",
        "4x1:v100,4x1:p100,4x1:k80",
        "--policy",
        "srsf,max_min_fairness_perf",
    ]);
    assert!(ok, "{stderr}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("srsf ") || l.starts_with("max_min_fairness_perf "))
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    // Every job ran under srsf: 20 tracked, and no line saying some were dropped.
    let srsf: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(&srsf[..2], &["srsf", "20"], "{stdout}");
    assert!(!stdout.contains("srsf: "), "no job dropped: {stdout}");
}

#[test]
fn help_lists_the_registered_names() {
    for sub in ["run", "compare", "sweep"] {
        let (ok, out, err) = my_blox_sim(&[sub, "--help"]);
        assert!(ok, "{err}");
        assert!(
            out.contains("Registered by this program: srsf."),
            "{sub}: {out}"
        );
    }
}

/// The registered `srsf` runs under Sia's model (`--semantics sia`) on philly workload-1 (needs
/// the Sia data, `BLOX_SIA_DATA`): every job completes, labelled `srsf` in `summary.json`.
#[test]
fn sia_data_the_registered_policy_runs_under_sia_semantics() {
    let Some(data) = std::env::var_os("BLOX_SIA_DATA").filter(|d| !d.is_empty()) else {
        eprintln!(
            "sia_data_the_registered_policy_runs_under_sia_semantics: NOT RUN (BLOX_SIA_DATA is \
             unset; see docs/data.md)"
        );
        return;
    };
    let w = PathBuf::from(data).join("workloads/philly/workload-1.csv");
    let n_jobs = std::fs::read_to_string(&w).unwrap().lines().count() - 1;
    let dir = tmp("sia");
    let out = dir.join("srsf");
    let (ok, stdout, stderr) = my_blox_sim(&[
        "run",
        "--semantics",
        "sia",
        "--trace",
        w.to_str().unwrap(),
        "--trace-format",
        "sia",
        "--policy",
        "srsf",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("sia semantics | srsf |"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    assert_eq!(csv.lines().count(), n_jobs + 1, "every job completes");
    let s = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(s.contains("\"policy\": \"srsf\""), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}
