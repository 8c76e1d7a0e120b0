//! Jobs: what a workload asks for ([`JobSpec`]) and what the engine knows of an admitted job
//! ([`Job`]), plus the table of active jobs ([`JobTable`]) that components read.

use crate::ids::{GpuId, JobId};
use crate::time::Time;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
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
    #[inline]
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
    #[inline]
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

/// The fields of an active job that most rounds read, copied compactly beside the job
/// ([`JobTable::rows`], [`JobTable::row`]): a pass over the rows reads 24 bytes a job instead
/// of the job's cache lines. The table keeps each row equal to its job's fields (it is written
/// when the job enters the table and after every mutable access to the job).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobRow {
    /// [`JobSpec::arrival`].
    pub arrival: Time,
    /// [`Job::id`].
    pub id: JobId,
    /// [`Job::priority`].
    pub priority: u32,
    /// [`JobSpec::n_gpus`] (requested).
    pub n_gpus: u32,
    /// GPUs held now (`Job::gpus.len()`): 0 when the job waits.
    pub held: u32,
}

impl JobRow {
    /// The row of `job`.
    #[inline]
    pub fn of(job: &Job) -> Self {
        JobRow {
            arrival: job.spec.arrival,
            id: job.id,
            priority: job.priority,
            n_gpus: job.spec.n_gpus,
            held: job.gpus.len() as u32,
        }
    }

    /// Whether the job holds GPUs ([`Job::is_running`]).
    #[inline]
    pub fn is_running(&self) -> bool {
        self.held > 0
    }

    /// Whether the job is *settled*: it runs on exactly the GPUs it requested (`held ==
    /// n_gpus > 0`). See [`JobTable::settled_prefix`].
    #[inline]
    pub fn is_settled(&self) -> bool {
        self.held > 0 && self.held == self.n_gpus
    }
}

/// The active jobs (admitted, not finished), in ascending id order, which is also the order in
/// which they were admitted. This is Blox's job table.
///
/// # Slots
///
/// Each active job sits in a *slot*: [`JobTable::slot`] gives it in O(1) from the id, and
/// [`JobTable::at`] and [`JobTable::row`] read the job and its [`JobRow`] there. Slots ascend
/// with ids, every slot is below [`JobTable::slot_bound`] (the size of a per-slot scratch
/// array), and a job keeps its slot while the table does not change; slots are **not** ranks
/// (the table leaves gaps where jobs left: a job's slot may be larger than the number of jobs
/// before it). A table changes only engine-side, between component calls.
///
/// Jobs that leave ([`JobTable::mark_removed`] then [`JobTable::remove_marked`]) become
/// tombstones, skipped by every view, and are compacted away once they are as many as the
/// active jobs: removing a job costs O(1) amortized (a compaction moves each active job once
/// per as many removals), and a pass over the table steps over at most as many tombstones
/// (one state byte each) as jobs. Lookups by id go through an index over the ids from the
/// oldest job in the table to the newest (it drops the ids below the oldest job as that job
/// leaves, so a long run's index does not grow with every job it has seen).
///
/// Mutable access ([`JobTable::get_mut`], [`JobTable::iter_mut`]) goes through a [`JobMut`]
/// guard, which writes the job's row back when it is dropped.
///
/// # What stays the same from round to round
///
/// Two summaries let a component skip the part of the table a round does not change:
/// [`JobTable::settled_prefix`] (a slot below which every active job runs on exactly the GPUs
/// it requested) and [`JobTable::in_arrival_order`] (whether id order is also `(priority,
/// arrival)` order). Both are kept up to date as the table changes, in O(1) per change plus
/// an amortized scan.
#[derive(Clone, Debug, Default)]
pub struct JobTable {
    /// Jobs by slot, tombstones included.
    jobs: Vec<Job>,
    /// Rows by slot.
    rows: Vec<JobRow>,
    /// Per slot: [`LIVE`], [`MARKED`] or [`HIDDEN`].
    state: Vec<u8>,
    /// Slots marked to leave at the next [`JobTable::remove_marked`].
    marked: Vec<u32>,
    /// Active jobs (live or marked).
    visible: usize,
    /// Every slot before this one is a tombstone.
    front: usize,
    /// `index[id - base]` is the job's slot + 1, or 0 when it is not in the table.
    index: Vec<u32>,
    /// The id `index[0]` stands for.
    base: u32,
    /// Σ requested GPUs, kept up to date.
    demand: u64,
    /// What [`JobMut`] guards update: the settled prefix and the priority count.
    watch: Watch,
    /// Active jobs that arrived before a job pushed earlier, in ascending id order.
    late: Vec<JobId>,
    /// The latest arrival pushed so far.
    latest_arrival: Time,
}

/// The summaries a [`JobMut`] guard updates when it writes a row back (atomics, so that a
/// guard needs only a shared reference and the table stays `Sync`; they are only ever written
/// under the table's `&mut`, or by [`JobTable::settled_prefix`] with a value that is right
/// whichever write lands).
#[derive(Debug, Default)]
struct Watch {
    /// Every active job in a slot below this one is settled ([`JobRow::is_settled`]): lowered
    /// when a job there becomes unsettled, moved up by [`JobTable::settled_prefix`].
    settled_to: AtomicUsize,
    /// Active jobs whose priority is not [`PRIORITY_NORMAL`].
    raised: AtomicUsize,
}

