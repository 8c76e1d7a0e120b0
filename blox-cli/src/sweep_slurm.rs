//! `blox-sim sweep … --slurm`: a sweep as one Slurm job array plus a dependent merge job, and
//! `blox-sim sweep status DIR`.
//!
//! Everything lives in the sweep's output folder, which must be on a file system the nodes share:
//!
//! | file | what |
//! |---|---|
//! | `slurm/plan.json` | every run of the sweep (index, label, scenario), written once |
//! | `slurm/submission-S.json` | submission S: the run indices of each array task, the job ids |
//! | `slurm/submission-S.sh`, `slurm/merge-S.sh` | the batch scripts given to `sbatch` |
//! | `slurm/logs/S-ARRAY_TASK.out`, `slurm/logs/S-merge-JOB.out` | the jobs' output |
//! | `slurm/state/LABEL.started`, `slurm/state/LABEL.failed` | a task began a run; a run failed |
//! | `slurm/tasks/S-K.json` | array task K of submission S ended (what it ran) |
//! | `runs/LABEL/` | each run's outputs, `run.json` last (the local sweep's layout) |
//!
//! A run is *done* when `runs/LABEL/run.json` exists (written atomically, last), so a half-written
//! run never counts and a run is never recorded twice (one folder per label). Submitting again
//! with the same command submits only the runs that are neither done nor queued or running in a
//! live task (from `squeue`), so a cancelled or failed task's runs are run again and nothing done
//! is lost. Each array task runs its share with the same binary (`blox-sim sweep task DIR S`, not
//! listed in `--help`); the merge job (`--dependency=afterany:ARRAY`) writes `results.csv` with
//! the same code as a local sweep, so the table is byte-identical to a local run's.

use blox_scenario::registry::Registry;
use blox_scenario::sweep::{merge, run_one_with, SweepRun};
use blox_scenario::write_atomically;
use blox_sim::SimError;
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The `--slurm` options of `sweep`.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct SlurmArgs {
    /// Submit the sweep to Slurm instead of running it here: one job array whose tasks run the
    /// runs not yet done (DIR must be on a file system the nodes share) and a merge job after
    /// it; prints the job ids. The same command again submits only runs missing or failed.
    /// Follow with `blox-sim sweep status DIR`. See docs/cluster-sweeps.md.
    #[arg(long, conflicts_with_all = ["shard", "threads"])]
    pub slurm: bool,
    /// Slurm partition for the jobs (sbatch --partition).
    #[arg(long, value_name = "NAME", requires = "slurm")]
    pub partition: Option<String>,
    /// Time limit of each job (sbatch --time), e.g. `30` (minutes) or `2:00:00`.
    #[arg(long, value_name = "TIME", requires = "slurm")]
    pub time_limit: Option<String>,
    /// CPUs of each array task (sbatch --cpus-per-task); the task runs that many runs at once
    /// [default: 1].
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub cpus_per_task: Option<u32>,
    /// Array tasks to split the runs into [default: one per run, at most 100].
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub tasks: Option<u32>,
    /// Run at most N array tasks at once (sbatch --array=…%N).
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub array_limit: Option<u32>,
    /// One more sbatch argument for every job (repeatable), e.g. `--sbatch-arg=--account=abc`.
    #[arg(
        long = "sbatch-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "slurm"
    )]
    pub sbatch_args: Vec<String>,
    /// Skip the probe job that checks, before the array is submitted, that the nodes can read
    /// and write DIR and run this binary.
    #[arg(long, requires = "slurm")]
    pub no_probe: bool,
    /// Seconds to wait for the probe job to run [default: 300].
    #[arg(
        long,
        value_name = "SECONDS",
        requires = "slurm",
        conflicts_with = "no_probe"
    )]
    pub probe_timeout: Option<u64>,
}

/// `sweep status DIR` and the hidden commands the Slurm jobs run.
#[derive(Subcommand, Clone, Debug)]
pub(crate) enum SweepAction {
    /// Count the runs of a sweep submitted with --slurm: done, running, queued, failed and
    /// missing (from DIR and squeue/sacct); never changes DIR.
    Status(StatusArgs),
    /// Run array task $SLURM_ARRAY_TASK_ID of submission S (run by the job array).
    #[command(hide = true)]
    Task {
        /// The sweep's folder.
        dir: PathBuf,
        /// Submission number.
        submission: u32,
    },
    /// Merge DIR and report runs not done (run by the merge job).
    #[command(hide = true)]
    Finish {
        /// The sweep's folder.
        dir: PathBuf,
        /// Submission number.
        submission: u32,
    },
    /// Check that a node reads and writes DIR (run by the probe job).
    #[command(hide = true)]
    Probe {
        /// The sweep's folder.
        dir: PathBuf,
        /// The token the submitter wrote.
        token: String,
        /// The folder the jobs run in (the submitter's working directory).
        cwd: PathBuf,
    },
}

/// `sweep status` arguments.
#[derive(Args, Clone, Debug)]
pub(crate) struct StatusArgs {
    /// The sweep's output folder (its --out).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Print JSON: counts, and every run that is not done with its state.
    #[arg(long)]
    pub json: bool,
}

