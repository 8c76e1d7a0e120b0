//! Jobs: what a workload asks for ([`JobSpec`]) and what the engine knows of an admitted job
//! ([`Job`]), plus the table of active jobs ([`JobTable`]) that components read.

use crate::ids::{GpuId, JobId};
use crate::time::Time;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::sync::Arc;

/// The GPUs a job runs on, in the order the placement chose them (rank order).
pub type GpuSet = SmallVec<[GpuId; 4]>;

/// What a workload says about one job, before it is admitted: the canonical job record every
/// trace reader and generator produces.
///
/// Build one with [`JobSpec::new`] and set the optional fields; the struct is non-exhaustive so
/// fields can be added without breaking readers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JobSpec {
    /// When the job is submitted.
    pub arrival: Time,
    /// GPUs requested. Rigid jobs run on exactly this many.
    pub n_gpus: u32,
    /// Service demand in seconds: how long the job runs on `n_gpus` GPUs at speed 1.0. This is
    /// Blox's `job_total_iteration × job_iteration_time`. An oracle value: policies such as SRTF
    /// may read it; realistic policies should not.
    pub work_s: f64,
    /// Model class id (Blox's `job_class_id`; `i mod 5` for Blox's default workload).
    #[serde(default)]
    pub class_id: u32,
    /// Model name, when the workload gives one (e.g. `resnet50`).
    #[serde(default)]
    pub model: Option<Arc<str>>,
    /// The job's identifier in its source trace, when it has one.
    #[serde(default)]
    pub source_id: Option<Arc<str>>,
    /// The user or team that submitted it, when known.
    #[serde(default)]
    pub tenant: Option<Arc<str>>,
    /// An absolute deadline, when the workload gives one.
    #[serde(default)]
    pub deadline: Option<Time>,
    /// CPU cores the whole job needs, when known (Synergy-style placement shares them out).
    #[serde(default)]
    pub cpus: Option<f64>,
    /// Host memory the whole job needs in GB, when known.
    #[serde(default)]
    pub mem_gb: Option<f64>,
    /// Whether the job can run on a GPU count other than `n_gpus` (e.g. under Optimus or
    /// Pollux). Rigid jobs (the default) always get exactly `n_gpus`.
    #[serde(default)]
    pub elastic: bool,
    /// Total iterations, for workloads that count progress in whole iterations (Synergy's
    /// simulator credits `floor(round / iteration time)` iterations per round). `None`: progress
    /// is continuous, in [`JobSpec::work_s`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Seconds per iteration at the GPU-proportional CPU and memory share, when the workload
    /// counts iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iter_time_s: Option<f64>,
    /// How much faster the job runs when it gets its whole [`JobSpec::cpus`] and
    /// [`JobSpec::mem_gb`] demand than at the GPU-proportional share (Synergy's "speed-up at
    /// ideal"); `None` means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ideal_speedup: Option<f64>,
}

impl JobSpec {
    /// A rigid job with no names or host demands: the common case in tests and synthetic
    /// workloads.
    pub fn new(arrival: Time, n_gpus: u32, work_s: f64) -> Self {
        JobSpec {
            arrival,
            n_gpus,
            work_s,
            class_id: 0,
            model: None,
            source_id: None,
            tenant: None,
            deadline: None,
            cpus: None,
            mem_gb: None,
            elastic: false,
            iterations: None,
            iter_time_s: None,
            ideal_speedup: None,
        }
    }
}

/// Blox's starvation classes: every job starts at [`PRIORITY_NORMAL`]; one that has waited
/// past the starvation threshold moves to [`PRIORITY_STARVED`] for good. Orders sort ascending on
/// `(priority, key)`.
pub const PRIORITY_NORMAL: u32 = 999;
/// See [`PRIORITY_NORMAL`].
pub const PRIORITY_STARVED: u32 = 1;