impl Clone for Watch {
    fn clone(&self) -> Self {
        Watch {
            settled_to: AtomicUsize::new(self.settled_to.load(Relaxed)),
            raised: AtomicUsize::new(self.raised.load(Relaxed)),
        }
    }
}

impl Watch {
    /// A row in `slot` is written: `old` becomes `new`. A job `leaving` (marked) does not lower
    /// the settled prefix: [`JobTable::settled_prefix`] ignores it while marks are pending.
    #[inline]
    fn written(&self, slot: usize, old: &JobRow, new: &JobRow, leaving: bool) {
        if old.priority != new.priority {
            let raised = self.raised.load(Relaxed);
            let raised = raised + usize::from(new.priority != PRIORITY_NORMAL)
                - usize::from(old.priority != PRIORITY_NORMAL);
            self.raised.store(raised, Relaxed);
        }
        if !leaving && !new.is_settled() && slot < self.settled_to.load(Relaxed) {
            self.settled_to.store(slot, Relaxed);
        }
    }
}

/// An active job.
const LIVE: u8 = 0;
/// An active job marked to leave.
const MARKED: u8 = 1;
/// A slot whose job has left, not yet compacted away.
const HIDDEN: u8 = 2;

/// The index keeps at least this many ids before it drops the ones below the oldest job.
const MIN_INDEX_TRIM: usize = 1024;

/// Compaction waits for at least this many tombstones.
const MIN_COMPACT: usize = 64;

/// Tombstones are compacted once they are a `1 / COMPACT_RATIO` share of the active jobs. At 1
/// (not 4), a compaction's moves of 320-byte jobs cost a quarter as much per removal: 11 %
/// of the 4,000,000-job scale run's CPU at 4; one state byte per tombstone in a pass.
const COMPACT_RATIO: usize = 1;

