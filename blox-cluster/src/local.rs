//! The `local` backend: every launch is a set of processes on this machine (one per GPU, i.e.
//! per rank), all in one process group of their own, over a configured list of real or fake GPU
//! indices grouped into fake nodes.
//!
//! Each rank runs `sh -c WRAPPER` with the job's command in `BLOX_COMMAND`. The wrapper runs the
//! command in a shell of its own (so `exit`, `exec` or a syntax error in the command end only that
//! shell) and traps the preemption signal only to outlive the command, so that it can record the
//! command's exit code in an exit file; that file is how a restarted server learns how an adopted
//! launch ended, so a finished job is never launched again.
//!
//! Every process of a launch is ended with it, also those that left its process group: each
//! rank carries the launch's mark in its environment (`BLOX_LAUNCH_ID`, unique per launch),
//! which every descendant inherits, including one that called `setsid` (a new session and
//! group) or was double-forked into a daemon. When the launch ends, after its process group is
//! killed, every process of this user whose environment carries the mark is killed too
//! ([`sweep`]). Only a process that rebuilt its environment from scratch escapes (cgroups
//! would be needed for those; the local backend needs no privileges).
//!
//! A launch is one job: when one rank fails (a non-zero exit, a signal, or vanished) while the
//! others still run, and the launch is not being preempted, the whole process group is killed and
//! the launch is reported as ended with the failed rank's status, so the job fails as a unit
//! instead of holding every GPU while the remaining ranks wait on a dead peer.

use crate::metrics_tail::MetricsTail;
use crate::nodes::job_env;
use crate::{ExecError, ExecEvent, Executor, ExitStatus, Inventory, Launch};
use blox_core::JobId;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shell wrapper each rank runs. A trap (not an ignore, which the command would inherit)
/// keeps the shell alive until the command has exited, then the exit code is written atomically.
/// The command runs in a child shell, never in the wrapper's own: an `exit` (or `exec`) in it
/// would otherwise end the wrapper before the exit file is written. The child shell traps the
/// same signals, so that it too waits for the command (which gets the signal from the process
/// group and may take its time to checkpoint) instead of dying first and leaving it orphaned.
const WRAPPER: &str = r#"trap 'blox_term=1' TERM INT USR1 USR2 HUP
/bin/sh -c 'trap "blox_term=1" TERM INT USR1 USR2 HUP
eval "$BLOX_COMMAND"' blox-job
rc=$?
printf '%s\n' "$rc" > "$BLOX_EXIT_FILE.tmp" && mv "$BLOX_EXIT_FILE.tmp" "$BLOX_EXIT_FILE"
exit $rc"#;

/// How long a preempted launch that has not yet said it started may run before it is signalled
/// anyway (a signal before the training loop installs its handler would kill it outright).
const START_WAIT: Duration = Duration::from_secs(10);

/// Settings of the local backend.
#[derive(Clone, Debug)]
pub struct LocalConfig {
    /// The fake (or real) nodes and GPU indices.
    pub inventory: Inventory,
    /// Per-job folders (checkpoints, metrics, logs, exit files) go under this folder.
    pub jobs_dir: PathBuf,
    /// The preemption signal (SIGTERM by default).
    pub signal: Signal,
    /// Where each rank's output goes.
    pub logs: JobLogs,
}