/// An admitted job as the engine tracks it. Components see it only through `&Job` (in a
/// [`JobTable`]) and so cannot change it; the engine is the only writer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Job {
    /// Admission-order id.
    pub id: JobId,
    /// What the workload asked for.
    pub spec: JobSpec,
    /// Round at which it was admitted.
    pub admitted_at: Time,
    /// GPUs it currently runs on; empty when it is waiting.
    pub gpus: GpuSet,
    /// Work done, in the same unit as [`JobSpec::work_s`] (seconds at speed 1.0 on its requested
    /// GPUs; Blox's `job_executed_iteration`).
    pub executed: f64,
    /// Attained service in GPU-seconds: seconds credited as running × the GPUs requested
    /// ([`JobSpec::n_gpus`]). The time model credits it (continuously, or once per round), so
    /// its unit is the same whatever the model; LAS-like policies that weigh service by GPUs
    /// read it.
    pub attained_gpu_s: f64,
    /// Attained service in wall-clock seconds: seconds credited as running, whatever the GPU
    /// count (Blox's definition of attained service; Gavel's time received).
    pub attained_wall_s: f64,
    /// Starvation class ([`PRIORITY_NORMAL`] or [`PRIORITY_STARVED`]).
    pub priority: u32,
    /// How long it has waited since it last ran or was last decided on (Blox's
    /// `time_since_scheduled`).
    pub time_since_scheduled: Time,
    /// When it first started, if it has.
    pub first_start: Option<Time>,
    /// When it last started (or resumed).
    pub last_start: Option<Time>,
    /// How often it has been preempted so far.
    pub preemptions: u32,
    /// Whole iterations done, for jobs whose spec counts iterations ([`JobSpec::iterations`]).
    pub iterations_done: u64,
    /// The speed-up its latest host-resource allocation gave it (see
    /// [`crate::HostShare::speedup`]); 1 until a placement that shares out CPUs and memory has
    /// decided on it.
    pub speedup: f64,
}

impl Job {
    /// A freshly admitted job.
    pub fn new(id: JobId, spec: JobSpec, admitted_at: Time) -> Self {
        Job {
            id,
            spec,
            admitted_at,
            gpus: GpuSet::new(),
            executed: 0.0,
            attained_gpu_s: 0.0,
            attained_wall_s: 0.0,
            priority: PRIORITY_NORMAL,
            time_since_scheduled: Time::ZERO,
            first_start: None,
            last_start: None,
            preemptions: 0,
            iterations_done: 0,
            speedup: 1.0,
        }
    }

    /// Whether it currently holds GPUs.
    #[inline]
    pub fn is_running(&self) -> bool {
        !self.gpus.is_empty()
    }

    /// Submission time.
    #[inline]
    pub fn arrival(&self) -> Time {
        self.spec.arrival
    }

    /// GPUs requested.
    #[inline]
    pub fn n_gpus(&self) -> u32 {
        self.spec.n_gpus
    }

    /// Work still to do (oracle), in seconds at speed 1.0; never negative.
    #[inline]
    pub fn remaining_work(&self) -> f64 {
        (self.spec.work_s - self.executed).max(0.0)
    }
}

/// The active jobs (admitted, not finished), in ascending id order, which is also the order in
/// which they were admitted. This is Blox's job table.
///
/// Lookups by id are O(1) (ids are dense, so a position index is kept beside the jobs); removing
/// jobs costs O(n) per call, so the engine removes a round's completions in one
/// [`JobTable::retain`].
#[derive(Clone, Debug, Default)]
pub struct JobTable {
    jobs: Vec<Job>,
    /// `index[id]` is the job's position + 1, or 0 when it is not in the table.
    index: Vec<u32>,
    /// Σ requested GPUs, kept up to date.
    demand: u64,
}

