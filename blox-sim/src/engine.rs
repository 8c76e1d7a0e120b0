//! The simulation engine: runs any [`Scheduler`] against a cluster and a [`Workload`], under a
//! [`TimeModel`].
//!
//! # The loop
//!
//! The engine owns the state (job table, cluster, admission queue) and runs the round protocol
//! through the one [`Driver`]; the time model owns time. At each decision time `t`:
//!
//! 1. **advance**: the model credits progress up to `t` and completes the jobs that finish by
//!    then ([`TimeModel::advance`]); completed jobs leave the table;
//! 2. **arrivals**: every job with arrival ≤ `t` enters the admission queue (Blox's `GetJobs(t)`);
//! 3. **admission**: the admitted jobs get ids in the order the policy lists them and join the job
//!    table;
//! 4. **scheduling, placement, validation, apply**: every stop before any start; the model is told
//!    of each ([`TimeModel::stopping`], [`TimeModel::started`]) and says where the round sample is
//!    taken ([`TimeModel::sample_point`]);
//! 5. **next decision** ([`TimeModel::next_decision`]), then **starvation counters**: every table
//!    job that was not stopped, started or running ages by the time to the next decision; one that
//!    reaches the threshold moves to [`PRIORITY_STARVED`] for good.
//!
//! Time the model skips (no job waiting) costs nothing; round boundaries skipped this way still
//! appear in the timeline, with the unchanged state: the sink receives them as one
//! [`RoundStretch`] ([`MetricSink::on_rounds`]), so a stretch costs O(1) whatever its length
//! (one job of 10^9 s at one-second rounds is two decisions and one stretch). The run ends when the model reports that the
//! last tracked job completed, or when nothing is left to do ([`TimeModel::drained_end`]).
//!
//! The two stock models are `Blox` (Blox's simulator exactly, in `blox-original`) and
//! [`Exact`] (true finish times); their docs state what each credits and when.
//!
//! # Cluster events
//!
//! With a source of cluster events ([`Simulator::with_cluster_events`], see `blox-nodes`), each
//! decision applies the events due by then after step 1 (advance) and before arrivals and
//! admission (Blox's `update_cluster`). A `leave` drains its node: the jobs on it are stopped as
//! by a preemption (counted; progress kept) and wait in the table. A `fail` stops them too, but
//! each loses the work since its last checkpoint ([`SimConfig::checkpointing`];
//! [`TimeModel::rollback`] sets its progress back) and keeps its attained service; it is reported
//! as [`Event::Failed`], not as a preemption. GPUs out of service are never free, so components
//! see only the GPUs in service. Decisions are not skipped past the round of a known event, and a
//! run whose jobs wait for GPUs out of service is not declared stalled while an event is still to
//! come. Without a source nothing of this runs and every output is as before.
//!
//! # Ordering guarantees
//!
//! Completions at equal times are processed in ascending job id. Arrivals keep the workload's
//! order. Events reach the sink in the order listed in [`blox_core::Event`].

use crate::driver::{DecisionError, Driver, Host};
use crate::time::{Advance, Exact, NextView, SamplePoint, TimeModel, World};
use crate::workload::Workload;
use crate::SimError;
use blox_core::{
    Cluster, ClusterSpec, Ctx, Decisions, Event, GpuSet, Job, JobId, JobSpec, JobTable, MetricSink,
    QueuedJob, RoundSample, RoundStretch, Schedule, Scheduler, ThroughputModel, Time,
    PRIORITY_STARVED,
};
use blox_nodes::{BoxEvents, Checkpointing, ClusterEvents, NodeEvent};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Blox's starvation threshold: 3,600,000 s (1,000 h) of waiting in a row.
pub const BLOX_STARVATION: Time = Time::from_secs(3_600_000);

/// How many processed rounds in a row may pass with jobs waiting and nothing running before the
/// engine declares the run stalled.
const STALL_ROUNDS: u64 = 1_000;

/// An inclusive window of job ids whose completion ends the run and whose statistics are
/// reported (Blox's `start_id_track..=stop_id_track`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackWindow {
    /// First tracked id.
    pub first: u32,
    /// Last tracked id (inclusive).
    pub last: u32,
}

