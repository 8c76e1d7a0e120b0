//! Long runs say what they are doing: an overload warning at start, progress on a terminal
//! (or when asked), and `--max-sim-time` bounding the run with a clear message.

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

/// The run: the default workload at 8 jobs/h on 4 GPUs, about 30 times over capacity.
const OVERLOADED: [&str; 5] = ["run", "--policy", "las", "--cluster", "2x2"];

#[test]
fn max_sim_time_ends_an_overloaded_run_with_a_clear_message() {
    let mut args = OVERLOADED.to_vec();
    args.extend(["--max-sim-time", "86400"]);
    let (code, _, err) = blox_sim(&args);
    assert_eq!(
        code, 1,
        "a run that passed its bound could not finish: {err}"
    );
    assert!(
        err.contains("the run passed --max-sim-time (86400 s of simulated time")
            && err.contains("of 1001 tracked jobs done")
            && err.contains("Raise --max-sim-time"),
        "{err}"
    );
    // The same from a scenario file.
    let dir = std::env::temp_dir().join(format!("blox-cli-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = dir.join("s.toml");
    std::fs::write(&s, "cluster = \"2x2\"\nmax_sim_time_s = 3600.0\n").unwrap();
    let (code, _, err) = blox_sim(&["run", "--scenario", s.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("passed --max-sim-time (3600 s"), "{err}");
    std::fs::write(&s, "max_sim_time_s = -1.0\n").unwrap();
    let (_, _, err) = blox_sim(&["run", "--scenario", s.to_str().unwrap()]);
    assert!(err.contains("s.toml:1: field `max_sim_time_s`"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    let (code, _, err) = blox_sim(&["run", "--max-sim-time", "-5"]);
    assert_eq!(code, 2);
    assert!(err.contains("'-5' for '--max-sim-time"), "{err}");
}

#[test]
fn an_overloaded_run_is_warned_about_at_start_and_a_light_one_is_not() {
    let mut args = OVERLOADED.to_vec();
    args.extend(["--max-sim-time", "3600"]);
    let (_, _, err) = blox_sim(&args);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with("warning: the jobs offer ") && first.contains("the work 4 GPUs can do"),
        "{err}"
    );
    let x: f64 = first
        .trim_start_matches("warning: the jobs offer ")
        .split('x')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((20.0..50.0).contains(&x), "about 30x over capacity: {x}");
    let (code, _, err) = blox_sim(&[
        "run",
        "--workload",
        "poisson",
        "--load",
        "0.5",
        "--jobs",
        "40",
        "--cluster",
        "4x4",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn progress_reports_simulated_time_and_tracked_jobs() {
    let (code, _, err) = blox_sim(&[
        "run",
        "--workload",
        "poisson",
        "--load",
        "2",
        "--jobs",
        "40",
        "--cluster",
        "4x4",
        "--progress",
        "always",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("simulated")).collect();
    assert!(lines.len() >= 2, "a first and a last report: {err}");
    assert!(
        lines[0].contains("simulated 0 s, 0 of 40 tracked jobs done"),
        "{err}"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .contains("40 of 40 tracked jobs done, 40 arrived"),
        "{err}"
    );
    // Not a terminal and not asked: nothing.
    let (_, _, err) = blox_sim(&[
        "run",
        "--workload",
        "poisson",
        "--load",
        "2",
        "--jobs",
        "40",
        "--cluster",
        "4x4",
    ]);
    assert!(!err.contains("simulated"), "{err}");
}

#[test]
fn progress_shows_on_a_terminal_by_default() {
    // `script` runs the command on a pseudo-terminal (util-linux; skip where it is missing).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("note: `script` is not installed; skipping the terminal check");
        return;
    }
    let cmd = format!(
        "'{}' run --workload poisson --load 2 --jobs 30 --cluster 4x4",
        env!("CARGO_BIN_EXE_blox-sim")
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("30 of 30 tracked jobs done"), "{text}");
}

/// The stall: a 12-GPU job of the Philly mix on 8-GPU nodes. Blox's scattered fit never
/// places it and its strict order blocks everyone behind it, so Blox itself stalls; the message
/// says so and names the way out, which runs.
#[test]
fn a_blox_stall_is_explained_and_the_exact_mode_runs_it() {
    let base = [
        "run",
        "--workload",
        "poisson",
        "--load",
        "10",
        "--jobs",
        "2000",
        "--cluster",
        "16x8",
        "--policy",
        "las",
        "--seed",
        "18",
    ];
    let mut blox = base.to_vec();
    blox.extend(["--semantics", "blox"]);
    let (code, _, err) = blox_sim(&blox);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot make progress") && err.contains("Blox itself stalls here"),
        "{err}"
    );
    // The message names the job that blocks (the 12-GPU job the scattered fit never places),
    // not merely the first waiting one.
    assert!(
        err.contains("(arrival 589639.344 s, 12 GPUs), first in the policy's order"),
        "{err}"
    );
    for fix in [
        &["--semantics", "exact"][..],
        &["--semantics", "blox", "--placement", "first-fit"],
    ] {
        let mut args = base.to_vec();
        args.extend(fix);
        let (code, _, err) = blox_sim(&args);
        assert_eq!(code, 0, "{fix:?}: {err}");
    }
    // With the 12-GPU draw turned into 4 GPUs (same random stream), Blox's own mode runs too.
    blox.extend([
        "--gpus",
        "1:76627,2:1818,4:1870,8:1643,4:7,16:199,24:7,32:67,64:6,128:3",
    ]);
    let (code, _, err) = blox_sim(&blox);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn gavel_on_two_types_never_pins_a_job_to_a_type_too_small_for_it() {
    // Two 8-GPU types: 16-GPU jobs fit the cluster but neither type. Gavel used to pin them to
    // one type, and most seeds stalled with every GPU idle.
    for seed in 0..20 {
        let seed = seed.to_string();
        let (code, out, err) = blox_sim(&[
            "run",
            "--workload",
            "poisson",
            "--load",
            "1",
            "--jobs",
            "200",
            "--cluster",
            "2x4:v100+2x4:k80",
            "--policy",
            "gavel:solver=lp",
            "--placement",
            "consolidated",
            "--seed",
            &seed,
        ]);
        assert_eq!(code, 0, "seed {seed}: {err}");
        assert!(out.contains("gavel:solver=lp/consolidated"), "{out}");
    }
}
