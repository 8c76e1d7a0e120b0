//! `sweep --slurm` and `sweep status`.
//!
//! The `slurm_sweep_*` tests without a cluster use fake `sbatch`/`squeue` scripts on PATH (or a
//! PATH without them). The ones on the local 4-node fake-GPU cluster (`blox-cluster/ci/slurm-up.sh`,
//! run by `.ci/run`) are gated on `BLOX_SLURM=1`: without it they print a skip note and pass;
//! with it and no running Slurm they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_blox-sim");

/// The sweep of the tests: 3 policies x 2 loads x 4 seeds = 24 small runs.
const SWEEP: [&str; 9] = [
    "sweep",
    "--policy",
    "fifo,las,srtf",
    "--load",
    "2,4",
    "--seed",
    "1..4",
    "--track",
    "0..200",
];

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("blox-it-sweep-slurm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sweep_args(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = SWEEP.iter().map(|s| s.to_string()).collect();
    v.push("--out".into());
    v.push(out.to_string_lossy().into_owned());
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn run(args: &[String], path: Option<&str>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args);
    if let Some(p) = path {
        c.env("PATH", p);
    }
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A folder of fake Slurm commands (shell scripts).
fn fake_bin(dir: &Path, scripts: &[(&str, &str)]) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, body) in scripts {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // sh, cat, echo: the scripts' own needs.
    format!("{}:/usr/bin:/bin", bin.display())
}