/// Where each rank's output (stdout and stderr) goes: `rankR.log` in the job's folder, kept
/// across attempts.
#[derive(Clone, Debug, PartialEq)]
pub enum JobLogs {
    /// Straight into the file, without a cap.
    Unlimited,
    /// Through `PROGRAM log-sink` (`PROGRAM` being the `blox-cluster` program; see
    /// [`crate::log_sink`]), which keeps the last `max_bytes` of the file. A log that cannot be
    /// written (a full disk) ends the launch and fails the job with the error as its reason.
    Capped {
        /// The `blox-cluster` program.
        program: PathBuf,
        /// The cap, in bytes (at least [`crate::MIN_LOG_LIMIT`]).
        max_bytes: u64,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct RankHandle {
    pid: i32,
    /// `/proc/PID/stat` start time, to tell a reused pid from ours.
    start: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Handle {
    pgid: i32,
    ranks: Vec<RankHandle>,
    /// The launch's mark (`BLOX_LAUNCH_ID`); absent in handles written by older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mark: Option<String>,
}

/// The environment variable that marks every process of a launch.
pub(crate) const MARK_VAR: &str = "BLOX_LAUNCH_ID";

/// Kill (SIGKILL) every process of this user, other than this one, whose environment holds
/// `BLOX_LAUNCH_ID=mark`; returns how many were signalled. Processes whose environment cannot
/// be read (another user's) are left alone.
pub(crate) fn sweep(mark: &str) -> usize {
    let want = format!("{MARK_VAR}={mark}");
    let me = std::process::id();
    let Ok(dir) = fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(env) = fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|v| v == want.as_bytes())
            && nix::sys::signal::kill(Pid::from_raw(pid as i32), Signal::SIGKILL).is_ok()
        {
            killed += 1;
        }
    }
    killed
}

struct Rank {
    pid: i32,
    start: Option<u64>,
    child: Option<Child>,
    exit_file: PathBuf,
    done: Option<ExitStatus>,
    /// Its log sink ([`JobLogs::Capped`]), while this executor started it and it runs.
    sink: Option<Child>,
}

struct Running {
    attempt: u32,
    pgid: i32,
    mark: Option<String>,
    ranks: Vec<Rank>,
    tail: MetricsTail,
    launched: Instant,
    preempt: Option<Duration>,
    signalled: Option<Instant>,
    killed: bool,
    /// The launch is being ended for a failure of its own (its log could not be written).
    failing: bool,
}

/// The local executor.
pub struct LocalExecutor {
    cfg: LocalConfig,
    running: BTreeMap<JobId, Running>,
    /// Log sinks of ended launches, still writing their last output (reaped when they exit).
    sinks: Vec<(JobId, Child)>,
}

/// The folder of one job.
pub fn job_dir(jobs_dir: &Path, job: JobId) -> PathBuf {
    jobs_dir.join(job.to_string())
}

fn proc_start(pid: i32) -> Option<(char, u64)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields follow the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((state, start))
}

fn err(job: JobId, what: &str, e: impl std::fmt::Display) -> ExecError {
    ExecError::new(format!("local backend: job {job}: {what}: {e}"))
}

/// End a log sink that will not be used (its input is closed, so it exits at once) and reap it.
fn self_reap(mut sink: Child) {
    let _ = sink.kill();
    let _ = sink.wait();
}

/// Whether a log sink has exited; if it failed, why.
fn sink_ended(sink: &mut Child) -> Option<Result<(), String>> {
    let st = sink.try_wait().ok()??;
    if st.success() {
        return Some(Ok(()));
    }
    let mut said = String::new();
    if let Some(mut e) = sink.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut said);
    }
    let said = said.trim();
    Some(Err(if said.is_empty() {
        format!("its log sink ended ({st})")
    } else {
        said.to_owned()
    }))
}

/// The one outcome of a launch whose ranks ended with `statuses` (rank 0's first).
///
/// Rank 0 speaks for the job (the launch contract: it reports progress, and exit 0 means the job
/// finished; a preempted job exits non-zero). So a launch that was being preempted and whose rank
/// 0 exited 0 is complete, whatever the signal did to the other ranks and whichever came first,
/// the signal or rank 0's end: completing and preempting a launch is one decision, and a
/// finished job is never requeued to finish again. A launch being preempted whose rank 0 was
/// stopped is preempted even if another rank got to its end (it resumes from rank 0's
/// checkpoint). Otherwise the first failing rank's status counts (a non-zero code, else a
/// signal, else lost), and a launch whose ranks all exited 0 is complete.
fn launch_status(statuses: &[ExitStatus], preempted: bool) -> ExitStatus {
    if preempted && statuses.first().is_some_and(|s| s.success()) {
        return ExitStatus::Code(0);
    }
    let first = |f: fn(&ExitStatus) -> bool| statuses.iter().copied().find(f);
    first(|s| matches!(s, ExitStatus::Code(c) if *c != 0))
        .or_else(|| first(|s| matches!(s, ExitStatus::Signal(_))))
        .or_else(|| first(|s| *s == ExitStatus::Lost))
        .unwrap_or(ExitStatus::Code(0))
}

/// The global rank of each process of a launch on `gpus`, in the order the processes are
/// started (node by node, as [`Inventory::layout`] groups them; rank 0 first).
fn rank_order(inventory: &Inventory, gpus: &[blox_core::GpuId]) -> Option<Vec<u32>> {
    Some(
        inventory
            .layout(gpus)?
            .iter()
            .flat_map(|s| (0..s.gpu_indices.len() as u32).map(move |k| s.first_rank + k))
            .collect(),
    )
}