/// Runs `sweep status` or a hidden job command.
pub(crate) fn action(act: SweepAction, reg: &Registry) -> Result<(), SimError> {
    match act {
        SweepAction::Status(a) => status(&a.dir, a.json),
        SweepAction::Task { dir, submission } => task(&dir, submission, reg),
        SweepAction::Finish { dir, submission } => finish(&dir, submission),
        SweepAction::Probe { dir, token, cwd } => probe(&dir, &token, &cwd),
    }
}

const DEFAULT_MAX_TASKS: usize = 100;
const DEFAULT_PROBE_TIMEOUT_S: u64 = 300;

#[derive(Serialize)]
struct Plan {
    runs: Vec<SweepRun>,
}

/// A plan's runs, read through a `serde_json::Value` and [`SweepRun::from_json`] (this crate
/// does not compile the scenario's deserialiser again).
fn read_plan(p: &Path) -> Result<Vec<SweepRun>, SimError> {
    let bad = |m: String| SimError::input(p, None, None, m);
    let runs = match read_json::<serde_json::Value>(p)? {
        serde_json::Value::Object(mut m) => m.remove("runs"),
        _ => return Err(bad("invalid type: expected struct Plan".into())),
    };
    match runs {
        Some(serde_json::Value::Array(runs)) => runs
            .into_iter()
            .map(|r| SweepRun::from_json(r).map_err(|e| bad(e.to_string())))
            .collect(),
        Some(_) => Err(bad("invalid type: `runs` is not a sequence".into())),
        None => Err(bad("missing field `runs`".into())),
    }
}

/// One submission: the runs of each array task and the job ids.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Submission {
    submission: u32,
    /// Run indices of each array task (task K runs `tasks[K]`).
    tasks: Vec<Vec<usize>>,
    cpus_per_task: u32,
    #[serde(default)]
    array_job: Option<String>,
    #[serde(default)]
    merge_job: Option<String>,
    #[serde(default)]
    probe_job: Option<String>,
}

/// What a `.started` or `.failed` marker records.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Marker {
    submission: u32,
    task: usize,
    job: String,
    node: String,
    #[serde(default)]
    error: Option<String>,
}

/// A run's state in `sweep status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    Done,
    Running,
    Queued,
    Failed,
    Missing,
}

const STATES: [State; 5] = [
    State::Done,
    State::Running,
    State::Queued,
    State::Failed,
    State::Missing,
];

impl State {
    fn name(self) -> &'static str {
        match self {
            State::Done => "done",
            State::Running => "running",
            State::Queued => "queued",
            State::Failed => "failed",
            State::Missing => "missing",
        }
    }
}

/// One run's state, with why for the ones not done.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RunState {
    index: usize,
    label: String,
    state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

/// A Slurm job's (or array task's) state as `squeue`/`sacct` name it.
type Queue = BTreeMap<(String, Option<usize>), String>;

fn slurm_dir(dir: &Path) -> PathBuf {
    dir.join("slurm")
}

fn io(p: &Path) -> impl FnOnce(std::io::Error) -> SimError + '_ {
    move |e| SimError::io(p, e)
}

fn read_json<T: serde::de::DeserializeOwned>(p: &Path) -> Result<T, SimError> {
    let text = std::fs::read_to_string(p).map_err(io(p))?;
    serde_json::from_str(&text)
        .map_err(|e| SimError::input(p, Some(e.line() as u64), None, e.to_string()))
}

fn write_json<T: Serialize>(dir: &Path, name: &str, v: &T) -> Result<(), SimError> {
    let mut bytes = serde_json::to_vec_pretty(v).expect("serialising to memory");
    bytes.push(b'\n');
    write_atomically(dir, name, &bytes)
}

/// A program on PATH, as the shell would find it.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// `'text'` for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Whether `runs/LABEL/run.json` exists: the run finished and recorded.
fn is_done(dir: &Path, label: &str) -> bool {
    dir.join("runs").join(label).join("run.json").is_file()
}

/// Every submission in `slurm/`, by number.
fn submissions(dir: &Path) -> Result<Vec<Submission>, SimError> {
    let sd = slurm_dir(dir);
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&sd) else {
        return Ok(out);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("submission-")
            .and_then(|r| r.strip_suffix(".json"))
        {
            if n.parse::<u32>().is_ok() {
                out.push(read_json::<Submission>(&e.path())?);
            }
        }
    }
    out.sort_by_key(|s| s.submission);
    Ok(out)
}

/// Splits `indices` into at most `tasks` array tasks, round robin (task K gets the K-th, the
/// (K+T)-th, … index), so each task gets runs from the whole sweep.
pub(crate) fn assign(indices: &[usize], tasks: usize) -> Vec<Vec<usize>> {
    let t = tasks.clamp(1, indices.len().max(1));
    let mut out = vec![Vec::new(); t];
    for (i, &ix) in indices.iter().enumerate() {
        out[i % t].push(ix);
    }
    out.retain(|v| !v.is_empty());
    out
}

