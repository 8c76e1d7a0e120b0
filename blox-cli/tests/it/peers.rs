//! One run path for every semantics: `run`, `compare` and `sweep` under the peers' models give
//! the same runs (the same `jobs.csv`, the same mean JCT), and a sweep refuses the lists a peer
//! does not take.

use std::path::{Path, PathBuf};
use std::process::Command;

fn traces() -> PathBuf {
    let dir = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    assert!(dir.is_dir(), "traces folder {} is missing", dir.display());
    dir
}

fn blox_sim(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> crate::Scratch {
    crate::Scratch::absent(&format!("blox-peers-{name}-{}", std::process::id()))
}

/// `results.csv`'s rows as maps from column to cell.
fn results(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// Runs `args` with `run --out DIR` and returns DIR.
fn run_out(name: &str, args: &[&str]) -> crate::Scratch {
    let out = tmp(name);
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let (code, stdout, stderr) = blox_sim(&a);
    assert_eq!(code, 0, "{stdout}{stderr}");
    out
}

#[test]
fn a_sweep_under_tiresias_gives_the_runs_of_run() {
    let trace = traces().join("tiresias/60_job.csv");
    let trace = trace.to_str().unwrap();
    let common = [
        "--semantics",
        "tiresias",
        "--trace",
        trace,
        "--trace-format",
        "tiresias",
    ];
    let out = tmp("sweep-tiresias");
    let mut args = vec!["sweep"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&[
        "--policy",
        "dlas-gpu,fifo",
        "--cluster",
        "4x8,2x8",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in &rows {
        assert_eq!(row["semantics"], "tiresias");
        let (cluster, policy) = (row["cluster"].as_str(), row["policy"].as_str());
        let mut a = common.to_vec();
        a.extend_from_slice(&["--cluster", cluster, "--policy", policy]);
        let single = run_out(&format!("run-{cluster}-{policy}"), &a);
        let run_dir = out.join("runs").join(&row["label"]);
        for f in ["jobs.csv", "job.csv", "timeline.csv"] {
            assert_eq!(
                std::fs::read(single.join(f)).unwrap(),
                std::fs::read(run_dir.join(f)).unwrap(),
                "{f} of {cluster} {policy}"
            );
        }
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(single.join("summary.json")).unwrap()).unwrap();
        let avg: f64 = row["avg_jct_s"].parse().unwrap();
        assert_eq!(avg, summary["statistics"]["avg_jct_s"].as_f64().unwrap());
        assert!(avg > 0.0);
        std::fs::remove_dir_all(&single).unwrap();
    }
    // Resumed: nothing runs again.
    let (code, stdout, _) = blox_sim(&args);
    assert_eq!(code, 0);
    assert!(stdout.contains("0 ran, 4 already done"), "{stdout}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_sweep_under_gavel_crosses_policies_and_seeds() {
    let t = traces().join("gavel/physical_cluster/small_test.trace");
    let table = traces().join("gavel/physical_cluster_throughputs.json.gz");
    let common = [
        "--semantics",
        "gavel",
        "--trace",
        t.to_str().unwrap(),
        "--throughputs",
        table.to_str().unwrap(),
    ];
    let out = tmp("sweep-gavel");
    let mut args = vec!["sweep"];
    args.extend_from_slice(&common);
    args.extend_from_slice(&[
        // A sweep's --cluster is a list: a heterogeneous cluster joins its groups with `+`.
        "--cluster",
        "1x4:v100+1x4:p100+1x4:k80",
        "--policy",
        "fifo,max_min_fairness",
        "--seed",
        "0,1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (code, stdout, stderr) = blox_sim(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["semantics"], "gavel");
        let mut a = common.to_vec();
        a.extend_from_slice(&[
            "--cluster",
            &row["cluster"],
            "--policy",
            &row["policy"],
            "--seed",
            &row["seed"],
        ]);
        let single = run_out(&format!("gavel-{}", row["label"]), &a);
        assert_eq!(
            std::fs::read(single.join("jobs.csv")).unwrap(),
            std::fs::read(out.join("runs").join(&row["label"]).join("jobs.csv")).unwrap()
        );
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(single.join("summary.json")).unwrap()).unwrap();
        // Gavel's mean JCT at full precision, in the sweep's table as in the run's summary.
        let avg: f64 = row["avg_jct_s"].parse().unwrap();
        assert_eq!(avg, summary["avg_jct_s"].as_f64().unwrap());
        std::fs::remove_dir_all(&single).unwrap();
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_sweep_refuses_lists_a_peer_does_not_take() {
    let trace = traces().join("tiresias/60_job.csv");
    let out = tmp("sweep-refused");
    let (code, _, stderr) = blox_sim(&[
        "sweep",
        "--semantics",
        "tiresias",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-format",
        "tiresias",
        "--admission",
        "accept-all,queue-cap:limit=4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--admission has no meaning under --semantics tiresias"),
        "{stderr}"
    );
    // A setting the peer does not take is refused before any run, naming who takes it.
    let (code, _, stderr) = blox_sim(&[
        "sweep",
        "--semantics",
        "tiresias",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-format",
        "tiresias",
        "--track",
        "1..5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--track"), "{stderr}");
    assert!(!out.join("runs").exists(), "nothing ran");
}

#[test]
fn compare_under_gavel_writes_what_every_compare_writes() {
    let t = traces().join("gavel/physical_cluster/small_test.trace");
    let table = traces().join("gavel/physical_cluster_throughputs.json.gz");
    let out = tmp("compare-gavel");
    let (code, stdout, stderr) = blox_sim(&[
        "compare",
        "--semantics",
        "gavel",
        "--trace",
        t.to_str().unwrap(),
        "--throughputs",
        table.to_str().unwrap(),
        "--cluster",
        "1x4:v100,1x4:p100,1x4:k80",
        "--policy",
        "fifo,finish_time_fairness_perf",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for f in ["compare.csv", "compare.json", "jct_cdf.svg"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("compare.json")).unwrap()).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 2, "{json}");
    assert!(stdout.contains("gavel semantics |"), "{stdout}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// A sweep over several seeds says how much they spread: `results_over_seeds.csv` has the
/// seed count, mean, min and max of each setting, and the plot's title says what it averages.
#[test]
fn a_sweep_over_seeds_reports_their_spread() {
    let out = tmp("seeds");
    let (code, stdout, stderr) = blox_sim(&[
        "sweep",
        "--semantics",
        "exact",
        "--cluster",
        "8x4",
        "--track",
        "30..50",
        "--policy",
        "fifo,las",
        "--load",
        "1,2",
        "--seed",
        "1..3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rows = results(&out);
    assert_eq!(rows.len(), 12);
    let text = std::fs::read_to_string(out.join("results_over_seeds.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 4, "{text}");
    for line in &lines[1..] {
        let c: Vec<&str> = line.split(',').collect();
        let (policy, load) = (c[3], c[5]);
        assert_eq!(c[7], "3", "{line}");
        let jcts: Vec<f64> = rows
            .iter()
            .filter(|r| r["policy"] == policy && r["load"] == load)
            .map(|r| r["avg_jct_s"].parse().unwrap())
            .collect();
        assert_eq!(jcts.len(), 3);
        let mean: f64 = c[8].parse().unwrap();
        assert!((mean - jcts.iter().sum::<f64>() / 3.0).abs() < 1e-9 * mean.abs().max(1.0));
        let min = jcts.iter().copied().fold(f64::INFINITY, f64::min);
        let max = jcts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(
            (c[9].parse::<f64>().unwrap(), c[10].parse::<f64>().unwrap()),
            (min, max)
        );
        assert!(min < max, "seeds differ: {line}");
    }
    let svg = std::fs::read_to_string(out.join("jct_vs_load.svg")).unwrap();
    assert!(
        svg.contains("mean of 3 seeds; bars: min to max"),
        "plot title"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every flag of `run` is a flag of `sweep` (for every run): the engine's `--durations` and
/// `--gpus`, Pollux's `--interference` and `--no-interference-avoidance`, each run equal to
/// `run` with the same flags; a flag the run's semantics does not take is refused as `run`
/// refuses it, before anything runs.
#[test]
fn a_sweep_takes_every_flag_of_run_for_every_run() {
    let engine = [
        "--workload",
        "poisson",
        "--jobs",
        "30",
        "--durations",
        "constant:500",
        "--gpus",
        "2",
        "--cluster",
        "2x4",
        "--track",
        "0..29",
        "--seed",
        "3",
    ];
    let trace = traces().join("pollux/workloads/workload-6.csv");
    let pollux = [
        "--semantics",
        "pollux",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-format",
        "pollux",
        "--interference",
        "0.2",
        "--no-interference-avoidance",
        "--cluster",
        "16x4",
        "--seed",
        "1",
    ];
    for (name, common, policies) in [
        ("engine", &engine[..], "fifo,las"),
        ("pollux", &pollux[..], "tiresias"),
    ] {
        let out = tmp(&format!("sweep-every-{name}"));
        let mut args = vec!["sweep"];
        args.extend_from_slice(common);
        args.extend_from_slice(&["--policy", policies, "--out", out.to_str().unwrap()]);
        let (code, stdout, stderr) = blox_sim(&args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let rows = results(&out);
        assert_eq!(rows.len(), policies.split(',').count(), "{rows:?}");
        for row in &rows {
            let mut a = common.to_vec();
            a.extend_from_slice(&["--policy", row["policy"].as_str()]);
            let single = run_out(&format!("every-{name}-{}", row["policy"]), &a);
            let run_dir = out.join("runs").join(&row["label"]);
            assert_eq!(
                std::fs::read(single.join("jobs.csv")).unwrap(),
                std::fs::read(run_dir.join("jobs.csv")).unwrap(),
                "{name} {}",
                row["policy"]
            );
            std::fs::remove_dir_all(&single).unwrap();
        }
        std::fs::remove_dir_all(&out).unwrap();
    }
    let out = tmp("sweep-every-refused");
    let (code, _, stderr) = blox_sim(&[
        "sweep",
        "--interference",
        "0.1",
        "--cluster",
        "2x4",
        "--load",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--interference has no meaning under --semantics exact")
            && stderr.contains("--interference is taken by --semantics pollux"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written when a flag is refused");
}

/// Sia's unaware Pollux baseline through `run` (needs the Sia data, `BLOX_SIA_DATA`): the
/// test vector tve twice with `--seed 1` writes the same `jobs.csv`, every job completes, and
/// `summary.json` records the seed.
#[cfg(unix)]
#[test]
fn sia_data_pollux_run_twice_gives_the_same_jobs_csv() {
    let Some(data) = std::env::var_os("BLOX_SIA_DATA").filter(|d| !d.is_empty()) else {
        eprintln!(
            "sia_data_pollux_run_twice_gives_the_same_jobs_csv: NOT RUN (BLOX_SIA_DATA is \
             unset; see docs/data.md)"
        );
        return;
    };
    let root = tmp("sia-pollux-data");
    std::fs::create_dir_all(root.join("workloads/tv")).unwrap();
    std::os::unix::fs::symlink(Path::new(&data).join("traces"), root.join("traces")).unwrap();
    let w = root.join("workloads/tv/tve.csv");
    std::fs::write(
        &w,
        "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,4,1024\n\
         bert-1,120,bert,2,24\ndeepspeech2-2,300,deepspeech2,4,80\ncifar10-3,600,cifar10,2,512\n",
    )
    .unwrap();
    let args = [
        "--semantics",
        "sia",
        "--trace",
        w.to_str().unwrap(),
        "--trace-format",
        "sia",
        "--policy",
        "pollux",
        "--seed",
        "1",
    ];
    let a = run_out("sia-pollux-a", &args);
    let b = run_out("sia-pollux-b", &args);
    let ja = std::fs::read_to_string(a.join("jobs.csv")).unwrap();
    assert_eq!(ja, std::fs::read_to_string(b.join("jobs.csv")).unwrap());
    assert_eq!(ja.lines().count(), 5, "{ja}");
    let s = std::fs::read_to_string(a.join("summary.json")).unwrap();
    assert!(
        s.contains("\"policy\": \"pollux\"") && s.contains("\"seed\": 1"),
        "{s}"
    );
}

/// Engine policies under Sia's model beside Sia's own (needs the Sia data, `BLOX_SIA_DATA`):
/// `compare --semantics sia --policy sia,fifo,las` on philly workload-1 runs, every job
/// completes under each, and FIFO's and LAS's jobs differ (LAS preempts by service).
#[test]
fn sia_data_engine_policies_compare_beside_sia() {
    let Some(data) = std::env::var_os("BLOX_SIA_DATA").filter(|d| !d.is_empty()) else {
        eprintln!(
            "sia_data_engine_policies_compare_beside_sia: NOT RUN (BLOX_SIA_DATA is unset; see \
             docs/data.md)"
        );
        return;
    };
    let w = Path::new(&data).join("workloads/philly/workload-1.csv");
    let n_jobs = std::fs::read_to_string(&w).unwrap().lines().count() - 1;
    let out = tmp("sia-engine-compare");
    let (code, stdout, stderr) = blox_sim(&[
        "compare",
        "--semantics",
        "sia",
        "--trace",
        w.to_str().unwrap(),
        "--trace-format",
        "sia",
        "--policy",
        "sia,fifo,las",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mut csvs = Vec::new();
    for p in ["sia", "fifo", "las"] {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p))
            .unwrap_or_else(|| panic!("no row for {p}: {stdout}"));
        assert_eq!(
            row.split_whitespace().nth(1),
            Some(n_jobs.to_string().as_str()),
            "{row}"
        );
        let csv = std::fs::read_to_string(out.join(p).join("jobs.csv")).unwrap();
        assert_eq!(csv.lines().count(), n_jobs + 1, "{p}: every job completes");
        let s = std::fs::read_to_string(out.join(p).join("summary.json")).unwrap();
        assert!(s.contains(&format!("\"policy\": \"{p}\"")), "{s}");
        csvs.push(csv);
    }
    assert_ne!(csvs[1], csvs[2], "fifo and las give the same jobs");
    // The table's preemptions under Sia are the jobs' restarts (jobs.csv's `restarts` summed).
    for (p, csv) in ["sia", "fifo", "las"].iter().zip(&csvs) {
        let col = csv
            .lines()
            .next()
            .unwrap()
            .split(',')
            .position(|c| c == "restarts")
            .expect("a restarts column");
        let restarts: u64 = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(col).unwrap().parse::<u64>().unwrap())
            .sum();
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(*p))
            .unwrap();
        assert_eq!(
            row.split_whitespace().last(),
            Some(restarts.to_string().as_str()),
            "{p}: {row}"
        );
        assert!(restarts > 0, "{p}: Sia's runs restart jobs");
    }
    // Same header and job column as Sia's own run.
    let ids = |c: &str| -> Vec<String> {
        c.lines()
            .map(|l| l.split(',').next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(ids(&csvs[0]), ids(&csvs[1]));
    let _ = std::fs::remove_dir_all(out);
}

/// Sia's policy on another peer's workload where that makes sense: Pollux's workloads have
/// Sia's columns and applications, so with Sia's per-type traces (`--sia-traces`) they run on
/// Sia's heterogeneous cluster beside an engine policy (needs the Sia data, `BLOX_SIA_DATA`).
#[test]
fn sia_data_sias_policy_runs_pollux_workloads_with_sia_traces() {
    let Some(data) = std::env::var_os("BLOX_SIA_DATA").filter(|d| !d.is_empty()) else {
        eprintln!(
            "sia_data_sias_policy_runs_pollux_workloads_with_sia_traces: NOT RUN (BLOX_SIA_DATA \
             is unset; see docs/data.md)"
        );
        return;
    };
    let w = traces().join("pollux/workloads/workload-6.csv");
    let n_jobs = std::fs::read_to_string(&w).unwrap().lines().count() - 1;
    let sia_traces = Path::new(&data).join("traces");
    let out = tmp("sia-on-pollux");
    let (w, o) = (w.to_str().unwrap(), out.to_str().unwrap());
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "compare",
            "--semantics",
            "sia",
            "--trace",
            w,
            "--trace-format",
            "pollux",
            "--policy",
            "sia",
            "--out",
            o,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        blox_sim(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // Without Sia's traces the error names the flag that gives them.
    let (code, _, stderr) = run(&[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--sia-traces"), "{stderr}");
    let (code, stdout, stderr) = run(&["--sia-traces", sia_traces.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let csv = std::fs::read_to_string(out.join("sia").join("jobs.csv")).unwrap();
    assert_eq!(csv.lines().count(), n_jobs + 1, "every job completes");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("cifar10-0,cifar10,"),
        "{csv}"
    );
    // A fixed-batch policy runs each job at the workload's num_replicas and batch_size, which
    // Pollux's workloads are not tuned for: two imagenet jobs fit no type, and the run ends at
    // its time bound as a run that could not finish (status 1), naming them.
    let mut a = vec![
        "run",
        "--semantics",
        "sia",
        "--trace",
        w,
        "--trace-format",
        "pollux",
    ];
    a.extend([
        "--sia-traces",
        sia_traces.to_str().unwrap(),
        "--policy",
        "fifo",
    ]);
    let (code, _, stderr) = blox_sim(&a);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("never ran (imagenet-81, imagenet-137)"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(out);
}
