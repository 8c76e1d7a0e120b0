//! Input that used to exhaust memory or run for ever is refused before the run, with the flag,
//! the value and the bound. Each run has a generous watchdog, so that old code fails the test
//! instead of hanging it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs blox-sim in `cwd`; kills it and fails after 60 s (a run that should be refused at once).
fn bounded(cwd: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_blox-sim"))
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!("{args:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

fn temp(name: &str) -> crate::Scratch {
    crate::Scratch::new(&format!("blox-cli-bounds-{}-{name}", std::process::id()))
}

fn refused(d: &Path, args: &[&str], needles: &[&str]) {
    let (code, err) = bounded(d, args);
    assert_ne!(code, 0, "{args:?}: {err}");
    assert!(code != -1 && code < 128, "{args:?} crashed ({code}): {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: no `{n}` in {err}");
    }
}

#[test]
fn round_is_bounded() {
    let d = temp("round");
    refused(
        &d,
        &["run", "--round", "1e12", "--track", "0..10"],
        &["--round", "1e12", "1..=1000000"],
    );
}

#[test]
fn tiny_loads_are_refused() {
    let d = temp("load");
    for v in ["1e-12", "1e-300", "5e-324"] {
        refused(
            &d,
            &["run", "--workload", "poisson", "--load", v, "--jobs", "10"],
            &["--load", v, "1e9 s"],
        );
    }
    std::fs::write(
        d.join("t.csv"),
        "job_id,arrival_s,n_gpus,duration_s\n0,0,1,10\n",
    )
    .unwrap();
    refused(
        &d,
        &[
            "run",
            "--trace",
            "t.csv",
            "--resample",
            "1e-300",
            "--jobs",
            "10",
        ],
        &["--resample", "1e-300", "1e9 s"],
    );
}

#[test]
fn load_times_round_is_bounded() {
    let d = temp("perround");
    refused(
        &d,
        &["run", "--load", "1e12", "--track", "0..10"],
        &["jobs in each 300 s round", "10000000"],
    );
}

#[test]
fn failure_means_are_bounded() {
    let d = temp("fail");
    refused(
        &d,
        &["run", "--failures", "mtbf=1e15,mttr=1", "--track", "0..10"],
        &["--failures", "mtbf=1000000000000000", "1000000000 hours"],
    );
}

#[test]
fn cluster_size_is_bounded() {
    let d = temp("cluster");
    refused(
        &d,
        &["run", "--cluster", "2097152x8", "--track", "0..10"],
        &["2097152x8", "1048576 GPUs"],
    );
    refused(
        &d,
        &["run", "--cluster", "4294967297x1", "--track", "0..10"],
        &["4294967297", "1..=131072"],
    );
    std::fs::write(
        d.join("ev.csv"),
        "time_s,node,event,gpus\n10,32,join,4294967295\n",
    )
    .unwrap();
    refused(
        &d,
        &["run", "--node-events", "ev.csv", "--track", "0..10"],
        &["ev.csv", "1048576"],
    );
    std::fs::write(
        d.join("ev2.csv"),
        "time_s,node,event,gpus\n10,32,join,1048576\n",
    )
    .unwrap();
    refused(
        &d,
        &["run", "--node-events", "ev2.csv", "--track", "0..10"],
        &["ev2.csv", "1048576 GPUs"],
    );
}

#[test]
fn sweep_run_count_is_bounded() {
    let d = temp("sweep");
    refused(
        &d,
        &[
            "sweep", "--load", "1..10000", "--seed", "1..10000", "--out", "o",
        ],
        &["100000000 runs", "100000"],
    );
    assert!(!d.join("o").exists());
}

#[test]
fn seed_past_u64_is_refused() {
    let d = temp("seed");
    refused(
        &d,
        &["run", "--seed", "18446744073709551616"],
        &["--seed", "18446744073709551615"],
    );
}

#[test]
fn duplicate_job_ids_name_the_file_and_line() {
    let d = temp("dup");
    std::fs::write(
        d.join("dup.csv"),
        "job_id,arrival_s,n_gpus,duration_s\na,0,1,10\nb,1,1,10\na,5,1,10\n",
    )
    .unwrap();
    refused(
        &d,
        &["run", "--trace", "dup.csv", "--trace-format", "canonical"],
        &["dup.csv:4", "`a` is given twice (first on line 2)"],
    );
}

#[test]
fn traces_without_jobs_are_errors() {
    let d = temp("empty");
    std::fs::write(d.join("h.csv"), "job_id,arrival_s,n_gpus,duration_s\n").unwrap();
    refused(
        &d,
        &["run", "--trace", "h.csv", "--trace-format", "canonical"],
        &["h.csv", "no jobs to run"],
    );
}

#[test]
fn overflowing_gpu_weights_are_refused() {
    let d = temp("weights");
    refused(
        &d,
        &[
            "run",
            "--workload",
            "poisson",
            "--jobs",
            "10",
            "--gpus",
            "1:1e308,2:1e308",
        ],
        &["1:1e308,2:1e308", "not a finite number"],
    );
}

#[test]
fn a_bad_out_fails_before_the_run() {
    let d = temp("out");
    std::fs::write(d.join("file"), "x").unwrap();
    for out in ["file", "file/sub"] {
        refused(
            &d,
            &["run", "--workload", "poisson", "--jobs", "10", "--out", out],
            &["--out", "exists and is not a folder", "nothing was run"],
        );
    }
    refused(
        &d,
        &[
            "compare", "--policy", "fifo,las", "--load", "1", "--out", "file",
        ],
        &["--out", "not a folder"],
    );
    refused(
        &d,
        &["sweep", "--policy", "fifo", "--load", "1", "--out", "file"],
        &["--out", "not a folder"],
    );
}

#[test]
fn unknown_names_in_lists_fail_before_any_run() {
    let d = temp("names");
    refused(
        &d,
        &[
            "sweep",
            "--policy",
            "fifo,bogus",
            "--load",
            "1",
            "--out",
            "sw",
        ],
        &["unknown policy `bogus`"],
    );
    assert!(!d.join("sw").join("runs").exists());
    refused(
        &d,
        &[
            "compare",
            "--policy",
            "fifo,bogus",
            "--load",
            "1",
            "--out",
            "cmp",
        ],
        &["unknown policy `bogus`"],
    );
    assert!(!d.join("cmp").exists());
}

#[test]
fn stale_staging_folders_are_removed() {
    let d = temp("staging");
    let stale = d.join("o").join(".blox-staging-999999999-0");
    std::fs::create_dir_all(stale.join("old")).unwrap();
    std::fs::write(stale.join("jobs.csv"), "x").unwrap();
    let (code, err) = bounded(
        &d,
        &["run", "--workload", "poisson", "--jobs", "10", "--out", "o"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(d.join("o").join("summary.json").exists());
    assert!(!stale.exists(), "the stale staging folder is still there");
}

#[test]
fn hyphen_values_get_a_reason() {
    let d = temp("hyphen");
    for (flag, needle) in [
        ("--track", "-1"),
        ("--cluster", "-1"),
        ("--checkpoint-interval", "-1"),
    ] {
        let (code, err) = bounded(&d, &["run", flag, "-1"]);
        assert_ne!(code, 0, "{flag}: {err}");
        assert!(!err.contains("unexpected argument"), "{flag}: {err}");
        assert!(err.contains(needle), "{flag}: {err}");
    }
}

#[test]
fn trace_counts_past_u32_say_the_bound_and_control_bytes_are_escaped() {
    let d = temp("count");
    std::fs::write(
        d.join("big.csv"),
        "job_id,arrival_s,n_gpus,duration_s\na,0,4294967297,10\n",
    )
    .unwrap();
    refused(
        &d,
        &["run", "--trace", "big.csv", "--trace-format", "canonical"],
        &["big.csv:2", "`4294967297` is above the bound of 4294967295"],
    );
    std::fs::write(
        d.join("esc.csv"),
        "job_id,arrival_s,n_gpus,duration_s\na,0,\u{1b}[31mred\u{0},10\n",
    )
    .unwrap();
    let (code, err) = bounded(
        &d,
        &["run", "--trace", "esc.csv", "--trace-format", "canonical"],
    );
    assert_ne!(code, 0, "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{0}'), "{err:?}");
    assert!(err.contains("\\u{1b}[31mred\\u{0}"), "{err}");
}

#[test]
fn random_failures_need_a_time_bound() {
    let d = temp("failbound");
    // Without checkpoints, and with checkpoints no shorter than the time between failures,
    // mtbf=1,mttr=1 used to run for ever (growing ~4 MB/s): refused at once, from a flag or a
    // scenario file, in a run and in a sweep.
    for extra in [&[][..], &["--checkpoint-interval", "600"][..]] {
        let mut args = vec!["run", "--failures", "mtbf=1,mttr=1", "--track", "0..10"];
        args.extend_from_slice(extra);
        refused(&d, &args, &["--failures", "--max-sim-time"]);
    }
    std::fs::write(
        d.join("s.toml"),
        "cluster = \"2x4\"\nfailures = \"mtbf=1,mttr=1\"\n",
    )
    .unwrap();
    refused(
        &d,
        &["run", "--scenario", "s.toml"],
        &["s.toml", "failures", "max_sim_time_s"],
    );
    // A bad spec in a scenario file is its key's error, with its line (found by the fuzz
    // target `scenario`: `Scenario::from_file` accepted it, and the run reported it as the
    // flag `--failures`).
    std::fs::write(
        d.join("bad.toml"),
        "cluster = \"2x4\"\nfailures = \"mtbf=50,mttr== scope=gpu\"\nmax_sim_time_s = 1e6\n\
         autoscale = \"min_nodes=1\"\n",
    )
    .unwrap();
    let (code, err) = bounded(&d, &["run", "--scenario", "bad.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.toml:2")
            && err.contains("field `failures`")
            && !err.contains("--failures"),
        "{err}"
    );
    std::fs::write(
        d.join("bad.toml"),
        "cluster = \"2x4\"\nautoscale = \"min_nodes=x\"\n",
    )
    .unwrap();
    let (code, err) = bounded(&d, &["run", "--scenario", "bad.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.toml:2") && err.contains("field `autoscale`"),
        "{err}"
    );
    refused(
        &d,
        &[
            "sweep",
            "--failures",
            "none;mtbf=1,mttr=1",
            "--seed",
            "1",
            "--out",
            "sw",
        ],
        &["--failures", "--max-sim-time"],
    );
    assert!(!d.join("sw").exists(), "a refused sweep wrote its folder");
    // With the bound the same run ends (at it, with the error that says so).
    let (code, err) = bounded(
        &d,
        &[
            "run",
            "--failures",
            "mtbf=1,mttr=1",
            "--track",
            "0..10",
            "--max-sim-time",
            "200000",
            "--progress",
            "never",
        ],
    );
    // A valid run that could not finish within its bound: status 1, not 2 (bad input).
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("passed --max-sim-time (200000 s"), "{err}");
}

#[test]
fn a_read_only_out_folder_is_refused_before_the_run_and_keeps_its_files() {
    // Permission bits do not stop root (CI runs as root), but sysfs refuses new entries to
    // everyone, root included: /sys/kernel is a read-only folder with files in it, and
    // /sys/blox-out-… a folder that cannot be made. A system without /sys fails this test (it
    // is not skipped).
    let sys = Path::new("/sys/kernel");
    let list = |p: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap_or_else(|e| panic!("{}: {e} (this test needs sysfs at /sys)", p.display()))
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let before = list(sys);
    assert!(
        std::fs::create_dir(sys.join("blox-probe")).is_err(),
        "/sys/kernel is writable here: this test needs a folder root cannot write"
    );
    let d = temp("readonly");
    let new = format!("/sys/blox-out-{}", std::process::id());
    for out in ["/sys/kernel", new.as_str()] {
        for cmd in [&["run"][..], &["compare", "--policy", "fifo,las"][..]] {
            let mut args = cmd.to_vec();
            args.extend_from_slice(&[
                "--workload",
                "poisson",
                "--jobs",
                "20",
                "--cluster",
                "2x4",
                "--out",
                out,
            ]);
            refused(
                &d,
                &args,
                &["--out", out, "cannot write in", "nothing was run"],
            );
        }
    }
    let (code, err) = bounded(
        &d,
        &[
            "sweep",
            "--load",
            "1,2",
            "--seed",
            "1",
            "--out",
            "/sys/kernel",
        ],
    );
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("cannot write in /sys/kernel"), "{err}");
    assert_eq!(list(sys), before, "a refused run changed /sys/kernel");
    assert!(!Path::new(&new).exists());
}