impl JobTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of active jobs.
    #[inline]
    pub fn len(&self) -> usize {
        self.visible
    }

    /// Whether there are no active jobs.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.visible == 0
    }

    /// Active jobs in ascending id order.
    #[inline]
    pub fn iter(&self) -> JobIter<'_> {
        JobIter {
            jobs: self.jobs[self.front..].iter(),
            state: self.state[self.front..].iter(),
            left: self.visible,
        }
    }

    /// The rows of the active jobs ([`JobRow`]), in ascending id order: what a pass that reads
    /// only ids, priorities, arrivals, GPU requests and GPUs held should walk.
    #[inline]
    pub fn rows(&self) -> RowIter<'_> {
        RowIter {
            rows: self.rows[self.front..].iter(),
            state: self.state[self.front..].iter(),
            left: self.visible,
        }
    }

    /// The active jobs with their slots, in ascending id order.
    #[inline]
    pub fn slots(&self) -> SlotIter<'_> {
        SlotIter {
            state: self.state[self.front..].iter(),
            next: self.front,
            left: self.visible,
        }
    }

    /// The oldest active job (lowest id), if any.
    #[inline]
    pub fn first(&self) -> Option<&Job> {
        self.iter().next()
    }

    /// The newest active job (highest id), if any.
    #[inline]
    pub fn last(&self) -> Option<&Job> {
        self.iter().next_back()
    }

    /// The active job with this id, if any (O(1)).
    #[inline]
    pub fn get(&self, id: JobId) -> Option<&Job> {
        self.slot(id).map(|s| &self.jobs[s])
    }

    /// Whether job `id` is active.
    #[inline]
    pub fn contains(&self, id: JobId) -> bool {
        self.slot(id).is_some()
    }

    /// The slot of active job `id` (O(1)): an index below [`JobTable::slot_bound`], for
    /// per-slot scratch arrays, [`JobTable::at`] and [`JobTable::row`]. Slots ascend with ids
    /// but are not ranks (see the [type docs](JobTable#slots)).
    #[inline]
    pub fn slot(&self, id: JobId) -> Option<usize> {
        let k = id.0.checked_sub(self.base)? as usize;
        match self.index.get(k) {
            Some(&p) if p > 0 => Some(p as usize - 1),
            _ => None,
        }
    }

    /// [`JobTable::slot`], looking first at the few slots from `from` on: when ids are looked up
    /// in ascending order (a schedule in id order), passing the last slot found + 1 finds the
    /// next one there, without the index. Any `from` gives the right answer.
    #[inline]
    pub fn slot_near(&self, id: JobId, from: usize) -> Option<usize> {
        let end = self.rows.len().min(from.saturating_add(4));
        for s in from..end {
            let r = &self.rows[s];
            if r.id == id {
                return (self.state[s] != HIDDEN).then_some(s);
            }
            if r.id > id {
                break;
            }
        }
        self.slot(id)
    }

    /// The active job in `slot` (from [`JobTable::slot`]), O(1).
    ///
    /// # Panics
    /// If no active job is in `slot`.
    #[inline]
    pub fn at(&self, slot: usize) -> &Job {
        assert!(
            self.state[slot] != HIDDEN,
            "no active job in table slot {slot}"
        );
        &self.jobs[slot]
    }

    /// The row of the active job in `slot` (from [`JobTable::slot`]), O(1).
    ///
    /// # Panics
    /// If no active job is in `slot`.
    #[inline]
    pub fn row(&self, slot: usize) -> &JobRow {
        assert!(
            self.state[slot] != HIDDEN,
            "no active job in table slot {slot}"
        );
        &self.rows[slot]
    }

    /// Every slot is below this bound (at least [`JobTable::len`]): the size of a per-slot
    /// scratch array.
    #[inline]
    pub fn slot_bound(&self) -> usize {
        self.jobs.len()
    }

    /// Sum of requested GPUs over the table (Blox's `gpu_demand`).
    #[inline]
    pub fn gpu_demand(&self) -> u64 {
        self.demand
    }

    /// A slot below which every active job is settled ([`JobRow::is_settled`]: it runs on
    /// exactly the GPUs it requested), at most the slot of the first active job that is not:
    /// the table's settled prefix. While jobs are marked to leave, the first active slot.
    ///
    /// O(1) when the table has not changed since the last call; otherwise it steps over the
    /// jobs that settled since (amortized over the changes). [`JobTable::rows_from`] walks the
    /// rest.
    pub fn settled_prefix(&self) -> usize {
        if !self.marked.is_empty() {
            return self.front;
        }
        let mut s = self.watch.settled_to.load(Relaxed).max(self.front);
        while s < self.rows.len() && (self.state[s] == HIDDEN || self.rows[s].is_settled()) {
            s += 1;
        }
        self.watch.settled_to.store(s, Relaxed);
        s
    }

    /// The rows of the active jobs in slots from `slot` on, in ascending id order.
    #[inline]
    pub fn rows_from(&self, slot: usize) -> impl Iterator<Item = &JobRow> + Clone + '_ {
        let from = slot.clamp(self.front, self.rows.len());
        self.rows[from..]
            .iter()
            .zip(&self.state[from..])
            .filter(|&(_, &s)| s != HIDDEN)
            .map(|(r, _)| r)
    }

    /// Whether every active job has priority [`PRIORITY_NORMAL`] and none arrived before a job
    /// admitted earlier: then id order is also ascending `(priority, arrival)` order (FIFO's
    /// order), and the jobs of the settled prefix come before all others in it. O(1).
    #[inline]
    pub fn in_arrival_order(&self) -> bool {
        self.late.is_empty() && self.watch.raised.load(Relaxed) == 0
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
        if self.visible == 0 {
            // Nothing is indexed: drop the tombstones and start the index at this id.
            self.jobs.clear();
            self.rows.clear();
            self.state.clear();
            self.front = 0;
            self.index.clear();
            self.base = job.id.0;
            self.watch.settled_to.store(0, Relaxed);
        }
        if job.spec.arrival < self.latest_arrival {
            self.late.push(job.id);
        } else {
            self.latest_arrival = job.spec.arrival;
        }
        if job.priority != PRIORITY_NORMAL {
            self.watch.raised.fetch_add(1, Relaxed);
        }
        let k = (job.id.0 - self.base) as usize;
        if self.index.len() <= k {
            self.index.resize(k + 1, 0);
        }
        self.demand += u64::from(job.spec.n_gpus);
        self.rows.push(JobRow::of(&job));
        self.jobs.push(job);
        self.state.push(LIVE);
        self.visible += 1;
        self.index[k] = self.jobs.len() as u32;
    }

    /// Engine-side: mutable access to an active job, through a guard that writes the job's row
    /// back when dropped. The engine never changes a job's `spec.n_gpus` through it (the table
    /// keeps their sum).
    #[inline]
    pub fn get_mut(&mut self, id: JobId) -> Option<JobMut<'_>> {
        let s = self.slot(id)?;
        Some(JobMut {
            job: &mut self.jobs[s],
            row: &mut self.rows[s],
            slot: s,
            leaving: self.state[s] == MARKED,
            watch: &self.watch,
        })
    }

    /// Engine-side: mutable iteration in id order, through guards ([`JobMut`]).
    #[inline]
    pub fn iter_mut(&mut self) -> JobIterMut<'_> {
        JobIterMut {
            jobs: self.jobs[self.front..].iter_mut(),
            rows: self.rows[self.front..].iter_mut(),
            state: self.state[self.front..].iter(),
            left: self.visible,
            first: self.front,
            watch: &self.watch,
        }
    }

    /// Engine-side: the active jobs in id order, with write access to their progress only
    /// ([`ProgressMut`]): what a time model's credit changes, without the row write-back of a
    /// [`JobMut`].
    #[inline]
    pub fn iter_progress_mut(&mut self) -> ProgressIterMut<'_> {
        ProgressIterMut {
            jobs: self.jobs[self.front..].iter_mut(),
            state: self.state[self.front..].iter(),
            left: self.visible,
        }
    }

    /// Engine-side: mark a job to leave at the next [`JobTable::remove_marked`]; it stays in
    /// the table (and in every view of it) until then. False when the job is not in the table
    /// or already marked.
    pub fn mark_removed(&mut self, id: JobId) -> bool {
        match self.slot(id) {
            Some(p) if self.state[p] == LIVE => {
                self.state[p] = MARKED;
                self.marked.push(p as u32);
                true
            }
            _ => false,
        }
    }

    /// Whether a job is marked to leave.
    pub fn is_marked(&self, id: JobId) -> bool {
        self.slot(id).is_some_and(|p| self.state[p] == MARKED)
    }

    /// Engine-side: remove the marked jobs, keeping the order of the rest: O(marked), plus an
    /// amortized compaction.
    pub fn remove_marked(&mut self) {
        if self.marked.is_empty() {
            return;
        }
        let marked = std::mem::take(&mut self.marked);
        for &p in &marked {
            self.hide(p as usize);
        }
        self.marked = marked;
        self.marked.clear();
        self.settle();
    }

    /// Engine-side: remove and return one job (O(1) amortized; the job returned is a copy of
    /// the tombstone left in its slot).
    pub fn remove(&mut self, id: JobId) -> Option<Job> {
        let slot = self.slot(id)?;
        if self.state[slot] == MARKED {
            self.marked.retain(|&p| p as usize != slot);
        }
        let job = self.jobs[slot].clone();
        self.hide(slot);
        self.settle();
        Some(job)
    }

    /// Engine-side: remove every job for which `keep` returns false, keeping the order of the
    /// rest (one O(n) pass). Marks of the jobs kept stay.
    pub fn retain(&mut self, mut keep: impl FnMut(&Job) -> bool) {
        let mut dropped_marked = false;
        for p in self.front..self.jobs.len() {
            if self.state[p] != HIDDEN && !keep(&self.jobs[p]) {
                dropped_marked |= self.state[p] == MARKED;
                self.hide(p);
            }
        }
        if dropped_marked {
            let state = &self.state;
            self.marked.retain(|&p| state[p as usize] == MARKED);
        }
        self.settle();
    }

    /// Turn the active job in `slot` into a tombstone.
    fn hide(&mut self, slot: usize) {
        debug_assert_ne!(self.state[slot], HIDDEN);
        // From the row: the job itself is not read.
        let j = &self.rows[slot];
        self.state[slot] = HIDDEN;
        self.index[(j.id.0 - self.base) as usize] = 0;
        self.demand -= u64::from(j.n_gpus);
        self.visible -= 1;
        if j.priority != PRIORITY_NORMAL {
            self.watch.raised.fetch_sub(1, Relaxed);
        }
        if !self.late.is_empty() {
            if let Ok(k) = self.late.binary_search(&j.id) {
                self.late.remove(k);
            }
        }
    }

    /// Compact once the tombstones are a `1 / COMPACT_RATIO` share of the active jobs (and
    /// not too few), else move the front past the leading ones; then trim the index.
    fn settle(&mut self) {
        let hidden = self.jobs.len() - self.visible;
        if self.visible == 0 {
            self.jobs.clear();
            self.rows.clear();
            self.state.clear();
            self.marked.clear();
            self.front = 0;
            self.watch.settled_to.store(0, Relaxed);
        } else if hidden >= MIN_COMPACT && hidden >= self.visible / COMPACT_RATIO {
            self.compact();
        } else {
            while self.state[self.front] == HIDDEN {
                self.front += 1;
            }
        }
        self.trim_index();
    }

    /// Drop the tombstones, moving the rest down and the index with them.
    fn compact(&mut self) {
        let state = &self.state;
        let mut r = 0;
        self.jobs.retain(|_| {
            r += 1;
            state[r - 1] != HIDDEN
        });
        // The settled prefix moves down with the slots below it.
        let settled_to = self.watch.settled_to.load(Relaxed);
        let mut new_settled_to = None;
        let mut w = 0;
        for r in 0..self.state.len() {
            if r == settled_to {
                new_settled_to = Some(w);
            }
            let s = self.state[r];
            if s == HIDDEN {
                continue;
            }
            if w != r {
                self.rows[w] = self.rows[r];
                self.state[w] = s;
                let id = self.rows[w].id;
                self.index[(id.0 - self.base) as usize] = w as u32 + 1;
            }
            w += 1;
        }
        self.rows.truncate(w);
        self.state.truncate(w);
        self.watch
            .settled_to
            .store(new_settled_to.unwrap_or(w), Relaxed);
        self.front = 0;
        // Marked slots moved too.
        self.marked.clear();
        for (p, &s) in self.state.iter().enumerate() {
            if s == MARKED {
                self.marked.push(p as u32);
            }
        }
    }

    /// Drop the index below the oldest job once that frees at least half of it.
    fn trim_index(&mut self) {
        let first = match self.first() {
            Some(j) => (j.id.0 - self.base) as usize,
            None => self.index.len(),
        };
        if first >= MIN_INDEX_TRIM && first * 2 >= self.index.len() {
            self.index.drain(..first);
            self.base += first as u32;
        }
    }
}

