//! Events a run reports to its [`crate::MetricSink`]s.
//!
//! # Ordering guarantees
//!
//! Events arrive in non-decreasing time. Within one time, the engine reports them in the order
//! it acts: completions, arrivals, admissions and rejections, the round sample, stops, starts.
//! Jobs acted on together are reported in the order the decision lists them.

use crate::ids::{GpuId, JobId};
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
    /// The once-per-round sample, taken after placement decisions are made (see the engine's docs
    /// for the exact point in each semantics).
    Round(RoundSample),
    /// The run ended.
    End {
        /// The end time.
        time: Time,
    },
}
