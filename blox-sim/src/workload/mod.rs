//! Workloads: where jobs come from.
//!
//! A [`Workload`] hands the engine the jobs that have arrived by a given time, in arrival order.
//! This module has Blox's default generator ([`BloxDefaultWorkload`], built on a bit-exact port of
//! CPython's `random`) and the canonical CSV reader ([`read_canonical_csv`]).

mod blox_default;
mod blox_multigpu;
mod canonical;

pub use blox_default::{
    blox_durations, blox_durations_seeded, BloxDefault, BloxDualLoad, BloxDualLoadSmallLarge,
    BloxJob,
};
pub use blox_multigpu::{BloxMultiGpuTrace, BloxSynthetic};
/// Moved to `blox-core` (Gavel's type shuffle in `blox-policies` needs it too); re-exported here
/// so existing paths keep working.
pub use blox_workload::PyRandom;
pub use canonical::{parse_canonical_csv, read_canonical_csv};

use crate::SimError;
use blox_core::{JobSpec, Time};

/// A source of jobs, in arrival order.
pub trait Workload {
    /// Append to `out`, in arrival order, every job not yet returned whose arrival is at or
    /// before `t` (Blox's `GetJobs(t)`).
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError>;

    /// The arrival time of the next job not yet returned, or `None` when there are no more.
    fn next_arrival(&mut self) -> Result<Option<Time>, SimError>;

    /// The load in jobs per hour, for synthetic workloads that have one (Blox's Optimus table is
    /// keyed by it).
    fn load(&self) -> Option<f64> {
        None
    }
}

impl<W: Workload + ?Sized> Workload for Box<W> {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        (**self).arrivals_until(t, out)
    }
    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        (**self).next_arrival()
    }
    fn load(&self) -> Option<f64> {
        (**self).load()
    }
}

/// A finite list of jobs (e.g. read from a trace), replayed in arrival order. The list is
/// stably sorted by arrival when built, so equal arrivals keep their file order.
#[derive(Clone, Debug, Default)]
pub struct JobList {
    jobs: Vec<JobSpec>,
    next: usize,
}

impl JobList {
    /// Replay these jobs.
    pub fn new(mut jobs: Vec<JobSpec>) -> Self {
        jobs.sort_by_key(|j| j.arrival);
        JobList { jobs, next: 0 }
    }

    /// The jobs, in arrival order.
    pub fn jobs(&self) -> &[JobSpec] {
        &self.jobs
    }
}

impl Workload for JobList {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        while let Some(j) = self.jobs.get(self.next) {
            if j.arrival > t {
                break;
            }
            out.push(j.clone());
            self.next += 1;
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(self.jobs.get(self.next).map(|j| j.arrival))
    }
}

/// Blox's default workload as a [`Workload`]: [`BloxDefault`] jobs with 1 GPU, service equal to
/// the drawn duration, class `i mod 5`.
#[derive(Clone, Debug)]
pub struct BloxDefaultWorkload {
    gen: BloxDefault,
    load: f64,
    peeked: Option<JobSpec>,
}

impl BloxDefaultWorkload {
    /// At `load` jobs per hour, with durations repeating after `trace_jobs` jobs (Blox's N; 12,000
    /// in the reference runs).
    pub fn new(load: f64, trace_jobs: usize) -> Result<Self, SimError> {
        Self::with_seed(load, trace_jobs, 1)
    }

    /// As [`BloxDefaultWorkload::new`] with CPython's `random.seed(seed)` instead of Blox's 1.
    pub fn with_seed(load: f64, trace_jobs: usize, seed: u64) -> Result<Self, SimError> {
        let gen = BloxDefault::with_seed(load, trace_jobs, seed).map_err(SimError::Config)?;
        Ok(BloxDefaultWorkload {
            gen,
            load,
            peeked: None,
        })
    }

    fn peek(&mut self) -> &JobSpec {
        self.peeked.get_or_insert_with(|| {
            let j = self.gen.next().expect("the Blox generator is infinite");
            let mut spec = JobSpec::new(Time::from_secs(j.arrival_s), 1, j.duration_s);
            spec.class_id = j.class_id;
            spec
        })
    }
}

impl Workload for BloxDefaultWorkload {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        while self.peek().arrival <= t {
            out.extend(self.peeked.take());
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(Some(self.peek().arrival))
    }

    fn load(&self) -> Option<f64> {
        Some(self.load)
    }
}