/// Engine-side: mutable access to an active job ([`JobTable::get_mut`],
/// [`JobTable::iter_mut`]). It dereferences to the [`Job`]; when dropped, it writes the job's
/// [`JobRow`] back to the table.
#[derive(Debug)]
pub struct JobMut<'a> {
    job: &'a mut Job,
    row: &'a mut JobRow,
    slot: usize,
    /// Marked to leave.
    leaving: bool,
    watch: &'a Watch,
}

impl std::ops::Deref for JobMut<'_> {
    type Target = Job;
    #[inline]
    fn deref(&self) -> &Job {
        self.job
    }
}

impl std::ops::DerefMut for JobMut<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Job {
        self.job
    }
}

impl Drop for JobMut<'_> {
    #[inline]
    fn drop(&mut self) {
        debug_assert_eq!(self.row.id, self.job.id, "a job's id never changes");
        // The engine never changes a job's spec: only the priority and the GPUs held are read
        // back, so that the job's spec (its second cache line) is not touched.
        let mut new = *self.row;
        new.priority = self.job.priority;
        new.held = self.job.gpus.len() as u32;
        debug_assert_eq!(new, JobRow::of(self.job), "a job's spec never changes");
        let old = std::mem::replace(self.row, new);
        self.watch.written(self.slot, &old, &new, self.leaving);
    }
}

