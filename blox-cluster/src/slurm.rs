//! The `slurm` backend: every launch is one Slurm job, pinned to the nodes and GPU indices the
//! placement chose, driven through Slurm's command-line tools and their text output (`sinfo`,
//! `scontrol -o`, `squeue -o`, `sbatch --parsable`, `scancel`), never Slurm's version-specific
//! JSON.
//!
//! - **Inventory**: `scontrol -o show node`. A node's GPUs are its `gpu` GRES. With one GRES
//!   *type* per index (`gpu:g0:1,gpu:g1:1,…`, see `ci/slurm-up.sh`) every launch is pinned to
//!   exact indices; with an untyped `gpu:N` only the node and the GPU count are pinned (Slurm
//!   picks the indices, and the job still sees them in `CUDA_VISIBLE_DEVICES`).
//! - **Launch**: `sbatch` of a batch script that runs `srun` once per GPU (one task per rank).
//!   Typed `--gres` is the same on every node of a job component, so a launch whose nodes use the
//!   same index set is one component (`-N k --nodelist=a,b`) and any other launch is a
//!   heterogeneous job with one component per node (`… : …`). Each task maps Slurm's
//!   environment to the launch contract (see [`crate::job_env`]): `CUDA_VISIBLE_DEVICES` and
//!   `local_accessible_gpus` are what Slurm granted, `local_gpu_id` is this task's entry of it,
//!   `dist_rank` follows the placement's rank order, `BLOX_NODE` is `SLURMD_NODENAME`.
//! - **Preemption**: `scancel --signal=SIG JOB` (the job's steps, i.e. the training processes,
//!   not the batch shell) once the launch said it started (or after 10 s), then `scancel JOB`
//!   after the grace period. A launch still pending in Slurm is cancelled at once.
//! - **One job, one outcome**: `srun --kill-on-bad-exit=1`, so a rank that fails ends the whole
//!   step (its other ranks are stopped) and the launch fails as a unit.
//! - **State**: `squeue -h -o '%i|%T'` at most every 0.5 s; a launch that left the queue is
//!   looked up with `scontrol -o show job` (`JobState`, `ExitCode`). The batch script also
//!   records `srun`'s exit code in `attemptN.exit` in the job's folder, so a launch that ended
//!   while the server was down and that Slurm has since forgotten (`MinJobAge`) is still
//!   reported with its real status, never run again. A launch that ended with `NODE_FAIL`, was
//!   cancelled by someone else, or is unknown to Slurm and left no exit file is reported as
//!   [`ExitStatus::Lost`], which the server requeues.
//! - **Outages**: a failing `squeue` or `sinfo` (a busy or restarting `slurmctld`) is reported
//!   once and waited out, the last answer standing, for up to a minute; only then does the
//!   server stop, with the command's error.

use crate::metrics_tail::MetricsTail;
use crate::{ExecError, ExecEvent, Executor, ExitStatus, Inventory, Launch, NodeInfo};
use blox_core::{JobId, NodeId};
use nix::sys::signal::Signal;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a preempted launch that has not yet said it started may run before it is signalled
/// anyway.
const START_WAIT: Duration = Duration::from_secs(10);
/// Minimum time between two `squeue` calls.
const QUEUE_EVERY: Duration = Duration::from_millis(500);
/// How long `squeue` or `sinfo` may keep failing before the backend gives up: a busy or
/// restarting `slurmctld` (a node failing, a reconfiguration) is waited out, a dead one stops
/// the server with the command's own error.
const OUTAGE_LIMIT: Duration = Duration::from_secs(60);

/// A Slurm query that may fail for a while: the first failure is reported and the last good
/// answer stands until [`OUTAGE_LIMIT`] has passed without a good one.
#[derive(Debug, Default)]
struct Outage {
    since: Option<Instant>,
}

impl Outage {
    /// The query answered.
    fn ok(&mut self) {
        if self.since.take().is_some() {
            eprintln!("blox-cluster: slurm backend: Slurm answers again");
        }
    }

