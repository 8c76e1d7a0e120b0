//! [`Exact`]: true finish times, continuous progress.

use super::{Advance, NextView, TimeModel, World};
use crate::engine::IdWindow;
use crate::SimError;
use blox_core::{Event, Job, JobId, JobTable, MetricSink, ProgressMut, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::fmt;
use std::str::FromStr;

/// When the exact model takes decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decide {
    /// Once per round, at `t = 0, R, 2R, …` (rounds in which nothing can change are skipped).
    #[default]
    Rounds,
    /// At every round boundary while jobs wait, and also at every arrival and every completion
    /// (Tiresias-style event-triggered scheduling).
    Events,
}

impl Decide {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Decide::Rounds => "rounds",
            Decide::Events => "events",
        }
    }
}

impl fmt::Display for Decide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Decide {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rounds" => Ok(Decide::Rounds),
            "events" => Ok(Decide::Events),
            _ => Err(format!(
                "unknown decision rule `{s}` (expected `rounds` or `events`)"
            )),
        }
    }
}

/// Exact time: a running job progresses continuously at its speed (from the throughput model)
/// and completes at its true finish time (rounded up to the millisecond), freeing its GPUs at
/// once.
///
/// Attained service is credited continuously: `Job::attained_gpu_s` grows by the requested GPUs
/// per second, `Job::attained_wall_s` by one per second. A job that resumes
/// after a preemption first spends the preemption cost restoring (its GPUs held, no progress).
/// A stop followed in the same decision by a start of the same job on the same GPUs is no change
/// and not a preemption. Responsiveness is measured to the first start. The run ends at the
/// completion of the last tracked job. The round sample is taken after the decisions are
/// applied. Decisions are taken each round, or also at every arrival and completion
/// ([`Decide::Events`]).
///
/// Running jobs are credited at every decision, in the table, while some component reads their
/// progress ([`TimeModel::progress_read`]). When none does (FIFO, for one), a running job is
/// credited only when it stops, by the same steps, decision by decision, so that its figures are
/// the same to the bit; a job that completes without stopping is never credited (it leaves the
/// table at once, and nothing reads it any more).
#[derive(Clone, Debug, Default)]
pub struct Exact {
    preemption_cost: Time,
    decide: Decide,
    /// The state of every admitted job, by id, from the oldest job still in the table on (the
    /// ids below it are dropped as it leaves).
    live: StateWindow,
    /// The start of every admitted job that runs, [`NOT_RUNNING`] for the others, by id over the
    /// ids of `live`: 8 bytes a job, apart from `live`, so that the liveness check of a pending
    /// finish (at every completion) reaches a denser window than the jobs' whole states.
    runs: IdWindow<Time>,
    /// (finish, id, start) of running jobs; stale entries are skipped.
    finishes: FinishQueue,
    /// The decision times since the earliest time a running job was last credited, ascending:
    /// the steps by which a job credited late is credited.
    log: Vec<Time>,
    /// Trim `log` once it is this long.
    log_trim_at: usize,
    /// No component reads running jobs' progress: credit them only when they stop.
    lazy: bool,
    /// Scratch: the pending finishes due at a decision, in the order they are completed.
    due: Vec<(Time, JobId, Time)>,
}
impl PartialEq for Exact {
    /// Models compare by their parameters, not by run state.
    fn eq(&self, other: &Self) -> bool {
        self.preemption_cost == other.preemption_cost && self.decide == other.decide
    }
}

#[derive(Clone, Copy, Debug)]
struct ExactJob {
    /// Progress has been credited up to this time.
    credited_to: Time,
    /// Progress per second while running.
    speed: f64,
    /// No progress before this time (restoring after a preemption).
    stall_until: Time,
    /// The job's `spec.work_s` and `spec.n_gpus`, copied at admission (the engine never changes
    /// a spec), so that the credit of a decision reads the job's first cache line only.
    work_s: f64,
    /// See `work_s`.
    n_gpus: u32,
    /// `FirstProgress` has been emitted.
    responded: bool,
}

/// The `runs` entry of a job that does not run (no job starts at `Time::MAX`).
const NOT_RUNNING: Time = Time::MAX;

