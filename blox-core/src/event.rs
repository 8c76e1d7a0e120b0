//! Events a run reports to its [`crate::MetricSink`]s.
//!
//! # Ordering guarantees
//!
//! Events arrive in non-decreasing time. Within one time, the engine reports them in the order
//! it acts: completions, arrivals, admissions and rejections, the round sample, stops, starts.
//! Jobs acted on together are reported in the order the decision lists them. Round boundaries the
//! engine skipped (the state unchanged since the last decision) are reported as one
//! [`RoundStretch`] just before the next decision's events, where their `Round` events would
//! have been.

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

/// Rounds the engine skipped with the state unchanged, reported once: `count` round boundaries at
/// `first.time`, `first.time + step`, …, `first.time + (count − 1)·step`, each with `first`'s
/// values. The engine reports a stretch through [`crate::MetricSink::on_rounds`] so that a run
/// that waits a long time (one job of 10^9 s at one-second rounds) costs O(1) per stretch, not
/// O(rounds); a sink that stores rounds keeps the stretch as it is.
///
/// ```
/// use blox_core::{RoundSample, RoundStretch, Time};
/// let first = RoundSample::new(Time::from_secs(600), 0, 1, 0, 3, 1, 0);
/// let s = RoundStretch::new(first, Time::from_secs(300), 3);
/// assert_eq!(s.last().time, Time::from_secs(1200));
/// let times: Vec<Time> = s.samples().map(|r| r.time).collect();
/// assert_eq!(times, [600, 900, 1200].map(Time::from_secs));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoundStretch {
    /// The first round's sample; every round of the stretch has its values.
    pub first: RoundSample,
    /// The time between consecutive rounds (the round length).
    pub step: Time,
    /// How many rounds the stretch stands for (at least 1).
    pub count: u64,
}

impl RoundStretch {
    /// `count` rounds from `first.time`, `step` apart, all with `first`'s values.
    pub fn new(first: RoundSample, step: Time, count: u64) -> Self {
        RoundStretch { first, step, count }
    }

    /// One round: the stretch of a single sample.
    pub fn single(sample: RoundSample) -> Self {
        RoundStretch {
            first: sample,
            step: Time::ZERO,
            count: 1,
        }
    }

    /// The time of round `k` (0-based) of the stretch.
    pub fn time_of(&self, k: u64) -> Time {
        Time(self.first.time.as_millis() + k * self.step.as_millis())
    }

    /// Round `k`'s sample (0-based): `first` at [`RoundStretch::time_of`]`(k)`.
    pub fn sample(&self, k: u64) -> RoundSample {
        RoundSample {
            time: self.time_of(k),
            ..self.first
        }
    }

    /// The last round's sample.
    pub fn last(&self) -> RoundSample {
        self.sample(self.count.saturating_sub(1))
    }

    /// Every round of the stretch, in time order: the per-round expansion (O(count) to walk,
    /// O(1) to hold).
    pub fn samples(&self) -> impl Iterator<Item = RoundSample> + '_ {
        (0..self.count).map(|k| self.sample(k))
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
    /// for the exact point in each semantics). Rounds the engine skipped with the state unchanged
    /// arrive together, through [`crate::MetricSink::on_rounds`], whose default hands them to
    /// [`crate::MetricSink::on_event`] as one `Round` each.
    Round(RoundSample),
    /// The run ended.
    End {
        /// The end time.
        time: Time,
    },
}