impl JobTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of active jobs.
    #[inline]
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether there are no active jobs.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Active jobs in ascending id order.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Job> {
        self.jobs.iter()
    }

    /// Active jobs as a slice, in ascending id order.
    #[inline]
    pub fn as_slice(&self) -> &[Job] {
        &self.jobs
    }

    /// The active job with this id, if any (O(1)).
    #[inline]
    pub fn get(&self, id: JobId) -> Option<&Job> {
        self.position(id).map(|i| &self.jobs[i])
    }

    /// Index of `id` in [`JobTable::as_slice`] (O(1)).
    #[inline]
    pub fn position(&self, id: JobId) -> Option<usize> {
        match self.index.get(id.index()) {
            Some(&p) if p > 0 => Some(p as usize - 1),
            _ => None,
        }
    }

    /// Sum of requested GPUs over the table (Blox's `gpu_demand`).
    #[inline]
    pub fn gpu_demand(&self) -> u64 {
        self.demand
    }

    /// Engine-side: append a newly admitted job. Its id must exceed every id in the table.
    ///
    /// # Panics
    /// If the id is not larger than the last one (an engine bug, not a user error).
    pub fn push(&mut self, job: Job) {
        if let Some(last) = self.jobs.last() {
            assert!(
                job.id > last.id,
                "job ids must be pushed in increasing order"
            );
        }
        let id = job.id.index();
        if self.index.len() <= id {
            self.index.resize(id + 1, 0);
        }
        self.demand += u64::from(job.spec.n_gpus);
        self.jobs.push(job);
        self.index[id] = self.jobs.len() as u32;
    }

    /// Engine-side: mutable access to an active job. The engine never changes a job's
    /// `spec.n_gpus` through it (the table keeps their sum).
    #[inline]
    pub fn get_mut(&mut self, id: JobId) -> Option<&mut Job> {
        self.position(id).map(|i| &mut self.jobs[i])
    }

    /// Engine-side: mutable iteration in id order.
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Job> {
        self.jobs.iter_mut()
    }

    /// Engine-side: remove and return one job (O(n); prefer [`JobTable::retain`] for many).
    pub fn remove(&mut self, id: JobId) -> Option<Job> {
        let pos = self.position(id)?;
        let job = self.jobs.remove(pos);
        self.demand -= u64::from(job.spec.n_gpus);
        self.reindex_from(pos);
        self.index[id.index()] = 0;
        Some(job)
    }

    /// Engine-side: remove every job for which `keep` returns false, keeping the order of the
    /// rest (one O(n) pass).
    pub fn retain(&mut self, mut keep: impl FnMut(&Job) -> bool) {
        let index = &mut self.index;
        let demand = &mut self.demand;
        // Positions + 1 of the jobs kept so far; the index moves with the jobs, in the same pass.
        let mut kept = 0u32;
        let mut shifted = false;
        self.jobs.retain(|j| {
            if keep(j) {
                kept += 1;
                if shifted {
                    index[j.id.index()] = kept;
                }
                true
            } else {
                index[j.id.index()] = 0;
                *demand -= u64::from(j.spec.n_gpus);
                shifted = true;
                false
            }
        });
    }

    fn reindex_from(&mut self, from: usize) {
        for (i, j) in self.jobs.iter().enumerate().skip(from) {
            self.index[j.id.index()] = i as u32 + 1;
        }
    }
}

impl<'a> IntoIterator for &'a JobTable {
    type Item = &'a Job;
    type IntoIter = std::slice::Iter<'a, Job>;
    fn into_iter(self) -> Self::IntoIter {
        self.jobs.iter()
    }
}

/// A job that has arrived but is not (yet) admitted: it waits in the engine's admission queue.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct QueuedJob {
    /// Arrival sequence number (0, 1, … in arrival order), stable for the job's whole life.
    pub seq: u64,
    /// What the workload asked for.
    pub spec: JobSpec,
}

impl QueuedJob {
    /// The `seq`-th arrival, asking for `spec`.
    pub fn new(seq: u64, spec: JobSpec) -> Self {
        QueuedJob { seq, spec }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_keeps_id_order_and_finds_jobs() {
        let mut t = JobTable::new();
        for i in [0, 2, 5] {
            t.push(Job::new(
                JobId(i),
                JobSpec::new(Time::ZERO, 2, 10.0),
                Time::ZERO,
            ));
        }
        assert_eq!(t.get(JobId(2)).map(|j| j.id), Some(JobId(2)));
        assert!(t.get(JobId(3)).is_none());
        assert_eq!(t.gpu_demand(), 6);
        t.remove(JobId(2));
        let ids: Vec<u32> = t.iter().map(|j| j.id.0).collect();
        assert_eq!(ids, vec![0, 5]);
        assert_eq!(t.position(JobId(5)), Some(1));
        assert!(t.get(JobId(2)).is_none());
        t.push(Job::new(
            JobId(9),
            JobSpec::new(Time::ZERO, 1, 10.0),
            Time::ZERO,
        ));
        t.retain(|j| j.id != JobId(0));
        assert_eq!(t.position(JobId(5)), Some(0));
        assert_eq!(t.position(JobId(9)), Some(1));
        assert_eq!(t.position(JobId(0)), None);
        assert_eq!(t.position(JobId(100)), None);
    }

    #[test]
    #[should_panic(expected = "increasing order")]
    fn push_out_of_order_is_an_engine_bug() {
        let mut t = JobTable::new();
        t.push(Job::new(
            JobId(3),
            JobSpec::new(Time::ZERO, 1, 1.0),
            Time::ZERO,
        ));
        t.push(Job::new(
            JobId(1),
            JobSpec::new(Time::ZERO, 1, 1.0),
            Time::ZERO,
        ));
    }
}