impl LocalExecutor {
    /// A local executor.
    pub fn new(mut cfg: LocalConfig) -> Result<Self, ExecError> {
        let io = |e: std::io::Error| ExecError::new(format!("{}: {e}", cfg.jobs_dir.display()));
        fs::create_dir_all(&cfg.jobs_dir).map_err(io)?;
        // Jobs run in their own folder: every path handed to them must be absolute.
        cfg.jobs_dir = fs::canonicalize(&cfg.jobs_dir).map_err(io)?;
        if let JobLogs::Capped { max_bytes, .. } = cfg.logs {
            if max_bytes < crate::MIN_LOG_LIMIT {
                return Err(ExecError::new(format!(
                    "local backend: a log cap of {max_bytes} bytes is below the minimum of {} \
                     bytes",
                    crate::MIN_LOG_LIMIT
                )));
            }
        }
        Ok(LocalExecutor {
            cfg,
            running: BTreeMap::new(),
            sinks: Vec::new(),
        })
    }

    /// The stdout and stderr of a rank whose log is `path`, and its log sink if logs are
    /// capped.
    fn rank_log(
        &self,
        job: JobId,
        path: &Path,
    ) -> Result<(Stdio, Stdio, Option<Child>), ExecError> {
        match &self.cfg.logs {
            JobLogs::Unlimited => {
                let log = fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| err(job, "log file", e))?;
                let log2 = log.try_clone().map_err(|e| err(job, "log file", e))?;
                Ok((log.into(), log2.into(), None))
            }
            JobLogs::Capped { program, max_bytes } => {
                let mut sink = Command::new(program)
                    .arg("log-sink")
                    .arg("--max-bytes")
                    .arg(max_bytes.to_string())
                    .arg(path)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    // Not in the job's group: the preemption signal is not for it.
                    .process_group(0)
                    .spawn()
                    .map_err(|e| err(job, &format!("log sink {}", program.display()), e))?;
                let pipe: std::os::fd::OwnedFd = sink.stdin.take().expect("piped").into();
                match pipe.try_clone() {
                    Ok(pipe2) => Ok((pipe.into(), pipe2.into(), Some(sink))),
                    Err(e) => {
                        drop(pipe);
                        self_reap(sink);
                        Err(err(job, "log pipe", e))
                    }
                }
            }
        }
    }

    /// A launch that could not be completed: end what of it was started.
    fn abandon(&mut self, job: JobId, pgid: i32, mark: &str, ranks: &mut [Rank]) {
        if pgid != 0 {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
            sweep(mark);
        }
        for r in ranks.iter_mut() {
            if let Some(s) = r.sink.take() {
                self.sinks.push((job, s));
            }
        }
    }

    fn exit_file(dir: &Path, attempt: u32, rank: u32) -> PathBuf {
        dir.join(format!("attempt{attempt}.rank{rank}.exit"))
    }

    /// Whether a rank has ended; its status if so.
    fn check_rank(r: &mut Rank) -> Option<ExitStatus> {
        if let Some(s) = r.done {
            return Some(s);
        }
        let from_file = |f: &Path| {
            fs::read_to_string(f)
                .ok()
                .and_then(|s| s.trim().parse::<i32>().ok())
        };
        let status = match &mut r.child {
            Some(child) => match child.try_wait() {
                Ok(None) => return None,
                Ok(Some(st)) => match from_file(&r.exit_file) {
                    Some(c) => ExitStatus::Code(c),
                    None => match (st.code(), st.signal()) {
                        (_, Some(s)) => ExitStatus::Signal(s),
                        (Some(c), None) => ExitStatus::Code(c),
                        _ => ExitStatus::Lost,
                    },
                },
                Err(_) => ExitStatus::Lost,
            },
            None => {
                let alive = match proc_start(r.pid) {
                    Some((state, start)) => {
                        state != 'Z' && (r.start.is_none() || r.start == Some(start))
                    }
                    None => false,
                };
                if alive {
                    return None;
                }
                from_file(&r.exit_file).map_or(ExitStatus::Lost, ExitStatus::Code)
            }
        };
        r.done = Some(status);
        Some(status)
    }
}

impl Executor for LocalExecutor {
    fn inventory(&self) -> &Inventory {
        &self.cfg.inventory
    }

