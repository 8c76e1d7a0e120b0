//! [`Exact`]: true finish times, continuous progress.

use super::{Advance, NextView, TimeModel, World};
use crate::SimError;
use blox_core::{Event, Job, JobId, JobTable, MetricSink, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
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
#[derive(Clone, Debug, Default)]
pub struct Exact {
    preemption_cost: Time,
    decide: Decide,
    /// The state of every admitted job that has not left the table, in id order (the table's
    /// order): dense, so the credit of each decision walks it beside the table, and a long run
    /// keeps no state for the jobs that are gone: completed jobs are dropped by a walk once they
    /// are a quarter of the list.
    live: Vec<ExactJob>,
    /// (finish, id, start) of running jobs; stale entries are skipped.
    finishes: FinishQueue,
}

impl PartialEq for Exact {
    /// Models compare by their parameters, not by run state.
    fn eq(&self, other: &Self) -> bool {
        self.preemption_cost == other.preemption_cost && self.decide == other.decide
    }
}

#[derive(Clone, Copy, Debug)]
struct ExactJob {
    /// The job.
    id: JobId,
    /// Progress has been credited up to this time.
    credited_to: Time,
    /// Progress per second while running.
    speed: f64,
    /// No progress before this time (restoring after a preemption).
    stall_until: Time,
    /// `FirstProgress` has been emitted.
    responded: bool,
    /// The job's `spec.work_s` and `spec.n_gpus`, copied at admission (the engine never changes
    /// a spec), so that the credit of a decision reads the job's first cache line only.
    work_s: f64,
    /// See `work_s`.
    n_gpus: u32,
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

    /// The state of an admitted job still in the table (O(log n)).
    fn state(&mut self, id: JobId) -> &mut ExactJob {
        let k = self.live.partition_point(|s| s.id < id);
        let st = &mut self.live[k];
        assert_eq!(
            st.id, id,
            "the exact model was not told of job {id}'s admission"
        );
        st
    }

    /// The state of the job at table position `pos` of a table of `len` jobs: at `pos` or
    /// after it, by no more than the entries of jobs that have left the table since the last
    /// walk (O(log) of those).
    fn state_near(&mut self, id: JobId, pos: usize, len: usize) -> &mut ExactJob {
        let extra = self.live.len().saturating_sub(len);
        let end = (pos + extra + 1).min(self.live.len());
        let k = pos.min(end) + self.live[pos.min(end)..end].partition_point(|s| s.id < id);
        match self.live.get(k) {
            Some(st) if st.id == id => &mut self.live[k],
            _ => self.state(id),
        }
    }

    fn credit(&mut self, job: &mut Job, t: Time) {
        credit(self.state(job.id), job, t);
    }

    /// Credit every running job up to `t`, walking the table and the state list together (both
    /// in id order). The state of the jobs that have left the table is dropped on the way once
    /// it is a quarter of the list (until then the walk steps over it), so that the walk does
    /// not move the rest of the list down at every decision.
    fn credit_all(&mut self, table: &mut JobTable, t: Time) {
        let stale = self.live.len() - table.len();
        if stale > 0 && stale * 4 >= self.live.len() {
            credit_walk::<true>(&mut self.live, table, t);
        } else {
            credit_walk::<false>(&mut self.live, table, t);
        }
    }

    /// The earliest finish of a job still running on the start that scheduled it; stale heap
    /// entries are dropped on the way.
    fn next_finish(&mut self, table: &JobTable) -> Option<Time> {
        while let Some((finish, id, start)) = self.finishes.peek() {
            if live(table, id, start) {
                return Some(finish);
            }
            self.finishes.pop();
        }
        None
    }
}

/// The pending finishes `(finish, id, start)`, popped in ascending order: a small heap of the
/// ones in the earliest buckets of 2^16 ms, the later ones unsorted per bucket, so that a pop
/// costs a few levels of a heap of the next minute's finishes rather than of every running job
/// (a heap of every running job missed the cache at each level at millions of jobs). Equal
/// entries and ties come out exactly as from one heap: the order is the tuples' total order.
#[derive(Clone, Debug, Default)]
struct FinishQueue {
    /// Every entry whose bucket is below `near_end`.
    near: BinaryHeap<Reverse<(Time, JobId, Time)>>,
    /// Buckets at or after `near_end`, by bucket.
    far: BTreeMap<u64, Vec<(Time, JobId, Time)>>,
    /// The first bucket not in `near`.
    near_end: u64,
}

/// log2 of a bucket's width in milliseconds.
const FINISH_BUCKET_SHIFT: u32 = 16;

impl FinishQueue {
    fn clear(&mut self) {
        self.near.clear();
        self.far.clear();
        self.near_end = 0;
    }

    fn push(&mut self, e: (Time, JobId, Time)) {
        let bucket = e.0.as_millis() >> FINISH_BUCKET_SHIFT;
        if bucket < self.near_end {
            self.near.push(Reverse(e));
        } else {
            self.far.entry(bucket).or_default().push(e);
        }
    }

    /// The smallest entry.
    fn peek(&mut self) -> Option<(Time, JobId, Time)> {
        if self.near.is_empty() {
            let (bucket, entries) = self.far.pop_first()?;
            self.near_end = bucket + 1;
            self.near.extend(entries.into_iter().map(Reverse));
        }
        self.near.peek().map(|r| r.0)
    }

    /// Drop the smallest entry (the one [`FinishQueue::peek`] gave).
    fn pop(&mut self) {
        self.near.pop();
    }
}

/// [`Exact::credit_all`]'s walk; with `COMPACT`, the states of the jobs that have left the
/// table are dropped.
#[inline]
fn credit_walk<const COMPACT: bool>(live: &mut Vec<ExactJob>, table: &mut JobTable, t: Time) {
    let mut r = 0;
    let mut w = 0;
    // The seconds since the last credit, for the jobs last credited at `memo.0` (most running
    // jobs were last credited together).
    let mut memo = (Time::MAX, 0.0);
    for job in table.iter_mut() {
        while live[r].id < job.id {
            r += 1;
        }
        debug_assert_eq!(live[r].id, job.id);
        let k = if COMPACT {
            if r != w {
                live[w] = live[r];
            }
            w
        } else {
            r
        };
        if job.is_running() {
            let st = &mut live[k];
            if t > st.credited_to {
                if st.credited_to != memo.0 {
                    memo = (st.credited_to, (t - st.credited_to).as_secs_f64());
                }
                credit_dt(st, job, t, memo.1);
            }
        }
        r += 1;
        w += 1;
    }
    if COMPACT {
        live.truncate(w);
    }
}

/// Credit `job` with its progress and attained service from its last credit up to `t`.
#[inline]
fn credit(st: &mut ExactJob, job: &mut Job, t: Time) {
    if t <= st.credited_to {
        return;
    }
    credit_dt(st, job, t, (t - st.credited_to).as_secs_f64());
}

/// [`credit`] past the check, with `dt` the seconds from `st.credited_to` to `t`.
#[inline]
fn credit_dt(st: &mut ExactJob, job: &mut Job, t: Time, dt: f64) {
    let from = st.credited_to.max(st.stall_until);
    if t > from {
        // Seconds of progress: `dt` itself unless the job is still restoring.
        let run = if from == st.credited_to {
            dt
        } else {
            (t - from).as_secs_f64()
        };
        job.executed = (job.executed + st.speed * run).min(st.work_s);
    }
    job.attained_gpu_s += f64::from(st.n_gpus) * dt;
    job.attained_wall_s += dt;
    st.credited_to = t;
}

fn live(table: &JobTable, id: JobId, start: Time) -> bool {
    table
        .get(id)
        .is_some_and(|j| j.is_running() && j.last_start == Some(start))
}

impl TimeModel for Exact {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn begin(&mut self, _round: Time) -> Result<(), SimError> {
        self.live.clear();
        self.finishes.clear();
        Ok(())
    }

    fn admitted(&mut self, job: &Job, _now: Time) {
        debug_assert!(self.live.last().map_or(true, |s| s.id < job.id));
        self.live.push(ExactJob {
            id: job.id,
            credited_to: Time::ZERO,
            speed: 1.0,
            stall_until: Time::ZERO,
            responded: false,
            work_s: job.spec.work_s,
            n_gpus: job.spec.n_gpus,
        });
    }

    fn advance<M: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, M>) -> Advance {
        // Complete every job whose true finish time is at or before `t`, in time order (equal
        // times by id).
        while let Some((finish, id, start)) = self.finishes.peek() {
            if finish > t {
                break;
            }
            self.finishes.pop();
            if !live(world.jobs(), id, start) {
                continue;
            }
            if let Some(pos) = world.jobs().position(id) {
                let len = world.jobs().len();
                let st = self.state_near(id, pos, len);
                let job = world.jobs_mut().get_mut(id).expect("found above");
                credit(st, job, finish);
                job.executed = job.spec.work_s;
            }
            world.complete(id, finish);
            if world.tracked_complete() {
                return Advance::Finished(finish);
            }
        }
        self.credit_all(world.jobs_mut(), t);
        Advance::Continue
    }

    fn stopping(&mut self, job: &mut Job, t: Time) {
        self.credit(job, t);
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
