//! The `gavel` time model and Gavel's policies against Gavel's own test vectors
//! (GAVEL-SEMANTICS §10 and appendix B), per job at full precision.

use super::gavel_vectors::{Vector, TRACES, VECTORS};
use blox_core::ThroughputTable;
use blox_gavel::clock::GavelOutcome;
use blox_gavel::run_gavel;
use blox_gavel::GavelPolicyKind;
use blox_workload::{parse_gavel_trace, GavelThroughputs};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository's `traces/` folder (`$BLOX_TRACES` overrides it); panics naming the Gavel
/// table if it is missing there.
fn traces_dir() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let t = dir.join("gavel/simulation_throughputs.json.gz");
    assert!(
        t.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        t.display(),
        std::env::var_os("BLOX_TRACES")
    );
    dir
}

/// Gavel's `simulation_throughputs.json`, loaded once.
pub(crate) fn sim_table() -> &'static ThroughputTable {
    static TABLE: OnceLock<ThroughputTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let dir = traces_dir();
        let t = GavelThroughputs::load(&dir.join("gavel/simulation_throughputs.json.gz"))
            .expect("the simulation table parses");
        t.into_table()
    })
}

pub(crate) fn cluster(vpk: [u32; 3]) -> Vec<(String, u32)> {
    ["v100", "p100", "k80"]
        .iter()
        .zip(vpk)
        .map(|(t, c)| (t.to_string(), c))
        .collect()
}

fn run_vector(v: &Vector, table: &ThroughputTable) -> GavelOutcome {
    let (name, policy, seed, round, ..) = *v;
    let (_, vpk, text) = TRACES.iter().find(|t| t.0 == name).unwrap();
    let jobs = parse_gavel_trace(text.as_bytes(), Path::new(name)).unwrap();
    let kind = policy.parse::<GavelPolicyKind>().unwrap();
    run_gavel(&jobs, table, &cluster(*vpk), kind, round, seed).unwrap()
}

/// Runs every vector and returns `(vector, outcome)` pairs that are not bit-identical.
fn mismatches(select: impl Fn(&Vector) -> bool) -> Vec<String> {
    let table = sim_table();
    let mut bad = Vec::new();
    let mut checked = 0;
    for v in VECTORS.iter().filter(|v| select(v)) {
        checked += 1;
        let out = run_vector(v, table);
        let got: Vec<Option<f64>> = out.jobs.iter().map(|j| j.jct).collect();
        let counts_ok = (v.6 == 0 || out.rounds == v.6) && (v.7 == 0 || out.solves == v.7);
        if got != v.4 || out.makespan != v.5 || !counts_ok {
            bad.push(format!(
                "{} {} seed {} R {}: got {got:?} makespan {} rounds {} solves {}; expected {:?} \
                 makespan {} rounds {} solves {}",
                v.0, v.1, v.2, v.3, out.makespan, out.rounds, out.solves, v.4, v.5, v.6, v.7
            ));
        }
    }
    assert!(checked > 0, "no vector selected");
    bad
}

/// ECOS's own last-digit noise decides the 1/3-1/3-1/3 ties of `max_min_fairness` on g3
/// (GAVEL-SEMANTICS B.3: no other solver reproduces it); those two vectors are tolerance checks.
fn is_ecos_noise_tie(v: &Vector) -> bool {
    v.0 == "g3" && v.1 == "max_min_fairness"
}

