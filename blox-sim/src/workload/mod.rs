//! Workloads: where jobs come from.
//!
//! A [`Workload`] hands the engine the jobs that have arrived by a given time, in arrival order.
//! This module has Blox's default generator ([`BloxDefaultWorkload`], built on a bit-exact port of
//! CPython's `random`) and the canonical CSV reader ([`read_canonical_csv`]).

mod blox_default;
mod blox_multigpu;
mod canonical;
mod synergy;

/// Moved to `blox-core` (Gavel's type shuffle in `blox-policies` needs it too); re-exported here
/// so existing paths keep working.
pub use blox_core::PyRandom;
pub use blox_default::{
    blox_durations, blox_durations_seeded, BloxDefault, BloxDualLoad, BloxDualLoadSmallLarge,
    BloxJob,
};
pub use blox_multigpu::{BloxMultiGpuTrace, BloxSynthetic};
pub use canonical::{parse_canonical_csv, read_canonical_csv};
pub use synergy::{SynergyGenerator, SynergyJob, SynergyWorkload};

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

/// A generator's jobs as a [`Workload`]: the first `jobs` jobs of an iterator in arrival order,
/// drawn one at a time as the run reaches them. The list is never built, so the workload's
/// memory does not grow with the job count (a [`JobList`] of the same jobs holds every
/// [`JobSpec`] from the start), and the run sees exactly the jobs, in the order, that a
/// [`JobList`] of `gen.take(jobs)` would give it.
///
/// The generator must give arrivals in non-decreasing order (a [`JobList`] would sort them;
/// a stream cannot): an arrival before the previous one is an error, not a silent reorder.
#[derive(Clone, Debug)]
pub struct JobStream<I> {
    gen: I,
    left: usize,
    peeked: Option<JobSpec>,
    last: Time,
}

impl<I: Iterator<Item = JobSpec>> JobStream<I> {
    /// The first `jobs` jobs of `gen`.
    pub fn new(gen: I, jobs: usize) -> Self {
        JobStream {
            gen,
            left: jobs,
            peeked: None,
            last: Time::ZERO,
        }
    }

    fn peek(&mut self) -> Result<Option<&JobSpec>, SimError> {
        if self.peeked.is_none() && self.left > 0 {
            if let Some(j) = self.gen.next() {
                self.left -= 1;
                if j.arrival < self.last {
                    return Err(SimError::Config(format!(
                        "the job generator gave an arrival at {} s after one at {} s: a streamed \
                         workload needs arrivals in order",
                        j.arrival, self.last
                    )));
                }
                self.last = j.arrival;
                self.peeked = Some(j);
            } else {
                self.left = 0;
            }
        }
        Ok(self.peeked.as_ref())
    }
}

impl<I: Iterator<Item = JobSpec>> Workload for JobStream<I> {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        while self.peek()?.is_some_and(|j| j.arrival <= t) {
            out.extend(self.peeked.take());
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(self.peek()?.map(|j| j.arrival))
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
