//! Decisions components return, as data: [`Admissions`], [`Schedule`], [`Decisions`].
//!
//! Each is a caller-owned buffer that the engine clears before every call and reuses across
//! rounds, so a component allocates nothing in the steady state.

use crate::ids::{GpuId, JobId};
use crate::job::GpuSet;

/// What an admission policy decided about the admission queue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Admissions {
    /// Indices into the queue slice of jobs to admit, **in the order they get ids**.
    pub admit: Vec<usize>,
    /// Indices into the queue slice of jobs to reject for good.
    pub reject: Vec<usize>,
}

impl Admissions {
    /// Empty both lists.
    pub fn clear(&mut self) {
        self.admit.clear();
        self.reject.clear();
    }
}

/// One entry of a schedule: a job and the GPUs the policy wants it to have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// The job.
    pub job: JobId,
    /// How many GPUs it should run on. For a rigid job this is its request
    /// ([`crate::JobSpec::n_gpus`]); for an elastic job ([`crate::JobSpec::elastic`]) any count,
    /// where `0` means "should not run now". A placement that supports resizing stops a running
    /// elastic job whose count changed and starts it again on the new count; one that does not
    /// (Blox's "Place") leaves running jobs as they are.
    pub n_gpus: u32,
}

/// A scheduling policy's output: active jobs, best first, each with a GPU count.
///
/// Placements walk it in order. A job the schedule leaves out is not started; whether a running
/// job left out is stopped is the placement's rule (Blox's "Place" never stops one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Jobs in priority order, best first.
    pub entries: Vec<Allocation>,
}

impl Schedule {
    /// Empty the schedule.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Append a job.
    pub fn push(&mut self, job: JobId, n_gpus: u32) {
        self.entries.push(Allocation { job, n_gpus });
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Iterate over the entries in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Allocation> {
        self.entries.iter()
    }
}

/// A placement's output: jobs to stop, then jobs to start on given GPUs.
///
/// The engine applies every stop before any start. A job may be in both lists (Blox relaunches a
/// victim in the same round when the GPUs allow it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// Running jobs to stop (preempt), in the order chosen.
    pub stop: Vec<JobId>,
    /// Jobs to start, each with the exact GPUs it gets.
    pub start: Vec<(JobId, GpuSet)>,
}

impl Decisions {
    /// Empty both lists.
    pub fn clear(&mut self) {
        self.stop.clear();
        self.start.clear();
    }

    /// Add a start.
    pub fn start(&mut self, job: JobId, gpus: &[GpuId]) {
        self.start.push((job, GpuSet::from_slice(gpus)));
    }
}