impl TrackWindow {
    /// `first..=last`; `first` must not exceed `last`.
    pub fn new(first: u32, last: u32) -> Result<Self, SimError> {
        if first > last {
            return Err(SimError::Config(format!(
                "tracked window {first}..{last}: the first id is after the last"
            )));
        }
        Ok(TrackWindow { first, last })
    }

    /// Whether `id` is tracked.
    pub fn contains(&self, id: JobId) -> bool {
        (self.first..=self.last).contains(&id.0)
    }

    /// The window as the id pair `blox_metrics::Summary::compute` takes.
    pub fn ids(&self) -> (JobId, JobId) {
        (JobId(self.first), JobId(self.last))
    }

    /// Number of ids in the window.
    pub fn len(&self) -> u64 {
        u64::from(self.last - self.first) + 1
    }

    /// Never true: a window holds at least one id.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl std::str::FromStr for TrackWindow {
    type Err = SimError;
    /// `FIRST..LAST` (inclusive), e.g. `3000..4000`.
    fn from_str(s: &str) -> Result<Self, SimError> {
        let bad = || {
            SimError::Config(format!(
                "invalid tracked window `{s}` (expected FIRST..LAST job ids, e.g. 3000..4000)"
            ))
        };
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let b = b.strip_prefix('=').unwrap_or(b);
        TrackWindow::new(
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        )
    }
}

impl std::fmt::Display for TrackWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.first, self.last)
    }
}

/// How a run is simulated (everything but the components and the workload): the time model and
/// the engine's own settings.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SimConfig<Tm = Exact> {
    /// The time model.
    pub model: Tm,
    /// Round length `R`.
    pub round: Time,
    /// Jobs whose completion ends the run; `None`: run until every job has finished.
    pub track: Option<TrackWindow>,
    /// Waiting time after which a job is promoted to the starved class; `None` disables it.
    pub starvation: Option<Time>,
    /// How often running jobs checkpoint: what a node failure costs them.
    pub checkpointing: Checkpointing,
}

impl Default for SimConfig<Exact> {
    fn default() -> Self {
        SimConfig::new(Exact::new())
    }
}

impl<Tm> SimConfig<Tm> {
    /// The default settings (300 s rounds, no tracked window, Blox's starvation threshold) with
    /// this time model.
    pub fn new(model: Tm) -> Self {
        SimConfig {
            model,
            round: Time::from_secs(300),
            track: None,
            starvation: Some(BLOX_STARVATION),
            checkpointing: Checkpointing::OnStop,
        }
    }

    /// The same settings with another time model.
    pub fn with_model<U>(self, model: U) -> SimConfig<U> {
        SimConfig {
            model,
            round: self.round,
            track: self.track,
            starvation: self.starvation,
            checkpointing: self.checkpointing,
        }
    }

    /// Set the round length.
    pub fn with_round(mut self, round: Time) -> Self {
        self.round = round;
        self
    }

    /// Set the tracked window.
    pub fn with_track(mut self, track: Option<TrackWindow>) -> Self {
        self.track = track;
        self
    }

    /// Set the starvation threshold (`None` disables it).
    pub fn with_starvation(mut self, starvation: Option<Time>) -> Self {
        self.starvation = starvation;
        self
    }

    /// Set how often jobs checkpoint.
    pub fn with_checkpointing(mut self, checkpointing: Checkpointing) -> Self {
        self.checkpointing = checkpointing;
        self
    }
}

impl SimConfig<Exact> {
    /// Set the exact model's preemption cost.
    pub fn with_preemption_cost(mut self, cost: Time) -> Self {
        self.model = self.model.with_preemption_cost(cost);
        self
    }

    /// Set the exact model's decision rule.
    pub fn with_decide(mut self, decide: crate::time::Decide) -> Self {
        self.model = self.model.with_decide(decide);
        self
    }
}

