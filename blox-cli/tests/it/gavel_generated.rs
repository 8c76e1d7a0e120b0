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

fn scratch(tag: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("blox-gavel-gen-{tag}-{}", std::process::id()))
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

/// GAVEL-GENERATED §G9.2: the added policies on the spec's toy traces (trace mode, seed 0,
/// R = 360): `(trace, policy, JCTs, final clock, rounds, solves)`.
type G92Vector = (&'static str, &'static str, &'static [f64], f64, u64, u64);

const G92: &[G92Vector] = &[
    (
        "g3",
        "max_sum_throughput_perf",
        &[
            482.06644859571134,
            1591.0670804904955,
            542.2950745496626,
            783.5380930184122,
            557.4316863754593,
        ],
        2557.4316863754593,
        7,
        3,
    ),
    (
        "g4",
        "max_sum_throughput_perf",
        &[
            1362.9265978695344,
            1016.4916090820884,
            594.7994963441184,
            796.6050316296564,
            2850.9236684724765,
            2196.7896079693246,
            555.8676218323158,
        ],
        3696.7896079693246,
        6,
        3,
    ),
    (
        "g3",
        "min_total_duration_perf",
        &[
            749.0551031989028,
            682.6288309651269,
            629.1281144639835,
            784.7254130124306,
            557.4316863754593,
        ],
        2557.4316863754593,
        6,
        3,
    ),
    (
        "g3",
        "min_total_duration",
        &[
            680.0011005672443,
            828.052404354892,
            1088.5993044781671,
            1544.0780914921525,
            890.1283696197715,
        ],
        2890.1283696197715,
        9,
        3,
    ),
    (
        "g4",
        "min_total_duration_perf",
        &[
            1180.8205257118104,
            1265.3382414932591,
            594.7994963441184,
            796.6050316296564,
            2998.334095824851,
            2271.7525645837977,
            588.8255416563838,
        ],
        3771.7525645837977,
        7,
        3,
    ),
    (
        "g4",
        "min_total_duration",
        &[
            1426.4078012461323,
            999.9074220752292,
            594.7994963441184,
            1250.6983914167693,
            3521.2704851564586,
            2522.2865396589623,
            588.8075393695485,
        ],
        4221.270485156459,
        9,
        3,
    ),
];

fn run_g92(name: &str, policy: &str) -> blox_gavel::clock::GavelOutcome {
    let (_, vpk, text) = super::gavel_vectors::TRACES
        .iter()
        .find(|t| t.0 == name)
        .unwrap();
    let jobs =
        blox_workload::parse_gavel_trace(text.as_bytes(), std::path::Path::new(name)).unwrap();
    blox_gavel::run_gavel(
        &jobs,
        super::gavel::sim_table(),
        &super::gavel::cluster(*vpk),
        policy.parse().unwrap(),
        360.0,
        0,
    )
    .unwrap()
}

#[test]
fn max_sum_throughput_perf_reproduces_the_toy_vectors_bit_for_bit() {
    for (name, policy, jcts, clock, rounds, solves) in
        G92.iter().filter(|v| v.1 == "max_sum_throughput_perf")
    {
        let o = run_g92(name, policy);
        let got: Vec<f64> = o.jobs.iter().map(|j| j.jct.unwrap()).collect();
        assert_eq!(got, *jcts, "{name} {policy}");
        assert_eq!(
            (o.makespan, o.rounds, o.solves),
            (*clock, *rounds, *solves),
            "{name} {policy}"
        );
    }
}

#[test]
fn min_total_duration_policies_behave_as_gavels_on_the_toy_vectors() {
    // A constant objective: Gavel's shares are whatever feasible point ECOS reports
    // (GAVEL-GENERATED §G9.3). Every job completes, the makespan is within 5 %, the solves are
    // equal, and the JCTs are Gavel's bit for bit (below).
    for (name, policy, jcts, clock, _, solves) in
        G92.iter().filter(|v| v.1.starts_with("min_total"))
    {
        let o = run_g92(name, policy);
        assert_eq!(o.jobs.len(), jcts.len());
        assert!(o.jobs.iter().all(|j| j.jct.is_some()), "{name} {policy}");
        assert!(
            (o.makespan - clock).abs() <= 0.05 * clock,
            "{name} {policy}: makespan {} vs Gavel's {clock} ({:?})",
            o.makespan,
            o.jobs.iter().map(|j| j.jct).collect::<Vec<_>>()
        );
        assert_eq!(o.solves, *solves, "{name} {policy}");
        // ECOS's point at the last feasible horizon ([`blox_gavel`]'s ECOS) reproduces the four
        // vectors bit for bit (the analytic centre did three: g3's agnostic run went
        // elsewhere).
        let got: Vec<f64> = o.jobs.iter().map(|j| j.jct.unwrap()).collect();
        assert_eq!(got, *jcts, "{name} {policy}");
    }
}

#[test]
fn agnostic_finish_time_fairness_on_a_v100_only_cluster_is_the_perf_policy() {
    // On V100s only, replacing every throughput by the V100 one changes nothing and one type
    // consumes no shuffle draws: every g1/g2/g6 vector of finish_time_fairness_perf holds.
    for v in super::gavel_vectors::VECTORS.iter().filter(|v| {
        v.1 == "finish_time_fairness_perf"
            && v.2 == 0
            && v.3 == 360.0
            && ["g1", "g2", "g6"].contains(&v.0)
    }) {
        let o = run_g92(v.0, "finish_time_fairness");
        let got: Vec<Option<f64>> = o.jobs.iter().map(|j| j.jct).collect();
        assert_eq!(got, v.4, "{} finish_time_fairness", v.0);
        assert_eq!(o.makespan, v.5, "{}", v.0);
    }
}

/// Gavel's paper sweeps as one command: rates (Gavel's exact lambda values) × seeds × policies,
/// each run the run `run` makes, the rate in results.csv's `load` column, the spread over seeds
/// in `results_over_seeds.csv` and a JCT-against-rate plot.
#[test]
fn a_sweep_over_rates_and_seeds_gives_the_runs_of_run() {
    let t = table();
    let d = scratch("sweep");
    let out = d.join("sweep");
    let common = [
        "--semantics",
        "gavel",
        "--workload",
        "gavel-generated",
        "--track",
        "4..11",
        "--cluster",
        "4:4:4",
        "--throughputs",
        t.to_str().unwrap(),
    ];
    let mut args = vec!["sweep"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&[
        "--rate",
        "0.25,0.5",
        "--seed",
        "0,1",
        "--policy",
        "fifo_perf",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    // rate 0.25, seed 0 is TV1: Gavel's average at full precision.
    let tv1 = rows
        .iter()
        .find(|r| r.contains(",0.25,0,"))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(tv1.contains(",77591.37352082474,"), "{tv1}");
    let spread = std::fs::read_to_string(out.join("results_over_seeds.csv")).unwrap();
    assert_eq!(spread.lines().count(), 3, "{spread}");
    assert!(out.join("jct_vs_load.svg").is_file());
    // A rate list under the engine's semantics is refused.
    let (code, _, stderr) = blox_sim(&[
        "sweep",
        "--rate",
        "1,2",
        "--out",
        d.join("bad").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--rate is the arrival rate of Gavel's generated jobs"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// The space-sharing `*_packed` names reach every Gavel entry point: `run` on a trace (g3,
/// GAVEL-GENERATED §G9.2: `fifo_packed` = `fifo_perf`, `max_min_fairness_packed` bit for bit),
/// `run`, `compare` and `sweep` under `--workload gavel-generated` (TV1 `fifo_packed` =
/// TV1 `fifo_perf` s0, bit for bit).
#[test]
fn packed_policies_run_from_every_gavel_command() {
    let t = table();
    let d = scratch("packed");
    let trace = d.join("g3.trace");
    std::fs::write(
        &trace,
        "Recommendation (batch size 2048)\tcmd\tdir\t--steps\t1\t8000\t1\t1\t-1.000000\t0\n\
         ResNet-50 (batch size 64)\tcmd\tdir\t--steps\t1\t3000\t1\t1\t-1.000000\t0\n\
         Transformer (batch size 16)\tcmd\tdir\t--steps\t1\t6000\t1\t1\t-1.000000\t0\n\
         CycleGAN\tcmd\tdir\t--steps\t1\t2500\t1\t1\t-1.000000\t500\n\
         A3C\tcmd\tdir\t--steps\t1\t4000\t1\t1\t-1.000000\t2000\n",
    )
    .unwrap();
    for (policy, job1) in [
        ("fifo_packed", ",682.6288309651269,completed,"),
        ("max-min-fairness-packed", ",990.7409202138338,completed,"),
    ] {
        let out = d.join(policy);
        let (code, stdout, stderr) = blox_sim(&[
            "run",
            "--semantics",
            "gavel",
            "--trace",
            trace.to_str().unwrap(),
            "--trace-format",
            "gavel",
            "--throughputs",
            t.to_str().unwrap(),
            "--cluster",
            "1x1:v100,1x1:p100,1x1:k80",
            "--policy",
            policy,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("makespan 2557.431686 s"), "{stdout}");
        let csv = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
        assert!(
            csv.lines().nth(2).unwrap().contains(job1),
            "{policy}: {csv}"
        );
    }
    let common = [
        "--semantics",
        "gavel",
        "--workload",
        "gavel-generated",
        "--track",
        "4..11",
        "--cluster",
        "4:4:4",
        "--throughputs",
        t.to_str().unwrap(),
    ];
    let out = d.join("gen");
    let mut args = vec!["run"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&["--lambda", "14400", "--policy", "fifo_packed", "--out"]);
    args.push(out.to_str().unwrap());
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1378 rounds | 60 solves"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["avg_jct_s"].as_f64(), Some(77591.37352082474));
    let cmp = d.join("cmp");
    let mut args = vec!["compare"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&[
        "--lambda",
        "14400",
        "--policy",
        "fifo_perf,fifo_packed",
        "--out",
    ]);
    args.push(cmp.to_str().unwrap());
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("fifo_packed"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(cmp.join("fifo-perf/jobs.csv")).unwrap(),
        std::fs::read_to_string(cmp.join("fifo-packed/jobs.csv")).unwrap()
    );
    let sw = d.join("sweep");
    let mut args = vec!["sweep"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&[
        "--rate",
        "0.25",
        "--seed",
        "0",
        "--policy",
        "fifo_packed,max_min_fairness_packed",
        "--out",
    ]);
    args.push(sw.to_str().unwrap());
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let csv = std::fs::read_to_string(sw.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.contains(",77591.37352082474,"), "{csv}");
    std::fs::remove_dir_all(&d).unwrap();
}