/// Per-job states by id, for the ids from the oldest job still in the table to the newest
/// admitted: O(1) to reach, and dropped from the front as the oldest jobs leave.
type StateWindow = IdWindow<ExactJob>;

impl<T: Copy> IdWindow<T> {
    fn clear(&mut self) {
        self.items.clear();
        self.base = 0;
    }

    /// The value of `id`, if it was admitted and is in the window.
    #[inline]
    fn get(&self, id: JobId) -> Option<&T> {
        let k = id.0.checked_sub(self.base)?;
        self.items.get(k as usize)
    }

    /// [`IdWindow::get`], to change the value.
    #[inline]
    fn get_mut(&mut self, id: JobId) -> Option<&mut T> {
        let k = id.0.checked_sub(self.base)?;
        self.items.get_mut(k as usize)
    }

    /// Add the value of `id`, the next id (ids ascend; the ids skipped, never admitted, get the
    /// same value: in `runs`, [`NOT_RUNNING`]).
    fn push_at(&mut self, id: JobId, value: T) {
        if self.items.is_empty() {
            self.base = id.0;
        }
        let k = (id.0 - self.base) as usize;
        debug_assert!(k >= self.items.len(), "ids ascend");
        while self.items.len() < k {
            self.items.push_back(value);
        }
        self.items.push_back(value);
    }
}

impl Exact {
    /// Free preemptions, decisions each round.
    pub fn new() -> Self {
        Self::default()
    }

    /// Set the time a job spends restoring when it resumes after a preemption.
    pub fn with_preemption_cost(mut self, cost: Time) -> Self {
        self.preemption_cost = cost;
        self
    }

    /// Set when decisions are taken.
    pub fn with_decide(mut self, decide: Decide) -> Self {
        self.decide = decide;
        self
    }

    /// The preemption cost.
    pub fn preemption_cost(&self) -> Time {
        self.preemption_cost
    }

    /// The decision rule.
    pub fn decide(&self) -> Decide {
        self.decide
    }

    /// The state of an admitted job still in the table (O(1)).
    fn state(&mut self, id: JobId) -> &mut ExactJob {
        self.live
            .get_mut(id)
            .unwrap_or_else(|| panic!("the exact model was not told of job {id}'s admission"))
    }

    /// Mark job `id` as not running (it stopped or completed).
    #[inline]
    fn stop(&mut self, id: JobId) {
        if let Some(start) = self.runs.get_mut(id) {
            *start = NOT_RUNNING;
        }
    }

    /// Credit `job` up to decision time `t` (or, for a completion, up to its finish): through
    /// every decision it missed, then to `t`.
    fn credit(&mut self, job: &mut Job, t: Time) {
        let st = self.live.get_mut(job.id).unwrap_or_else(|| {
            panic!("the exact model was not told of job {}'s admission", job.id)
        });
        catch_up(&self.log, st, job, t);
    }

    /// Credit every running job up to `t`, walking the table in id order.
    fn credit_all(&mut self, table: &mut JobTable, t: Time) {
        // The decision before `t`: a job credited then (or started then) needs one step.
        let prev = match self.log.len() {
            n if n >= 2 => self.log[n - 2],
            _ => Time::ZERO,
        };
        // The seconds since the last credit, for the jobs last credited at `memo.0` (most running
        // jobs were last credited together).
        let mut memo = (Time::MAX, 0.0);
        for mut job in table.iter_progress_mut() {
            if !job.is_running() {
                continue;
            }
            let Some(st) = self.live.get_mut(job.id) else {
                continue;
            };
            if t <= st.credited_to {
                continue;
            }
            if st.credited_to < prev {
                // Not credited since an earlier decision (its progress was not read then).
                catch_up(&self.log, st, &mut job, t);
                continue;
            }
            if st.credited_to != memo.0 {
                memo = (st.credited_to, (t - st.credited_to).as_secs_f64());
            }
            credit_dt(st, &mut job, t, memo.1);
        }
    }