/// What a finished run reports besides its events.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RunOutcome {
    /// When the run ended.
    pub end_time: Time,
    /// Rounds from `t = 0` to the end, counting the final round (`end / R + 1` in `blox`
    /// semantics).
    pub rounds: u64,
    /// Rounds actually processed (the rest were skipped as idle).
    pub rounds_processed: u64,
    /// Jobs that arrived.
    pub arrived: u64,
    /// Jobs admitted.
    pub admitted: u64,
    /// Jobs rejected by admission.
    pub rejected: u64,
    /// Jobs completed.
    pub completed: u64,
    /// Preemptions counted.
    pub preemptions: u64,
}

/// A simulator: a time model (in its [`SimConfig`]), a cluster, a scheduler, a throughput model
/// and a metric sink.
///
/// ```
/// use blox_admission::AcceptAll;
/// use blox_core::{ClusterSpec, ConstantSpeed, JobSpec, Pipeline, Time};
/// use blox_placement::Scattered;
/// use blox_policies::Fifo;
/// use blox_sim::{Exact, JobList, SimConfig, Simulator};
///
/// let jobs = vec![JobSpec::new(Time::from_secs(1000), 1, 1000.0)];
/// let mut sim = Simulator::new(
///     SimConfig::new(Exact::new()),
///     ClusterSpec::uniform(1, 4),
///     Pipeline::new(AcceptAll, Fifo::default(), Scattered::new()),
///     ConstantSpeed(1.0),
///     (),
/// );
/// let outcome = sim.run(&mut JobList::new(jobs)).unwrap();
/// // First seen at the round boundary 1200, it runs 1000 s and completes at its true finish.
/// assert_eq!(outcome.end_time, Time::from_secs(2200));
/// ```
pub struct Simulator<S, T, M, Tm = Exact> {
    cfg: SimConfig<Tm>,
    cluster_spec: ClusterSpec,
    scheduler: S,
    throughput: T,
    sink: M,
    events: Option<BoxEvents>,
}

impl<S: Scheduler, T: ThroughputModel, M: MetricSink, Tm: TimeModel> Simulator<S, T, M, Tm> {
    /// Wire a simulator from its parts.
    pub fn new(
        cfg: SimConfig<Tm>,
        cluster: ClusterSpec,
        scheduler: S,
        throughput: T,
        sink: M,
    ) -> Self {
        Simulator {
            cfg,
            cluster_spec: cluster,
            scheduler,
            throughput,
            sink,
            events: None,
        }
    }

    /// Change the cluster during the run: `events` are applied before admission at each
    /// decision (see the module docs). Round samples then record the GPUs in service.
    pub fn with_cluster_events(mut self, events: BoxEvents) -> Self {
        self.events = Some(events);
        self
    }

    /// The metric sink, e.g. to read what it recorded after a run.
    pub fn sink(&self) -> &M {
        &self.sink
    }

    /// Take the sink out.
    pub fn into_sink(self) -> M {
        self.sink
    }

    /// The scheduler, e.g. to read state it kept during a run.
    pub fn scheduler(&self) -> &S {
        &self.scheduler
    }

    /// The configuration.
    pub fn config(&self) -> &SimConfig<Tm> {
        &self.cfg
    }

    /// Run the workload to the end: until every tracked job has completed, or, without a tracked
    /// window, until every job has arrived and finished.
    pub fn run<W: Workload + ?Sized>(&mut self, workload: &mut W) -> Result<RunOutcome, SimError> {
        if self.cfg.round == Time::ZERO {
            return Err(SimError::Config("the round length must be positive".into()));
        }
        if self.cluster_spec.total_gpus() == 0 {
            return Err(SimError::Config("the cluster has no GPUs".into()));
        }
        self.cfg.model.begin(self.cfg.round)?;
        let mut run = Run {
            core: Core::new(
                Cluster::new(self.cluster_spec.clone()),
                self.cfg.round,
                self.cfg.track,
            ),
            starvation: self.cfg.starvation,
            checkpointing: self.cfg.checkpointing,
            events: self
                .events
                .as_deref_mut()
                .map(|e| e as &mut dyn ClusterEvents),
            due: Vec::new(),
            model: &mut self.cfg.model,
            throughput: &self.throughput,
            sink: &mut self.sink,
            queue: Vec::new(),
            state: IdWindow::default(),
            now: Time::ZERO,
            next_seq: 0,
            arrivals: Vec::new(),
            idle_rounds: 0,
            last_sample: None,
            starved: Vec::new(),
        };
        let result = run.go(&mut self.scheduler, workload);
        run.sink.on_event(&Event::End { time: run.now });
        result
    }
}