/// Engine-side: an active job with write access to its progress only
/// ([`JobTable::iter_progress_mut`]): [`Job::executed`], [`Job::attained_gpu_s`],
/// [`Job::attained_wall_s`], [`Job::iterations_done`], [`Job::time_since_scheduled`] and
/// [`Job::speedup`], which its [`JobRow`] does not hold.
/// It dereferences to the [`Job`] for reading.
#[derive(Debug)]
pub struct ProgressMut<'a> {
    job: &'a mut Job,
}

impl ProgressMut<'_> {
    /// [`Job::executed`], to write.
    #[inline]
    pub fn executed_mut(&mut self) -> &mut f64 {
        &mut self.job.executed
    }

    /// [`Job::attained_gpu_s`], to write.
    #[inline]
    pub fn attained_gpu_s_mut(&mut self) -> &mut f64 {
        &mut self.job.attained_gpu_s
    }

    /// [`Job::attained_wall_s`], to write.
    #[inline]
    pub fn attained_wall_s_mut(&mut self) -> &mut f64 {
        &mut self.job.attained_wall_s
    }

    /// [`Job::iterations_done`], to write.
    #[inline]
    pub fn iterations_done_mut(&mut self) -> &mut u64 {
        &mut self.job.iterations_done
    }

    /// [`Job::time_since_scheduled`] (the starvation counter), to write.
    #[inline]
    pub fn time_since_scheduled_mut(&mut self) -> &mut Time {
        &mut self.job.time_since_scheduled
    }

    /// [`Job::speedup`], to write.
    #[inline]
    pub fn speedup_mut(&mut self) -> &mut f64 {
        &mut self.job.speedup
    }
}

impl std::ops::Deref for ProgressMut<'_> {
    type Target = Job;
    #[inline]
    fn deref(&self) -> &Job {
        self.job
    }
}

/// Steps over the tombstones of a slice of slot states: the shared body of the table's
/// iterators.
macro_rules! skip_hidden {
    ($self:ident, $next:ident, $($field:ident),+) => {{
        if $self.left == 0 {
            return None;
        }
        loop {
            let item = ($($self.$field.$next()?,)+);
            if *$self.state.$next()? != HIDDEN {
                $self.left -= 1;
                return Some(item);
            }
        }
    }};
}

/// The active jobs of a [`JobTable`] in id order ([`JobTable::iter`]).
#[derive(Clone, Debug)]
pub struct JobIter<'a> {
    jobs: std::slice::Iter<'a, Job>,
    state: std::slice::Iter<'a, u8>,
    left: usize,
}

impl<'a> JobIter<'a> {
    #[inline]
    fn step(&mut self) -> Option<(&'a Job,)> {
        skip_hidden!(self, next, jobs)
    }
    #[inline]
    fn step_back(&mut self) -> Option<(&'a Job,)> {
        skip_hidden!(self, next_back, jobs)
    }
}

impl<'a> Iterator for JobIter<'a> {
    type Item = &'a Job;
    #[inline]
    fn next(&mut self) -> Option<&'a Job> {
        self.step().map(|x| x.0)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for JobIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.step_back().map(|x| x.0)
    }
}

impl ExactSizeIterator for JobIter<'_> {}
impl std::iter::FusedIterator for JobIter<'_> {}

/// The rows of the active jobs of a [`JobTable`] in id order ([`JobTable::rows`]).
#[derive(Clone, Debug)]
pub struct RowIter<'a> {
    rows: std::slice::Iter<'a, JobRow>,
    state: std::slice::Iter<'a, u8>,
    left: usize,
}

impl<'a> RowIter<'a> {
    #[inline]
    fn step(&mut self) -> Option<(&'a JobRow,)> {
        skip_hidden!(self, next, rows)
    }
    #[inline]
    fn step_back(&mut self) -> Option<(&'a JobRow,)> {
        skip_hidden!(self, next_back, rows)
    }
}

impl<'a> Iterator for RowIter<'a> {
    type Item = &'a JobRow;
    #[inline]
    fn next(&mut self) -> Option<&'a JobRow> {
        self.step().map(|x| x.0)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for RowIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.step_back().map(|x| x.0)
    }
}