    /// Record decision time `t`, and drop the times no running job needs any more once the
    /// log has grown enough since the last trim.
    fn log_decision(&mut self, t: Time) {
        if self.log.last().is_some_and(|&l| l >= t) {
            return;
        }
        self.log.push(t);
        if self.log.len() < self.log_trim_at {
            return;
        }
        // The running jobs from the denser `runs`, then only their states (`live` and `runs`
        // cover the same ids): at millions of jobs the window spans hundreds of thousands of
        // ids, most of them no longer running.
        debug_assert_eq!(self.live.base, self.runs.base);
        let live = &self.live.items;
        let oldest = self
            .runs
            .items
            .iter()
            .enumerate()
            .filter(|&(_, &start)| start != NOT_RUNNING)
            .map(|(k, _)| live[k].credited_to)
            .min()
            .unwrap_or(t);
        // A job credited up to `oldest` is next credited at the first time after it.
        let keep = self.log.partition_point(|&x| x <= oldest);
        self.log.drain(..keep.min(self.log.len() - 1));
        self.log_trim_at = (2 * self.log.len()).max(1024);
    }

    /// The earliest finish of a job still running on the start that scheduled it; stale heap
    /// entries are dropped on the way.
    fn next_finish(&mut self, table: &JobTable) -> Option<Time> {
        while let Some((finish, id, start)) = self.finishes.peek() {
            if self.live(table, id, start) {
                return Some(finish);
            }
            self.finishes.pop();
        }
        None
    }

    /// Whether job `id` still runs on the start at `start` (from the model's own state, without
    /// reading the job).
    #[inline]
    fn live(&self, table: &JobTable, id: JobId, start: Time) -> bool {
        let live = self.runs.get(id).is_some_and(|s| *s == start);
        debug_assert_eq!(
            live,
            table
                .get(id)
                .is_some_and(|j| j.is_running() && j.last_start == Some(start))
        );
        let _ = table;
        live
    }
}

/// The pending finishes `(finish, id, start)`, popped in ascending order: a small heap of the
/// ones in the earliest buckets of 2^16 ms, the later ones unsorted per bucket, so that a pop
/// costs a few levels of a heap of the next minute's finishes rather than of every running job
/// (a heap of every running job missed the cache at each level at millions of jobs). Equal
/// entries and ties come out exactly as from one heap: the order is the tuples' total order.
///
/// The buckets of the next [`FAR_SPAN`] buckets (about 50 days) are reached directly, by their
/// distance from `near_end`, so that a push reads a bucket's header and its end, not a search
/// tree's nodes (a search over the buckets was a tenth of the 4,000,000-job scale run); later
/// ones wait in a search tree.
#[derive(Clone, Debug, Default)]
struct FinishQueue {
    /// Every entry whose bucket is below `near_end`.
    near: BinaryHeap<Reverse<(Time, JobId, Time)>>,
    /// Bucket `near_end + k` at `far[k]` (entries pushed while it was within [`FAR_SPAN`] of
    /// `near_end`).
    far: VecDeque<Vec<(Time, JobId, Time)>>,
    /// Entries of buckets beyond [`FAR_SPAN`] of `near_end` when pushed, by bucket (a bucket may
    /// also have entries in `far`, pushed later).
    beyond: BTreeMap<u64, Vec<(Time, JobId, Time)>>,
    /// The first bucket not in `near`.
    near_end: u64,
    /// Emptied buckets' vectors, for the next new buckets.
    spare: Vec<Vec<(Time, JobId, Time)>>,
    /// Entries pushed since the last [`FinishQueue::peek`], not yet in their buckets: they are
    /// placed together, in one tight loop whose bucket look-ups do not depend on each other, so
    /// that their cache misses overlap (at millions of jobs, placed one by one between a
    /// decision's other work, each waited for its own).
    staged: Vec<(Time, JobId, Time)>,
}

/// log2 of a bucket's width in milliseconds.
const FINISH_BUCKET_SHIFT: u32 = 16;

/// How many buckets from `near_end` on [`FinishQueue`] reaches directly.
const FAR_SPAN: u64 = 1 << 16;

/// At most this many emptied vectors are kept for reuse.
const MAX_SPARE: usize = 64;

impl FinishQueue {
    fn clear(&mut self) {
        self.near.clear();
        self.far.clear();
        self.beyond.clear();
        self.near_end = 0;
        self.staged.clear();
    }