/// The engine state a time model reaches through [`World`].
pub(crate) struct Core {
    pub(crate) table: JobTable,
    pub(crate) cluster: Cluster,
    pub(crate) round: Time,
    track: Option<TrackWindow>,
    tracked_done: u64,
    /// Jobs in the table that hold GPUs.
    running_jobs: usize,
    outcome: RunOutcome,
    last_completion: Time,
}

impl Core {
    fn new(cluster: Cluster, round: Time, track: Option<TrackWindow>) -> Self {
        Core {
            table: JobTable::new(),
            cluster,
            round,
            track,
            tracked_done: 0,
            running_jobs: 0,
            outcome: RunOutcome {
                end_time: Time::ZERO,
                rounds: 0,
                rounds_processed: 0,
                arrived: 0,
                admitted: 0,
                rejected: 0,
                completed: 0,
                preemptions: 0,
            },
            last_completion: Time::ZERO,
        }
    }

    /// Complete a job: its GPUs are freed at once; it is marked in the table and leaves it at
    /// the next [`Core::flush_completed`] (one pass for all of a step's completions). A job
    /// not in the table, or already completed, is ignored.
    pub(crate) fn complete<M: MetricSink + ?Sized>(&mut self, id: JobId, time: Time, sink: &mut M) {
        if !self.table.mark_removed(id) {
            return;
        }
        let gpus = {
            let mut job = self
                .table
                .get_mut(id)
                .expect("a marked job is in the table");
            std::mem::take(&mut job.gpus)
        };
        if !gpus.is_empty() {
            self.running_jobs -= 1;
        }
        self.cluster.release(&gpus);
        self.outcome.completed += 1;
        self.last_completion = self.last_completion.max(time);
        if self.track.is_some_and(|w| w.contains(id)) {
            self.tracked_done += 1;
        }
        sink.on_event(&Event::Completed { time, job: id });
    }

    /// Read ahead what completing the jobs `ids` will read: each job's slot in the table, its
    /// slot's state and row, its first cache line (its GPU list) and its GPUs' owners, one kind
    /// at a time over every id. The reads of one pass do not depend on each other, so the
    /// processor overlaps their cache misses, which the completions, one after the other, would
    /// wait for one by one (with tens of thousands of jobs running, each misses the cache).
    /// Changes nothing.
    pub(crate) fn warm(&self, ids: impl Iterator<Item = JobId> + Clone) {
        let table = &self.table;
        let mut sum = 0usize;
        for id in ids.clone() {
            sum = sum.wrapping_add(table.slot(id).unwrap_or(0));
        }
        for id in ids.clone() {
            if let Some(s) = table.slot(id) {
                let job = table.at(s);
                sum = sum.wrapping_add(table.row(s).held as usize);
                sum = sum.wrapping_add(job.gpus.first().map_or(0, |g| g.index()));
            }
        }
        for id in ids {
            if let Some(s) = table.slot(id) {
                for &g in &table.at(s).gpus {
                    sum = sum.wrapping_add(self.cluster.owner(g).map_or(0, |j| j.0 as usize));
                }
            }
        }
        std::hint::black_box(sum);
    }

    pub(crate) fn tracked_complete(&self) -> bool {
        self.track.is_some_and(|w| self.tracked_done == w.len())
    }

    /// Drop completed jobs from the table.
    fn flush_completed(&mut self) {
        self.table.remove_marked();
    }
}

/// Engine-private state of an admitted job.
#[derive(Clone, Copy, Debug)]
struct RunState {
    /// The last decision in which the placement stopped or started it.
    touched: Time,
    /// It has started before (a start is a resume).
    started: bool,
    /// Work done when it last started (what a failure falls back to, at worst).
    executed_at_start: f64,
}