#[test]
fn slurm_sweep_without_sbatch_on_path_is_a_clear_error() {
    let dir = temp("nosbatch");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("out");
    let o = run(
        &sweep_args(&out, &["--slurm"]),
        Some(&empty.to_string_lossy()),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("`sbatch`, which is not on PATH") && t.contains("--shard K/N"),
        "{t}"
    );
    assert!(!out.join("slurm").exists(), "nothing written: {t}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_sweep_rejected_submission_shows_sbatchs_stderr_and_leaves_no_submission() {
    let dir = temp("rejected");
    let path = fake_bin(
        &dir,
        &[
            (
                "sbatch",
                "echo 'sbatch: error: invalid partition specified: nope' >&2; exit 1",
            ),
            ("squeue", "exit 0"),
        ],
    );
    let out = dir.join("out");
    let o = run(
        &sweep_args(&out, &["--slurm", "--no-probe", "--partition", "nope"]),
        Some(&path),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("sbatch rejected the job array"), "{t}");
    assert!(t.contains("invalid partition specified: nope"), "{t}");
    assert!(t.contains("--partition=nope"), "the command is shown: {t}");
    // The plan is written (it is the same sweep next time); no submission is recorded.
    assert!(out.join("slurm/plan.json").is_file());
    assert!(!out.join("slurm/submission-1.json").exists(), "{t}");
    // Status: every run is missing, none was ever submitted.
    let s = run(
        &[
            "sweep".into(),
            "status".into(),
            out.to_string_lossy().into_owned(),
        ],
        Some(&path),
    );
    let st = text(&s);
    assert!(s.status.success(), "{st}");
    assert!(
        st.contains("missing  24") && st.contains("never submitted"),
        "{st}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_sweep_probe_that_fails_means_the_folder_is_not_reachable() {
    let dir = temp("probe");
    let calls = dir.join("calls");
    // sbatch accepts everything (job 5) but never runs it; squeue says job 5 failed.
    let path = fake_bin(
        &dir,
        &[
            (
                "sbatch",
                &format!("echo \"$*\" >> '{}'; echo 5", calls.display()),
            ),
            ("squeue", "echo '5|N/A|FAILED'"),
            ("scancel", "exit 0"),
        ],
    );
    let out = dir.join("out");
    let o = run(&sweep_args(&out, &["--slurm"]), Some(&path));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("is not reachable from the nodes"), "{t}");
    assert!(t.contains("probe job 5 ended failed"), "{t}");
    let calls = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(
        calls.lines().count(),
        1,
        "only the probe was submitted: {calls}"
    );
    assert!(calls.contains("blox-sweep-probe"), "{calls}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn slurm_sweep_refuses_a_folder_of_another_sweep_and_flags_without_slurm() {
    let dir = temp("other");
    let path = fake_bin(&dir, &[("sbatch", "exit 1"), ("squeue", "exit 0")]);
    let out = dir.join("out");
    let _ = run(&sweep_args(&out, &["--slurm", "--no-probe"]), Some(&path));
    assert!(out.join("slurm/plan.json").is_file());
    let mut other = sweep_args(&out, &["--slurm", "--no-probe"]);
    other[2] = "fifo,las".into();
    let o = run(&other, Some(&path));
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("holds another sweep"), "{t}");
    // Slurm options need --slurm; --shard and --threads are the local sweep's.
    for extra in [
        vec!["--partition", "gpu"],
        vec!["--slurm", "--shard", "0/2"],
        vec!["--slurm", "--threads", "2"],
    ] {
        let o = run(&sweep_args(&dir.join("x"), &extra), Some(&path));
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", text(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- on the local Slurm cluster ----

fn slurm_ready(test: &str) -> bool {
    if std::env::var("BLOX_SLURM").as_deref() != Ok("1") {
        eprintln!(
            "{test}: skipped (set BLOX_SLURM=1 with blox-cluster/ci/slurm-up.sh's cluster running)"
        );
        return false;
    }
    let o = Command::new("sinfo")
        .args(["-h", "-N", "-o", "%N|%t"])
        .output()
        .unwrap_or_else(|e| panic!("BLOX_SLURM=1 but sinfo does not run: {e}"));
    let nodes = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && nodes.lines().any(|l| l.ends_with("|idle") || l.ends_with("|mix")),
        "BLOX_SLURM=1 but Slurm is not running (run blox-cluster/ci/slurm-up.sh as root): {nodes} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    true
}

fn status_json(out: &Path) -> serde_json::Value {
    let o = run(
        &[
            "sweep".into(),
            "status".into(),
            out.to_string_lossy().into_owned(),
            "--json".into(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn count(v: &serde_json::Value, state: &str) -> u64 {
    v["counts"][state].as_u64().unwrap()
}

/// Waits until no run is queued or running and the latest merge job has ended.
fn wait_idle(out: &Path) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let v = status_json(out);
        let merge = v["merge_job"]["state"].as_str().unwrap_or("").to_string();
        let merge_live = matches!(
            merge.as_str(),
            "PENDING" | "RUNNING" | "COMPLETING" | "CONFIGURING"
        );
        if count(&v, "queued") + count(&v, "running") == 0 && !merge_live {
            return v;
        }
        assert!(Instant::now() < deadline, "the sweep did not finish: {v:#}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Cancels this test's jobs (by their ids in the folder) even if it fails.
struct Jobs(PathBuf);

impl Drop for Jobs {
    fn drop(&mut self) {
        let Ok(rd) = std::fs::read_dir(self.0.join("slurm")) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(t) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&t) {
                for k in ["array_job", "merge_job", "probe_job"] {
                    if let Some(id) = v[k].as_str() {
                        let _ = Command::new("scancel").arg(id).status();
                    }
                }
            }
        }
    }
}

fn field(out: &Path, sub: u32, key: &str) -> String {
    let t = std::fs::read_to_string(out.join(format!("slurm/submission-{sub}.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&t).unwrap();
    v[key].as_str().unwrap().to_string()
}

/// 24 runs through the job array give results byte-identical to the same sweep run here; one
/// array task cancelled leaves its runs missing, and the same command again submits only them.
#[test]
fn slurm_sweep_matches_the_local_sweep_and_resumes_only_missing_runs() {
    if !slurm_ready("slurm_sweep") {
        return;
    }
    let dir = temp("cluster");
    let local = dir.join("local");
    let o = run(&sweep_args(&local, &["--threads", "2"]), None);
    assert!(o.status.success(), "{}", text(&o));

    let out = dir.join("slurm");
    let _jobs = Jobs(out.clone());
    // Held, so that one array task can be cancelled before it runs (no timing involved).
    let submit_held = sweep_args(
        &out,
        &[
            "--slurm",
            "--tasks",
            "8",
            "--no-probe",
            "--sbatch-arg=--hold",
        ],
    );
    let o = run(&submit_held, None);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("24 submitted (submission 1) in 8 array tasks"),
        "{t}"
    );
    let array = field(&out, 1, "array_job");
    let merge = field(&out, 1, "merge_job");
    let v = status_json(&out);
    assert_eq!(count(&v, "queued"), 24, "{v:#}");
    assert_eq!(v["merge_job"]["state"], "PENDING", "{v:#}");

    // Cancel array task 3 (runs 3, 11, 19), then let the rest run.
    let ok = |c: &mut Command| assert!(c.status().unwrap().success(), "{c:?}");
    ok(Command::new("scancel").arg(format!("{array}_3")));
    ok(Command::new("scontrol").args(["release", &array]));
    ok(Command::new("scontrol").args(["release", &merge]));
    let v = wait_idle(&out);
    assert_eq!(count(&v, "done"), 21, "{v:#}");
    assert_eq!(count(&v, "missing"), 3, "{v:#}");
    assert_eq!(count(&v, "failed"), 0, "{v:#}");
    let missing: Vec<u64> = v["not_done"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(missing, vec![3, 11, 19], "{v:#}");
    // The merge job ran after the array and says which runs are not done.
    let merge_log =
        std::fs::read_to_string(out.join(format!("slurm/logs/1-merge-{merge}.out"))).unwrap();
    assert!(
        merge_log.contains("3 of 24 runs are not done"),
        "{merge_log}"
    );

    // The same command (without the hold, with the probe) submits only the 3 missing runs.
    let o = run(&sweep_args(&out, &["--slurm", "--tasks", "8"]), None);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("21 done, 0 queued or running, 3 submitted (submission 2) in 3 array tasks"),
        "{t}"
    );
    assert!(t.contains("the nodes read and write this folder"), "{t}");
    let sub2 = std::fs::read_to_string(out.join("slurm/submission-2.json")).unwrap();
    let s2: serde_json::Value = serde_json::from_str(&sub2).unwrap();
    assert_eq!(s2["tasks"], serde_json::json!([[3], [11], [19]]));
    let v = wait_idle(&out);
    assert_eq!(count(&v, "done"), 24, "{v:#}");
    assert_eq!(v["merge_job"]["state"], "COMPLETED", "{v:#}");

    // Every run recorded once; the table is the local sweep's, byte for byte.
    assert_eq!(std::fs::read_dir(out.join("runs")).unwrap().count(), 24);
    for f in ["results.csv", "results.json", "jct_vs_load.svg"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(local.join(f)).unwrap(),
            "{f} differs from the local sweep's"
        );
    }
    // Nothing left to do: the same command submits nothing.
    let o = run(&sweep_args(&out, &["--slurm", "--tasks", "8"]), None);
    let t = text(&o);
    assert!(
        o.status.success() && t.contains("nothing to submit: all 24 runs are done"),
        "{t}"
    );
    assert!(!out.join("slurm/submission-3.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs that fail in their task are `failed` in `status`, with their error and log; the task
/// and the merge job end in failure; submitting again retries them.
#[test]
fn slurm_sweep_status_names_failed_runs_with_their_error() {
    if !slurm_ready("slurm_sweep_failed") {
        return;
    }
    let dir = temp("failed");
    // Every run passes its simulated-time bound: an error only a run can find.
    let scenario = dir.join("short.toml");
    std::fs::write(&scenario, "max_sim_time_s = 3600\n").unwrap();
    let out = dir.join("out");
    let _jobs = Jobs(out.clone());
    let args: Vec<String> = [
        "sweep",
        "--scenario",
        &scenario.to_string_lossy(),
        "--seed",
        "1..2",
        "--load",
        "2",
        "--track",
        "0..200",
        "--out",
        &out.to_string_lossy(),
        "--slurm",
        "--no-probe",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let o = run(&args, None);
    assert!(o.status.success(), "{}", text(&o));
    let v = wait_idle(&out);
    assert_eq!(count(&v, "failed"), 2, "{v:#}");
    assert_eq!(v["merge_job"]["state"], "FAILED", "{v:#}");
    for r in v["not_done"].as_array().unwrap() {
        let d = r["detail"].as_str().unwrap();
        assert!(
            d.contains("max-sim-time") && d.contains("slurm/logs/1-"),
            "{d}"
        );
    }
    let array = field(&out, 1, "array_job");
    let log = std::fs::read_to_string(out.join(format!("slurm/logs/1-{array}_0.out"))).unwrap();
    assert!(
        log.contains("1 failed") && log.contains("error: run 0"),
        "{log}"
    );
    // Text output names them too.
    let s = run(
        &[
            "sweep".into(),
            "status".into(),
            out.to_string_lossy().into_owned(),
        ],
        None,
    );
    let t = text(&s);
    assert!(
        t.contains("failed   2") && t.contains("failed: run 0 ("),
        "{t}"
    );
    // Submitting again retries the failed runs (they fail again, as they must).
    let o = run(&args, None);
    let t = text(&o);
    assert!(
        o.status.success() && t.contains("2 submitted (submission 2)"),
        "{t}"
    );
    let v = wait_idle(&out);
    assert_eq!(count(&v, "failed"), 2, "{v:#}");
    assert!(!out.join("results.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `status` through the command line with a fake queue: a running task's begun run is
/// `running`, its other runs and a pending task's are `queued`; `status` writes nothing.
#[test]
fn slurm_sweep_status_reads_running_and_queued_tasks_from_squeue() {
    let dir = temp("fakequeue");
    let ids = dir.join("next-id");
    std::fs::write(&ids, "70").unwrap();
    // sbatch hands out 70 (the array), then 71 (the merge job); squeue: task 0 runs, the others
    // wait, the merge job waits.
    let path = fake_bin(
        &dir,
        &[
            (
                "sbatch",
                &format!(
                    "n=$(cat '{0}'); echo $((n + 1)) > '{0}'; echo $n",
                    ids.display()
                ),
            ),
            (
                "squeue",
                "printf '70|0|RUNNING\\n70|1|PENDING\\n70|2|PENDING\\n71|N/A|PENDING\\n'",
            ),
        ],
    );
    let out = dir.join("out");
    let o = run(
        &sweep_args(&out, &["--slurm", "--no-probe", "--tasks", "3"]),
        Some(&path),
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("job array: 70") && t.contains("merge job: 71"),
        "{t}"
    );
    // Task 0 (runs 0, 3, 6, ...) has begun run 0.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("slurm/plan.json")).unwrap())
            .unwrap();
    let label0 = plan["runs"][0]["label"].as_str().unwrap();
    std::fs::write(
        out.join(format!("slurm/state/{label0}.started")),
        r#"{"submission":1,"task":0,"job":"70","node":"n1"}"#,
    )
    .unwrap();
    let before: Vec<_> = walk(&out);
    let s = run(
        &[
            "sweep".into(),
            "status".into(),
            out.to_string_lossy().into_owned(),
        ],
        Some(&path),
    );
    let st = text(&s);
    assert!(s.status.success(), "{st}");
    for line in [
        "done     0",
        "running  1",
        "queued   23",
        "failed   0",
        "missing  0",
        "merge job 71: pending",
    ] {
        assert!(st.contains(line), "{line}: {st}");
    }
    assert_eq!(walk(&out), before, "status changed the folder");
    // Submitting again while all are queued or running submits nothing.
    let o = run(&sweep_args(&out, &["--slurm", "--no-probe"]), Some(&path));
    let t = text(&o);
    assert!(
        o.status.success() && t.contains("nothing to submit: 0 runs done, 24 queued or running"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file under `dir` with its bytes.
fn walk(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                v.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    v.sort();
    v
}

/// The whole flow without a cluster: a fake `sbatch` that runs each script at once (the probe,
/// every array task with its SLURM_ARRAY_TASK_ID, then the merge job) gives the local sweep's
/// files; `sweep task` outside Slurm is a clear error.
#[test]
fn slurm_sweep_through_a_fake_sbatch_that_runs_the_scripts_matches_the_local_sweep() {
    let dir = temp("fakerun");
    let ids = dir.join("next-id");
    std::fs::write(&ids, "500").unwrap();
    let sbatch = format!(
        r#"n=$(cat '{ids}'); echo $((n + 1)) > '{ids}'
arr=""; script=""
for a in "$@"; do case "$a" in --array=*) arr="${{a#--array=0-}}";; esac; script="$a"; done
if [ -n "$arr" ]; then
  i=0; while [ $i -le "$arr" ]; do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=$n SLURMD_NODENAME=fake sh "$script" >> '{log}' 2>&1
    i=$((i + 1)); done
else
  SLURMD_NODENAME=fake sh "$script" >> '{log}' 2>&1
fi
echo $n"#,
        ids = ids.display(),
        log = dir.join("jobs.log").display()
    );
    let path = fake_bin(&dir, &[("sbatch", &sbatch), ("squeue", "exit 0")]);
    let local = dir.join("local");
    let o = run(&sweep_args(&local, &["--threads", "2"]), None);
    assert!(o.status.success(), "{}", text(&o));
    let out = dir.join("out");
    let o = run(&sweep_args(&out, &["--slurm", "--tasks", "5"]), Some(&path));
    let t = text(&o);
    let log = std::fs::read_to_string(dir.join("jobs.log")).unwrap_or_default();
    assert!(o.status.success(), "{t}\njobs:\n{log}");
    assert!(
        t.contains("probe job 500 on fake: the nodes read and write this folder"),
        "{t}"
    );
    assert!(
        t.contains("job array: 501") && t.contains("merge job: 502"),
        "{t}"
    );
    assert!(log.contains("task 4 of submission 1 on fake"), "{log}");
    assert!(log.contains("submission 1: 24 runs merged"), "{log}");
    for f in ["results.csv", "results.json", "jct_vs_load.svg"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(local.join(f)).unwrap(),
            "{f}"
        );
    }
    let s = run(
        &[
            "sweep".into(),
            "status".into(),
            out.to_string_lossy().into_owned(),
        ],
        Some(&path),
    );
    assert!(text(&s).contains("done     24"), "{}", text(&s));
    // The hidden task command, run by hand, says what it is for.
    let o = run(
        &[
            "sweep".into(),
            "task".into(),
            out.to_string_lossy().into_owned(),
            "1".into(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("SLURM_ARRAY_TASK_ID"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
