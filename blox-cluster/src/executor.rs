//! Launch and preemption: the [`Executor`] trait, which turns a scheduler's decisions into
//! running (or simulated) jobs.
//!
//! A scheduler is the same value in simulation and in reality; only the executor differs. The
//! round loop that drives an executor owns every decision (admission, order, placement,
//! preemption) and hands the executor only the consequences:
//!
//! 1. [`Executor::inventory`] once, to build the [`ClusterSpec`] the components see
//!    ([`Inventory::cluster_spec`]) and to map global [`GpuId`]s to nodes and device indices
//!    ([`Inventory::locate`], [`Inventory::layout`]);
//! 2. [`Executor::launch`] for every start, with the exact GPUs the placement chose;
//! 3. [`Executor::preempt`] for every stop, with a grace period: the job is asked to checkpoint
//!    and exit (SIGTERM by default) and is killed when the grace period has passed;
//! 4. [`Executor::poll`] often, to learn what happened: a launch started, made progress, or
//!    exited with a status.
//!
//! Launches are identified by `(job, attempt)`: a job preempted and resumed is a new attempt,
//! so a late event of an earlier attempt is never mistaken for the current one.
//!
//! The trait is dyn-compatible and implemented for `Box<T>` and `&mut T`, like the component traits
//! of `blox-core`. (It lived in `blox-core` until the peers got crates of their own; only
//! real-cluster mode uses it.)

use blox_core::JobSpec;
use blox_core::{ClusterSpec, NodeSpec};
use blox_core::{GpuId, JobId, NodeId};
use std::fmt;
use std::time::Duration;

/// One node of a real (or fake) cluster.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct NodeInfo {
    /// The node's name (e.g. `n1`, or a host name).
    pub name: String,
    /// The address a job's rank 0 on this node is reached at (Blox's `master_ip_address`).
    pub address: String,
    /// The node's GPU device indices, in the order its global [`GpuId`]s are numbered (what
    /// `CUDA_VISIBLE_DEVICES` names).
    pub gpu_indices: Vec<u32>,
    /// CPU cores.
    pub cpus: u32,
    /// Host memory in GB.
    pub mem_gb: f64,
    /// The GPU type's name (e.g. `v100`); [`blox_core::DEFAULT_GPU_TYPE`] unless set with
    /// [`NodeInfo::with_gpu_type`].
    pub gpu_type: String,
}

impl NodeInfo {
    /// A node with these GPU device indices and the given host resources.
    pub fn new(
        name: impl Into<String>,
        address: impl Into<String>,
        gpu_indices: Vec<u32>,
        cpus: u32,
        mem_gb: f64,
    ) -> Self {
        NodeInfo {
            name: name.into(),
            address: address.into(),
            gpu_indices,
            cpus,
            mem_gb,
            gpu_type: blox_core::DEFAULT_GPU_TYPE.to_owned(),
        }
    }

    /// The same node with GPUs of this type.
    pub fn with_gpu_type(mut self, gpu_type: impl Into<String>) -> Self {
        self.gpu_type = gpu_type.into();
        self
    }
}

/// The nodes an executor offers, in [`NodeId`] order. Global GPU ids are dense: node 0's GPUs
/// first, in the order of its [`NodeInfo::gpu_indices`], then node 1's, and so on (the same
/// numbering as [`blox_core::Cluster`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inventory {
    /// The nodes.
    pub nodes: Vec<NodeInfo>,
}

/// The GPUs of one launch on one node: where a job's ranks run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeSlice {
    /// The node.
    pub node: NodeId,
    /// The job's GPU device indices on this node, in rank order.
    pub gpu_indices: Vec<u32>,
    /// The global rank of the first of them (ranks are numbered in placement order).
    pub first_rank: u32,
}

impl Inventory {
    /// The shape the scheduling components see.
    pub fn cluster_spec(&self) -> ClusterSpec {
        ClusterSpec {
            nodes: self
                .nodes
                .iter()
                .map(|n| {
                    let mut spec =
                        NodeSpec::with_gpus(n.gpu_indices.len() as u32).of_type(n.gpu_type.clone());
                    spec.cpus = n.cpus;
                    spec.mem_gb = n.mem_gb;
                    spec
                })
                .collect(),
        }
    }

    /// Total GPUs.
    pub fn total_gpus(&self) -> u32 {
        self.nodes.iter().map(|n| n.gpu_indices.len() as u32).sum()
    }