/// Per-job values by id, kept for the ids from the oldest job in the table to the newest
/// admitted: the ids below the oldest are dropped as it leaves (O(1) per job), so the memory
/// follows the active jobs' span of ids, not the length of the run.
#[derive(Clone, Debug)]
pub(crate) struct IdWindow<T> {
    pub(crate) items: VecDeque<T>,
    /// The id of `items[0]`.
    pub(crate) base: u32,
}

impl<T> Default for IdWindow<T> {
    fn default() -> Self {
        IdWindow {
            items: VecDeque::new(),
            base: 0,
        }
    }
}

impl<T> IdWindow<T> {
    /// Add the next id's value; returns that id (ids are given in order from 0).
    fn push(&mut self, value: T) -> JobId {
        self.items.push_back(value);
        JobId(self.base + self.items.len() as u32 - 1)
    }

    /// Drop the values of the ids below `first` (`None`: of every id so far).
    pub(crate) fn trim_below(&mut self, first: Option<JobId>) {
        let end = self.base + self.items.len() as u32;
        let first = first.map_or(end, |f| f.0.min(end));
        if first > self.base {
            self.items.drain(..(first - self.base) as usize);
            self.base = first;
        }
    }
}

impl<T> std::ops::Index<JobId> for IdWindow<T> {
    type Output = T;
    fn index(&self, id: JobId) -> &T {
        &self.items[(id.0 - self.base) as usize]
    }
}

impl<T> std::ops::IndexMut<JobId> for IdWindow<T> {
    fn index_mut(&mut self, id: JobId) -> &mut T {
        &mut self.items[(id.0 - self.base) as usize]
    }
}

struct Run<'c, Tm, T: ?Sized, M: ?Sized> {
    core: Core,
    starvation: Option<Time>,
    checkpointing: Checkpointing,
    /// The source of cluster events, if the run manages its cluster.
    events: Option<&'c mut dyn ClusterEvents>,
    /// Scratch for the events due at a decision.
    due: Vec<NodeEvent>,
    model: &'c mut Tm,
    throughput: &'c T,
    sink: &'c mut M,
    queue: Vec<QueuedJob>,
    /// Engine-private state of the admitted jobs, by id, from the oldest job in the table on.
    state: IdWindow<RunState>,
    now: Time,
    next_seq: u64,
    arrivals: Vec<JobSpec>,
    idle_rounds: u64,
    last_sample: Option<RoundSample>,
    /// Scratch: the waiting jobs that reach the starvation threshold in a round.
    starved: Vec<JobId>,
}