#[test]
fn fifo_vectors_are_bit_exact() {
    let bad = mismatches(|v| v.1.starts_with("fifo"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn convex_program_vectors_are_bit_exact() {
    let bad = mismatches(|v| !v.1.starts_with("fifo") && !is_ecos_noise_tie(v));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn g3_max_min_fairness_ties_are_within_tolerance() {
    let table = sim_table();
    for v in VECTORS.iter().filter(|v| is_ecos_noise_tie(v)) {
        let out = run_vector(v, table);
        // The last job (A3C, arriving alone at 2000 s) is not part of the tie: exact.
        assert_eq!(out.jobs[4].jct, v.4[4], "{v:?}");
        assert_eq!(out.makespan, v.5, "{v:?}");
        for (g, e) in out.jobs.iter().zip(v.4) {
            let (g, e) = (g.jct.unwrap(), e.unwrap());
            assert!((g - e).abs() < 400.0, "{v:?}: job {g} vs {e}");
        }
    }
}

#[test]
fn hyphenated_policy_names_are_the_same_policy() {
    let table = sim_table();
    let v = VECTORS
        .iter()
        .find(|v| v.0 == "g4" && v.1 == "max_min_fairness_perf")
        .unwrap();
    let (_, vpk, text) = TRACES.iter().find(|t| t.0 == "g4").unwrap();
    let jobs = parse_gavel_trace(text.as_bytes(), Path::new("g4")).unwrap();
    let kind: GavelPolicyKind = "Max-Min-Fairness-Perf".parse().unwrap();
    let out = run_gavel(&jobs, table, &cluster(*vpk), kind, 360.0, 0).unwrap();
    let got: Vec<Option<f64>> = out.jobs.iter().map(|j| j.jct).collect();
    assert_eq!(got, v.4);
}

#[test]
fn g6_drops_job_0_after_five_failed_micro_tasks() {
    let table = sim_table();
    let v = VECTORS
        .iter()
        .find(|v| v.0 == "g6" && v.1 == "fifo")
        .unwrap();
    let out = run_vector(v, table);
    assert_eq!(out.dropped(), 1);
    assert_eq!(out.jobs[0].jct, None);
    // The average is over completed jobs only (Gavel's get_average_jct).
    let avg = (v.4[1].unwrap() + v.4[2].unwrap() + v.4[3].unwrap()) / 3.0;
    assert_eq!(out.avg_jct(), Some(avg));
    // Every job records the GPU types it ran on.
    assert!(out.jobs.iter().all(|j| j.gpu_types == ["v100"]));
}

#[test]
fn a_single_type_cluster_consumes_no_shuffle_draws_and_seeds_do_not_matter() {
    let table = sim_table();
    for v in VECTORS.iter().filter(|v| v.0 == "g2" && v.3 == 360.0) {
        let mut other = *v;
        other.2 = 7;
        let a = run_vector(v, table);
        let b = run_vector(&other, table);
        assert_eq!(a, b, "{} {}", v.0, v.1);
    }
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

/// A scratch folder holding trace `name` of the vectors, with the simulation table beside it
/// (a symlink, so no trace data is copied into the repository).
fn scratch(tag: &str, name: &str) -> PathBuf {
    let dir = traces_dir();
    let d = std::env::temp_dir().join(format!("blox-gavel-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (_, _, text) = TRACES.iter().find(|t| t.0 == name).unwrap();
    std::fs::write(d.join(format!("{name}.trace")), text).unwrap();
    let link = d.join("simulation_throughputs.json.gz");
    if !link.exists() {
        std::os::unix::fs::symlink(dir.join("gavel/simulation_throughputs.json.gz"), &link)
            .unwrap();
    }
    d
}

#[test]
fn cli_run_reproduces_a_vector_and_writes_full_precision_outputs() {
    let d = scratch("cli", "g4");
    let trace = d.join("g4.trace");
    let out = d.join("out");
    let (code, stdout, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "gavel",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-format",
        "gavel",
        "--cluster",
        "2x1:V100,2x1:p100,2x1:K80",
        "--round",
        "360",
        "--seed",
        "0",
        "--policy",
        "max-min-fairness-perf",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // Without --throughputs the simulation table next to the trace is used, and said so.
    assert!(
        stdout.contains("simulation_throughputs.json.gz (found next to the trace)"),
        "{stdout}"
    );
    let v = VECTORS
        .iter()
        .find(|v| v.0 == "g4" && v.1 == "max_min_fairness_perf")
        .unwrap();
    let csv = std::fs::read_to_string(out.join("jobs.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "job_id,job_type,scale_factor,total_steps,arrival_s,finish_s,jct_s,status,gpu_types,micro_tasks,preemptions"
    );
    let mut pauses = 0;
    for (k, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[0], k.to_string());
        // jct_s is the 7th column counting the quoted job type as one (it holds no comma).
        let jct: f64 = f[6].parse().unwrap();
        assert_eq!(Some(jct), v.4[k], "job {k}: {line}");
        assert!(!f[8].is_empty(), "GPU types of job {k}: {line}");
        pauses += f[10].parse::<u64>().unwrap();
    }
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["preemptions_total"].as_u64(), Some(pauses));
    assert_eq!(s["semantics"], "gavel");
    assert_eq!(s["policy"], "max_min_fairness_perf");
    assert!(s["throughputs"]
        .as_str()
        .unwrap()
        .ends_with("simulation_throughputs.json.gz"));
    assert_eq!(s["makespan_s"].as_f64(), Some(v.5));
    assert_eq!(s["rounds"].as_u64(), Some(v.6));
    // Gavel's own V:P:K spelling gives the same run.
    let out2 = d.join("out2");
    let (code, _, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "gavel",
        "--trace",
        trace.to_str().unwrap(),
        "--cluster",
        "2:2:2",
        "--policy",
        "max_min_fairness_perf",
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(out2.join("jobs.csv")).unwrap(),
        csv,
        "same scenario, same bytes"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn cli_errors_name_the_flag_or_the_line() {
    let d = scratch("err", "g1");
    let trace = d.join("g1.trace");
    let t = trace.to_str().unwrap();
    let base = ["run", "--semantics", "gavel", "--trace", t];
    let cases: [(&[&str], &str); 6] = [
        (&["--cluster", "4x1:a100"], "GPU type `a100`"),
        (&["--cluster", "8x1"], "needs typed groups"),
        // Neither Gavel's nor the engine's (`las` is an engine policy now: both lists named).
        (
            &["--cluster", "2x1:v100", "--policy", "lsa"],
            "fifo_perf, max_min_fairness",
        ),
        (
            &["--cluster", "2x1:v100", "--placement", "first-fit"],
            "--placement has no meaning under --semantics gavel",
        ),
        (
            &["--cluster", "2x1:v100", "--trace-format", "philly"],
            "--trace-format philly",
        ),
        (&["--policy", "fifo"], "needs --cluster"),
    ];
    for (extra, want) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let (code, _, stderr) = blox_sim(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
    // A job type missing from the table names the trace line and field.
    std::fs::write(
        &trace,
        "ResNet-18 (batch size 64)\tcmd\tdir\t--steps\t1\t20000\t1\t1\t-1.000000\t0\n\
         NoSuchModel\tcmd\tdir\t--steps\t1\t20000\t1\t1\t-1.000000\t0\n",
    )
    .unwrap();
    let (code, _, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "gavel",
        "--trace",
        t,
        "--cluster",
        "2x1:v100",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("g1.trace:2: field `job_type`") && stderr.contains("NoSuchModel"),
        "{stderr}"
    );
    // Decreasing arrivals are an input error too.
    std::fs::write(
        &trace,
        "A3C\tcmd\tdir\t--steps\t1\t20\t1\t1\t-1.000000\t10\nA3C\tcmd\tdir\t--steps\t1\t20\t1\t1\t-1.000000\t5\n",
    )
    .unwrap();
    let (code, _, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "gavel",
        "--trace",
        t,
        "--cluster",
        "2x1:v100",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("g1.trace:2: field `arrival_time`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn engine_runs_match_gpu_types_case_insensitively_and_reject_unknown_ones() {
    let dir = traces_dir();
    let table = dir.join("gavel/simulation_throughputs.json.gz");
    let with = |cluster: &str, reference: &str| blox_cli::Scenario {
        cluster: cluster.into(),
        throughputs: Some(table.clone()),
        reference_gpu_type: reference.into(),
        ..blox_cli::Scenario::default()
    };
    let ok = with("2x4:V100,2x4:K80", "V100");
    assert!(ok.throughput_table().unwrap().is_some());
    assert_eq!(ok.cluster_spec().unwrap().gpu_types(), vec!["v100", "k80"]);
    let e = with("2x4:v100,2x4:a100", "v100")
        .throughput_table()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("GPU type `a100`") && e.contains("simulation_throughputs.json.gz"),
        "{e}"
    );
    let e = with("2x4:v100,2x4:k80", "h100")
        .throughput_table()
        .unwrap_err()
        .to_string();
    assert!(e.contains("GPU type `h100`"), "{e}");
}

#[test]
fn engine_jobs_csv_names_the_gpu_types_each_job_ran_on() {
    let dir = traces_dir();
    let s = blox_cli::Scenario {
        cluster: "1x4:V100,1x4:k80".into(),
        workload: blox_cli::WorkloadConfig::Trace {
            paths: vec![dir.join("gavel/physical_cluster/small_test.trace")],
            format: "gavel".into(),
            skip_bad_lines: false,
        },
        policy: "gavel"
            .parse::<blox_policies::PolicyConfig>()
            .unwrap()
            .into(),
        placement: "consolidated"
            .parse::<blox_placement::PlacementConfig>()
            .unwrap()
            .into(),
        ..blox_cli::Scenario::default()
    };
    let r = s.run().unwrap();
    let csv = String::from_utf8(r.jobs_csv()).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",source_id,gpu_types"));
    let mut seen = std::collections::BTreeSet::new();
    for line in lines {
        let types = line.rsplit(',').next().unwrap();
        assert!(!types.is_empty(), "{line}");
        for t in types.split('+') {
            assert!(t == "v100" || t == "k80", "{line}");
            seen.insert(t.to_string());
        }
    }
    assert_eq!(seen.len(), 2, "both types were used: {seen:?}");
}

/// Mean JCT and the `jobs.csv` of a `run --semantics gavel` of vector trace `g4` (4 GPUs of
/// each type, as its vectors).
fn g4_run(d: &Path, policy: &str) -> (f64, String) {
    let out = d.join(format!("out-{}", policy.replace(':', "-")));
    let (code, _, stderr) = blox_sim(&[
        "run",
        "--semantics",
        "gavel",
        "--trace",
        d.join("g4.trace").to_str().unwrap(),
        "--cluster",
        "2x1:v100,2x1:p100,2x1:k80",
        "--policy",
        policy,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{policy}: {stderr}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["n_dropped"].as_u64(), Some(0), "{policy}");
    (
        s["avg_jct_s"].as_f64().unwrap(),
        std::fs::read_to_string(out.join("jobs.csv")).unwrap(),
    )
}

/// Any engine policy runs under Gavel's clock: `las`, `srtf` and the engine's `fifo` complete
/// every job with JCTs of their own; Gavel's `fifo` keeps Gavel's name and its vector value.
#[test]
fn engine_policies_run_under_gavels_clock() {
    let d = scratch("any", "g4");
    let (mmf, mmf_csv) = g4_run(&d, "max_min_fairness_perf");
    let want = VECTORS
        .iter()
        .find(|v| v.0 == "g4" && v.1 == "max_min_fairness_perf")
        .unwrap();
    let jcts: Vec<f64> = want.4.iter().map(|j| j.unwrap()).collect();
    assert_eq!(mmf, jcts.iter().sum::<f64>() / jcts.len() as f64);
    let (las, las_csv) = g4_run(&d, "las");
    let (srtf, _) = g4_run(&d, "srtf");
    let (fifo, fifo_csv) = g4_run(&d, "fifo");
    let (engine_fifo, engine_fifo_csv) = g4_run(&d, "engine:fifo");
    assert_ne!(mmf_csv, las_csv);
    assert_ne!(fifo_csv, engine_fifo_csv, "engine:fifo is the engine's");
    for (name, v) in [("las", las), ("srtf", srtf), ("engine:fifo", engine_fifo)] {
        assert!(v > 0.0 && v != mmf && v != fifo, "{name}: {v}");
    }
    // Same scenario, same bytes.
    assert_eq!(g4_run(&d, "las").1, las_csv);
    std::fs::remove_dir_all(&d).unwrap();
}

/// `compare --semantics gavel`: one row per policy, each the run's own result.
#[test]
fn compare_under_gavel_prints_each_row() {
    let d = scratch("compare", "g4");
    let out = d.join("cmp");
    let (code, stdout, stderr) = blox_sim(&[
        "compare",
        "--semantics",
        "gavel",
        "--trace",
        d.join("g4.trace").to_str().unwrap(),
        "--cluster",
        "2x1:v100,2x1:p100,2x1:k80",
        "--policy",
        "max_min_fairness_perf,las,fifo",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for p in ["max_min_fairness_perf ", "las ", "fifo "] {
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with(p)).count(),
            1,
            "{p}: {stdout}"
        );
    }
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    for p in ["max_min_fairness_perf", "las", "fifo"] {
        let row: Vec<&str> = csv
            .lines()
            .find(|l| l.starts_with(&format!("{p},")))
            .unwrap()
            .split(',')
            .collect();
        let (avg, _) = g4_run(&d, p);
        // compare.csv has the columns of every semantics: label, n_tracked, n_completed,
        // avg_jct_s (Gavel's mean at full precision), ...
        assert_eq!(row[3].parse::<f64>().unwrap(), avg, "{p}");
        assert!(
            out.join(p.replace('_', "-")).join("jobs.csv").is_file(),
            "{p}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bench_gavel_refuses_quick() {
    let (code, _, err) = blox_sim(&["bench", "--gavel", "--quick"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--quick") && err.contains("--gavel"), "{err}");
}

/// Pauses (this project's preemptions under Gavel's model, not a figure Gavel prints): FIFO on
/// each job's best type never stops a running job; max-min fairness time-shares, and a job is
/// never paused after the micro-task that completes it. `jobs.csv` reports the same counts.
#[test]
fn pauses_are_counted_per_job_and_written() {
    let table = sim_table();
    let path = traces_dir().join("gavel/physical_cluster/medium_test.trace");
    let jobs = parse_gavel_trace(&std::fs::read(&path).unwrap(), &path).unwrap();
    let run = |kind: GavelPolicyKind| run_gavel(&jobs, table, &cluster([4, 4, 4]), kind, 360.0, 0);
    let fifo = run(GavelPolicyKind::FifoPerf).unwrap();
    assert!(
        fifo.jobs.iter().all(|j| j.preemptions == 0),
        "{:?}",
        fifo.jobs
    );
    let mmf = run(GavelPolicyKind::MaxMinFairness).unwrap();
    let total: u64 = mmf.jobs.iter().map(|j| j.preemptions).sum();
    assert!(total > 0);
    for j in &mmf.jobs {
        assert!(j.jct.is_some());
        assert!(j.preemptions < j.micro_tasks, "{j:?}");
    }
    let csv = blox_scenario::gavel::jobs_csv(&jobs, &mmf);
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",micro_tasks,preemptions"));
    let from_csv: u64 = lines
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(from_csv, total);
}
