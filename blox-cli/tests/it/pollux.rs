//! `--semantics pollux`: the Pollux artifact's baselines through the engine reproduce the
//! published per-job JCTs; the Pollux policy runs deterministically; bad Pollux flags are clear
//! errors.

use std::path::PathBuf;
use std::process::Command;

/// The Pollux artifact in the repository's `traces/` folder (`$BLOX_TRACES` overrides the
/// folder); panics naming the path if it is missing.
fn pollux_dir() -> PathBuf {
    let base = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let p = base.join("pollux");
    assert!(
        p.is_dir(),
        "trace folder {} is missing (BLOX_TRACES={:?})",
        p.display(),
        std::env::var_os("BLOX_TRACES")
    );
    p
}

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// `blox-sim CMD --semantics pollux` on workload `wl` on 16x4 GPUs with 60 s intervals, then
/// `extra`.
fn pollux_cmd(cmd: &str, wl: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        cmd,
        "--semantics",
        "pollux",
        "--trace",
        wl.to_str().unwrap(),
        "--trace-format",
        "pollux",
        "--cluster",
        "16x4",
        "--round",
        "60",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// `(source_id, jct)` from a jobs.csv, sorted.
fn jcts(path: &std::path::Path) -> Vec<(String, i64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (ci, cj) = (
        header.iter().position(|h| *h == "source_id").unwrap(),
        header.iter().position(|h| *h == "jct_s").unwrap(),
    );
    let mut v: Vec<(String, i64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[ci].to_string(), f[cj].parse::<f64>().unwrap() as i64)
        })
        .collect();
    v.sort();
    v
}

fn published(dir: &std::path::Path, run: &str, w: u32) -> Vec<(String, i64)> {
    let text = std::fs::read_to_string(dir.join("results-jobload").join(run).join("summary.json"))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut out: Vec<(String, i64)> = v["jcts"][format!("workload-{w}")]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap() as i64))
        .collect();
    out.sort();
    out
}

fn check(policy: &str, w: u32) {
    let dir = pollux_dir();
    let out = tempdir(&format!("pollux-{policy}-{w}"));
    let wl = dir.join(format!("workloads/workload-{w}.csv"));
    let (code, text) = pollux_cmd(
        "run",
        &wl,
        &[
            "--policy",
            policy,
            "--seed",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("pollux accept-all/{policy}")),
        "{text}"
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("pollux.json")).unwrap()).unwrap();
    assert_eq!(meta["semantics"], "pollux");
    assert_eq!(meta["policy"], policy);
    let got = jcts(&out.join("jobs.csv"));
    let want = published(&dir, &format!("{policy}-1.0"), w);
    assert_eq!(got.len(), 160);
    let diff: Vec<_> = got.iter().zip(&want).filter(|(a, b)| a != b).collect();
    assert!(
        diff.is_empty(),
        "{policy} workload-{w}: {} jobs differ: {:?}",
        diff.len(),
        &diff[..diff.len().min(5)]
    );
}

fn tempdir(name: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("blox-cli-it-{}-{name}", std::process::id()))
}

#[test]
fn tiresias_through_the_engine_reproduces_the_artifact_per_job() {
    check("tiresias", 6);
    check("tiresias", 3);
}

#[test]
fn optimus_through_the_engine_reproduces_the_artifact_per_job() {
    check("optimus", 6);
    check("optimus", 2);
}