impl<Tm: TimeModel, T: ThroughputModel + ?Sized, M: MetricSink + ?Sized> Run<'_, Tm, T, M> {
    fn go<S: Scheduler + ?Sized, W: Workload + ?Sized>(
        &mut self,
        scheduler: &mut S,
        workload: &mut W,
    ) -> Result<RunOutcome, SimError> {
        let r = self.core.round;
        let mut driver = Driver::new();
        let mut t = Time::ZERO;
        loop {
            // Skipped round boundaries keep the previous state; report them to the timeline as
            // one stretch, in O(1) however many rounds it spans.
            if let Some(prev) = self.last_sample {
                let first = next_boundary(prev.time, r);
                if first < t {
                    let count = (t - first).as_millis().div_ceil(r.as_millis());
                    let mut s = prev;
                    s.time = first;
                    s.preemptions = 0;
                    self.sink.on_rounds(&RoundStretch::new(s, r, count));
                }
            }
            self.now = t;
            self.core.outcome.rounds_processed += 1;
            self.model.progress_read(scheduler.reads_progress());
            let advance = self.model.advance(
                t,
                &mut World {
                    core: &mut self.core,
                    sink: &mut *self.sink,
                },
            );
            self.core.flush_completed();
            self.state.trim_below(self.core.table.first().map(|j| j.id));
            if let Advance::Finished(end) = advance {
                // The final decision's later steps change no output; arrivals up to the end are
                // still admitted so that the job list is complete.
                self.now = end;
                self.fetch_and_admit(end, &mut driver, scheduler, workload)?;
                return Ok(self.finish(end));
            }
            self.apply_cluster_events(t)?;
            self.fetch_and_admit(t, &mut driver, scheduler, workload)?;
            if self.all_done(workload)? {
                let end = self.model.drained_end(t, self.core.last_completion);
                return Ok(self.finish(end));
            }
            let applied = driver.decide(scheduler, self, t, self.model.elide_relaunch())?;
            let view = NextView {
                waiting: !self.queue.is_empty() || self.core.running_jobs < self.core.table.len(),
                started: applied.started,
                round: r,
            };
            let next_arrival = workload.next_arrival()?;
            let next = self.model.next_decision(
                t,
                view,
                next_arrival,
                &World {
                    core: &mut self.core,
                    sink: &mut *self.sink,
                },
            );
            // Decide again at the round of the next known cluster event (it is later than `t`:
            // events due by `t` were applied).
            let next = match self.next_cluster_event() {
                Some(e) => next.min(e.ceil_to(r)),
                None => next,
            };
            debug_assert!(next > t, "time models move time forward");
            self.age(t, next.max(t) - t);
            self.check_stall(t, driver.last_schedule())?;
            t = next;
        }
    }

    fn finish(&mut self, end: Time) -> RunOutcome {
        self.now = end;
        self.core.outcome.end_time = end;
        self.core.outcome.rounds = self.model.rounds(end, self.core.round);
        self.core.outcome.clone()
    }

    /// Without a tracked window (or when the window cannot fill), the run ends when there is
    /// nothing left: no job to arrive, none queued, none active.
    fn all_done<W: Workload + ?Sized>(&mut self, workload: &mut W) -> Result<bool, SimError> {
        Ok(self.core.table.is_empty()
            && self.queue.is_empty()
            && workload.next_arrival()?.is_none())
    }

    fn fetch_and_admit<S: Scheduler + ?Sized, W: Workload + ?Sized>(
        &mut self,
        t: Time,
        driver: &mut Driver,
        scheduler: &mut S,
        workload: &mut W,
    ) -> Result<(), SimError> {
        self.arrivals.clear();
        workload.arrivals_until(t, &mut self.arrivals)?;
        let total = self.core.cluster.total_gpus();
        for spec in self.arrivals.drain(..) {
            if spec.n_gpus == 0 || (spec.n_gpus > total && !self.model.admits_oversized()) {
                return Err(SimError::Config(format!(
                    "job {} (arrival {} s) asks for {} GPUs but the cluster has {total}: it could \
                     never run",
                    spec.source_id
                        .as_deref()
                        .map_or_else(|| format!("#{}", self.next_seq), str::to_string),
                    spec.arrival,
                    spec.n_gpus
                )));
            }
            if !(spec.work_s.is_finite() && spec.work_s >= 0.0) {
                return Err(SimError::Config(format!(
                    "job #{} has an invalid duration {}",
                    self.next_seq, spec.work_s
                )));
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.core.outcome.arrived += 1;
            self.sink.on_event(&Event::Arrived {
                time: t,
                seq,
                spec: &spec,
            });
            self.queue.push(QueuedJob::new(seq, spec));
        }
        driver.admit(scheduler, self, t)
    }

    fn sample(&self, t: Time, running: u32, preemptions: u32) -> RoundSample {
        let s = RoundSample::new(
            t,
            self.core.table.len() as u32 - running,
            running,
            self.queue.len() as u32,
            self.core.cluster.free_gpus(),
            self.core.table.gpu_demand(),
            preemptions,
        );
        if self.events.is_some() {
            s.with_available_gpus(self.core.cluster.available_gpus())
        } else {
            s
        }
    }

    /// Starvation counters: every waiting job that was not decided on ages by `elapsed`.
    fn age(&mut self, t: Time, elapsed: Time) {
        if self.core.running_jobs == self.core.table.len() {
            // Every job runs: their counters were reset when they started.
            return;
        }
        let threshold = self.starvation;
        // The waiting jobs' counters (a running job's stays at zero from its start: nothing to
        // write) are not in the table's rows: written in place, without a row write-back. Only
        // a job that crosses the threshold changes its row (its priority), after the pass.
        let table = &mut self.core.table;
        let mut starved = std::mem::take(&mut self.starved);
        starved.clear();
        for mut job in table.iter_progress_mut() {
            if job.is_running() {
                continue;
            }
            if self.state[job.id].touched == t {
                *job.time_since_scheduled_mut() = Time::ZERO;
            } else {
                *job.time_since_scheduled_mut() += elapsed;
                if job.priority != PRIORITY_STARVED
                    && threshold.is_some_and(|th| job.time_since_scheduled >= th)
                {
                    starved.push(job.id);
                }
            }
        }
        for &id in &starved {
            table.get_mut(id).expect("listed above").priority = PRIORITY_STARVED;
        }
        debug_assert!(table
            .iter()
            .all(|j| !j.is_running() || j.time_since_scheduled == Time::ZERO));
        self.starved = starved;
    }

    fn check_stall(&mut self, t: Time, last: &Schedule) -> Result<(), SimError> {
        // Some job holds GPUs (as `free < total` said before GPUs could be out of service).
        let running = self.core.running_jobs > 0;
        if running
            || (self.core.running_jobs == self.core.table.len() && self.queue.is_empty())
            || self.waits_for_cluster()
        {
            self.idle_rounds = 0;
            return Ok(());
        }
        self.idle_rounds += 1;
        if self.idle_rounds >= STALL_ROUNDS {
            let cluster = &self.core.cluster;
            // The job that blocks: the first the policy asked for that did not start (with a
            // strict-order placement nothing behind it starts either); else the first waiting.
            let head = last
                .entries
                .iter()
                .filter_map(|a| self.core.table.get(a.job))
                .find(|j| !j.is_running());
            let which = if head.is_some() {
                ", first in the policy's order,"
            } else {
                ""
            };
            let waiting = head.or_else(|| self.core.table.iter().find(|j| !j.is_running()));
            let what = match waiting {
                Some(j) => format!(
                    "job {} (arrival {} s, {} GPUs){which} has waited on an idle cluster of {} \
                     GPUs for {STALL_ROUNDS} rounds up to t={t} s, with {} jobs waiting in all; \
                     the placement can never start it",
                    j.id,
                    j.arrival(),
                    j.n_gpus(),
                    cluster.total_gpus(),
                    self.core.table.len()
                ),
                None => format!(
                    "{} jobs have been held by admission for {STALL_ROUNDS} rounds on an idle \
                     cluster up to t={t} s",
                    self.queue.len()
                ),
            };
            return Err(SimError::Stalled(what));
        }
        Ok(())
    }
}