    /// The query failed at `now` with `e`: `Ok` while the outage is shorter than `limit`, else
    /// the error.
    fn failed(&mut self, e: ExecError, now: Instant, limit: Duration) -> Result<(), ExecError> {
        let since = *self.since.get_or_insert_with(|| {
            eprintln!(
                "blox-cluster: {} (retrying for up to {} s)",
                e.0,
                limit.as_secs()
            );
            now
        });
        if now.duration_since(since) >= limit {
            return Err(ExecError::new(format!(
                "{} (failing for {} s)",
                e.0,
                now.duration_since(since).as_secs()
            )));
        }
        Ok(())
    }
}

/// Settings of the Slurm backend.
#[derive(Clone, Debug)]
pub struct SlurmConfig {
    /// Per-job folders (checkpoints, metrics, batch scripts, logs) go under this folder; it must
    /// be visible at the same path on every node (it is on a single machine).
    pub jobs_dir: PathBuf,
    /// The preemption signal (SIGTERM by default).
    pub signal: Signal,
    /// Only nodes of this partition (`None`: every node), passed to `sbatch` too.
    pub partition: Option<String>,
}

/// One node as Slurm describes it, parsed from `scontrol -o show node`.
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmNode {
    /// The node's name and address, GPU indices, CPUs and memory.
    pub info: NodeInfo,
    /// Whether each GPU index is its own GRES type (`gN`), so launches can be pinned to indices.
    pub typed: bool,
    /// Slurm's state word (e.g. `IDLE`, `MIXED`, `DOWN+NOT_RESPONDING`).
    pub state: String,
}

/// The value of `key=` in one line of `scontrol -o` output.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// Parse `scontrol -o show node` output (one node a line). Nodes without a `gpu` GRES are
/// left out.
pub fn parse_nodes_text(text: &str) -> Vec<SlurmNode> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(name) = field(line, "NodeName") else {
            continue;
        };
        let gres = field(line, "Gres").unwrap_or("(null)");
        let mut typed_idx: Vec<u32> = Vec::new();
        let mut all_typed = true;
        let mut count = 0u32;
        for g in gres.split(',') {
            let g = g.split('(').next().unwrap_or(g);
            let parts: Vec<&str> = g.split(':').collect();
            if parts.first() != Some(&"gpu") {
                continue;
            }
            match parts.as_slice() {
                [_, ty, n] => {
                    let n: u32 = n.parse().unwrap_or(0);
                    count += n;
                    match ty.strip_prefix('g').and_then(|i| i.parse::<u32>().ok()) {
                        Some(i) if n == 1 => typed_idx.push(i),
                        _ => all_typed = false,
                    }
                }
                [_, n] => {
                    count += n.parse::<u32>().unwrap_or(0);
                    all_typed = false;
                }
                _ => all_typed = false,
            }
        }
        if count == 0 {
            continue;
        }
        let typed = all_typed && !typed_idx.is_empty();
        let gpus = if typed {
            typed_idx.sort_unstable();
            typed_idx
        } else {
            (0..count).collect()
        };
        let addr = field(line, "NodeAddr").unwrap_or(name);
        let cpus = field(line, "CPUTot")
            .and_then(|c| c.parse().ok())
            .unwrap_or(1);
        let mem_gb = field(line, "RealMemory")
            .and_then(|m| m.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0;
        out.push(SlurmNode {
            info: NodeInfo::new(name, addr, gpus, cpus, mem_gb),
            typed,
            state: field(line, "State").unwrap_or("UNKNOWN").to_string(),
        });
    }
    out
}

/// Parse `ExitCode=A:B` of `scontrol -o show job` into a status (`B` is a signal).
fn parse_exit(code: &str) -> ExitStatus {
    let (a, b) = code.split_once(':').unwrap_or((code, "0"));
    let a: i32 = a.parse().unwrap_or(-1);
    let b: i32 = b.parse().unwrap_or(0);
    if b != 0 {
        ExitStatus::Signal(b)
    } else if a >= 0 {
        ExitStatus::Code(a)
    } else {
        ExitStatus::Lost
    }
}