/// Parses `squeue -h -r -t all -o '%F|%K|%T'` (array job id, array index or `N/A`, state).
pub(crate) fn parse_squeue(text: &str) -> Queue {
    let mut q = Queue::new();
    for line in text.lines() {
        let mut f = line.trim().split('|');
        let (Some(job), Some(idx), Some(state)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let idx = idx.trim().parse::<usize>().ok();
        q.insert((job.trim().to_string(), idx), state.trim().to_string());
    }
    q
}

/// Parses `sacct -n -P -X -o JobID,State` (`123_4|FAILED`, `124|COMPLETED`, `125|CANCELLED by 0`).
pub(crate) fn parse_sacct(text: &str) -> Queue {
    let mut q = Queue::new();
    for line in text.lines() {
        let Some((id, state)) = line.trim().split_once('|') else {
            continue;
        };
        let state = state.split_whitespace().next().unwrap_or("").to_string();
        let (job, idx) = match id.split_once('_') {
            Some((j, i)) => match i.parse::<usize>() {
                Ok(i) => (j.to_string(), Some(i)),
                Err(_) => continue, // `123_[4-9]`: pending, squeue has them
            },
            None => (id.to_string(), None),
        };
        q.insert((job, idx), state);
    }
    q
}

/// What a Slurm state means here: `Some(true)` running, `Some(false)` waiting, `None` ended.
fn live(state: &str) -> Option<bool> {
    match state {
        "RUNNING" | "CONFIGURING" | "COMPLETING" | "STAGE_OUT" | "SIGNALING" | "RESIZING" => {
            Some(true)
        }
        "PENDING" | "REQUEUED" | "REQUEUE_HOLD" | "REQUEUE_FED" | "SUSPENDED" | "STOPPED" => {
            Some(false)
        }
        _ => None,
    }
}

/// The queue's view of these jobs: `squeue` (live and recently ended jobs), then `sacct` for
/// jobs `squeue` no longer knows (when accounting is on). `None` when `squeue` is not on PATH.
fn query_queue(jobs: &[String]) -> Result<Option<Queue>, SimError> {
    if jobs.is_empty() {
        return Ok(on_path("squeue").map(|_| Queue::new()));
    }
    let Some(squeue) = on_path("squeue") else {
        return Ok(None);
    };
    let ids = jobs.join(",");
    let out = Command::new(&squeue)
        .args(["-h", "-r", "-t", "all", "-o", "%F|%K|%T", "-j", &ids])
        .output()
        .map_err(io(&squeue))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut q = if out.status.success() {
        parse_squeue(&String::from_utf8_lossy(&out.stdout))
    } else if stderr.contains("Invalid job id") {
        Queue::new() // none of them is known any more
    } else {
        return Err(SimError::Config(format!(
            "squeue failed ({}): {}",
            out.status,
            stderr.trim()
        )));
    };
    if let Some(sacct) = on_path("sacct") {
        if let Ok(o) = Command::new(sacct)
            .args(["-n", "-P", "-X", "-o", "JobID,State", "-j", &ids])
            .output()
        {
            if o.status.success() {
                for (k, v) in parse_sacct(&String::from_utf8_lossy(&o.stdout)) {
                    q.entry(k).or_insert(v);
                }
            }
        }
    }
    Ok(Some(q))
}

fn job_ids(subs: &[Submission]) -> Vec<String> {
    let mut v: Vec<String> = subs
        .iter()
        .flat_map(|s| [s.array_job.clone(), s.merge_job.clone()])
        .flatten()
        .collect();
    v.sort();
    v.dedup();
    v
}

fn read_marker(p: &Path) -> Option<Marker> {
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
}

/// Every run's state from the folder and the queue (`None`: no queue information, so a task
/// that has not written its end marker may still be running).
pub(crate) fn classify(
    dir: &Path,
    runs: &[SweepRun],
    subs: &[Submission],
    queue: Option<&Queue>,
) -> Vec<RunState> {
    // The latest submission (and task) of each run.
    let mut latest: BTreeMap<usize, (&Submission, usize)> = BTreeMap::new();
    for s in subs {
        if s.array_job.is_none() {
            continue; // its array was never accepted
        }
        for (k, t) in s.tasks.iter().enumerate() {
            for &ix in t {
                latest.insert(ix, (s, k));
            }
        }
    }
    let state_dir = slurm_dir(dir).join("state");
    runs.iter()
        .map(|r| {
            let (state, detail) = if is_done(dir, &r.label) {
                (State::Done, None)
            } else {
                classify_one(dir, &state_dir, r, latest.get(&r.index).copied(), queue)
            };
            RunState {
                index: r.index,
                label: r.label.clone(),
                state,
                detail,
            }
        })
        .collect()
}

fn classify_one(
    dir: &Path,
    state_dir: &Path,
    r: &SweepRun,
    latest: Option<(&Submission, usize)>,
    queue: Option<&Queue>,
) -> (State, Option<String>) {
    let Some((s, k)) = latest else {
        return (State::Missing, Some("never submitted".into()));
    };
    let job = s.array_job.clone().unwrap_or_default();
    let log = slurm_dir(dir)
        .join("logs")
        .join(format!("{}-{job}_{k}.out", s.submission));
    let started = read_marker(&state_dir.join(format!("{}.started", r.label)))
        .filter(|m| m.submission == s.submission);
    let failed = read_marker(&state_dir.join(format!("{}.failed", r.label)))
        .filter(|m| m.submission == s.submission);
    let task_state = queue.and_then(|q| q.get(&(job.clone(), Some(k))).cloned());
    let ended_marker = slurm_dir(dir)
        .join("tasks")
        .join(format!("{}-{k}.json", s.submission))
        .is_file();
    let where_ = format!("task {k} of job {job}");
    if let Some(f) = failed {
        return (
            State::Failed,
            Some(format!(
                "{where_} on {}: {}; log {}",
                f.node,
                f.error.unwrap_or_default(),
                log.display()
            )),
        );
    }
    match task_state.as_deref().map(|st| (st, live(st))) {
        Some((_, Some(true))) if !ended_marker => {
            if started.is_some() {
                (State::Running, Some(where_))
            } else {
                (
                    State::Queued,
                    Some(format!("{where_} (running; not begun)")),
                )
            }
        }
        Some((st, Some(false))) => (State::Queued, Some(format!("{where_} ({st})"))),
        None if queue.is_none() && !ended_marker => (
            // No squeue: the task may still be queued or running.
            State::Queued,
            Some(format!("{where_} (squeue not on PATH: assumed live)")),
        ),
        other => {
            let how = other.map_or("ended".to_string(), |(st, _)| st.to_lowercase());
            if started.is_some() {
                (
                    State::Failed,
                    Some(format!(
                        "{where_} {how} while the run ran (cancelled, timed out or its node \
                         failed); log {}",
                        log.display()
                    )),
                )
            } else {
                (
                    State::Missing,
                    Some(format!("{where_} {how} before the run began (cancelled?)")),
                )
            }
        }
    }
}

fn load_plan(dir: &Path) -> Result<Vec<SweepRun>, SimError> {
    let p = slurm_dir(dir).join("plan.json");
    if !p.is_file() {
        return Err(SimError::Config(format!(
            "{} holds no Slurm sweep plan ({} does not exist): submit it with `blox-sim sweep \
             … --out {} --slurm`",
            dir.display(),
            p.display(),
            dir.display()
        )));
    }
    read_plan(&p)
}

fn counts(states: &[RunState]) -> BTreeMap<State, usize> {
    let mut c: BTreeMap<State, usize> = STATES.iter().map(|&s| (s, 0)).collect();
    for s in states {
        *c.entry(s.state).or_default() += 1;
    }
    c
}

fn status(dir: &Path, json: bool) -> Result<(), SimError> {
    let runs = load_plan(dir)?;
    let subs = submissions(dir)?;
    let queue = query_queue(&job_ids(&subs))?;
    let states = classify(dir, &runs, &subs, queue.as_ref());
    let c = counts(&states);
    let merge = subs.iter().rev().find_map(|s| {
        s.merge_job.as_ref().map(|m| {
            let st = queue
                .as_ref()
                .and_then(|q| q.get(&(m.clone(), None)).cloned())
                .unwrap_or_else(|| "ended".into());
            (m.clone(), st)
        })
    });
    if json {
        let v = serde_json::json!({
            "runs": runs.len(),
            "counts": c.iter().map(|(k, v)| (k.name(), *v)).collect::<BTreeMap<_, _>>(),
            "submissions": subs.len(),
            "merge_job": merge.as_ref().map(|(m, st)| serde_json::json!({"id": m, "state": st})),
            "squeue": queue.is_some(),
            "not_done": states.iter().filter(|s| s.state != State::Done).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).expect("to memory"));
        return Ok(());
    }
    println!(
        "sweep {}: {} runs, {} submission{}",
        dir.display(),
        runs.len(),
        subs.len(),
        if subs.len() == 1 { "" } else { "s" }
    );
    for s in STATES {
        println!("  {:<8} {}", s.name(), c[&s]);
    }
    if queue.is_none() {
        println!("(squeue is not on PATH: tasks that have not ended are counted as queued)");
    }
    for want in [State::Failed, State::Missing] {
        let these: Vec<&RunState> = states.iter().filter(|s| s.state == want).collect();
        for s in these.iter().take(20) {
            println!(
                "{}: run {} ({}): {}",
                want.name(),
                s.index,
                s.label,
                s.detail.as_deref().unwrap_or("")
            );
        }
        if these.len() > 20 {
            println!(
                "… and {} more {} runs (--json lists all)",
                these.len() - 20,
                want.name()
            );
        }
    }
    if let Some((m, st)) = &merge {
        println!("merge job {m}: {}", st.to_lowercase());
    }
    let todo = c[&State::Failed] + c[&State::Missing];
    if todo > 0 && c[&State::Running] + c[&State::Queued] == 0 {
        println!(
            "{todo} runs to do: the same `blox-sim sweep … --out {} --slurm` command submits \
             them",
            dir.display()
        );
    } else if c[&State::Done] == runs.len() {
        println!(
            "all runs done; results in {}",
            dir.join("results.csv").display()
        );
    }
    Ok(())
}

/// The sbatch result: the job id, or sbatch's error.
fn sbatch(sbatch: &Path, args: &[String], what: &str) -> Result<String, SimError> {
    let out = Command::new(sbatch)
        .arg("--parsable")
        .args(args)
        .output()
        .map_err(io(sbatch))?;
    if !out.status.success() {
        return Err(SimError::Config(format!(
            "sbatch rejected the {what} ({}): {}\n  command: {} --parsable {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            sbatch.display(),
            args.join(" ")
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text
        .trim()
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
        return Err(SimError::Config(format!(
            "sbatch accepted the {what} but printed no job id: `{}`",
            text.trim()
        )));
    }
    Ok(id)
}

fn common_sbatch_args(a: &SlurmArgs) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(p) = &a.partition {
        v.push(format!("--partition={p}"));
    }
    if let Some(t) = &a.time_limit {
        v.push(format!("--time={t}"));
    }
    v.extend(a.sbatch_args.iter().cloned());
    v
}

fn write_script(dir: &Path, name: &str, exe: &Path, args: &[&str]) -> Result<PathBuf, SimError> {
    let mut s = String::from("#!/bin/sh\n# Written by blox-sim sweep --slurm.\nexec ");
    s.push_str(&sh_quote(&exe.to_string_lossy()));
    for a in args {
        s.push(' ');
        s.push_str(&sh_quote(a));
    }
    s.push('\n');
    write_atomically(dir, name, s.as_bytes())?;
    Ok(dir.join(name))
}

/// Submits the runs of `all` that are not done (nor queued or running) to Slurm.
pub(crate) fn submit(all: &[SweepRun], out: &Path, a: &SlurmArgs) -> Result<(), SimError> {
    let sbatch_path = on_path("sbatch").ok_or_else(|| {
        SimError::Config(format!(
            "--slurm submits with `sbatch`, which is not on PATH ({}): run this on a Slurm \
             login node, or run `blox-sim sweep … --shard K/N` in your own batch jobs and then \
             `blox-sim merge DIR`",
            std::env::var("PATH").unwrap_or_default()
        ))
    })?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| SimError::Config(format!("cannot name this program's binary: {e}")))?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    let dir = std::fs::canonicalize(out).map_err(io(out))?;
    // The jobs run where this command runs, so relative paths in the scenario (traces, files)
    // mean the same there.
    let cwd = std::env::current_dir()
        .map_err(|e| SimError::Config(format!("cannot read the working directory: {e}")))?;
    let sd = slurm_dir(&dir);
    for sub in ["logs", "state", "tasks"] {
        let p = sd.join(sub);
        std::fs::create_dir_all(&p).map_err(io(&p))?;
    }
    // The plan: written once; a later submission must be the same sweep.
    let plan_path = sd.join("plan.json");
    if plan_path.is_file() {
        let old = read_plan(&plan_path)?;
        if old != all {
            let first = old
                .iter()
                .zip(all)
                .find(|(o, n)| o != n)
                .map(|(o, _)| format!("run {} ({}) differs", o.index, o.label))
                .unwrap_or_else(|| format!("{} runs then, {} now", old.len(), all.len()));
            return Err(SimError::Config(format!(
                "{} holds another sweep ({}: {first}): give this sweep its own --out folder, \
                 or the same flags as before to resume",
                dir.display(),
                plan_path.display()
            )));
        }
    } else {
        write_json(&sd, "plan.json", &Plan { runs: all.to_vec() })?;
    }
    let subs = submissions(&dir)?;
    let queue = query_queue(&job_ids(&subs))?;
    let states = classify(&dir, all, &subs, queue.as_ref());
    let c = counts(&states);
    let todo: Vec<usize> = states
        .iter()
        .filter(|s| matches!(s.state, State::Failed | State::Missing))
        .map(|s| s.index)
        .collect();
    if todo.is_empty() {
        let live = c[&State::Running] + c[&State::Queued];
        if live > 0 {
            println!(
                "nothing to submit: {} runs done, {live} queued or running; follow with \
                 `blox-sim sweep status {}`",
                c[&State::Done],
                dir.display()
            );
        } else {
            let rows = merge(&dir)?;
            println!(
                "nothing to submit: all {} runs are done; {} rows in {}",
                all.len(),
                rows.len(),
                dir.join("results.csv").display()
            );
        }
        return Ok(());
    }
    let common = common_sbatch_args(a);
    let probe_job = if a.no_probe {
        None
    } else {
        Some(run_probe(
            &sbatch_path,
            &exe,
            &dir,
            &cwd,
            &common,
            a.probe_timeout.unwrap_or(DEFAULT_PROBE_TIMEOUT_S),
        )?)
    };
    let n = subs.iter().map(|s| s.submission).max().unwrap_or(0) + 1;
    let cpus = a.cpus_per_task.unwrap_or(1);
    let tasks = assign(
        &todo,
        a.tasks
            .map_or(DEFAULT_MAX_TASKS.min(todo.len()), |t| t as usize),
    );
    let mut sub = Submission {
        submission: n,
        tasks,
        cpus_per_task: cpus,
        probe_job: probe_job.as_ref().map(|p| p.0.clone()),
        ..Submission::default()
    };
    let sub_name = format!("submission-{n}.json");
    let n_s = n.to_string();
    let d = dir.to_string_lossy().into_owned();
    let task_script = write_script(
        &sd,
        &format!("submission-{n}.sh"),
        &exe,
        &["sweep", "task", &d, &n_s],
    )?;
    let merge_script = write_script(
        &sd,
        &format!("merge-{n}.sh"),
        &exe,
        &["sweep", "finish", &d, &n_s],
    )?;
    // The tasks read their runs from this file: it is there before the array is submitted.
    write_json(&sd, &sub_name, &sub)?;
    let mut array = format!("--array=0-{}", sub.tasks.len() - 1);
    if let Some(l) = a.array_limit {
        array.push_str(&format!("%{l}"));
    }
    let mut args = vec![
        format!("--job-name=blox-sweep-{n}"),
        array,
        format!("--cpus-per-task={cpus}"),
        format!("--output={}/logs/{n}-%A_%a.out", sd.display()),
        format!("--chdir={}", cwd.display()),
    ];
    args.extend(common.iter().cloned());
    args.push(task_script.to_string_lossy().into_owned());
    let array_job = match sbatch(&sbatch_path, &args, "job array") {
        Ok(id) => id,
        Err(e) => {
            // Nothing was submitted: the submission never happened.
            let _ = std::fs::remove_file(sd.join(&sub_name));
            return Err(e);
        }
    };
    sub.array_job = Some(array_job.clone());
    write_json(&sd, &sub_name, &sub)?;
    let mut margs = vec![
        format!("--job-name=blox-sweep-{n}-merge"),
        format!("--dependency=afterany:{array_job}"),
        "--cpus-per-task=1".to_string(),
        format!("--output={}/logs/{n}-merge-%j.out", sd.display()),
        format!("--chdir={}", cwd.display()),
    ];
    margs.extend(common.iter().cloned());
    margs.push(merge_script.to_string_lossy().into_owned());
    let merge_result = sbatch(&sbatch_path, &margs, "merge job");
    if let Ok(m) = &merge_result {
        sub.merge_job = Some(m.clone());
        write_json(&sd, &sub_name, &sub)?;
    }
    // Earlier markers of the runs submitted again stay: each names its submission, and status
    // reads only those of a run's latest one (deleting them here could race with a task that
    // has already begun).
    println!(
        "sweep {}: {} runs; {} done, {} queued or running, {} submitted (submission {n}) in {} \
         array tasks of {cpus} CPU{}",
        dir.display(),
        all.len(),
        c[&State::Done],
        c[&State::Running] + c[&State::Queued],
        todo.len(),
        sub.tasks.len(),
        if cpus == 1 { "" } else { "s" }
    );
    if let Some((id, node)) = &probe_job {
        println!("probe job {id} on {node}: the nodes read and write this folder");
    }
    println!("job array: {array_job}");
    let merge_id = merge_result?;
    println!("merge job: {merge_id} (after the array: writes results.csv)");
    println!(
        "follow:    blox-sim sweep status {d}    (or: squeue -j {array_job},{merge_id})\n\
         logs:      {}/logs/\n\
         resume:    the same command submits the runs missing or failed",
        sd.display()
    );
    Ok(())
}

/// Submits the probe job and waits until it has confirmed that a node reads and writes `dir`
/// (returns its id and node), it has failed, or `timeout_s` passed.
fn run_probe(
    sbatch_path: &Path,
    exe: &Path,
    dir: &Path,
    cwd: &Path,
    common: &[String],
    timeout_s: u64,
) -> Result<(String, String), SimError> {
    let sd = slurm_dir(dir);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let token = format!("{:x}{:x}", nanos, std::process::id());
    write_atomically(&sd, "probe-token", token.as_bytes())?;
    let ok_path = sd.join(format!("probe-{token}.ok"));
    let d = dir.to_string_lossy().into_owned();
    let cwd_s = cwd.to_string_lossy().into_owned();
    let script = write_script(
        &sd,
        "probe.sh",
        exe,
        &["sweep", "probe", &d, &token, &cwd_s],
    )?;
    let mut args = vec![
        "--job-name=blox-sweep-probe".to_string(),
        "--output=/dev/null".to_string(),
        "--chdir=/".to_string(),
    ];
    args.extend(common.iter().cloned());
    args.push(script.to_string_lossy().into_owned());
    let id = sbatch(sbatch_path, &args, "probe job")?;
    let deadline = Instant::now() + Duration::from_secs(timeout_s);
    let unreachable = |how: &str| {
        SimError::Config(format!(
            "the folder {d} is not reachable from the nodes: the probe job {id} {how} without \
             confirming that it read and wrote the folder and ran {} there in {}. Put the --out \
             folder, the binary and the working directory on a file system the nodes share (or \
             skip this check with --no-probe)",
            exe.display(),
            cwd.display()
        ))
    };
    loop {
        if let Ok(node) = std::fs::read_to_string(&ok_path) {
            let _ = std::fs::remove_file(&ok_path);
            return Ok((id, node.trim().to_string()));
        }
        let q = query_queue(std::slice::from_ref(&id))?;
        let st = q.as_ref().and_then(|q| q.get(&(id.clone(), None)).cloned());
        match st.as_deref() {
            // It exits 0 only after writing the file; give a shared file system time to show it.
            Some("COMPLETED") => {
                for _ in 0..50 {
                    if let Ok(node) = std::fs::read_to_string(&ok_path) {
                        let _ = std::fs::remove_file(&ok_path);
                        return Ok((id, node.trim().to_string()));
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                return Ok((
                    id,
                    "a node (its confirmation is not visible here yet)".into(),
                ));
            }
            Some(s) if live(s).is_none() => {
                return Err(unreachable(&format!("ended {}", s.to_lowercase())))
            }
            None if q.is_some() => return Err(unreachable("left the queue")),
            _ => {}
        }
        if Instant::now() >= deadline {
            let _ = Command::new("scancel").arg(&id).status();
            return Err(SimError::Config(format!(
                "the probe job {id} did not run within {timeout_s} s (cancelled); the queue may \
                 be busy: raise --probe-timeout, or skip the check with --no-probe"
            )));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn node_name() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

fn probe(dir: &Path, token: &str, cwd: &Path) -> Result<(), SimError> {
    if !cwd.is_dir() {
        return Err(SimError::Config(format!(
            "the working directory {} is not reachable from this node",
            cwd.display()
        )));
    }
    let sd = slurm_dir(dir);
    let p = sd.join("probe-token");
    let written = std::fs::read_to_string(&p).map_err(io(&p))?;
    if written.trim() != token {
        return Err(SimError::Config(format!(
            "{} holds another token: not the folder the sweep was submitted from",
            p.display()
        )));
    }
    load_plan(dir)?;
    write_atomically(&sd, &format!("probe-{token}.ok"), node_name().as_bytes())
}

fn task(dir: &Path, n: u32, reg: &Registry) -> Result<(), SimError> {
    let k: usize = std::env::var("SLURM_ARRAY_TASK_ID")
        .ok()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            SimError::Config(
                "`sweep task` is run by the job array `sweep --slurm` submits (it reads \
                 SLURM_ARRAY_TASK_ID)"
                    .into(),
            )
        })?;
    let runs = load_plan(dir)?;
    let sd = slurm_dir(dir);
    let sub: Submission = read_json(&sd.join(format!("submission-{n}.json")))?;
    let mine = sub.tasks.get(k).ok_or_else(|| {
        SimError::Config(format!(
            "submission {n} has {} tasks, not task {k}",
            sub.tasks.len()
        ))
    })?;
    let job = std::env::var("SLURM_ARRAY_JOB_ID").unwrap_or_default();
    let node = node_name();
    let threads = std::env::var("SLURM_CPUS_PER_TASK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(sub.cpus_per_task as usize)
        .max(1);
    let state = sd.join("state");
    let by_index: BTreeMap<usize, &SweepRun> = runs.iter().map(|r| (r.index, r)).collect();
    let t0 = Instant::now();
    let results: Vec<(usize, Result<bool, String>)> = crate::par::par_map(mine, threads, |ix| {
        let Some(run) = by_index.get(ix) else {
            return (*ix, Err(format!("run {ix} is not in the plan")));
        };
        if is_done(dir, &run.label) {
            return (*ix, Ok(false));
        }
        let mut m = Marker {
            submission: n,
            task: k,
            job: job.clone(),
            node: node.clone(),
            error: None,
        };
        let _ = write_json(&state, &format!("{}.started", run.label), &m);
        let r = run_one_with(run, dir, reg).map_err(|e| e.to_string());
        if let Err(e) = &r {
            m.error = Some(e.clone());
            let _ = write_json(&state, &format!("{}.failed", run.label), &m);
        }
        (*ix, r)
    })
    .map_err(|e| SimError::Config(format!("threads: {e}")))?;
    let ran = results.iter().filter(|r| matches!(r.1, Ok(true))).count();
    let skipped = results.iter().filter(|r| matches!(r.1, Ok(false))).count();
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(ix, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("run {ix} ({}): {e}", by_index[ix].label))
        })
        .collect();
    write_json(
        &sd.join("tasks"),
        &format!("{n}-{k}.json"),
        &serde_json::json!({"node": node, "ran": ran, "skipped": skipped, "failed": failed}),
    )?;
    println!(
        "task {k} of submission {n} on {node}: {} runs, {ran} ran, {skipped} already done, {} \
         failed; {:.2} s on {threads} threads",
        mine.len(),
        failed.len(),
        t0.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        return Err(SimError::Config(failed.join("\n")));
    }
    Ok(())
}

fn finish(dir: &Path, n: u32) -> Result<(), SimError> {
    let runs = load_plan(dir)?;
    let rows = if dir.join("runs").is_dir() {
        merge(dir)?.len()
    } else {
        0
    };
    let not_done: Vec<&SweepRun> = runs.iter().filter(|r| !is_done(dir, &r.label)).collect();
    if rows == 0 {
        println!("submission {n}: no run has finished; nothing to merge");
    } else {
        println!(
            "submission {n}: {rows} runs merged into {}",
            dir.join("results.csv").display()
        );
    }
    if !not_done.is_empty() {
        let some: Vec<String> = not_done
            .iter()
            .take(10)
            .map(|r| format!("{} ({})", r.index, r.label))
            .collect();
        return Err(SimError::Config(format!(
            "{} of {} runs are not done (failed or cancelled), e.g. {}: `blox-sim sweep status \
             {}` says why; the same `sweep --slurm` command submits them again",
            not_done.len(),
            runs.len(),
            some.join(", "),
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use blox_scenario::sweep::Sweep;
    use blox_scenario::Scenario;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "blox-sweep-slurm-unit-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn plan(n: u64) -> Vec<SweepRun> {
        Sweep {
            base: Scenario::default(),
            seeds: (1..=n).collect(),
            ..Sweep::default()
        }
        .runs()
        .unwrap()
    }

    fn mark_done(dir: &Path, label: &str) {
        let d = dir.join("runs").join(label);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("run.json"), "{}").unwrap();
    }

    fn marker(dir: &Path, label: &str, ext: &str, sub: u32, error: Option<&str>) {
        let d = slurm_dir(dir).join("state");
        std::fs::create_dir_all(&d).unwrap();
        let m = Marker {
            submission: sub,
            task: 0,
            job: "7".into(),
            node: "n1".into(),
            error: error.map(String::from),
        };
        std::fs::write(
            d.join(format!("{label}.{ext}")),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
    }

    #[test]
    fn assign_round_robin_and_never_empty_tasks() {
        assert_eq!(assign(&[1, 3, 5, 7, 9], 2), vec![vec![1, 5, 9], vec![3, 7]]);
        assert_eq!(assign(&[4, 6], 10), vec![vec![4], vec![6]]);
        let all: Vec<usize> = (0..24).collect();
        let t = assign(&all, 8);
        assert_eq!(t.len(), 8);
        let mut flat: Vec<usize> = t.concat();
        flat.sort();
        assert_eq!(flat, all);
    }

    #[test]
    fn squeue_and_sacct_lines_parse() {
        let q = parse_squeue("12|0|RUNNING\n12|3|PENDING\n13|N/A|PENDING\ngarbage\n");
        assert_eq!(q[&("12".into(), Some(0))], "RUNNING");
        assert_eq!(q[&("12".into(), Some(3))], "PENDING");
        assert_eq!(q[&("13".into(), None)], "PENDING");
        assert_eq!(q.len(), 3);
        let s = parse_sacct("12_1|FAILED\n12_[4-9]|PENDING\n13|CANCELLED by 0\n");
        assert_eq!(s[&("12".into(), Some(1))], "FAILED");
        assert_eq!(s[&("13".into(), None)], "CANCELLED");
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn sh_quote_survives_quotes_and_spaces() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }

    /// Every state from a folder and a queue: done (run.json), running (task running, run
    /// begun), queued (task pending, or running but run not begun), failed (error marker, or
    /// begun in a task that ended), missing (never submitted, or its task ended before it
    /// began).
    #[test]
    fn status_from_folder_and_queue_names_each_state() {
        let dir = temp("classify");
        let runs = plan(8);
        let l = |i: usize| runs[i].label.clone();
        let sub = Submission {
            submission: 1,
            // run 7 is never submitted
            tasks: vec![vec![0, 1], vec![2, 3], vec![4], vec![5, 6]],
            cpus_per_task: 1,
            array_job: Some("7".into()),
            merge_job: Some("8".into()),
            probe_job: None,
        };
        mark_done(&dir, &l(0));
        marker(&dir, &l(1), "started", 1, None); // task 0 running, run 1 begun
        marker(&dir, &l(4), "failed", 1, Some("stalled")); // task 2 ended, run 4 failed
        marker(&dir, &l(5), "started", 1, None); // task 3 cancelled while run 5 ran
        marker(&dir, &l(2), "started", 0, None); // an older submission's marker: ignored
        let q =
            parse_squeue("7|0|RUNNING\n7|1|PENDING\n7|2|FAILED\n7|3|CANCELLED\n8|N/A|PENDING\n");
        let st = classify(&dir, &runs, std::slice::from_ref(&sub), Some(&q));
        let got: Vec<State> = st.iter().map(|s| s.state).collect();
        use State::*;
        assert_eq!(
            got,
            vec![Done, Running, Queued, Queued, Failed, Failed, Missing, Missing]
        );
        assert!(st[4].detail.as_deref().unwrap().contains("stalled"));
        assert!(st[5].detail.as_deref().unwrap().contains("cancelled"));
        assert!(st[7].detail.as_deref().unwrap().contains("never submitted"));
        // Without queue information a task that has not ended counts as queued, not missing.
        let st = classify(&dir, &runs, std::slice::from_ref(&sub), None);
        assert_eq!(st[6].state, Queued);
        // Once the queue has forgotten task 1 (and it never began run 2): missing.
        let q = parse_squeue("7|0|RUNNING\n");
        let st = classify(&dir, &runs, std::slice::from_ref(&sub), Some(&q));
        assert_eq!(st[2].state, Missing);
        assert_eq!(st[1].state, Running);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn resume_selects_only_failed_and_missing_runs() {
        let dir = temp("resume");
        let runs = plan(6);
        for i in [0, 2, 3] {
            mark_done(&dir, &runs[i].label);
        }
        // A half-written run (outputs but no run.json) is not done.
        std::fs::create_dir_all(dir.join("runs").join(&runs[1].label)).unwrap();
        std::fs::write(dir.join("runs").join(&runs[1].label).join("jobs.csv"), "x").unwrap();
        let sub = Submission {
            submission: 1,
            tasks: vec![vec![0, 2, 4], vec![1, 3, 5]],
            cpus_per_task: 1,
            array_job: Some("40".into()),
            ..Submission::default()
        };
        // Task 0 still pending (run 4 queued); task 1 gone.
        let q = parse_squeue("40|0|PENDING\n");
        let st = classify(&dir, &runs, &[sub], Some(&q));
        let todo: Vec<usize> = st
            .iter()
            .filter(|s| matches!(s.state, State::Failed | State::Missing))
            .map(|s| s.index)
            .collect();
        assert_eq!(todo, vec![1, 5]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_submission_whose_array_was_rejected_does_not_count() {
        let dir = temp("rejected");
        let runs = plan(2);
        let sub = Submission {
            submission: 1,
            tasks: vec![vec![0, 1]],
            cpus_per_task: 1,
            ..Submission::default()
        };
        let st = classify(&dir, &runs, &[sub], Some(&Queue::new()));
        assert!(st.iter().all(|s| s.state == State::Missing));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
