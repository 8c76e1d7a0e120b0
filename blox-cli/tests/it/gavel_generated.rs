//! `--semantics gavel --workload gavel-generated` on the command line: a GAVEL-GENERATED §G9
//! vector end to end, the files, and the flags refused where they mean nothing.

use std::path::PathBuf;

fn table() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("gavel/simulation_throughputs.json.gz");
    assert!(t.is_file(), "trace file {} is missing", t.display());
    t
}

fn blox_sim(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blox-gavel-gen-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn tv1_fifo_perf_runs_from_the_command_line_bit_exact_by_lambda_or_rate() {
    let t = table();
    let d = scratch("tv1");
    let mut jobs_csv = Vec::new();
    // λ = 14400 s is rate 0.25 jobs/hour (3600 / 0.25 is exact).
    for (i, arrivals) in [["--lambda", "14400"], ["--rate", "0.25"]]
        .iter()
        .enumerate()
    {
        let out = d.join(format!("out{i}"));
        let (code, stdout, stderr) = blox_sim(&[
            "run",
            "--semantics",
            "gavel",
            "--workload",
            "gavel-generated",
            arrivals[0],
            arrivals[1],
            "--track",
            "4..11",
            "--cluster",
            "4:4:4",
            "--policy",
            "fifo_perf",
            "--throughputs",
            t.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("1378 rounds | 60 solves"), "{stdout}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(summary["avg_jct_s"].as_f64(), Some(77591.37352082474));
        assert_eq!(summary["makespan_s"].as_f64(), Some(495698.35851002473));
        assert_eq!(summary["jobs_generated"].as_u64(), Some(32));
        assert_eq!(summary["n_measured"].as_u64(), Some(8));
        assert_eq!(summary["window_start_s"].as_f64(), Some(35217.08711189393));
        let csv = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
        assert_eq!(csv.lines().count(), 33, "{csv}");
        // Job 5 (in the window) at full precision.
        let row5 = csv.lines().nth(6).unwrap();
        assert!(row5.starts_with("5,"), "{row5}");
        assert!(
            row5.contains(",446191.46530320606,completed,true,"),
            "{row5}"
        );
        jobs_csv.push(csv);
    }
    assert_eq!(jobs_csv[0], jobs_csv[1]);
}

#[test]
fn static_mode_and_compare_run() {
    let t = table();
    let d = scratch("static");
    let (code, stdout, stderr) = blox_sim(&[
        "compare",
        "--semantics",
        "gavel",
        "--workload",
        "gavel-generated",
        "--lambda",
        "0",
        "--jobs",
        "12",
        "--multi-gpu",
        "--cluster",
        "8:8:8",
        "--policy",
        "fifo_perf,max_min_fairness_perf",
        "--throughputs",
        t.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("max_min_fairness_perf"), "{stdout}");
    let csv = std::fs::read_to_string(d.join("compare.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let jobs = std::fs::read_to_string(d.join("fifo-perf/jobs.csv")).unwrap();
    // Every job arrives at 0 and completes (no window: all are measured, none tracked).
    for row in jobs.lines().skip(1) {
        assert!(
            row.contains(",0.0,") && row.contains(",completed,false,"),
            "{row}"
        );
    }
}

#[test]
fn generated_flags_are_refused_where_they_mean_nothing() {
    let t = table();
    let t = t.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "--lambda", "10", "--cluster", "4x1"],
            "--lambda has no meaning under --semantics exact",
        ),
        (
            &["run", "--workload", "gavel-generated"],
            "goes with --semantics gavel",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--multi-gpu",
                "--cluster",
                "4:4:4",
            ],
            "--multi-gpu belongs to Gavel's generated-jobs mode",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "poisson",
                "--cluster",
                "4:4:4",
            ],
            "the only workload is gavel-generated",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
            ],
            "needs --lambda SECONDS",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--rate",
                "1",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
            ],
            "needs --track FIRST..LAST",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--lambda",
                "0",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
            ],
            "needs --jobs N",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--lambda",
                "9",
                "--track",
                "5..2",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
            ],
            "the first id is above the last",
        ),
        (
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--lambda",
                "9",
                "--track",
                "0..2",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
                "--policy",
                "engine:fifo",
            ],
            "Gavel's own policies only",
        ),
        (
            // Job 0 of seed 0 with -m needs 8 GPUs; 4:4:4 has no type with 8.
            &[
                "run",
                "--semantics",
                "gavel",
                "--workload",
                "gavel-generated",
                "--lambda",
                "3600",
                "--track",
                "0..2",
                "--multi-gpu",
                "--cluster",
                "4:4:4",
                "--throughputs",
                t,
            ],
            "would loop forever",
        ),
    ];
    for (args, want) in cases {
        let (code, _, stderr) = blox_sim(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}
