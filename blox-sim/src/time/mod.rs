//! Time models: everything that differs between time semantics, as types.
//!
//! The engine ([`crate::Simulator`]) owns the state (the job table, the cluster, the admission
//! queue) and the round protocol (arrivals → admission → scheduling → placement → validation →
//! apply, see [`crate::driver`]). A [`TimeModel`] owns *time*: when the next decision is taken,
//! how progress and attained service are credited between decisions, when a job completes and
//! frees its GPUs, what a start or a stop costs, where the round sample is taken and when the run
//! ends. [`Exact`] (true finish times) is the engine's own model; each peer simulator's rules are
//! another implementation, in that peer's crate (Blox's in `blox-original`, Synergy's, Tiresias'
//! and Pollux's in theirs), chosen once at the top (scenario, command line).
//!
//! # The engine's loop, and when each hook is called
//!
//! For each decision time `t` (the first is `t = 0`):
//!
//! 1. [`TimeModel::advance`]`(t)`: credit progress up to `t` and complete every job that
//!    finishes by then ([`World::complete`]), in the order the model defines. If it returns
//!    [`Advance::Finished`]`(end)`, the engine admits the arrivals up to `end` (so the job list is
//!    complete), emits `End` and stops.
//! 2. Arrivals up to `t` enter the admission queue; admission runs; each admitted job gets its id
//!    and [`TimeModel::admitted`] is called, in id order.
//! 3. If nothing is left (no job active, queued or still to arrive), the run ends at
//!    [`TimeModel::drained_end`].
//! 4. Scheduling and placement; the decisions are validated. If [`TimeModel::sample_point`] is
//!    [`SamplePoint::AfterPlacement`] the round sample is emitted now. Then every stop is applied
//!    ([`TimeModel::stopping`] before the job's GPUs are released), then every start
//!    ([`TimeModel::started`] after the job holds its GPUs and its `Started` event is emitted).
//!    A stop and a start of the same job on the same GPUs are skipped (no change, not counted)
//!    when [`TimeModel::elide_relaunch`] says so. With [`SamplePoint::AfterApply`] the sample is
//!    emitted after the starts.
//! 5. The engine asks [`TimeModel::next_decision`] for the next decision time `t' > t`, ages
//!    the jobs that waited by `t' - t` (starvation counters) and checks for a stall.
//!
//! Between two decision times nothing but the model's own bookkeeping happens, so a model that
//! jumps far ahead (no job waiting) costs nothing for the time skipped; round boundaries that
//! were skipped are repeated in the timeline with the last sample.
//!
//! # What a model may and may not do
//!
//! A model changes the world only through [`World`]: it credits `executed`, `attained_gpu_s` and
//! `attained_wall_s` of running jobs (the unit-stable facts components read, so no component
//! needs to know which model runs it), completes jobs and emits `FirstProgress`. It never starts
//! or stops a job (the placement does) and never reorders the engine's steps. It keeps whatever
//! per-job state it needs itself, indexed by [`JobId::index`] (ids are dense and ascending; see
//! [`TimeModel::admitted`]).
//!
//! # Ordering guarantees the engine gives a model
//!
//! Decision times strictly increase. `admitted` is called once per job, in ascending id order,
//! before the job can be started. `stopping` and `started` are called in the placement's stop
//! and start order, every stop of a decision before any start. A job completed through
//! [`World::complete`] leaves the table before the next decision's admission.

mod exact;

pub use exact::{Decide, Exact};

use crate::SimError;
use blox_core::{Cluster, Decisions, Event, Job, JobId, JobTable, MetricSink, Time};

/// A time model: the rules of time of one semantics. See the [module docs](self) for the loop,
/// the order of the calls and what a model may do.
///
/// Implementations are plain values (e.g. [`Exact`] carries its preemption cost); the engine is
/// generic over the model, so a model's hooks are inlined into the loop.
pub trait TimeModel {
    /// The model's name, as `--semantics` spells it (e.g. `exact`).
    fn name(&self) -> &'static str;

    /// Called once before the run, with the round length `R` of the run's configuration. A model
    /// resets its state here (a simulator may run twice) and may reject a configuration it cannot
    /// honour.
    fn begin(&mut self, round: Time) -> Result<(), SimError>;

    /// A job was admitted at `now` with the next dense id (ids ascend from 0 over the run).
    fn admitted(&mut self, job: &Job, now: Time);

    /// Called before each [`TimeModel::advance`]: whether a component of the run may read the
    /// progress of running jobs at this decision (`Job::executed`, `attained_gpu_s`,
    /// `attained_wall_s`, `iterations_done`; see `blox_core::Scheduler::reads_progress`). When
    /// not, a model may leave running jobs uncredited in the table, as long as every figure it
    /// credits later and every output is the same as if it had credited them. Default: nothing
    /// (credit as always).
    fn progress_read(&mut self, _read: bool) {}