impl ExactSizeIterator for RowIter<'_> {}
impl std::iter::FusedIterator for RowIter<'_> {}

/// The slots of the active jobs of a [`JobTable`] in id order ([`JobTable::slots`]).
#[derive(Clone, Debug)]
pub struct SlotIter<'a> {
    state: std::slice::Iter<'a, u8>,
    /// The slot of the next state.
    next: usize,
    left: usize,
}

impl Iterator for SlotIter<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        loop {
            let s = *self.state.next()?;
            self.next += 1;
            if s != HIDDEN {
                self.left -= 1;
                return Some(self.next - 1);
            }
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SlotIter<'_> {}
impl std::iter::FusedIterator for SlotIter<'_> {}

/// Engine-side: the active jobs of a [`JobTable`] in id order, mutably, each through a
/// [`JobMut`] guard ([`JobTable::iter_mut`]).
#[derive(Debug)]
pub struct JobIterMut<'a> {
    jobs: std::slice::IterMut<'a, Job>,
    rows: std::slice::IterMut<'a, JobRow>,
    state: std::slice::Iter<'a, u8>,
    left: usize,
    /// The slot of the first job left in `jobs`.
    first: usize,
    watch: &'a Watch,
}

impl<'a> JobIterMut<'a> {
    #[inline]
    fn step(&mut self) -> Option<JobMut<'a>> {
        if self.left == 0 {
            return None;
        }
        loop {
            let (job, row, &st) = (self.jobs.next()?, self.rows.next()?, self.state.next()?);
            self.first += 1;
            if st != HIDDEN {
                self.left -= 1;
                return Some(self.guard(job, row, self.first - 1, st));
            }
        }
    }
    #[inline]
    fn step_back(&mut self) -> Option<JobMut<'a>> {
        if self.left == 0 {
            return None;
        }
        loop {
            let (job, row, &st) = (
                self.jobs.next_back()?,
                self.rows.next_back()?,
                self.state.next_back()?,
            );
            if st != HIDDEN {
                self.left -= 1;
                return Some(self.guard(job, row, self.first + self.jobs.len(), st));
            }
        }
    }
    #[inline]
    fn guard(&self, job: &'a mut Job, row: &'a mut JobRow, slot: usize, st: u8) -> JobMut<'a> {
        JobMut {
            job,
            row,
            slot,
            leaving: st == MARKED,
            watch: self.watch,
        }
    }
}

impl<'a> Iterator for JobIterMut<'a> {
    type Item = JobMut<'a>;
    #[inline]
    fn next(&mut self) -> Option<JobMut<'a>> {
        self.step()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for JobIterMut<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.step_back()
    }
}

impl ExactSizeIterator for JobIterMut<'_> {}
impl std::iter::FusedIterator for JobIterMut<'_> {}

/// Engine-side: the active jobs of a [`JobTable`] in id order, with write access to their
/// progress ([`JobTable::iter_progress_mut`]).
#[derive(Debug)]
pub struct ProgressIterMut<'a> {
    jobs: std::slice::IterMut<'a, Job>,
    state: std::slice::Iter<'a, u8>,
    left: usize,
}