    /// Add an entry (placed in its bucket at the next [`FinishQueue::peek`]).
    fn push(&mut self, e: (Time, JobId, Time)) {
        self.staged.push(e);
    }

    /// Place the staged entries in their buckets.
    fn place_staged(&mut self) {
        if self.staged.is_empty() {
            return;
        }
        let mut staged = std::mem::take(&mut self.staged);
        for &e in &staged {
            self.place(e);
        }
        staged.clear();
        self.staged = staged;
    }

    /// Put an entry in its bucket.
    fn place(&mut self, e: (Time, JobId, Time)) {
        let bucket = e.0.as_millis() >> FINISH_BUCKET_SHIFT;
        if bucket < self.near_end {
            self.near.push(Reverse(e));
            return;
        }
        let k = bucket - self.near_end;
        if k >= FAR_SPAN {
            self.beyond.entry(bucket).or_default().push(e);
            return;
        }
        let k = k as usize;
        if self.far.len() <= k {
            self.far.resize_with(k + 1, Vec::new);
        }
        let v = &mut self.far[k];
        if v.capacity() == 0 {
            if let Some(spare) = self.spare.pop() {
                *v = spare;
            }
        }
        v.push(e);
    }

    /// The smallest entry.
    fn peek(&mut self) -> Option<(Time, JobId, Time)> {
        self.place_staged();
        if self.near.is_empty() {
            // The first bucket with entries, in `far` or `beyond`: all of its entries go to
            // the heap, and the buckets before it (empty) are dropped.
            let in_far = self
                .far
                .iter()
                .position(|v| !v.is_empty())
                .map(|k| self.near_end + k as u64);
            let in_beyond = self.beyond.first_key_value().map(|(&b, _)| b);
            let bucket = match (in_far, in_beyond) {
                (Some(f), Some(b)) => f.min(b),
                (f, b) => f.or(b)?,
            };
            let skip = (bucket - self.near_end) as usize;
            if skip < self.far.len() {
                self.far.drain(..skip);
                let mut v = self.far.pop_front().expect("skip < len");
                self.near.extend(v.drain(..).map(Reverse));
                if v.capacity() > 0 && self.spare.len() < MAX_SPARE {
                    self.spare.push(v);
                }
            } else {
                self.far.clear();
            }
            if in_beyond == Some(bucket) {
                let (_, v) = self.beyond.pop_first().expect("the first bucket");
                self.near.extend(v.into_iter().map(Reverse));
            }
            self.near_end = bucket + 1;
        }
        self.near.peek().map(|r| r.0)
    }

    /// Drop the smallest entry (the one [`FinishQueue::peek`] gave).
    fn pop(&mut self) {
        self.near.pop();
    }
}

/// Credit `job` at every logged decision time after its last credit up to `t`, then at `t`:
/// the steps eager crediting would have taken, in the same order, so the same figures to the
/// bit.
#[inline]
fn catch_up(log: &[Time], st: &mut ExactJob, job: &mut impl Progress, t: Time) {
    if t <= st.credited_to {
        return;
    }
    let from = log.partition_point(|&x| x <= st.credited_to);
    for &x in &log[from..] {
        if x >= t {
            break;
        }
        credit(st, job, x);
    }
    credit(st, job, t);
}

/// Credit `job` with its progress and attained service from its last credit up to `t`.
#[inline]
fn credit(st: &mut ExactJob, job: &mut impl Progress, t: Time) {
    if t <= st.credited_to {
        return;
    }
    credit_dt(st, job, t, (t - st.credited_to).as_secs_f64());
}

/// [`credit`] past the check, with `dt` the seconds from `st.credited_to` to `t`.
#[inline]
fn credit_dt(st: &mut ExactJob, job: &mut impl Progress, t: Time, dt: f64) {
    let from = st.credited_to.max(st.stall_until);
    if t > from {
        // Seconds of progress: `dt` itself unless the job is still restoring.
        let run = if from == st.credited_to {
            dt
        } else {
            (t - from).as_secs_f64()
        };
        let executed = job.executed_mut();
        *executed = (*executed + st.speed * run).min(st.work_s);
    }
    *job.attained_gpu_s_mut() += f64::from(st.n_gpus) * dt;
    *job.attained_wall_s_mut() += dt;
    st.credited_to = t;
}