/// How a Slurm job that left the queue ended, from its `scontrol -o show job` line (the first
/// line: the batch script's component). `killed` says whether this executor cancelled it.
pub fn ended_status(line: &str, killed: bool) -> Option<ExitStatus> {
    let state = field(line, "JobState")?;
    let code = field(line, "ExitCode").unwrap_or("-1:0");
    Some(match state {
        "COMPLETED" | "FAILED" => parse_exit(code),
        "CANCELLED" if killed => match parse_exit(code) {
            ExitStatus::Code(0) => ExitStatus::Signal(9),
            s => s,
        },
        "PENDING" | "RUNNING" | "COMPLETING" | "CONFIGURING" | "SUSPENDED" | "REQUEUED"
        | "RESIZING" | "SIGNALING" | "STAGE_OUT" => return None,
        // NODE_FAIL, BOOT_FAIL, cancelled by someone else, TIMEOUT, PREEMPTED, …
        _ => ExitStatus::Lost,
    })
}

struct Running {
    attempt: u32,
    slurm_id: u64,
    exit_file: PathBuf,
    tail: MetricsTail,
    launched: Instant,
    /// Slurm said the job runs (its steps can take a signal).
    running: bool,
    preempt: Option<Duration>,
    signalled: Option<Instant>,
    killed: bool,
}

/// The Slurm executor.
pub struct SlurmExecutor {
    cfg: SlurmConfig,
    inventory: Inventory,
    typed: Vec<bool>,
    running: BTreeMap<JobId, Running>,
    last_queue: Option<Instant>,
    /// `squeue` failing (see [`Outage`]).
    queue_outage: Outage,
    /// `sinfo` failing, and the nodes it last reported unavailable.
    nodes_outage: Outage,
    last_unavailable: Vec<NodeId>,
}

fn err(job: JobId, what: &str, e: impl std::fmt::Display) -> ExecError {
    ExecError::new(format!("slurm backend: job {job}: {what}: {e}"))
}