impl<'a> Iterator for ProgressIterMut<'a> {
    type Item = ProgressMut<'a>;
    #[inline]
    fn next(&mut self) -> Option<ProgressMut<'a>> {
        let step = |it: &mut Self| -> Option<(&'a mut Job,)> { skip_hidden!(it, next, jobs) };
        step(self).map(|(job,)| ProgressMut { job })
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for ProgressIterMut<'_> {}
impl std::iter::FusedIterator for ProgressIterMut<'_> {}

impl<'a> IntoIterator for &'a JobTable {
    type Item = &'a Job;
    type IntoIter = JobIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
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

    /// The job's rank in id order, checked against its slot and row.
    fn rank(t: &JobTable, id: JobId) -> Option<usize> {
        let p = t.slot(id);
        if let Some(p) = p {
            assert!(p < t.slot_bound());
            assert_eq!(t.at(p).id, id);
            assert_eq!(*t.row(p), JobRow::of(t.at(p)));
        }
        let r = t.iter().position(|j| j.id == id);
        assert_eq!(p.is_some(), r.is_some());
        r
    }

    /// Every view agrees: jobs, rows and slots in id order, each row its job's.
    fn check_views(t: &JobTable) {
        let jobs: Vec<&Job> = t.iter().collect();
        let rows: Vec<&JobRow> = t.rows().collect();
        let slots: Vec<usize> = t.slots().collect();
        assert_eq!(jobs.len(), t.len());
        assert_eq!(rows.len(), t.len());
        assert_eq!(slots.len(), t.len());
        for ((j, r), &s) in jobs.iter().zip(&rows).zip(&slots) {
            assert_eq!(**r, JobRow::of(j));
            assert_eq!(t.slot(j.id), Some(s));
            for from in [0, s.saturating_sub(2), s, s + 1, t.slot_bound() + 3] {
                assert_eq!(t.slot_near(j.id, from), Some(s));
            }
            assert_eq!(t.at(s).id, j.id);
        }
        assert!(jobs.windows(2).all(|w| w[0].id < w[1].id));
        for id in 0..jobs.last().map_or(0, |j| j.id.0 + 2) {
            let want = t.slot(JobId(id));
            for from in [0, 1, 5, t.slot_bound()] {
                assert_eq!(t.slot_near(JobId(id), from), want);
            }
        }
        let back: Vec<JobId> = t.iter().rev().map(|j| j.id).collect();
        let mut fwd: Vec<JobId> = jobs.iter().map(|j| j.id).collect();
        fwd.reverse();
        assert_eq!(back, fwd);
        assert_eq!(
            t.gpu_demand(),
            jobs.iter().map(|j| u64::from(j.n_gpus())).sum::<u64>()
        );
    }

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
        assert_eq!(rank(&t, JobId(5)), Some(1));
        assert!(t.get(JobId(2)).is_none());
        t.push(Job::new(
            JobId(9),
            JobSpec::new(Time::ZERO, 1, 10.0),
            Time::ZERO,
        ));
        t.retain(|j| j.id != JobId(0));
        assert_eq!(rank(&t, JobId(5)), Some(0));
        assert_eq!(rank(&t, JobId(9)), Some(1));
        assert_eq!(rank(&t, JobId(0)), None);
        assert_eq!(rank(&t, JobId(100)), None);
        assert_eq!(t.first().map(|j| j.id), Some(JobId(5)));
        assert_eq!(t.last().map(|j| j.id), Some(JobId(9)));
        check_views(&t);
    }

    #[test]
    fn rows_follow_every_mutable_access() {
        let mut t = JobTable::new();
        for i in 0..4 {
            t.push(Job::new(
                JobId(i),
                JobSpec::new(Time::from_secs(u64::from(i)), 2, 10.0),
                Time::ZERO,
            ));
        }
        t.get_mut(JobId(1)).unwrap().gpus = GpuSet::from_slice(&[GpuId(0), GpuId(1)]);
        {
            let mut j = t.get_mut(JobId(2)).unwrap();
            j.priority = PRIORITY_STARVED;
        }
        let s1 = t.slot(JobId(1)).unwrap();
        assert_eq!(t.row(s1).held, 2);
        assert!(t.row(s1).is_running());
        assert_eq!(t.row(t.slot(JobId(2)).unwrap()).priority, PRIORITY_STARVED);
        for mut j in t.iter_mut() {
            if j.id.0 % 2 == 1 {
                j.gpus.clear();
                j.priority = 7;
            }
        }
        t.iter_mut().next_back().unwrap().gpus.push(GpuId(5));
        check_views(&t);
        let held: Vec<u32> = t.rows().map(|r| r.held).collect();
        assert_eq!(held, vec![0, 0, 0, 1]);
        let pri: Vec<u32> = t.rows().map(|r| r.priority).collect();
        assert_eq!(pri, vec![PRIORITY_NORMAL, 7, PRIORITY_STARVED, 7]);
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
            check_views(&t);
        }
        let ids: Vec<u32> = t.iter().map(|j| j.id.0).collect();
        assert_eq!(ids, (0..5000).step_by(7).collect::<Vec<_>>());
        assert_eq!(t.gpu_demand(), ids.len() as u64);
        for (p, &i) in ids.iter().enumerate() {
            assert_eq!(rank(&t, JobId(i)), Some(p));
        }
        assert!(!t.mark_removed(JobId(1)), "gone");
        // The oldest jobs leave: the index drops the ids below the oldest one left.
        t.retain(|j| j.id.0 >= 4200);
        assert!(t.base > 0, "trimmed");
        assert_eq!(rank(&t, JobId(4200)), Some(0));
        assert_eq!(rank(&t, JobId(7)), None);
        // Marks survive a retain of other jobs and a single removal.
        assert!(t.mark_removed(JobId(4998)));
        t.retain(|j| j.id.0 != 4207);
        assert!(t.is_marked(JobId(4998)));
        assert!(!t.is_marked(JobId(4214)));
        t.remove(JobId(4214));
        t.remove_marked();
        assert!(t.get(JobId(4998)).is_none());
        assert_eq!(rank(&t, JobId(4221)), Some(1));
        check_views(&t);
        // Emptied, then refilled from a later id.
        t.retain(|_| false);
        assert!(t.is_empty());
        t.push(job(9000));
        assert_eq!(rank(&t, JobId(9000)), Some(0));
        assert_eq!(rank(&t, JobId(4200)), None);
        check_views(&t);
    }