    /// The node and device index of a global GPU id, or `None` if it does not exist.
    pub fn locate(&self, gpu: GpuId) -> Option<(NodeId, u32)> {
        let mut first = 0usize;
        for (k, n) in self.nodes.iter().enumerate() {
            let i = gpu.index().checked_sub(first)?;
            if i < n.gpu_indices.len() {
                return Some((NodeId(k as u32), n.gpu_indices[i]));
            }
            first += n.gpu_indices.len();
        }
        None
    }

    /// Group a placement (GPUs in rank order) by node, in order of each node's first rank.
    /// Ranks are given in placement order. Returns `None` if a GPU does not exist.
    pub fn layout(&self, gpus: &[GpuId]) -> Option<Vec<NodeSlice>> {
        let mut out: Vec<NodeSlice> = Vec::new();
        for (rank, &g) in gpus.iter().enumerate() {
            let (node, index) = self.locate(g)?;
            match out.iter_mut().find(|s| s.node == node) {
                Some(s) => s.gpu_indices.push(index),
                None => out.push(NodeSlice {
                    node,
                    gpu_indices: vec![index],
                    first_rank: rank as u32,
                }),
            }
        }
        Some(out)
    }
}

/// One launch: a job, its attempt number and the exact GPUs the placement chose.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Launch<'a> {
    /// The job (its admission-order id, Blox's `job_id`).
    pub job: JobId,
    /// 0 for the first launch, then 1, 2, … for each resume.
    pub attempt: u32,
    /// What the job asked for.
    pub spec: &'a JobSpec,
    /// The command to run (a shell command line).
    pub command: &'a str,
    /// GPUs in rank order.
    pub gpus: &'a [GpuId],
    /// Whether the job should resume from its checkpoint.
    pub resume: bool,
    /// Total iterations, when the submission gave them (passed on to the job).
    pub total_iterations: Option<u64>,
}

impl<'a> Launch<'a> {
    /// Describe a launch.
    pub fn new(
        job: JobId,
        attempt: u32,
        spec: &'a JobSpec,
        command: &'a str,
        gpus: &'a [GpuId],
        resume: bool,
    ) -> Self {
        Launch {
            job,
            attempt,
            spec,
            command,
            gpus,
            resume,
            total_iterations: None,
        }
    }

    /// Set the total iterations.
    pub fn with_total_iterations(mut self, total: Option<u64>) -> Self {
        self.total_iterations = total;
        self
    }
}

/// How a launch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Every rank exited; the first non-zero code, or 0.
    Code(i32),
    /// A rank was killed by this signal (and no rank reported a code).
    Signal(i32),
    /// The launch vanished without a status (e.g. its node went down, or it was killed while
    /// the executor was not watching).
    Lost,
}

impl ExitStatus {
    /// Whether the job reports success (code 0).
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Code(c) => write!(f, "exit {c}"),
            ExitStatus::Signal(s) => write!(f, "signal {s}"),
            ExitStatus::Lost => f.write_str("lost"),
        }
    }
}

/// What an executor observed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ExecEvent {
    /// The launch is running and ready for signals (its training loop said so).
    Started {
        /// The job.
        job: JobId,
        /// The attempt.
        attempt: u32,
    },
    /// The job reported progress.
    Progress {
        /// The job.
        job: JobId,
        /// The attempt.
        attempt: u32,
        /// Iterations done in total (across attempts).
        iterations: u64,
    },
    /// The executor is ending the launch for a failure that is not the job's own, e.g. the
    /// job's log could not be written (a full disk). The launch's [`ExecEvent::Exited`]
    /// follows; the job fails with this reason whatever its exit status (it is not requeued).
    Failing {
        /// The job.
        job: JobId,
        /// The attempt.
        attempt: u32,
        /// What failed, for the job's record.
        reason: String,
    },
    /// Every rank of the launch has ended.
    Exited {
        /// The job.
        job: JobId,
        /// The attempt.
        attempt: u32,
        /// How it ended.
        status: ExitStatus,
    },
}

/// An executor's error, with a message that names what failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError(pub String);