/// Run a Slurm command; its standard output, or an error naming the command.
fn run(cmd: &str, args: &[String]) -> Result<String, ExecError> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| ExecError::new(format!("slurm backend: `{cmd}`: {e}")))?;
    if !out.status.success() {
        return Err(ExecError::new(format!(
            "slurm backend: `{cmd} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn sv(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// The status recorded in an exit file by the batch script, if it wrote one.
fn recorded_exit(path: &Path) -> Option<ExitStatus> {
    let code: i32 = fs::read_to_string(path).ok()?.trim().parse().ok()?;
    // The batch shell reports a signalled `srun` as 128 + the signal, like any shell.
    Some(ExitStatus::Code(code))
}

/// Single-quote a value for a shell script.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl SlurmExecutor {
    /// A Slurm executor: reads the node inventory from `scontrol -o show node`. Fails with a
    /// clear message when Slurm is not reachable or offers no GPU.
    pub fn new(mut cfg: SlurmConfig) -> Result<Self, ExecError> {
        let io = |e: std::io::Error| ExecError::new(format!("{}: {e}", cfg.jobs_dir.display()));
        fs::create_dir_all(&cfg.jobs_dir).map_err(io)?;
        cfg.jobs_dir = fs::canonicalize(&cfg.jobs_dir).map_err(io)?;
        let text = run("scontrol", &sv(&["-o", "show", "node"]))
            .map_err(|e| ExecError::new(format!("{e} (is slurmctld running?)")))?;
        let mut nodes = parse_nodes_text(&text);
        if let Some(p) = &cfg.partition {
            let names = run("sinfo", &sv(&["-h", "-N", "-p", p, "-o", "%N"]))?;
            let names: Vec<&str> = names.lines().map(str::trim).collect();
            nodes.retain(|n| names.contains(&n.info.name.as_str()));
        }
        if nodes.is_empty() {
            return Err(ExecError::new(
                "slurm backend: no node with a `gpu` GRES (scontrol -o show node)",
            ));
        }
        Ok(Self::with_nodes(cfg, nodes))
    }

    /// An executor over `nodes`, with nothing running.
    fn with_nodes(cfg: SlurmConfig, nodes: Vec<SlurmNode>) -> Self {
        SlurmExecutor {
            typed: nodes.iter().map(|n| n.typed).collect(),
            inventory: Inventory {
                nodes: nodes.into_iter().map(|n| n.info).collect(),
            },
            cfg,
            running: BTreeMap::new(),
            last_queue: None,
            queue_outage: Outage::default(),
            nodes_outage: Outage::default(),
            last_unavailable: Vec::new(),
        }
    }

    /// The batch script and `sbatch` arguments of a launch.
    fn submission(
        &self,
        l: &Launch<'_>,
        dir: &Path,
        port: u16,
    ) -> Result<(String, Vec<String>), ExecError> {
        let job = l.job;
        let layout = self
            .inventory
            .layout(l.gpus)
            .ok_or_else(|| err(job, "launch", "a GPU id is outside the inventory"))?;
        let nodes = &self.inventory.nodes;
        let master = nodes[layout[0].node.index()].address.clone();
        let metrics = dir.join("metrics.jsonl");
        // Launch-wide variables: the rank-0 contract, then per-task overrides in the task part.
        let env = crate::job_env(
            l,
            &nodes[layout[0].node.index()].name,
            layout[0].gpu_indices[0],
            &layout[0].gpu_indices,
            0,
            0,
            l.gpus.len() as u32,
            &master,
            port,
            dir,
            &metrics,
            self.cfg.signal.as_str(),
        );
        let mut script = String::from("#!/bin/bash\n# blox-cluster launch (generated)\n");
        const PER_TASK: [&str; 8] = [
            "CUDA_VISIBLE_DEVICES",
            "local_accessible_gpus",
            "local_gpu_id",
            "dist_rank",
            "RANK",
            "LOCAL_RANK",
            "BLOX_LOCAL_RANK",
            "BLOX_NODE",
        ];
        for (k, v) in env.iter().filter(|(k, _)| !PER_TASK.contains(&k.as_str())) {
            let _ = writeln!(script, "export {k}={}", quote(v));
        }
        let _ = writeln!(script, "export BLOX_COMMAND={}", quote(l.command));
        let _ = writeln!(script, "export BLOX_SLURM=1");
        let mut first = String::new();
        for s in &layout {
            let _ = write!(
                first,
                "{}) first={};; ",
                nodes[s.node.index()].name,
                s.first_rank
            );
        }
        // Each task: Slurm's view of its node and GPUs -> the launch contract, then the command
        // (bash execs a simple command, so the training process itself gets the signal).
        let task = format!(
            r#"export local_accessible_gpus="$CUDA_VISIBLE_DEVICES"
IFS=, read -ra g <<< "$CUDA_VISIBLE_DEVICES"
export local_gpu_id="${{g[$SLURM_LOCALID]}}"
case "$SLURMD_NODENAME" in {first}*) first=0;; esac
r=$((first + SLURM_LOCALID))
export dist_rank=$r RANK=$r LOCAL_RANK=$SLURM_LOCALID BLOX_LOCAL_RANK=$SLURM_LOCALID BLOX_NODE="$SLURMD_NODENAME"
exec /bin/bash -c "$BLOX_COMMAND""#
        );
        let same = layout
            .windows(2)
            .all(|w| w[0].gpu_indices.len() == w[1].gpu_indices.len())
            && layout.iter().all(|s| self.typed[s.node.index()])
            && layout.windows(2).all(|w| {
                let mut a = w[0].gpu_indices.clone();
                let mut b = w[1].gpu_indices.clone();
                a.sort_unstable();
                b.sort_unstable();
                a == b
            });
        let untyped_same = layout.iter().all(|s| !self.typed[s.node.index()])
            && layout
                .windows(2)
                .all(|w| w[0].gpu_indices.len() == w[1].gpu_indices.len());
        let gres = |s: &crate::NodeSlice| -> String {
            if self.typed[s.node.index()] {
                let mut idx = s.gpu_indices.clone();
                idx.sort_unstable();
                idx.iter()
                    .map(|i| format!("gpu:g{i}:1"))
                    .collect::<Vec<_>>()
                    .join(",")
            } else {
                format!("gpu:{}", s.gpu_indices.len())
            }
        };
        let log = dir.join(format!("attempt{}.slurm.log", l.attempt));
        let mut args = sv(&["--parsable", "--open-mode=append"]);
        args.push(format!("--job-name=blox-{job}"));
        args.push(format!("--output={}", log.display()));
        args.push(format!("--chdir={}", dir.display()));
        args.push("--export=ALL".into());
        if let Some(p) = &self.cfg.partition {
            args.push(format!("--partition={p}"));
        }
        let components = if same || untyped_same || layout.len() == 1 {
            let names: Vec<&str> = layout
                .iter()
                .map(|s| nodes[s.node.index()].name.as_str())
                .collect();
            args.push(format!("--nodes={}", layout.len()));
            args.push(format!("--ntasks-per-node={}", layout[0].gpu_indices.len()));
            args.push(format!("--nodelist={}", names.join(",")));
            args.push(format!("--gres={}", gres(&layout[0])));
            1
        } else {
            for (k, s) in layout.iter().enumerate() {
                if k > 0 {
                    args.push(":".into());
                }
                args.push("--nodes=1".into());
                args.push(format!("--ntasks={}", s.gpu_indices.len()));
                args.push(format!("--nodelist={}", nodes[s.node.index()].name));
                args.push(format!("--gres={}", gres(s)));
            }
            layout.len()
        };
        let het = if components > 1 {
            format!(" --het-group=0-{}", components - 1)
        } else {
            String::new()
        };
        let exit = quote(&Self::exit_file(dir, l.attempt).display().to_string());
        let _ = writeln!(
            script,
            "srun{het} --kill-on-bad-exit=1 /bin/bash -c {}\nrc=$?\n\
             printf '%s\\n' \"$rc\" > {exit}.tmp && mv {exit}.tmp {exit}\nexit $rc",
            quote(&task)
        );
        Ok((script, args))
    }

    /// Slurm's state word of every queued job, by (leader) job id.
    fn queue() -> Result<BTreeMap<u64, String>, ExecError> {
        let text = run("squeue", &sv(&["-h", "-o", "%i|%T"]))?;
        let mut out = BTreeMap::new();
        for line in text.lines() {
            let Some((id, state)) = line.trim().split_once('|') else {
                continue;
            };
            let id = id.split(['+', '_']).next().unwrap_or(id);
            if let Ok(id) = id.parse::<u64>() {
                out.entry(id).or_insert_with(|| state.to_string());
            }
        }
        Ok(out)
    }

    /// How a job that left the queue ended (`Lost` if Slurm no longer knows it).
    /// The file in which the batch script records how `srun` ended.
    fn exit_file(dir: &Path, attempt: u32) -> PathBuf {
        dir.join(format!("attempt{attempt}.exit"))
    }

    /// How a job that left the queue ended (`Lost` if Slurm no longer knows it and it left no
    /// exit file).
    fn final_status(slurm_id: u64, killed: bool, exit_file: &Path) -> ExitStatus {
        Self::slurm_status(slurm_id, killed)
            .or_else(|| recorded_exit(exit_file))
            .unwrap_or(ExitStatus::Lost)
    }

    /// What Slurm says of an ended job, when it still knows it.
    fn slurm_status(slurm_id: u64, killed: bool) -> Option<ExitStatus> {
        match run(
            "scontrol",
            &[
                "-o".into(),
                "show".into(),
                "job".into(),
                slurm_id.to_string(),
            ],
        ) {
            Ok(text) => text
                .lines()
                .find(|l| field(l, "JobId") == Some(&slurm_id.to_string()))
                .or_else(|| text.lines().next())
                .and_then(|l| ended_status(l, killed)),
            Err(_) => None,
        }
    }

    fn scancel(args: &[String]) {
        let _ = Command::new("scancel")
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

/// Whether a `sinfo -o %t` state takes work: idle, mixed, allocated or completing, and
/// answering (no `*` suffix). Down, drained or draining, failing, in maintenance, booting,
/// powered off, unknown or not responding nodes do not.
pub(crate) fn slurm_state_available(state: &str) -> bool {
    let s = state.trim();
    if s.ends_with('*') {
        return false;
    }
    let base = s.trim_end_matches(['~', '#', '!', '%', '$', '@', '^', '-']);
    matches!(
        base,
        "idle"
            | "mix"
            | "mixed"
            | "alloc"
            | "allocated"
            | "comp"
            | "completing"
            | "plnd"
            | "planned"
    )
}

impl Executor for SlurmExecutor {
    fn inventory(&self) -> &Inventory {
        &self.inventory
    }

    /// Nodes `sinfo` reports down, drained (or draining), failing or not answering.
    fn unavailable_nodes(&mut self, out: &mut Vec<NodeId>) -> Result<(), ExecError> {
        let mut args = sv(&["-h", "-N", "-o", "%N|%t"]);
        if let Some(p) = &self.cfg.partition {
            args.extend(sv(&["-p", p]));
        }
        let text = match run("sinfo", &args) {
            Ok(text) => {
                self.nodes_outage.ok();
                text
            }
            Err(e) => {
                // Slurm is busy: the nodes stay as it last said.
                self.nodes_outage.failed(e, Instant::now(), OUTAGE_LIMIT)?;
                out.extend(self.last_unavailable.iter().copied());
                return Ok(());
            }
        };
        let mut down: Vec<NodeId> = Vec::new();
        for line in text.lines() {
            let Some((name, state)) = line.split_once('|') else {
                continue;
            };
            if slurm_state_available(state) {
                continue;
            }
            if let Some(k) = self
                .inventory
                .nodes
                .iter()
                .position(|n| n.name == name.trim())
            {
                down.push(NodeId(k as u32));
            }
        }
        down.sort_unstable();
        down.dedup();
        out.extend(down.iter().copied());
        self.last_unavailable = down;
        Ok(())
    }

    fn launch(&mut self, l: &Launch<'_>) -> Result<String, ExecError> {
        let job = l.job;
        if self.running.contains_key(&job) {
            return Err(err(job, "launch", "the job is still running"));
        }
        let dir = crate::job_dir(&self.cfg.jobs_dir, job);
        fs::create_dir_all(dir.join("checkpoint")).map_err(|e| err(job, "job folder", e))?;
        // All fake nodes share one address: a free port per launch (pitfall 10).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .map(|a| a.port())
            .map_err(|e| err(job, "rendezvous port", e))?;
        let exit_file = Self::exit_file(&dir, l.attempt);
        let _ = fs::remove_file(&exit_file);
        let (script, mut args) = self.submission(l, &dir, port)?;
        let path = dir.join(format!("attempt{}.sbatch", l.attempt));
        fs::write(&path, script).map_err(|e| err(job, "batch script", e))?;
        args.push(path.display().to_string());
        let out = run("sbatch", &args)?;
        let id = out.trim().split(';').next().unwrap_or("");
        let slurm_id: u64 = id
            .parse()
            .map_err(|_| err(job, "sbatch", format!("unexpected output `{}`", out.trim())))?;
        let metrics = dir.join("metrics.jsonl");
        self.running.insert(
            job,
            Running {
                attempt: l.attempt,
                slurm_id,
                exit_file,
                tail: MetricsTail::from_end(metrics, l.attempt),
                launched: Instant::now(),
                running: false,
                preempt: None,
                signalled: None,
                killed: false,
            },
        );
        // Force a queue read on the next poll.
        self.last_queue = None;
        Ok(slurm_id.to_string())
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
        let queue = if self.running.is_empty()
            || self.last_queue.is_some_and(|t| t.elapsed() < QUEUE_EVERY)
        {
            None
        } else {
            let now = Instant::now();
            self.last_queue = Some(now);
            match Self::queue() {
                Ok(q) => {
                    self.queue_outage.ok();
                    Some(q)
                }
                Err(e) => {
                    // Slurm is busy: no launch is taken to have ended; ask again later.
                    self.queue_outage.failed(e, now, OUTAGE_LIMIT)?;
                    None
                }
            }
        };
        let sig = self
            .cfg
            .signal
            .as_str()
            .trim_start_matches("SIG")
            .to_string();
        let mut ended = Vec::new();
        for (&job, r) in &mut self.running {
            r.tail.poll(job, out);
            let Some(q) = &queue else {
                continue;
            };
            match q.get(&r.slurm_id) {
                None => {
                    let status = Self::final_status(r.slurm_id, r.killed, &r.exit_file);
                    out.push(ExecEvent::Exited {
                        job,
                        attempt: r.attempt,
                        status,
                    });
                    ended.push(job);
                    continue;
                }
                Some(state) => r.running |= state == "RUNNING",
            }
            let id = r.slurm_id.to_string();
            if let Some(grace) = r.preempt {
                match r.signalled {
                    None if !r.running && !r.tail.started => {
                        // Still pending: nothing runs yet, cancel it outright.
                        Self::scancel(std::slice::from_ref(&id));
                        r.signalled = Some(Instant::now());
                        r.killed = true;
                    }
                    None if r.tail.started || r.launched.elapsed() >= START_WAIT => {
                        Self::scancel(&[format!("--signal={sig}"), id]);
                        r.signalled = Some(Instant::now());
                    }
                    Some(at) if !r.killed && at.elapsed() >= grace => {
                        Self::scancel(&[id]);
                        r.killed = true;
                    }
                    _ => {}
                }
            }
        }
        for job in ended {
            self.running.remove(&job);
        }
        Ok(())
    }

    fn adopt(&mut self, l: &Launch<'_>, handle: &str) -> Result<bool, ExecError> {
        let Ok(slurm_id) = handle.trim().parse::<u64>() else {
            return Ok(false);
        };
        // Adopt a job Slurm still knows (queued, running, or ended with a status to report).
        let known = run(
            "scontrol",
            &[
                "-o".into(),
                "show".into(),
                "job".into(),
                slurm_id.to_string(),
            ],
        )
        .is_ok_and(|t| {
            t.lines().any(|line| {
                field(line, "JobId") == Some(&slurm_id.to_string())
                    && field(line, "JobName") == Some(&format!("blox-{}", l.job))
            })
        });
        let dir = crate::job_dir(&self.cfg.jobs_dir, l.job);
        let exit_file = Self::exit_file(&dir, l.attempt);
        if !known && !exit_file.exists() {
            return Ok(false);
        }
        self.running.insert(
            l.job,
            Running {
                attempt: l.attempt,
                slurm_id,
                exit_file,
                tail: MetricsTail::new(dir.join("metrics.jsonl"), 0, l.attempt),
                launched: Instant::now(),
                running: false,
                preempt: None,
                signalled: None,
                killed: false,
            },
        );
        self.last_queue = None;
        Ok(true)
    }

    fn name(&self) -> String {
        "slurm".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: &str = "NodeName=n1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=1.34 AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:g0:1,gpu:g1:1,gpu:g2:1,gpu:g3:1 NodeAddr=127.0.0.1 NodeHostName=localhost Port=17001 RealMemory=4096 State=IDLE ThreadsPerCore=1
NodeName=n2 CPUTot=16 Gres=gpu:a100:4(S:0-1) NodeAddr=10.0.0.2 RealMemory=8192 State=MIXED
NodeName=login CPUTot=4 Gres=(null) NodeAddr=10.0.0.9 RealMemory=1024 State=IDLE
";

    #[test]
    fn a_failing_query_is_waited_out_for_a_while() {
        let mut o = Outage::default();
        let t0 = Instant::now();
        let e = || ExecError::new("slurm backend: `squeue` failed");
        assert!(o.failed(e(), t0, Duration::from_secs(60)).is_ok());
        assert!(o
            .failed(e(), t0 + Duration::from_secs(59), Duration::from_secs(60))
            .is_ok());
        let err = o
            .failed(e(), t0 + Duration::from_secs(61), Duration::from_secs(60))
            .unwrap_err();
        assert!(
            err.0.contains("`squeue` failed (failing for 61 s)"),
            "{}",
            err.0
        );
        // An answer ends the outage: the next failure starts a new one.
        o.ok();
        let t1 = t0 + Duration::from_secs(100);
        assert!(o.failed(e(), t1, Duration::from_secs(60)).is_ok());
        assert!(o
            .failed(e(), t1 + Duration::from_secs(30), Duration::from_secs(60))
            .is_ok());
    }

    #[test]
    fn node_states_that_take_work() {
        for ok in ["idle", "mix", "alloc", "comp", "idle~", "mix-", "allocated"] {
            assert!(slurm_state_available(ok), "{ok}");
        }
        for no in [
            "down", "down*", "drain", "drng", "drained", "fail", "maint", "idle*", "unk*", "boot",
            "inval",
        ] {
            assert!(!slurm_state_available(no), "{no}");
        }
    }

    #[test]
    fn parses_typed_and_untyped_nodes() {
        let n = parse_nodes_text(NODES);
        assert_eq!(n.len(), 2, "the node without GPUs is left out");
        assert!(n[0].typed);
        assert_eq!(n[0].info.gpu_indices, vec![0, 1, 2, 3]);
        assert_eq!((n[0].info.cpus, n[0].info.mem_gb), (8, 4.0));
        assert_eq!(n[0].info.address, "127.0.0.1");
        assert!(!n[1].typed);
        assert_eq!(n[1].info.gpu_indices, vec![0, 1, 2, 3]);
        assert_eq!(n[1].state, "MIXED");
    }

    #[test]
    fn reads_how_a_job_ended() {
        let l = |s: &str, c: &str| {
            format!("JobId=7 JobName=blox-1 JobState={s} Reason=None ExitCode={c} RunTime=1")
        };
        assert_eq!(
            ended_status(&l("COMPLETED", "0:0"), false),
            Some(ExitStatus::Code(0))
        );
        assert_eq!(
            ended_status(&l("FAILED", "143:0"), false),
            Some(ExitStatus::Code(143))
        );
        assert_eq!(
            ended_status(&l("CANCELLED", "0:15"), true),
            Some(ExitStatus::Signal(15))
        );
        assert_eq!(
            ended_status(&l("CANCELLED", "0:0"), true),
            Some(ExitStatus::Signal(9))
        );
        assert_eq!(
            ended_status(&l("CANCELLED", "0:0"), false),
            Some(ExitStatus::Lost)
        );
        assert_eq!(
            ended_status(&l("NODE_FAIL", "0:0"), false),
            Some(ExitStatus::Lost)
        );
        assert_eq!(ended_status(&l("RUNNING", "0:0"), false), None);
    }

    /// The batch script records `srun`'s code in the exit file (so a restart after Slurm forgot
    /// the job still knows it ended) and asks Slurm to end every rank when one fails. Run with a
    /// fake `srun` that checks its flag and exits 3.
    #[test]
    fn the_batch_script_records_the_exit_and_ends_all_ranks_on_a_bad_exit() {
        let nodes = parse_nodes_text(NODES);
        let exec = SlurmExecutor::with_nodes(
            SlurmConfig {
                jobs_dir: PathBuf::from("/nonexistent"),
                signal: Signal::SIGTERM,
                partition: None,
            },
            nodes,
        );
        let tmp = std::env::temp_dir().join(format!("blox-slurm-script-{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(tmp.join("bin")).unwrap();
        let spec = blox_core::JobSpec::new(blox_core::Time::ZERO, 2, 10.0);
        let gpus = [blox_core::GpuId(0), blox_core::GpuId(1)];
        let l = Launch::new(JobId(9), 2, &spec, "exit 0", &gpus, false);
        let (script, _) = exec.submission(&l, &tmp, 1234).unwrap();
        let fake = tmp.join("bin/srun");
        fs::write(
            &fake,
            "#!/bin/sh\ncase \" $* \" in *' --kill-on-bad-exit=1 '*) exit 3;; esac\nexit 99\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!(
            "{}:{}",
            tmp.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let st = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .env("PATH", path)
            .status()
            .unwrap();
        assert_eq!(st.code(), Some(3), "the script exits with srun's code");
        let exit = SlurmExecutor::exit_file(&tmp, 2);
        assert_eq!(recorded_exit(&exit), Some(ExitStatus::Code(3)));
        assert!(
            !tmp.join("attempt2.exit.tmp").exists(),
            "no temporary file left"
        );
        assert_eq!(recorded_exit(&tmp.join("attempt5.exit")), None);
        let _ = fs::remove_dir_all(&tmp);
    }

    #[test]
    fn quotes_for_the_shell() {
        assert_eq!(quote("a'b"), r"'a'\''b'");
    }
}
