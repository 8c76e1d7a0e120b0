//! Events a run reports to its [`crate::MetricSink`]s.
//!
//! # Ordering guarantees
//!
//! Events arrive in non-decreasing time. Within one time, the engine reports them in the order
//! it acts: completions, arrivals, admissions and rejections, the round sample, stops, starts.
//! Jobs acted on together are reported in the order the decision lists them.

use crate::ids::{GpuId, JobId, NodeId};
use crate::job::JobSpec;
use crate::time::Time;

/// The cluster's state once per round, for time series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoundSample {
    /// The round's time.
    pub time: Time,
    /// Active jobs not running.
    pub jobs_in_queue: u32,
    /// Active jobs running.
    pub jobs_running: u32,
    /// Arrived jobs waiting for admission (not yet in the job table).
    pub jobs_pending_admission: u32,
    /// Free GPUs.
    pub free_gpus: u32,
    /// Σ requested GPUs over the job table.
    pub gpu_demand: u64,
    /// Preemptions decided this round.
    pub preemptions: u32,
    /// GPUs in service, when the run manages its cluster (nodes join, leave and fail); `None`:
    /// every GPU of the cluster, always.
    pub available_gpus: Option<u32>,
}

impl RoundSample {
    /// Build a sample (fields are public but the struct is non-exhaustive).
    pub fn new(
        time: Time,
        jobs_in_queue: u32,
        jobs_running: u32,
        jobs_pending_admission: u32,
        free_gpus: u32,
        gpu_demand: u64,
        preemptions: u32,
    ) -> Self {
        RoundSample {
            time,
            jobs_in_queue,
            jobs_running,
            jobs_pending_admission,
            free_gpus,
            gpu_demand,
            preemptions,
            available_gpus: None,
        }
    }

    /// The same sample with the GPUs in service recorded.
    pub fn with_available_gpus(mut self, available: u32) -> Self {
        self.available_gpus = Some(available);
        self
    }
}

/// What happened to a node (or, for single-GPU failures, to one of its GPUs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum NodeChange {
    /// The node joined (a new node, or one that had left comes back).
    Join,
    /// The node leaves gracefully (drain): its jobs are stopped, keeping their progress, and
    /// requeued.
    Leave,
    /// The node failed abruptly: its jobs lose the work since their last checkpoint and are
    /// requeued.
    Fail,
    /// A failed node is back in service.
    Recover,
}

impl NodeChange {
    /// The name used in node-event files and outputs (`join`, `leave`, `fail`, `recover`).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeChange::Join => "join",
            NodeChange::Leave => "leave",
            NodeChange::Fail => "fail",
            NodeChange::Recover => "recover",
        }
    }

    /// Whether the change takes GPUs out of service.
    pub fn removes(self) -> bool {
        matches!(self, NodeChange::Leave | NodeChange::Fail)
    }
}

impl std::fmt::Display for NodeChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for NodeChange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "join" | "add" => Ok(NodeChange::Join),
            "leave" | "drain" | "remove" => Ok(NodeChange::Leave),
            "fail" => Ok(NodeChange::Fail),
            "recover" => Ok(NodeChange::Recover),
            other => Err(format!(
                "unknown node event `{other}` (expected join, leave, fail or recover)"
            )),
        }
    }
}

/// Something that happened in a run.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A job arrived and entered the admission queue.
    Arrived {
        /// When (its first round, in round-driven runs).
        time: Time,
        /// Arrival sequence number.
        seq: u64,
        /// What it asks for.
        spec: &'a JobSpec,
    },
    /// A queued job was admitted and given an id.
    Admitted {
        /// When.
        time: Time,
        /// Arrival sequence number.
        seq: u64,
        /// Its new id.
        job: JobId,
    },
    /// A queued job was rejected for good.
    Rejected {
        /// When.
        time: Time,
        /// Arrival sequence number.
        seq: u64,
    },
    /// A job started or resumed on GPUs.
    Started {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
        /// Its GPUs.
        gpus: &'a [GpuId],
        /// Its progress rate on them.
        speed: f64,
    },
    /// A running job was stopped by the placement.
    Preempted {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
        /// Whether the engine counts it as a preemption (in `blox` semantics every stop counts,
        /// as in Blox; in `exact` semantics a stop undone by a start on the same GPUs in the same
        /// round does not).
        counted: bool,
    },
    /// The job was first seen making progress: the point responsiveness is measured to (Blox:
    /// the first round that credits it; `exact`: its first start).
    FirstProgress {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
    },
    /// A job finished.
    Completed {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
    },
    /// A node (or one GPU of it) changed: applied by the round loop before admission.
    NodeChanged {
        /// When it took effect (the round that applied it).
        time: Time,
        /// The node.
        node: NodeId,
        /// The one GPU affected, for single-GPU failures; `None`: the whole node.
        gpu: Option<GpuId>,
        /// What happened.
        change: NodeChange,
        /// GPUs in service afterwards.
        available_gpus: u32,
    },
    /// A running job was interrupted by a failure and requeued; the work since its last
    /// checkpoint is lost (its attained service is kept).
    Failed {
        /// When.
        time: Time,
        /// The job.
        job: JobId,
        /// GPU-seconds of work thrown away: its GPU count × the time since its last checkpoint.
        lost_gpu_s: f64,
    },
    /// The once-per-round sample, taken after placement decisions are made (see the engine's docs
    /// for the exact point in each semantics).
    Round(RoundSample),
    /// The run ended.
    End {
        /// The end time.
        time: Time,
    },
}