    fn launch(&mut self, l: &Launch<'_>) -> Result<String, ExecError> {
        let job = l.job;
        if self.running.contains_key(&job) {
            return Err(err(job, "launch", "the job is still running"));
        }
        let layout = self
            .cfg
            .inventory
            .layout(l.gpus)
            .ok_or_else(|| err(job, "launch", "a GPU id is outside the inventory"))?;
        let dir = job_dir(&self.cfg.jobs_dir, job);
        fs::create_dir_all(dir.join("checkpoint")).map_err(|e| err(job, "job folder", e))?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .map(|a| a.port())
            .map_err(|e| err(job, "rendezvous port", e))?;
        let master = self.cfg.inventory.nodes[layout[0].node.index()]
            .address
            .clone();
        let metrics = dir.join("metrics.jsonl");
        let mark = format!(
            "{}#{}@{}",
            dir.display(),
            l.attempt,
            crate::store::unix_ms()
        );
        // Follow the metrics file from its end now, before any rank can write its `started`
        // line (a tail opened after the spawns could skip it, and the launch would not be
        // signalled before START_WAIT).
        let tail = MetricsTail::from_end(metrics.clone(), l.attempt);
        let mut ranks: Vec<Rank> = Vec::new();
        let mut pgid = 0i32;
        let world = l.gpus.len() as u32;
        for slice in &layout {
            for (local_rank, &index) in slice.gpu_indices.iter().enumerate() {
                let rank = slice.first_rank + local_rank as u32;
                let exit_file = Self::exit_file(&dir, l.attempt, rank);
                let _ = fs::remove_file(&exit_file);
                let (log, log2, sink) =
                    match self.rank_log(job, &dir.join(format!("rank{rank}.log"))) {
                        Ok(x) => x,
                        Err(e) => {
                            self.abandon(job, pgid, &mark, &mut ranks);
                            return Err(e);
                        }
                    };
                let mut cmd = Command::new("/bin/sh");
                cmd.arg("-c").arg(WRAPPER).arg("blox-job");
                let env = job_env(
                    l,
                    &self.cfg.inventory.nodes[slice.node.index()].name,
                    index,
                    &slice.gpu_indices,
                    local_rank as u32,
                    rank,
                    world,
                    &master,
                    port,
                    &dir,
                    &metrics,
                    self.cfg.signal.as_str(),
                );
                cmd.envs(env)
                    .env("BLOX_COMMAND", l.command)
                    .env("BLOX_EXIT_FILE", &exit_file)
                    .env(MARK_VAR, &mark)
                    .current_dir(&dir)
                    .stdin(Stdio::null())
                    .stdout(log)
                    .stderr(log2)
                    .process_group(pgid);
                let spawned = cmd.spawn();
                // The rank holds its ends of the log pipe now; this process must not.
                drop(cmd);
                let child = match spawned {
                    Ok(c) => c,
                    Err(e) => {
                        if let Some(s) = sink {
                            self.sinks.push((job, s));
                        }
                        self.abandon(job, pgid, &mark, &mut ranks);
                        return Err(err(job, "spawn", e));
                    }
                };
                let pid = child.id() as i32;
                if pgid == 0 {
                    pgid = pid;
                }
                ranks.push(Rank {
                    pid,
                    start: proc_start(pid).map(|s| s.1),
                    child: Some(child),
                    exit_file,
                    done: None,
                    sink,
                });
            }
        }
        let _ = fs::write(
            dir.join(format!("attempt{}.pgid", l.attempt)),
            pgid.to_string(),
        );
        let handle = Handle {
            pgid,
            ranks: ranks
                .iter()
                .map(|r| RankHandle {
                    pid: r.pid,
                    start: r.start,
                })
                .collect(),
            mark: Some(mark.clone()),
        };
        self.running.insert(
            job,
            Running {
                attempt: l.attempt,
                pgid,
                mark: Some(mark),
                ranks,
                tail,
                launched: Instant::now(),
                preempt: None,
                signalled: None,
                killed: false,
                failing: false,
            },
        );
        serde_json::to_string(&handle).map_err(|e| err(job, "handle", e))
    }

    fn preempt(&mut self, job: JobId, grace: Duration) -> Result<(), ExecError> {
        if let Some(r) = self.running.get_mut(&job) {
            if r.preempt.is_none() {
                r.preempt = Some(grace);
            }
        }
        Ok(())
    }