    /// Step 1 at decision time `t`: credit every running job up to `t` and complete the jobs that
    /// finish by `t`, through `world`. Return [`Advance::Finished`] with the end time once
    /// [`World::tracked_complete`] becomes true (the engine stops there).
    fn advance<M: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, M>) -> Advance;

    /// Whether a stop and a start of the same job on the same GPUs in one decision are no change
    /// (skipped and not counted as a preemption). Blox counts them; `exact` does not.
    fn elide_relaunch(&self) -> bool {
        true
    }

    /// The validated decisions of the decision at `t`, before any is applied (e.g. the
    /// host-resource shares in [`Decisions::host`] that a model may credit speed-ups by, as Synergy's does).
    /// Default: nothing. (`Exact` keeps the default.)
    fn decided(&mut self, _decisions: &Decisions, _t: Time) {}

    /// Whether a stop the placement decides counts as a preemption (in the job's count, the
    /// run's total and the round sample). Default: yes. Synergy's model says no: every lease
    /// ends each round, so a job stopped and placed elsewhere is re-decided, not preempted.
    /// (`Exact` keeps the default.)
    fn counts_stops(&self) -> bool {
        true
    }

    /// Where the round sample is taken. Default: after the decisions are applied.
    fn sample_point(&self) -> SamplePoint {
        SamplePoint::AfterApply
    }

    /// A running job is about to be stopped at `t` (its GPUs are still held): credit it up to
    /// `t` if the model credits continuously.
    fn stopping(&mut self, job: &mut Job, t: Time);

    /// A running job is interrupted by a node failure at `t`, after [`TimeModel::stopping`] (its
    /// GPUs still held). It last (re)started at `start` with `executed_at_start` work done; its
    /// last checkpoint is at `checkpoint` (`start ≤ checkpoint ≤ t`). Set `job.executed` back to
    /// its progress at the checkpoint; attained service is kept. The default assumes progress
    /// grew linearly over `start..t`; a model that knows better overrides it.
    fn rollback(
        &mut self,
        job: &mut Job,
        executed_at_start: f64,
        start: Time,
        checkpoint: Time,
        t: Time,
    ) {
        if t > start {
            let frac = (checkpoint - start).as_secs_f64() / (t - start).as_secs_f64();
            let kept = (job.executed - executed_at_start) * frac;
            job.executed = executed_at_start + kept.max(0.0);
        }
    }

    /// Job `id` has just started (or resumed, `resumed`) at `t` at progress rate `speed` (already
    /// validated positive and finite); it holds its GPUs and its `Started` event is out. The model
    /// computes when it will finish if left running and charges what a start costs.
    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        speed: f64,
        resumed: bool,
        t: Time,
        world: &mut World<'_, M>,
    ) -> Result<(), SimError>;

    /// The next decision time after the decision at `t` (strictly later). `view` says whether
    /// jobs wait and whether the decision started any; `next_arrival` is the workload's next
    /// arrival time, if any. Return `t + R` (or the next round boundary) when nothing is known
    /// to happen; the engine's end checks stop a run in which nothing ever will.
    fn next_decision<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        view: NextView,
        next_arrival: Option<Time>,
        world: &World<'_, M>,
    ) -> Time;

    /// The run's end time when it ends because nothing is left to do, given the decision time
    /// `t` at which that was seen and the last completion time.
    fn drained_end(&self, t: Time, last_completion: Time) -> Time;

    /// Whether a job asking for more GPUs than the cluster has is admitted (it then waits for
    /// ever) instead of being rejected before the run as a configuration error. Default
    /// `false`; Tiresias' simulator keeps such jobs waiting, so its model says `true`.
    fn admits_oversized(&self) -> bool {
        false
    }

    /// [`crate::RunOutcome::rounds`] for a run that ended at `end` with round length `round`.
    fn rounds(&self, end: Time, round: Time) -> u64 {
        end.as_millis() / round.as_millis() + 1
    }
}

/// What [`TimeModel::advance`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The run goes on with this decision.
    Continue,
    /// Every tracked job has completed; the run ends at this time.
    Finished(Time),
}

/// Where a decision's round sample is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SamplePoint {
    /// After placement, before its decisions are applied (Blox's `las_scheduler.py`): stopped
    /// jobs already count as not running, started ones not yet; free GPUs reflect completions
    /// only.
    AfterPlacement,
    /// After the decisions are applied.
    AfterApply,
}

/// What [`TimeModel::next_decision`] is told about the decision just taken.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct NextView {
    /// Some job waits: in the admission queue, or in the table without GPUs.
    pub waiting: bool,
    /// The decision started at least one job.
    pub started: bool,
    /// The round length `R`.
    pub round: Time,
}

/// The engine state a time model may read and change at its hooks.
pub struct World<'a, M: ?Sized> {
    pub(crate) core: &'a mut crate::engine::Core,
    pub(crate) sink: &'a mut M,
}

impl<M: MetricSink + ?Sized> World<'_, M> {
    /// The active jobs, in id order.
    pub fn jobs(&self) -> &JobTable {
        &self.core.table
    }

    /// The active jobs, to credit progress and attained service.
    pub fn jobs_mut(&mut self) -> &mut JobTable {
        &mut self.core.table
    }

    /// The jobs and the sink at once, to emit events while crediting.
    pub fn jobs_and_sink(&mut self) -> (&mut JobTable, &mut M) {
        (&mut self.core.table, self.sink)
    }

    /// The cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.core.cluster
    }

    /// Emit an event to the run's sink (e.g. `FirstProgress`).
    pub fn emit(&mut self, e: &Event<'_>) {
        self.sink.on_event(e);
    }

    /// Complete job `id` at `time`: its GPUs are freed at once, `Completed` is emitted, and it
    /// leaves the table before the next admission. A job already completed is ignored.
    pub fn complete(&mut self, id: JobId, time: Time) {
        self.core.complete(id, time, self.sink);
    }

    /// Whether every tracked job has completed (always false without a tracked window).
    pub fn tracked_complete(&self) -> bool {
        self.core.tracked_complete()
    }

    /// The run's round length `R`.
    pub fn round(&self) -> Time {
        self.core.round
    }
}