    #[test]
    fn the_table_matches_a_plain_list_under_random_changes() {
        // Tombstones and compaction are invisible: the table always shows what a plain list
        // in id order would, with marks kept across compactions.
        let mut rng = crate::Seed(7).stream("job-table");
        let mut t = JobTable::new();
        let mut plain: Vec<(u32, bool)> = Vec::new();
        let mut next = 0u32;
        for _ in 0..20_000 {
            match rng.next_u64() % 8 {
                0..=2 => {
                    t.push(Job::new(
                        JobId(next),
                        JobSpec::new(Time::ZERO, 1 + next % 3, 1.0),
                        Time::ZERO,
                    ));
                    plain.push((next, false));
                    next += 1 + (rng.next_u64() % 3) as u32;
                }
                3..=5 if !plain.is_empty() => {
                    let k = (rng.next_u64() % plain.len() as u64) as usize;
                    let id = JobId(plain[k].0);
                    assert_eq!(t.mark_removed(id), !plain[k].1);
                    plain[k].1 = true;
                }
                6 => {
                    t.remove_marked();
                    plain.retain(|e| !e.1);
                }
                _ if !plain.is_empty() => {
                    let k = (rng.next_u64() % plain.len() as u64) as usize;
                    let id = JobId(plain[k].0);
                    assert!(t.remove(id).is_some());
                    plain.remove(k);
                }
                _ => {}
            }
            let ids: Vec<u32> = t.iter().map(|j| j.id.0).collect();
            let want: Vec<u32> = plain.iter().map(|e| e.0).collect();
            assert_eq!(ids, want);
            for e in &plain {
                assert_eq!(t.is_marked(JobId(e.0)), e.1);
            }
        }
        check_views(&t);
        assert!(t.slot_bound() <= t.len() + t.len() / COMPACT_RATIO + MIN_COMPACT);
    }

    #[test]
    fn the_settled_prefix_and_the_arrival_order_follow_every_change() {
        // Jobs start, stop, starve, leave (marked or at once) and arrive (sometimes late);
        // after each change the settled prefix is the first active slot that is not settled
        // (or the end), and the arrival order is claimed only when it holds.
        let mut rng = crate::Seed(11).stream("settled");
        let mut t = JobTable::new();
        let mut next = 0u32;
        let mut arrival = 0u64;
        let (mut ordered, mut prefixed) = (0, 0);
        for step in 0..20_000 {
            let ids: Vec<JobId> = t.iter().map(|j| j.id).collect();
            let pick =
                |rng: &mut crate::rng::StreamRng| ids[(rng.next_u64() % ids.len() as u64) as usize];
            match rng.next_u64() % 10 {
                0..=2 => {
                    // Now and then a job arrives before the latest one.
                    arrival += rng.next_u64() % 5;
                    let at = if rng.next_u64() % 200 == 0 {
                        arrival.saturating_sub(7)
                    } else {
                        arrival
                    };
                    t.push(Job::new(
                        JobId(next),
                        JobSpec::new(Time(at), 1 + next % 3, 1.0),
                        Time::ZERO,
                    ));
                    next += 1;
                }
                3..=4 if !ids.is_empty() => {
                    // Start (sometimes on fewer GPUs than asked) or stop.
                    let id = pick(&mut rng);
                    let mut j = t.get_mut(id).unwrap();
                    if j.gpus.is_empty() {
                        let n = j.n_gpus() - u32::from(rng.next_u64() % 6 == 0 && j.n_gpus() > 1);
                        j.gpus = (0..n).map(GpuId).collect();
                    } else {
                        j.gpus.clear();
                    }
                }
                5 if !ids.is_empty() && rng.next_u64() % 8 == 0 => {
                    let id = pick(&mut rng);
                    let mut j = t.get_mut(id).unwrap();
                    j.priority = if j.priority == PRIORITY_NORMAL {
                        PRIORITY_STARVED
                    } else {
                        PRIORITY_NORMAL
                    };
                }
                6..=7 if !ids.is_empty() => {
                    let id = pick(&mut rng);
                    t.mark_removed(id);
                    // A completing job gives its GPUs back before it leaves.
                    t.get_mut(id).unwrap().gpus.clear();
                }
                8 => t.remove_marked(),
                _ if !ids.is_empty() => {
                    t.remove(pick(&mut rng));
                }
                _ => {}
            }
            let p = t.settled_prefix();
            let slots: Vec<usize> = t.slots().collect();
            for &s in slots.iter().filter(|&&s| s < p) {
                assert!(t.row(s).is_settled(), "step {step}: slot {s} below {p}");
            }
            if t.marked.is_empty() {
                let first = slots.iter().copied().find(|&s| !t.row(s).is_settled());
                assert_eq!(p, first.unwrap_or(t.slot_bound()), "step {step}");
                let rest: Vec<JobId> = t.rows_from(p).map(|r| r.id).collect();
                let want: Vec<JobId> = slots
                    .iter()
                    .filter(|&&s| s >= p)
                    .map(|&s| t.row(s).id)
                    .collect();
                assert_eq!(rest, want, "step {step}");
            }
            let rows: Vec<JobRow> = t.rows().copied().collect();
            if t.in_arrival_order() {
                ordered += 1;
                prefixed += usize::from(p > 0 && p < t.slot_bound());
                assert!(
                    rows.iter().all(|r| r.priority == PRIORITY_NORMAL),
                    "step {step}"
                );
                assert!(
                    rows.windows(2).all(|w| w[0].arrival <= w[1].arrival),
                    "step {step}"
                );
            }
            let raised = rows
                .iter()
                .filter(|r| r.priority != PRIORITY_NORMAL)
                .count();
            assert_eq!(t.watch.raised.load(Relaxed), raised, "step {step}");
        }
        // Both cases were seen, and the prefix was neither empty nor everything.
        assert!(ordered > 1_000 && ordered < 19_000, "{ordered}");
        assert!(prefixed > 100, "{prefixed}");
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
