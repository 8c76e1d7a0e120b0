//! Workloads: where jobs come from.
//!
//! A [`Workload`] hands the engine the jobs that have arrived by a given time, in arrival order.
//! This module has the trait, a finite list ([`JobList`]) and the canonical CSV reader
//! ([`read_canonical_csv`]); generators live with their simulators (Blox's in `blox-original`,
//! Synergy's in `blox-synergy`) and in `blox-workload`.

mod canonical;

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

/// A generator's jobs as a [`Workload`]: the first `jobs` jobs of an iterator in arrival order,
/// drawn one at a time as the run reaches them. The list is never built, so the workload's
/// memory does not grow with the job count (a [`JobList`] of the same jobs holds every
/// [`JobSpec`] from the start), and the run sees exactly the jobs, in the order, that a
/// [`JobList`] of `generator.take(jobs)` would give it.
///
/// The generator must give arrivals in non-decreasing order (a [`JobList`] would sort them;
/// a stream cannot): an arrival before the previous one is an error, not a silent reorder.
#[derive(Clone, Debug)]
pub struct JobStream<I> {
    generator: I,
    left: usize,
    peeked: Option<JobSpec>,
    last: Time,
}

impl<I: Iterator<Item = JobSpec>> JobStream<I> {
    /// The first `jobs` jobs of `generator`.
    pub fn new(generator: I, jobs: usize) -> Self {
        JobStream {
            generator,
            left: jobs,
            peeked: None,
            last: Time::ZERO,
        }
    }

    /// `arrival`, the arrival of the job just drawn, is not before the one drawn before it (a
    /// stream cannot sort).
    fn in_order(&mut self, arrival: Time) -> Result<(), SimError> {
        if arrival < self.last {
            return Err(SimError::Config(format!(
                "the job generator gave an arrival at {arrival} s after one at {} s: a \
                 streamed workload needs arrivals in order",
                self.last
            )));
        }
        self.last = arrival;
        Ok(())
    }

    fn peek(&mut self) -> Result<Option<&JobSpec>, SimError> {
        if self.peeked.is_none() && self.left > 0 {
            match self.generator.next() {
                Some(j) => {
                    self.left -= 1;
                    self.in_order(j.arrival)?;
                    self.peeked = Some(j);
                }
                None => self.left = 0,
            }
        }
        Ok(self.peeked.as_ref())
    }
}

impl<I: Iterator<Item = JobSpec>> Workload for JobStream<I> {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        // A job drawn goes straight to `out` when it has arrived by `t` (a job is a few
        // hundred bytes: no stop in `peeked` or a `Result` on its way); the first later one
        // waits in `peeked`.
        match &self.peeked {
            Some(j) if j.arrival > t => return Ok(()),
            Some(_) => out.extend(self.peeked.take()),
            None => {}
        }
        while self.left > 0 {
            let Some(j) = self.generator.next() else {
                self.left = 0;
                break;
            };
            self.left -= 1;
            self.in_order(j.arrival)?;
            if j.arrival > t {
                self.peeked = Some(j);
                break;
            }
            out.push(j);
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(self.peek()?.map(|j| j.arrival))
    }
}