impl From<DecisionError> for SimError {
    fn from(e: DecisionError) -> Self {
        SimError::InvalidDecision {
            component: e.component,
            time_s: e.time.to_string(),
            message: e.message,
        }
    }
}

impl<Tm: TimeModel, T: ThroughputModel + ?Sized, M: MetricSink + ?Sized> Host
    for Run<'_, Tm, T, M>
{
    type Error = SimError;

    fn ctx(&self, now: Time) -> Ctx<'_> {
        let r = self.core.round;
        Ctx::new(
            now,
            now.as_millis() / r.as_millis(),
            r,
            &self.core.cluster,
            &self.core.table,
        )
    }

    fn queue(&self) -> &[QueuedJob] {
        &self.queue
    }

    fn cluster(&self) -> &Cluster {
        &self.core.cluster
    }

    fn jobs(&self) -> &JobTable {
        &self.core.table
    }

    fn admit(&mut self, index: usize, now: Time) -> Result<(), SimError> {
        let id = self.state.push(RunState {
            touched: Time::MAX,
            started: false,
            executed_at_start: 0.0,
        });
        self.core.outcome.admitted += 1;
        let q = &mut self.queue[index];
        self.sink.on_event(&Event::Admitted {
            time: now,
            seq: q.seq,
            job: id,
        });
        // The entry leaves the queue at `retire`, after the admissions and rejections (which
        // read its `seq` only), and an entry is admitted once: its spec moves to the job.
        let spec = std::mem::replace(&mut q.spec, JobSpec::new(Time::ZERO, 0, 0.0));
        let job = Job::new(id, spec, now);
        self.model.admitted(&job, now);
        self.core.table.push(job);
        Ok(())
    }

    fn reject(&mut self, index: usize, now: Time) -> Result<(), SimError> {
        self.core.outcome.rejected += 1;
        self.sink.on_event(&Event::Rejected {
            time: now,
            seq: self.queue[index].seq,
        });
        Ok(())
    }

    fn retire(&mut self, taken: &[bool]) {
        let mut i = 0;
        self.queue.retain(|_| {
            i += 1;
            !taken[i - 1]
        });
    }

    fn decided(&mut self, d: &Decisions, now: Time) -> Result<(), SimError> {
        self.model.decided(d, now);
        if self.model.sample_point() == SamplePoint::AfterPlacement {
            let running = self.core.running_jobs - d.stop.len();
            let stops = if self.model.counts_stops() {
                d.stop.len() as u32
            } else {
                0
            };
            let s = self.sample(now, running as u32, stops);
            self.sink.on_event(&Event::Round(s));
        }
        Ok(())
    }

    fn keep(&mut self, id: JobId, now: Time) {
        self.state[id].touched = now;
    }

    fn stop(&mut self, id: JobId, now: Time) -> Result<(), SimError> {
        self.state[id].touched = now;
        let mut job = self.core.table.get_mut(id).expect("validated");
        self.model.stopping(&mut job, now);
        let gpus = std::mem::take(&mut job.gpus);
        let counted = self.model.counts_stops();
        job.preemptions += u32::from(counted);
        self.core.running_jobs -= 1;
        self.core.cluster.release(&gpus);
        self.core.outcome.preemptions += u64::from(counted);
        self.sink.on_event(&Event::Preempted {
            time: now,
            job: id,
            counted,
        });
        Ok(())
    }

    fn start(&mut self, id: JobId, gpus: &GpuSet, now: Time) -> Result<(), SimError> {
        self.state[id].touched = now;
        self.core.cluster.allocate(id, gpus);
        self.core.running_jobs += 1;
        let mut job = self.core.table.get_mut(id).expect("validated");
        job.gpus = gpus.clone();
        job.time_since_scheduled = Time::ZERO;
        job.last_start = Some(now);
        if job.first_start.is_none() {
            job.first_start = Some(now);
        }
        drop(job);
        let job = self.core.table.get(id).expect("validated");
        let speed = self.throughput.speed(job, gpus, &self.core.cluster);
        if !(speed.is_finite() && speed > 0.0) {
            return Err(SimError::InvalidDecision {
                component: format!("throughput model `{}`", self.throughput.name()),
                time_s: now.to_string(),
                message: format!("speed {speed} for job {id} is not a positive number"),
            });
        }
        let st = &mut self.state[id];
        let resumed = std::mem::replace(&mut st.started, true);
        st.executed_at_start = job.executed;
        self.sink.on_event(&Event::Started {
            time: now,
            job: id,
            gpus,
            speed,
        });
        self.model.started(
            id,
            speed,
            resumed,
            now,
            &mut World {
                core: &mut self.core,
                sink: &mut *self.sink,
            },
        )
    }

    fn applied(&mut self, counted: usize, now: Time) -> Result<(), SimError> {
        // The state after this decision: the sample of models that sample after applying, and
        // what a skipped round repeats in either case.
        debug_assert_eq!(
            self.core.running_jobs,
            self.core.table.iter().filter(|j| j.is_running()).count()
        );
        let running = self.core.running_jobs as u32;
        let counted = if self.model.counts_stops() {
            counted
        } else {
            0
        };
        let after = self.sample(now, running, counted as u32);
        if self.model.sample_point() == SamplePoint::AfterApply {
            self.sink.on_event(&Event::Round(after));
        }
        let mut steady = after;
        steady.preemptions = 0;
        self.last_sample = Some(steady);
        Ok(())
    }
}

mod nodes;

/// The first round boundary strictly after `t`.
fn next_boundary(t: Time, r: Time) -> Time {
    Time((t.as_millis() / r.as_millis() + 1) * r.as_millis())
}