/// What a credit writes: a job's progress and attained service.
trait Progress {
    fn executed_mut(&mut self) -> &mut f64;
    fn attained_gpu_s_mut(&mut self) -> &mut f64;
    fn attained_wall_s_mut(&mut self) -> &mut f64;
}

impl Progress for Job {
    #[inline]
    fn executed_mut(&mut self) -> &mut f64 {
        &mut self.executed
    }
    #[inline]
    fn attained_gpu_s_mut(&mut self) -> &mut f64 {
        &mut self.attained_gpu_s
    }
    #[inline]
    fn attained_wall_s_mut(&mut self) -> &mut f64 {
        &mut self.attained_wall_s
    }
}

impl Progress for ProgressMut<'_> {
    #[inline]
    fn executed_mut(&mut self) -> &mut f64 {
        ProgressMut::executed_mut(self)
    }
    #[inline]
    fn attained_gpu_s_mut(&mut self) -> &mut f64 {
        ProgressMut::attained_gpu_s_mut(self)
    }
    #[inline]
    fn attained_wall_s_mut(&mut self) -> &mut f64 {
        ProgressMut::attained_wall_s_mut(self)
    }
}

impl TimeModel for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn begin(&mut self, _round: Time) -> Result<(), SimError> {
        self.live.clear();
        self.runs.clear();
        self.finishes.clear();
        self.log.clear();
        self.log_trim_at = 1024;
        self.lazy = false;
        Ok(())
    }

    fn admitted(&mut self, job: &Job, _now: Time) {
        let st = ExactJob {
            credited_to: Time::ZERO,
            speed: 1.0,
            stall_until: Time::ZERO,
            work_s: job.spec.work_s,
            n_gpus: job.spec.n_gpus,
            responded: false,
        };
        self.live.push_at(job.id, st);
        self.runs.push_at(job.id, NOT_RUNNING);
    }

    fn progress_read(&mut self, read: bool) {
        self.lazy = !read;
    }

    fn advance<M: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, M>) -> Advance {
        self.log_decision(t);
        // Complete every job whose true finish time is at or before `t`, in time order (equal
        // times by id): first take them from the queue (a completion pushes no finish), then
        // read ahead what their completions read, a batch of independent reads at a time.
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        while let Some(e) = self.finishes.peek() {
            if e.0 > t {
                break;
            }
            self.finishes.pop();
            due.push(e);
        }
        let mut sum = 0u64;
        for &(_, id, _) in &due {
            sum = sum.wrapping_add(self.runs.get(id).map_or(0, |s| s.as_millis()));
        }
        std::hint::black_box(sum);
        world.core.warm(due.iter().map(|e| e.1));
        for &(finish, id, start) in &due {
            if !self.live(world.jobs(), id, start) {
                continue;
            }
            if self.lazy {
                // It leaves the table before anything reads it: no credit.
                self.stop(id);
            } else if let Some(mut job) = world.jobs_mut().get_mut(id) {
                self.credit(&mut job, finish);
                job.executed = job.spec.work_s;
                self.stop(id);
            }
            world.complete(id, finish);
            if world.tracked_complete() {
                self.due = due;
                return Advance::Finished(finish);
            }
        }
        self.due = due;
        if !self.lazy {
            self.credit_all(world.jobs_mut(), t);
        }
        let first = world.jobs().first().map(|j| j.id);
        self.live.trim_below(first);
        self.runs.trim_below(first);
        Advance::Continue
    }

    fn stopping(&mut self, job: &mut Job, t: Time) {
        self.credit(job, t);
        self.stop(job.id);
    }

    /// Progress at the checkpoint: the job ran at its speed from the end of its restore.
    fn rollback(
        &mut self,
        job: &mut Job,
        executed_at_start: f64,
        _start: Time,
        checkpoint: Time,
        _t: Time,
    ) {
        let st = self.state(job.id);
        let kept = st.speed * checkpoint.saturating_sub(st.stall_until).as_secs_f64();
        job.executed = job.executed.min(executed_at_start + kept);
    }

    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        speed: f64,
        resumed: bool,
        t: Time,
        world: &mut World<'_, M>,
    ) -> Result<(), SimError> {
        let job = world.jobs().get(id).expect("a started job is active");
        let stall_until = if resumed { t + self.preemption_cost } else { t };
        let secs = job.remaining_work() / speed;
        let dur = Time::from_secs_f64_ceil(secs).unwrap_or(Time::MAX);
        let finish = stall_until + dur;
        self.finishes.push((finish, id, t));
        let st = self.state(id);
        st.speed = speed;
        st.credited_to = t;
        st.stall_until = stall_until;
        if !st.responded {
            st.responded = true;
            world.emit(&Event::FirstProgress { time: t, job: id });
        }
        debug_assert!(t != NOT_RUNNING);
        if let Some(start) = self.runs.get_mut(id) {
            *start = t;
        }
        Ok(())
    }

    fn next_decision<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        view: NextView,
        next_arrival: Option<Time>,
        world: &World<'_, M>,
    ) -> Time {
        let r = view.round;
        match self.decide {
            Decide::Rounds => {
                let next = t + r;
                if view.waiting {
                    return next;
                }
                let mut target = Time::MAX;
                if let Some(a) = next_arrival {
                    target = target.min(a.ceil_to(r).max(next));
                }
                if let Some(f) = self.next_finish(world.jobs()) {
                    // Its completion frees GPUs between rounds; nothing waits for them, so the
                    // next decision is only needed when something arrives, but the completion
                    // itself must be processed in time order: stop at its round.
                    target = target.min(f.ceil_to(r).max(next));
                }
                if target == Time::MAX {
                    next
                } else {
                    target
                }
            }
            Decide::Events => {
                let boundary = Time((t.as_millis() / r.as_millis() + 1) * r.as_millis());
                let soonest = Time(t.as_millis() + 1);
                let mut target = if view.waiting { boundary } else { Time::MAX };
                if let Some(a) = next_arrival {
                    target = target.min(a.max(soonest));
                }
                if let Some(f) = self.next_finish(world.jobs()) {
                    target = target.min(f.max(soonest));
                }
                if target == Time::MAX {
                    boundary
                } else {
                    target
                }
            }
        }
    }

    fn drained_end(&self, _t: Time, last_completion: Time) -> Time {
        last_completion
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucketed queue pops exactly what one heap of the same entries pops, with entries in
    /// the current bucket, in the buckets reached directly, beyond them (some first once the
    /// queue drains, some reached while later entries wait in the direct buckets), and equal
    /// entries.
    #[test]
    fn the_finish_queue_pops_in_the_order_of_one_heap() {
        let mut q = FinishQueue::default();
        let mut heap = BinaryHeap::new();
        let mut x: u64 = 0x5eed;
        let mut next = move || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x >> 33
        };
        let span_ms = FAR_SPAN << FINISH_BUCKET_SHIFT;
        let mut now = 0;
        let (mut pushed, mut popped, mut beyond) = (0, 0, false);
        for i in 0..60_000 {
            let r = next();
            // Phases that fill the queue, then phases that drain it (down to the entries far
            // ahead, which then come first).
            let push = if (i / 2_000) % 2 == 0 {
                r % 3 != 0
            } else {
                r % 8 == 0
            };
            if push {
                let after = match r % 8 {
                    0 => next() % 1_000,
                    1..=4 => next() % (1 << 22),
                    5 => span_ms + next() % (4 * span_ms),
                    6 => next() % (2 * span_ms),
                    _ => 0,
                };
                let e = (Time(now + after), JobId((next() % 64) as u32), Time(now));
                q.push(e);
                heap.push(Reverse(e));
                pushed += 1;
                beyond |= !q.beyond.is_empty();
            } else {
                let got = q.peek();
                assert_eq!(got, heap.peek().map(|r| r.0));
                if let Some(e) = got {
                    q.pop();
                    heap.pop();
                    now = e.0.as_millis();
                    popped += 1;
                }
            }
        }
        assert!(beyond, "some entries waited beyond the direct buckets");
        while let Some(Reverse(e)) = heap.pop() {
            assert_eq!(q.peek(), Some(e));
            q.pop();
            popped += 1;
        }
        assert_eq!(q.peek(), None);
        assert_eq!(popped, pushed);
    }
}