    fn poll(&mut self, out: &mut Vec<ExecEvent>) -> Result<(), ExecError> {
        let mut ended = Vec::new();
        // Sinks of ended launches: reap them (and report a late failure).
        self.sinks.retain_mut(|(job, s)| match sink_ended(s) {
            None => true,
            Some(Ok(())) => false,
            Some(Err(why)) => {
                eprintln!("blox-cluster: job {job}: job log: {why}");
                false
            }
        });
        for (&job, r) in &mut self.running {
            r.tail.poll(job, out);
            // A log that cannot be written ends the launch: the job fails with the reason.
            for (k, rank) in r.ranks.iter_mut().enumerate() {
                let Some(ended) = rank.sink.as_mut().and_then(sink_ended) else {
                    continue;
                };
                rank.sink = None;
                if let (Err(why), false) = (ended, r.failing) {
                    r.failing = true;
                    r.killed = true;
                    let _ = killpg(Pid::from_raw(r.pgid), Signal::SIGKILL);
                    if let Some(mark) = &r.mark {
                        sweep(mark);
                    }
                    out.push(ExecEvent::Failing {
                        job,
                        attempt: r.attempt,
                        reason: format!("rank {k}'s log could not be written: {why}"),
                    });
                }
            }
            let mut all_done = true;
            let mut one_failed = false;
            for rank in &mut r.ranks {
                match Self::check_rank(rank) {
                    Some(s) => one_failed |= !s.success(),
                    None => all_done = false,
                }
            }
            if !all_done && one_failed && r.preempt.is_none() {
                // A dead rank ends the launch: the others would wait on it forever (or train
                // on alone). Kill the group now; the next poll reports the failed rank's status.
                let _ = killpg(Pid::from_raw(r.pgid), Signal::SIGKILL);
                r.killed = true;
                continue;
            }
            if all_done {
                // Its last reports (written before it exited) are read before its exit is
                // reported, so the server sees every iteration it did.
                r.tail.poll(job, out);
                let statuses: Vec<ExitStatus> = r.ranks.iter().filter_map(|k| k.done).collect();
                let status = launch_status(&statuses, r.preempt.is_some());
                // Stragglers go with it: the group (e.g. a command's own children), then any
                // process of the launch that left the group (`setsid`, a daemon).
                let _ = killpg(Pid::from_raw(r.pgid), Signal::SIGKILL);
                if let Some(mark) = &r.mark {
                    let n = sweep(mark);
                    if n > 0 {
                        eprintln!(
                            "blox-cluster: job {job} attempt {}: killed {n} process(es) that \
                             outlived the launch outside its process group",
                            r.attempt
                        );
                    }
                }
                out.push(ExecEvent::Exited {
                    job,
                    attempt: r.attempt,
                    status,
                });
                ended.push(job);
                continue;
            }
            if let Some(grace) = r.preempt {
                match r.signalled {
                    None if r.tail.started || r.launched.elapsed() >= START_WAIT => {
                        let _ = killpg(Pid::from_raw(r.pgid), self.cfg.signal);
                        r.signalled = Some(Instant::now());
                    }
                    Some(at) if !r.killed && at.elapsed() >= grace => {
                        let _ = killpg(Pid::from_raw(r.pgid), Signal::SIGKILL);
                        r.killed = true;
                    }
                    _ => {}
                }
            }
        }
        for job in ended {
            if let Some(r) = self.running.remove(&job) {
                // Their input ends with the launch's last process; they finish on their own.
                for rank in r.ranks {
                    if let Some(s) = rank.sink {
                        self.sinks.push((job, s));
                    }
                }
            }
        }
        Ok(())
    }

    fn adopt(&mut self, l: &Launch<'_>, handle: &str) -> Result<bool, ExecError> {
        let Ok(h) = serde_json::from_str::<Handle>(handle) else {
            return Ok(false);
        };
        if h.ranks.is_empty() || h.pgid <= 0 {
            return Ok(false);
        }
        let dir = job_dir(&self.cfg.jobs_dir, l.job);
        // The handle lists the processes in the order they were started; their exit files are
        // named by global rank.
        let order = rank_order(&self.cfg.inventory, l.gpus)
            .filter(|o| o.len() == h.ranks.len())
            .unwrap_or_else(|| (0..h.ranks.len() as u32).collect());
        let ranks: Vec<Rank> = h
            .ranks
            .iter()
            .zip(order)
            .map(|(r, rank)| Rank {
                pid: r.pid,
                start: r.start,
                child: None,
                exit_file: Self::exit_file(&dir, l.attempt, rank),
                done: None,
                sink: None,
            })
            .collect();
        // A launch is worth adopting if a rank still runs or left its exit code.
        let any_alive = ranks.iter().any(|r| {
            proc_start(r.pid).is_some_and(|(s, st)| s != 'Z' && r.start.map_or(true, |x| x == st))
                || r.exit_file.exists()
        });
        if !any_alive {
            // Nothing to watch: end what may be left of it outside its group before the job is
            // requeued.
            if let Some(mark) = &h.mark {
                sweep(mark);
            }
            return Ok(false);
        }
        self.running.insert(
            l.job,
            Running {
                attempt: l.attempt,
                pgid: h.pgid,
                mark: h.mark.clone(),
                ranks,
                tail: MetricsTail::new(dir.join("metrics.jsonl"), 0, l.attempt),
                launched: Instant::now(),
                preempt: None,
                signalled: None,
                killed: false,
                failing: false,
            },
        );
        Ok(true)
    }

    fn name(&self) -> String {
        "local".into()
    }
}
