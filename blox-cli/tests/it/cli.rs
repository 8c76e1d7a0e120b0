//! The `blox-sim` program as a user runs it.

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

#[test]
fn run_writes_the_documented_files() {
    let dir = std::env::temp_dir().join(format!("blox-sim-cli-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (code, stdout, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "blox",
        "--policy",
        "las",
        "--load",
        "4",
        "--track",
        "100..150",
        "--out",
        d,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("las"), "{stdout}");
    let jobs = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    assert!(jobs.starts_with(
        "job_id,arrival_s,n_gpus,first_start_s,completion_s,jct_s,preemptions,tracked"
    ));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    for key in [
        "avg_jct_s",
        "avg_responsiveness_s",
        "n_tracked",
        "preemptions_total",
        "makespan_s",
        "end_time_s",
        "config",
    ] {
        assert!(summary.get(key).is_some(), "summary.json lacks {key}");
    }
    assert_eq!(summary["n_tracked"], 51);
    let timeline = std::fs::read_to_string(dir.join("timeline.csv")).unwrap();
    assert!(
        timeline.starts_with("time_s,jobs_in_queue,jobs_running,free_gpus,gpu_demand,preemptions")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_flags_exit_2_with_a_clear_message() {
    let (code, _, stderr) = blox_sim(&["run", "--policy", "lsa"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown policy `lsa`"), "{stderr}");
    let (code, _, stderr) = blox_sim(&["run", "--cluster", "4"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("invalid cluster `4`"), "{stderr}");
    // A file that does not exist is bad input too (exit 2; 1 is for runs that fail).
    let (code, _, stderr) = blox_sim(&["run", "--trace", "/nonexistent/jobs.csv"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/nonexistent/jobs.csv"), "{stderr}");
    let (code, _, stderr) = blox_sim(&["run", "--track", "9..3"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("the first id is after the last"),
        "{stderr}"
    );
}

#[test]
fn no_arguments_prints_the_default_comparison() {
    let (code, stdout, stderr) = blox_sim(&[]);
    assert_eq!(code, 0, "{stderr}");
    for p in ["fifo", "las", "srtf"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(p)),
            "no {p} row in:\n{stdout}"
        );
    }
    assert!(stdout.contains("avg JCT (h)"));
}

#[test]
fn sweep_runs_the_cross_product_resumes_and_merges_shards() {
    let dir = std::env::temp_dir().join(format!("blox-sim-sweep-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let args = [
        "sweep",
        "--semantics",
        "blox",
        "--policy",
        "fifo,srtf",
        "--load",
        "2..3",
        "--track",
        "50..80",
        "--out",
        d,
    ];
    let with_shard = |k: &str| {
        let mut v = args.to_vec();
        v.extend(["--shard", k]);
        blox_sim(&v)
    };
    let (code, stdout, stderr) = with_shard("0/2");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("2 runs in this shard 0/2: 2 ran"),
        "{stdout}"
    );
    let (code, stdout, _) = with_shard("1/2");
    assert_eq!(code, 0);
    assert!(
        stdout.contains("4 runs merged") || stdout.contains("2 ran"),
        "{stdout}"
    );
    // Everything is done: a full sweep skips every run.
    let (code, stdout, _) = blox_sim(&args);
    assert_eq!(code, 0);
    assert!(stdout.contains("0 ran, 4 already done"), "{stdout}");
    let results = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let lines: Vec<&str> = results.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("index,label,semantics"));
    assert!(lines[1].starts_with("0,blox-32x4-accept-all-fifo-scattered-load2-seed1,"));
    assert!(lines[4].starts_with("3,blox-32x4-accept-all-srtf-scattered-load3-seed1,"));
    // A merged table equals the one the full sweep wrote.
    let (code, _, _) = blox_sim(&["merge", d]);
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("results.csv")).unwrap(),
        results
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generators_and_resampling_run_from_the_command_line() {
    let (code, stdout, stderr) = blox_sim(&[
        "run",
        "--workload",
        "poisson",
        "--load",
        "20",
        "--jobs",
        "300",
        "--gpus",
        "1:0.8,4:0.2",
        "--durations",
        "log-uniform:600..20000",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("poisson, 300 jobs at 20 jobs/h"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("fifo") && l.contains(" 300 ")),
        "{stdout}"
    );
    let (code, stdout, stderr) = blox_sim(&[
        "run",
        "--workload",
        "dual-load",
        "--jobs",
        "200",
        "--cluster",
        "8x4",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("dual-load, 200 jobs"), "{stdout}");
    let dir = std::env::temp_dir().join(format!("blox-sim-resample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(
        &trace,
        "job_id,arrival_s,n_gpus,duration_s\na,0,1,600\nb,5,2,1200\n",
    )
    .unwrap();
    let (code, stdout, stderr) = blox_sim(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--resample",
        "10",
        "--jobs",
        "50",
        "--cluster",
        "2x4",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("resampled: 50 jobs at 10 jobs/h"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let (code, _, stderr) = blox_sim(&[
        "run",
        "--workload",
        "poisson",
        "--durations",
        "uniform:5..1",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("durations `uniform:5..1`"), "{stderr}");
    let (code, _, stderr) = blox_sim(&["run", "--gpus", "4"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--durations and --gpus go with --workload poisson"),
        "{stderr}"
    );
}

#[test]
fn decide_events_starts_a_job_at_its_arrival() {
    let dir = std::env::temp_dir().join(format!("blox-sim-decide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("jobs.csv");
    std::fs::write(
        &trace,
        "job_id,arrival_s,n_gpus,duration_s\n0,100,1,1000\n1,250,2,500\n",
    )
    .unwrap();
    let first_starts = |decide: &str| -> Vec<String> {
        let out = dir.join(decide);
        let (code, _, stderr) = blox_sim(&[
            "run",
            "--trace",
            trace.to_str().unwrap(),
            "--cluster",
            "1x4",
            "--throughput",
            "constant",
            "--decide",
            decide,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let jobs = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
        jobs.lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap().to_string())
            .collect()
    };
    // Rounds of 300 s: both jobs wait for t = 300. On events, each starts when it arrives.
    assert_eq!(first_starts("rounds"), ["300", "300"]);
    assert_eq!(first_starts("events"), ["100", "250"]);
    let (code, _, stderr) = blox_sim(&["run", "--semantics", "blox", "--decide", "events"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--decide events applies to `exact`"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each row of a comparison over several placements says which run it is: a policy's label
/// alone would repeat (`fifo`, `las`, `fifo`, `las`), so such rows take the run's name, in the
/// table and in `compare.csv`.
#[test]
fn compare_over_placements_labels_every_row_distinctly() {
    let dir = std::env::temp_dir().join(format!("blox-sim-cmp-pl-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (code, stdout, stderr) = blox_sim(&[
        "compare",
        "--policy",
        "fifo,las",
        "--placements",
        "scattered,first-fit",
        "--workload",
        "poisson",
        "--jobs",
        "40",
        "--cluster",
        "4x4",
        "--out",
        d,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let want = [
        "fifo+scattered",
        "las+scattered",
        "fifo+first-fit",
        "las+first-fit",
    ];
    let rows: Vec<&str> = stdout
        .lines()
        .skip(2)
        .take(4)
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(rows, want, "{stdout}");
    let csv = std::fs::read_to_string(dir.join("compare.csv")).unwrap();
    let labels: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(labels, want, "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}