impl ExecError {
    /// A new error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        ExecError(msg.into())
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExecError {}

/// Launches and preempts jobs, and reports what happened to them.
///
/// Contract:
/// - [`Executor::launch`] is called with GPUs that are free in the executor's view: the loop
///   waits until the previous holders have exited. It returns an opaque handle (a process group,
///   a Slurm job id) that the loop stores, so a restarted loop can [`Executor::adopt`] the
///   launch.
/// - [`Executor::preempt`] asks a running launch to checkpoint and exit, and kills it once
///   `grace` has passed. Its end is reported by [`Executor::poll`] like any other.
/// - [`Executor::poll`] appends the events since the last call, in the order observed, and
///   must not block for long. Every launch ends with exactly one [`ExecEvent::Exited`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an executor",
    label = "this needs to implement `blox_core::Executor`"
)]
pub trait Executor {
    /// The nodes and GPUs this executor offers.
    fn inventory(&self) -> &Inventory;

    /// Start a launch on its GPUs. Returns a handle to store for [`Executor::adopt`].
    fn launch(&mut self, launch: &Launch<'_>) -> Result<String, ExecError>;

    /// Ask a launch to stop, and kill it after `grace`.
    fn preempt(&mut self, job: JobId, grace: Duration) -> Result<(), ExecError>;

    /// Append what happened since the last call.
    fn poll(&mut self, out: &mut Vec<ExecEvent>) -> Result<(), ExecError>;

    /// After a restart of the loop: watch a launch made earlier, known by its handle. Returns
    /// `Ok(true)` if the executor now watches it (its end will be polled, even if it already
    /// ended), `Ok(false)` if it cannot be found (the loop requeues the job). The default
    /// adopts nothing.
    fn adopt(&mut self, launch: &Launch<'_>, handle: &str) -> Result<bool, ExecError> {
        let _ = (launch, handle);
        Ok(false)
    }

    /// Append the nodes (by index in [`Executor::inventory`], ascending) that cannot take work
    /// now: down, drained or not answering, as the backend sees them (e.g. Slurm's `sinfo`).
    /// The round loop takes their GPUs out of placement before admission and requeues their
    /// jobs; a node that is no longer listed is used again. Called once per round. The default
    /// reports none.
    fn unavailable_nodes(&mut self, out: &mut Vec<NodeId>) -> Result<(), ExecError> {
        let _ = out;
        Ok(())
    }

    /// A short name for messages, e.g. `local` or `slurm`.
    fn name(&self) -> String {
        let full = std::any::type_name::<Self>();
        let base = full.split('<').next().unwrap_or(full);
        base.rsplit("::").next().unwrap_or(base).to_string()
    }
}

impl<T: Executor + ?Sized> Executor for Box<T> {
    fn inventory(&self) -> &Inventory {
        (**self).inventory()
    }
    fn launch(&mut self, launch: &Launch<'_>) -> Result<String, ExecError> {
        (**self).launch(launch)
    }
    fn preempt(&mut self, job: JobId, grace: Duration) -> Result<(), ExecError> {
        (**self).preempt(job, grace)
    }
    fn poll(&mut self, out: &mut Vec<ExecEvent>) -> Result<(), ExecError> {
        (**self).poll(out)
    }
    fn adopt(&mut self, launch: &Launch<'_>, handle: &str) -> Result<bool, ExecError> {
        (**self).adopt(launch, handle)
    }
    fn unavailable_nodes(&mut self, out: &mut Vec<NodeId>) -> Result<(), ExecError> {
        (**self).unavailable_nodes(out)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<T: Executor + ?Sized> Executor for &mut T {
    fn inventory(&self) -> &Inventory {
        (**self).inventory()
    }
    fn launch(&mut self, launch: &Launch<'_>) -> Result<String, ExecError> {
        (**self).launch(launch)
    }
    fn preempt(&mut self, job: JobId, grace: Duration) -> Result<(), ExecError> {
        (**self).preempt(job, grace)
    }
    fn poll(&mut self, out: &mut Vec<ExecEvent>) -> Result<(), ExecError> {
        (**self).poll(out)
    }
    fn adopt(&mut self, launch: &Launch<'_>, handle: &str) -> Result<bool, ExecError> {
        (**self).adopt(launch, handle)
    }
    fn unavailable_nodes(&mut self, out: &mut Vec<NodeId>) -> Result<(), ExecError> {
        (**self).unavailable_nodes(out)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

/// A boxed executor, for choices made at run time.
pub type BoxExecutor = Box<dyn Executor + Send>;
