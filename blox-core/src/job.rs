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
///
/// Laid out in declaration order (`repr(C)`): the fields read every round (arrival, work, GPUs,
/// class, elasticity) come first, so that with [`Job`]'s own hot fields they sit in the first
/// cache lines of a job in the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
#[repr(C)]
pub struct JobSpec {
    /// When the job is submitted.
    pub arrival: Time,
    /// Service demand in seconds: how long the job runs on `n_gpus` GPUs at speed 1.0. This is
    /// Blox's `job_total_iteration × job_iteration_time`. An oracle value: policies such as SRTF
    /// may read it; realistic policies should not.
    pub work_s: f64,
    /// GPUs requested. Rigid jobs run on exactly this many.
    pub n_gpus: u32,
    /// Model class id (Blox's `job_class_id`; `i mod 5` for Blox's default workload).
    #[serde(default)]
    pub class_id: u32,
    /// Whether the job can run on a GPU count other than `n_gpus` (e.g. under Optimus or
    /// Pollux). Rigid jobs (the default) always get exactly `n_gpus`.
    #[serde(default)]
    pub elastic: bool,
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
///
/// Laid out in declaration order (`repr(C)`): what the engine, the time model and the policies
/// read every round (id, class, GPUs held, progress, service, waiting time) comes first, then
/// the spec (whose hot fields come first too), then the rest: a pass over the table touches one
/// or two cache lines per job, not five (about 10 % of a 1,000,000-job run). Aligned to a cache
/// line (320 bytes instead of 304), so that the first 64 bytes (id to waiting time) are always
/// one line and the spec's hot fields the next, whatever the job's place in the table (a few
/// percent of the scale benchmark).
#[derive(Clone, Debug)]
#[non_exhaustive]
#[repr(C, align(64))]
pub struct Job {
    /// Admission-order id.
    pub id: JobId,
    /// Starvation class ([`PRIORITY_NORMAL`] or [`PRIORITY_STARVED`]).
    pub priority: u32,
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
    /// How long it has waited since it last ran or was last decided on (Blox's
    /// `time_since_scheduled`).
    pub time_since_scheduled: Time,
    /// What the workload asked for.
    pub spec: JobSpec,
    /// Round at which it was admitted.
    pub admitted_at: Time,
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
/// Lookups by id are O(1): ids are dense, so a position index is kept beside the jobs, over
/// the ids from the oldest job in the table to the newest only (it drops the ids below the
/// oldest job as that job leaves, so a long run's index does not grow with every job it has
/// seen). Removing jobs costs O(n) per call, so the engine marks a decision's completions
/// ([`JobTable::mark_removed`]) and removes them in one pass ([`JobTable::remove_marked`]).
#[derive(Clone, Debug, Default)]
pub struct JobTable {
    jobs: Vec<Job>,
    /// Per position: marked to leave at the next [`JobTable::remove_marked`].
    marked: Vec<bool>,
    /// Jobs marked.
    n_marked: usize,
    /// `index[id - base]` is the job's position + 1, or 0 when it is not in the table.
    index: Vec<u32>,
    /// The id `index[0]` stands for.
    base: u32,
    /// Σ requested GPUs, kept up to date.
    demand: u64,
}

/// The index keeps at least this many ids before it drops the ones below the oldest job.
const MIN_INDEX_TRIM: usize = 1024;

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
        let k = id.0.checked_sub(self.base)? as usize;
        match self.index.get(k) {
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
        if self.jobs.is_empty() {
            // Nothing is indexed: start the index at this id.
            self.index.clear();
            self.base = job.id.0;
        }
        let k = (job.id.0 - self.base) as usize;
        if self.index.len() <= k {
            self.index.resize(k + 1, 0);
        }
        self.demand += u64::from(job.spec.n_gpus);
        self.jobs.push(job);
        self.marked.push(false);
        self.index[k] = self.jobs.len() as u32;
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

    /// Engine-side: mark a job to leave at the next [`JobTable::remove_marked`]; it stays in
    /// the table (and in every view of it) until then. False when the job is not in the table
    /// or already marked.
    pub fn mark_removed(&mut self, id: JobId) -> bool {
        match self.position(id) {
            Some(p) if !self.marked[p] => {
                self.marked[p] = true;
                self.n_marked += 1;
                true
            }
            _ => false,
        }
    }

    /// Whether a job is marked to leave.
    pub fn is_marked(&self, id: JobId) -> bool {
        self.position(id).is_some_and(|p| self.marked[p])
    }

    /// Engine-side: remove the marked jobs, keeping the order of the rest: one pass from the
    /// first marked job on; nothing when none is marked.
    pub fn remove_marked(&mut self) {
        if self.n_marked == 0 {
            return;
        }
        let mut marks = std::mem::take(&mut self.marked);
        self.retain_at(|p, _| !marks[p]);
        marks.clear();
        marks.resize(self.jobs.len(), false);
        self.marked = marks;
        self.n_marked = 0;
    }

    /// Engine-side: remove and return one job (O(n); prefer [`JobTable::remove_marked`] for
    /// many).
    pub fn remove(&mut self, id: JobId) -> Option<Job> {
        let pos = self.position(id)?;
        let job = self.jobs.remove(pos);
        if self.marked.remove(pos) {
            self.n_marked -= 1;
        }
        self.demand -= u64::from(job.spec.n_gpus);
        self.index[(id.0 - self.base) as usize] = 0;
        for (i, j) in self.jobs.iter().enumerate().skip(pos) {
            self.index[(j.id.0 - self.base) as usize] = i as u32 + 1;
        }
        self.trim_index();
        Some(job)
    }

    /// Engine-side: remove every job for which `keep` returns false, keeping the order of the
    /// rest (one O(n) pass; the position index moves with the jobs in the same pass).
    pub fn retain(&mut self, mut keep: impl FnMut(&Job) -> bool) {
        if self.n_marked == 0 {
            self.retain_at(|_, j| keep(j));
            self.marked.truncate(self.jobs.len());
            return;
        }
        // Marks move with the jobs kept.
        let marks = std::mem::take(&mut self.marked);
        let mut kept_marks = Vec::with_capacity(marks.len());
        self.retain_at(|p, j| {
            let k = keep(j);
            if k {
                kept_marks.push(marks[p]);
            }
            k
        });
        self.n_marked = kept_marks.iter().filter(|&&m| m).count();
        self.marked = kept_marks;
    }

    /// [`JobTable::retain`] with each job's position, leaving the marks to the caller.
    fn retain_at(&mut self, mut keep: impl FnMut(usize, &Job) -> bool) {
        let index = &mut self.index;
        let base = self.base;
        let demand = &mut self.demand;
        let mut pos = 0;
        // Positions + 1 of the jobs kept so far: the index moves with the jobs, in the same
        // pass.
        let mut kept = 0u32;
        let mut shifted = false;
        self.jobs.retain(|j| {
            pos += 1;
            if keep(pos - 1, j) {
                kept += 1;
                if shifted {
                    index[(j.id.0 - base) as usize] = kept;
                }
                true
            } else {
                index[(j.id.0 - base) as usize] = 0;
                *demand -= u64::from(j.spec.n_gpus);
                shifted = true;
                false
            }
        });
        self.trim_index();
    }

    /// Drop the index below the oldest job once that frees at least half of it.
    fn trim_index(&mut self) {
        let first = match self.jobs.first() {
            Some(j) => (j.id.0 - self.base) as usize,
            None => self.index.len(),
        };
        if first >= MIN_INDEX_TRIM && first * 2 >= self.index.len() {
            self.index.drain(..first);
            self.base += first as u32;
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
    fn marked_jobs_leave_together_and_the_index_follows_the_oldest_job() {
        let mut t = JobTable::new();
        let job = |i| Job::new(JobId(i), JobSpec::new(Time::ZERO, 1, 1.0), Time::ZERO);
        for i in 0..5000 {
            t.push(job(i));
        }
        // Complete every job but the multiples of 7, in a few steps, as the engine does.
        for step in 0..4u32 {
            for i in (step..5000).step_by(4) {
                if i % 7 != 0 {
                    assert!(t.mark_removed(JobId(i)));
                    assert!(!t.mark_removed(JobId(i)), "marked once");
                    assert!(t.is_marked(JobId(i)));
                    assert!(t.get(JobId(i)).is_some(), "still visible until removed");
                }
            }
            t.remove_marked();
        }
        let ids: Vec<u32> = t.iter().map(|j| j.id.0).collect();
        assert_eq!(ids, (0..5000).step_by(7).collect::<Vec<_>>());
        assert_eq!(t.gpu_demand(), ids.len() as u64);
        for (p, &i) in ids.iter().enumerate() {
            assert_eq!(t.position(JobId(i)), Some(p));
        }
        assert!(!t.mark_removed(JobId(1)), "gone");
        // The oldest jobs leave: the index drops the ids below the oldest one left.
        t.retain(|j| j.id.0 >= 4200);
        assert!(t.base > 0, "trimmed");
        assert_eq!(t.position(JobId(4200)), Some(0));
        assert_eq!(t.position(JobId(7)), None);
        // Marks survive a retain of other jobs and a single removal.
        assert!(t.mark_removed(JobId(4998)));
        t.retain(|j| j.id.0 != 4207);
        assert!(t.is_marked(JobId(4998)));
        assert!(!t.is_marked(JobId(4214)));
        t.remove(JobId(4214));
        t.remove_marked();
        assert!(t.get(JobId(4998)).is_none());
        assert_eq!(t.position(JobId(4221)), Some(1));
        // Emptied, then refilled from a later id.
        t.retain(|_| false);
        assert!(t.is_empty());
        t.push(job(9000));
        assert_eq!(t.position(JobId(9000)), Some(0));
        assert_eq!(t.position(JobId(4200)), None);
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