/// `--semantics pollux` alone is the artifact's configuration (16 nodes of 4 GPUs, 60 s
/// intervals): without --cluster and --round, Tiresias on workload-6 reproduces the published
/// per-job JCTs; --round and --cluster still override the preset's values.
#[test]
fn the_preset_alone_is_the_artifacts_cluster_and_interval() {
    let dir = pollux_dir();
    let wl = dir.join("workloads/workload-6.csv");
    let out = tempdir("pollux-preset-defaults");
    // Tiresias on workload-6 under the preset, then `extra`: the output and pollux.json.
    let preset = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--semantics",
            "pollux",
            "--trace",
            wl.to_str().unwrap(),
            "--policy",
            "tiresias",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, text) = run(&args);
        assert_eq!(code, 0, "{text}");
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("pollux.json")).unwrap()).unwrap();
        (text, meta)
    };
    let (text, meta) = preset(&[]);
    assert!(text.contains("64 GPUs (16x4)"), "{text}");
    assert_eq!(meta["interval_s"], 60);
    assert_eq!(
        jcts(&out.join("jobs.csv")),
        published(&dir, "tiresias-1.0", 6)
    );
    let (text, meta) = preset(&["--cluster", "32x4", "--round", "300"]);
    assert!(text.contains("128 GPUs (32x4)"), "{text}");
    assert_eq!(meta["interval_s"], 300);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn pollux_flags_need_pollux_semantics_and_a_pollux_trace() {
    let (code, text) = run(&["run", "--interference", "0.25"]);
    assert_ne!(code, 0);
    assert!(text.contains("is taken by --semantics pollux"), "{text}");
    let (code, text) = run(&["run", "--semantics", "pollux", "--policy", "tiresias"]);
    assert_ne!(code, 0);
    assert!(
        text.contains("needs one --trace FILE with --trace-format pollux"),
        "{text}"
    );
    let (code, text) = run(&["run", "--semantics", "polux"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("pollux"), "{text}");
}

/// The first `n` jobs of workload-6 in a temporary workload file, with the scratch folder that
/// holds it (removed when the guard is dropped).
fn small_workload(dir: &std::path::Path, n: usize, name: &str) -> (crate::Scratch, PathBuf) {
    let text = std::fs::read_to_string(dir.join("workloads/workload-6.csv")).unwrap();
    let small: Vec<&str> = text.lines().take(n + 1).collect();
    let d = tempdir(name);
    let p = d.join("small.csv");
    std::fs::write(&p, small.join("\n") + "\n").unwrap();
    (d, p)
}

fn pollux_run(
    dir: &std::path::Path,
    wl: &std::path::Path,
    policy: &str,
    seed: &str,
    out: &std::path::Path,
) -> Vec<(String, i64)> {
    let traces = dir.join("traces");
    let (code, text) = run(&[
        "run",
        "--semantics",
        "pollux",
        "--trace",
        wl.to_str().unwrap(),
        "--trace-format",
        "pollux",
        "--pollux-traces",
        traces.to_str().unwrap(),
        "--cluster",
        "16x4",
        "--round",
        "60",
        "--policy",
        policy,
        "--seed",
        seed,
        "--generations",
        "8",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    jcts(&out.join("jobs.csv"))
}

#[test]
fn the_pollux_policy_is_deterministic_per_seed_and_completes_every_job() {
    let dir = pollux_dir();
    let (_scratch, wl) = small_workload(&dir, 12, "small-pollux");
    let a = tempdir("pollux-a");
    let b = tempdir("pollux-b");
    let ja = pollux_run(&dir, &wl, "pollux", "3", &a);
    let jb = pollux_run(&dir, &wl, "pollux", "3", &b);
    assert_eq!(ja.len(), 12);
    assert!(ja.iter().all(|(_, j)| *j > 0));
    assert_eq!(
        std::fs::read(a.join("jobs.csv")).unwrap(),
        std::fs::read(b.join("jobs.csv")).unwrap()
    );
    assert_eq!(ja, jb);
}

#[test]
fn other_policies_run_on_the_pollux_job_model() {
    let dir = pollux_dir();
    let (_scratch, wl) = small_workload(&dir, 12, "small-las");
    let out = tempdir("pollux-las");
    let j = pollux_run(&dir, &wl, "las", "1", &out);
    assert_eq!(j.len(), 12);
    // A job cannot finish before its first decision plus the 30 s restart.
    assert!(j.iter().all(|(_, jct)| *jct > 30), "{j:?}");
}

#[test]
fn interference_through_the_engine_matches_the_artifacts_loop_per_job() {
    // With --interference 0.5, the Tiresias baseline (deterministic; it shares nodes between
    // distributed jobs) through the engine must give every job the JCT the artifact's own loop
    // gives (`blox_pollux::PolluxSim`, whose allocations hold only active jobs). A completed
    // job that kept its allocation in the engine used to slow its former neighbours for ever.
    use blox_pollux::{build_jobs, read_workload, Applications, JobSetup, PolluxSim, Tiresias};
    let dir = pollux_dir();
    let wl = dir.join("workloads/workload-6.csv");
    let rows = read_workload(&wl).unwrap();
    let mut apps = Applications::new(dir.join("traces"));
    let jobs = build_jobs(&wl, &rows, &mut apps, JobSetup::TunedGang).unwrap();
    let mut cfg = blox_pollux::SimConfig::default();
    cfg.interference = 0.5;
    let mut sim = PolluxSim::new(jobs, cfg);
    let mut want: Vec<(String, i64)> = sim
        .run(&mut Tiresias::new(), 1_000_000)
        .unwrap()
        .iter()
        .map(|o| (o.name.clone(), o.jct()))
        .collect();
    want.sort();
    let out = tempdir("pollux-interference");
    let (code, text) = pollux_cmd(
        "run",
        &wl,
        &[
            "--policy",
            "tiresias",
            "--interference",
            "0.5",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}");
    let got = jcts(&out.join("jobs.csv"));
    assert_eq!(got.len(), 160);
    let diff: Vec<_> = got.iter().zip(&want).filter(|(a, b)| a != b).collect();
    assert!(
        diff.is_empty(),
        "{} jobs differ: {:?}",
        diff.len(),
        &diff[..diff.len().min(5)]
    );
    // And interference does slow the baseline down (the test is not vacuous).
    let base = published(&dir, "tiresias-1.0", 6);
    let total = |v: &[(String, i64)]| v.iter().map(|x| x.1).sum::<i64>();
    assert!(total(&got) > total(&base), "interference changed nothing");
}

#[test]
fn compare_under_pollux_runs_each_policy_on_the_pollux_model() {
    // `compare --semantics pollux` used to run the engine's own components in exact semantics
    // (Tiresias at 5,184 s instead of the artifact's 3,469.69 s). Each row is now the preset's
    // run: the artifact's baselines give the published workload-6 averages.
    let dir = pollux_dir();
    let wl = dir.join("workloads/workload-6.csv");
    let out = tempdir("pollux-compare");
    let (code, text) = pollux_cmd(
        "compare",
        &wl,
        &[
            "--policy",
            "tiresias,optimus",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("pollux semantics | 64 GPUs"), "{text}");
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    let avg = |label: &str| -> f64 {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("{label},")))
            .unwrap();
        line.split(',').nth(3).unwrap().parse().unwrap()
    };
    assert_eq!(avg("tiresias"), 3469.69375, "{csv}");
    assert_eq!(avg("optimus"), 5301.875, "{csv}");
    assert!(out.join("tiresias/pollux.json").is_file());
    // Pollux's knobs are refused outside --semantics pollux, in compare as in run.
    for sem in ["exact", "tiresias", "gavel"] {
        for cmd in ["run", "compare"] {
            let (code, text) = run(&[cmd, "--semantics", sem, "--interference", "0.5"]);
            assert_ne!(code, 0);
            assert!(
                text.contains("is taken by --semantics pollux"),
                "{cmd} {sem}: {text}"
            );
        }
    }
}

/// `--max-sim-time` bounds a Pollux run as it bounds every other (it was ignored: a run bounded
/// at 10,140 s went on to 58,228 s), and nothing is written.
#[test]
fn max_sim_time_bounds_a_pollux_run() {
    let dir = pollux_dir();
    let (_scratch, wl) = small_workload(&dir, 20, "maxsim");
    let traces = dir.join("traces");
    let t = traces.to_str().unwrap();
    let out = wl.parent().unwrap().join("out");
    let o = out.to_str().unwrap();
    let args = ["--policy", "tiresias", "--pollux-traces", t, "--out", o];
    let bounded: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--max-sim-time", "600"])
        .collect();
    let (code, text) = pollux_cmd("run", &wl, &bounded);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("passed --max-sim-time (600 s"), "{text}");
    assert!(!out.join("jobs.csv").exists());
    let roomy: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--max-sim-time", "1e7"])
        .collect();
    let (code, text) = pollux_cmd("run", &wl, &roomy);
    assert_eq!(code, 0, "{text}");
    assert!(out.join("jobs.csv").exists());
}

/// `bench --pollux` runs its own figures only (the other figures' flags are refused) and names
/// a missing workload file before running anything.
#[test]
fn bench_pollux_refuses_other_figures_and_names_missing_data() {
    for other in [&["--quick"][..], &["--gavel"], &["--repeat", "3"]] {
        let mut args = vec!["bench", "--pollux"];
        args.extend(other);
        let (code, out) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.contains("--pollux") && out.contains(other[0]), "{out}");
    }
    let dir = std::env::temp_dir().join(format!("blox-bench-pollux-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pollux/workloads")).unwrap();
    let (code, out) = run(&["bench", "--pollux", "--traces", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 2, "{out}");
    let missing = dir.join("pollux/workloads/workload-1.csv");
    assert!(
        out.contains(&format!("trace file {} is missing", missing.display())),
        "{out}"
    );
}
