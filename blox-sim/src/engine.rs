//! The simulation engine: runs any [`Scheduler`] against a cluster and a [`Workload`].
//!
//! # The round loop
//!
//! Decisions are made once per round, at `t = 0, R, 2R, …`. A processed round does, in order:
//!
//! 1. **credit and complete** (see the semantics below);
//! 2. **arrivals**: every job with arrival ≤ `t` enters the admission queue (Blox's `GetJobs(t)`);
//! 3. **admission**: the admitted jobs get ids in the order the policy lists them and join the job
//!    table;
//! 4. **scheduling**: the policy orders the table;
//! 5. **placement**: stops and starts, validated, then applied (every stop before any start);
//! 6. **starvation counters**: every table job that was not stopped, started or running ages by
//!    `R`; one that reaches the threshold moves to [`PRIORITY_STARVED`] for good.
//!
//! A round in which nothing can change is skipped: when no job waits (in the table or the
//! admission queue), the engine jumps to the next round in which a job arrives, completes, or (in
//! `blox` semantics) is credited for the first time. Skipped rounds still appear in the
//! timeline, with the unchanged state.
//!
//! # `blox` semantics
//!
//! Exactly Blox's simulator (see `BLOX-SEMANTICS.md`): at step 1 of round `t` every job running
//! since an earlier round is credited `R` seconds of progress (times Blox's Optimus factor, with
//! Blox's f64 operation order) and `R` seconds of attained service (wall-clock, whatever its GPU
//! count); a job whose progress reaches its total completes **at `t`** and frees its GPUs in time
//! for that round's placement. Responsiveness is measured to the first round that credits a job
//! (its first launch + `R`). Every entry of a round's stop list counts as a preemption,
//! including same-round relaunches. The run ends at the round whose step 1 completes the last
//! tracked job; that round's later steps change no output, so the engine stops after admitting
//! its arrivals. The round sample is taken where Blox's `las_scheduler.py` takes it: after
//! placement, before execution (victims already count as not running; launches do not yet
//! count; free GPUs reflect completions only).
//!
//! # `exact` semantics
//!
//! Decisions still happen each round, but a running job progresses continuously at its speed
//! (from the [`ThroughputModel`]) and completes at its true finish time (rounded up to the
//! millisecond), freeing its GPUs at once. Attained service is counted in GPU-seconds. A job
//! that resumes after a preemption first spends the configured preemption cost restoring (its
//! GPUs held, no progress). A stop followed in the same round by a start of the same job on the
//! same GPUs is no change and not a preemption. Responsiveness is measured to the first start.
//! The run ends at the completion of the last tracked job. The round sample is taken after
//! the round's decisions are applied.
//!
//! # Cluster events
//!
//! With a source of cluster events ([`Simulator::with_cluster_events`], see `blox-nodes`), each
//! processed round applies the events due by then after crediting and completing (step 1) and
//! before arrivals and admission (Blox's `update_cluster`). A `leave` drains its node: the jobs
//! on it are stopped as by a preemption (counted; progress kept) and wait in the table. A `fail`
//! stops them too, but each loses the work since its last checkpoint
//! ([`SimConfig::checkpointing`]) and keeps its attained service; it is reported as
//! [`Event::Failed`], not as a preemption. GPUs out of service are never free, so components see
//! only the GPUs in service. Idle stretches are not skipped past a known event, and a run whose
//! jobs wait for GPUs out of service is not declared stalled while an event is still to come.
//! Without a source nothing of this runs and every output is as before.
//!
//! # Ordering guarantees
//!
//! Completions at equal times are processed in ascending job id. Arrivals keep the workload's
//! order. Events reach the sink in the order listed in [`blox_core::Event`].

use crate::workload::Workload;
use crate::SimError;
use blox_core::{
    Admissions, Cluster, ClusterSpec, Ctx, Decisions, Event, GpuId, GpuSet, Job, JobId, JobSpec,
    JobTable, MetricSink, QueuedJob, RoundSample, Schedule, Scheduler, Semantics, ThroughputModel,
    Time, ValidationScratch, PRIORITY_STARVED,
};
use blox_nodes::{BoxEvents, Checkpointing, ClusterEvents, NodeEvent};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

    /// The window as the id pair [`blox_metrics::Summary::compute`] takes.
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

/// How a run is simulated (everything but the components and the workload).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SimConfig {
    /// Time semantics.
    pub semantics: Semantics,
    /// Round length `R`.
    pub round: Time,
    /// Jobs whose completion ends the run; `None`: run until every job has finished.
    pub track: Option<TrackWindow>,
    /// `exact` only: time a job spends restoring when it resumes after a preemption.
    pub preemption_cost: Time,
    /// Waiting time after which a job is promoted to the starved class; `None` disables it.
    pub starvation: Option<Time>,
    /// How often running jobs checkpoint: what a node failure costs them.
    pub checkpointing: Checkpointing,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            semantics: Semantics::Exact,
            round: Time::from_secs(300),
            track: None,
            preemption_cost: Time::ZERO,
            starvation: Some(BLOX_STARVATION),
            checkpointing: Checkpointing::OnStop,
        }
    }
}

impl SimConfig {
    /// The default configuration with these semantics.
    pub fn new(semantics: Semantics) -> Self {
        SimConfig {
            semantics,
            ..Self::default()
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

    /// Set the preemption cost (`exact` semantics).
    pub fn with_preemption_cost(mut self, cost: Time) -> Self {
        self.preemption_cost = cost;
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

/// Engine-private state of an admitted job.
#[derive(Clone, Copy, Debug)]
struct RunState {
    /// The last round in which the placement stopped or started it.
    touched: Time,
    /// Progress has been credited up to this time.
    credited_to: Time,
    /// Blox: round of completion if left running; exact: true finish time.
    finish: Time,
    /// Progress per second while running.
    speed: f64,
    /// Exact: no progress before this time (restoring after a preemption).
    stall_until: Time,
    /// Work done when it last started (what a failure falls back to, at worst).
    executed_at_start: f64,
    responded: bool,
    started: bool,
    /// Completed; leaves the table at the end of the step.
    finished: bool,
}

impl Default for RunState {
    fn default() -> Self {
        RunState {
            touched: Time::MAX,
            credited_to: Time::ZERO,
            finish: Time::MAX,
            speed: 1.0,
            stall_until: Time::ZERO,
            executed_at_start: 0.0,
            responded: false,
            started: false,
            finished: false,
        }
    }
}

/// A simulator: a cluster, a scheduler, a throughput model and a metric sink.
///
/// ```
/// use blox_admission::AcceptAll;
/// use blox_core::{ClusterSpec, ConstantSpeed, JobSpec, Pipeline, Semantics, Time};
/// use blox_placement::Scattered;
/// use blox_policies::Fifo;
/// use blox_sim::{JobList, SimConfig, Simulator};
///
/// let jobs = vec![JobSpec::new(Time::from_secs(1000), 1, 1000.0)];
/// let mut sim = Simulator::new(
///     SimConfig::new(Semantics::Blox),
///     ClusterSpec::uniform(1, 4),
///     Pipeline::new(AcceptAll, Fifo::default(), Scattered::new()),
///     ConstantSpeed(1.0),
///     (),
/// );
/// let outcome = sim.run(&mut JobList::new(jobs)).unwrap();
/// // First seen at 1200, credited at 1500, 1800, 2100, 2400: completes at 2400.
/// assert_eq!(outcome.end_time, Time::from_secs(2400));
/// ```
pub struct Simulator<S, T, M> {
    cfg: SimConfig,
    cluster_spec: ClusterSpec,
    scheduler: S,
    throughput: T,
    sink: M,
    events: Option<BoxEvents>,
}

impl<S: Scheduler, T: ThroughputModel, M: MetricSink> Simulator<S, T, M> {
    /// Wire a simulator from its parts.
    pub fn new(cfg: SimConfig, cluster: ClusterSpec, scheduler: S, throughput: T, sink: M) -> Self {
        Simulator {
            cfg,
            cluster_spec: cluster,
            scheduler,
            throughput,
            sink,
            events: None,
        }
    }

    /// Change the cluster during the run: `events` are applied before admission each round
    /// (see the module docs). Round samples then record the GPUs in service.
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
    pub fn config(&self) -> &SimConfig {
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
        let mut run = Run::new(&self.cfg, Cluster::new(self.cluster_spec.clone()));
        run.events = self
            .events
            .as_deref_mut()
            .map(|e| e as &mut dyn ClusterEvents);
        let result = run.go(
            &mut self.scheduler,
            &self.throughput,
            &mut self.sink,
            workload,
        );
        self.sink.on_event(&Event::End { time: run.now });
        result
    }
}

struct Run<'c> {
    cfg: &'c SimConfig,
    /// The source of cluster events, if the run manages its cluster.
    events: Option<&'c mut dyn ClusterEvents>,
    /// Scratch for the events due in a round.
    due: Vec<NodeEvent>,
    cluster: Cluster,
    table: JobTable,
    queue: Vec<QueuedJob>,
    state: Vec<RunState>,
    now: Time,
    next_seq: u64,
    /// Exact: (finish, id, start) of running jobs; stale entries are skipped.
    finishes: BinaryHeap<Reverse<(Time, JobId, Time)>>,
    arrivals: Vec<JobSpec>,
    admissions: Admissions,
    schedule: Schedule,
    decisions: Decisions,
    outcome: RunOutcome,
    tracked_done: u64,
    idle_rounds: u64,
    last_sample: Option<RoundSample>,
    last_completion: Time,
    /// Scratch for validating decisions.
    scratch: ValidationScratch,
    /// Some completed jobs are still in the table.
    pending_removal: bool,
    /// Jobs in the table that hold GPUs.
    running_jobs: usize,
}

enum Step {
    Continue,
    Finished,
}

impl<'c> Run<'c> {
    fn new(cfg: &'c SimConfig, cluster: Cluster) -> Self {
        Run {
            cfg,
            events: None,
            due: Vec::new(),
            cluster,
            table: JobTable::new(),
            queue: Vec::new(),
            state: Vec::new(),
            now: Time::ZERO,
            next_seq: 0,
            finishes: BinaryHeap::new(),
            arrivals: Vec::new(),
            admissions: Admissions::default(),
            schedule: Schedule::default(),
            decisions: Decisions::default(),
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
            tracked_done: 0,
            idle_rounds: 0,
            last_sample: None,
            last_completion: Time::ZERO,
            scratch: ValidationScratch::default(),
            pending_removal: false,
            running_jobs: 0,
        }
    }

    fn blox(&self) -> bool {
        self.cfg.semantics == Semantics::Blox
    }

    fn go<
        S: Scheduler + ?Sized,
        T: ThroughputModel + ?Sized,
        M: MetricSink + ?Sized,
        W: Workload + ?Sized,
    >(
        &mut self,
        scheduler: &mut S,
        throughput: &T,
        sink: &mut M,
        workload: &mut W,
    ) -> Result<RunOutcome, SimError> {
        let r = self.cfg.round;
        let mut t = Time::ZERO;
        loop {
            // Skipped rounds keep the previous state; report them in the timeline.
            if let Some(prev) = self.last_sample {
                let mut skipped = prev.time + r;
                while skipped < t {
                    let mut s = prev;
                    s.time = skipped;
                    s.preemptions = 0;
                    sink.on_event(&Event::Round(s));
                    skipped += r;
                }
            }
            self.now = t;
            self.outcome.rounds_processed += 1;
            let finished = if self.blox() {
                self.credit_blox(t, sink)
            } else {
                self.complete_exact_until(t, sink)?
            };
            self.flush_completed();
            if let Step::Finished = finished {
                // The final round's later steps change no output; arrivals up to the end are
                // still admitted so that the job list is complete.
                let end = self.now;
                self.fetch_and_admit(end, scheduler, sink, workload)?;
                return Ok(self.finish(end, r));
            }
            if !self.blox() {
                self.credit_exact(t);
            }
            self.apply_cluster_events(t, sink)?;
            self.fetch_and_admit(t, scheduler, sink, workload)?;
            if self.all_done(workload)? {
                let end = if self.blox() { t } else { self.last_completion };
                return Ok(self.finish(end, r));
            }
            let started = self.decide(t, scheduler, throughput, sink)?;
            self.age(t);
            self.check_stall(t)?;
            t = self.next_round(t, started, workload)?;
        }
    }

    fn finish(&mut self, end: Time, r: Time) -> RunOutcome {
        self.now = end;
        self.outcome.end_time = end;
        self.outcome.rounds = end.as_millis() / r.as_millis() + 1;
        self.outcome.clone()
    }

    /// Without a tracked window (or when the window cannot fill), the run ends when there is
    /// nothing left: no job to arrive, none queued, none active.
    fn all_done<W: Workload + ?Sized>(&mut self, workload: &mut W) -> Result<bool, SimError> {
        Ok(self.table.is_empty() && self.queue.is_empty() && workload.next_arrival()?.is_none())
    }

    fn tracked_complete(&self) -> bool {
        self.cfg.track.is_some_and(|w| self.tracked_done == w.len())
    }

    /// Blox step 2: credit every running job for the rounds since it was last credited, with
    /// Blox's operation order, and complete those that reached their total at `t`.
    fn credit_blox<M: MetricSink + ?Sized>(&mut self, t: Time, sink: &mut M) -> Step {
        let r = self.cfg.round;
        let r_s = r.as_secs_f64();
        let mut done: Vec<JobId> = Vec::new();
        for job in self.table.iter_mut() {
            if !job.is_running() {
                continue;
            }
            let st = &mut self.state[job.id.index()];
            while st.credited_to < t {
                st.credited_to += r;
                // Blox: `iters * speed + executed` for Optimus, `executed + iters` otherwise.
                // IEEE addition is commutative and `iters * 1.0 == iters`, so one form serves.
                job.executed += r_s * st.speed;
                job.attained_service += r_s;
            }
            if !st.responded {
                st.responded = true;
                sink.on_event(&Event::FirstProgress {
                    time: t,
                    job: job.id,
                });
            }
            if job.executed >= job.spec.work_s {
                done.push(job.id);
            }
        }
        for id in done {
            self.complete(id, t, sink);
        }
        if self.tracked_complete() {
            Step::Finished
        } else {
            Step::Continue
        }
    }

    /// Complete a job: its GPUs are freed at once; it leaves the table at the next
    /// [`Run::flush_completed`] (one pass for all of a step's completions).
    fn complete<M: MetricSink + ?Sized>(&mut self, id: JobId, time: Time, sink: &mut M) {
        if let Some(job) = self.table.get_mut(id) {
            let gpus = std::mem::take(&mut job.gpus);
            if !gpus.is_empty() {
                self.running_jobs -= 1;
            }
            self.cluster.release(&gpus);
            self.state[id.index()].finished = true;
            self.pending_removal = true;
            self.outcome.completed += 1;
            self.last_completion = self.last_completion.max(time);
            if self.cfg.track.is_some_and(|w| w.contains(id)) {
                self.tracked_done += 1;
            }
            sink.on_event(&Event::Completed { time, job: id });
        }
    }

    /// Drop completed jobs from the table.
    fn flush_completed(&mut self) {
        if std::mem::take(&mut self.pending_removal) {
            let state = &self.state;
            self.table.retain(|j| !state[j.id.index()].finished);
        }
    }

    /// Exact: complete every job whose true finish time is at or before `t`, in time order.
    fn complete_exact_until<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        sink: &mut M,
    ) -> Result<Step, SimError> {
        while let Some(&Reverse((finish, id, start))) = self.finishes.peek() {
            if finish > t {
                break;
            }
            self.finishes.pop();
            let live = self
                .table
                .get(id)
                .is_some_and(|j| j.is_running() && j.last_start == Some(start));
            if !live {
                continue;
            }
            self.now = finish;
            self.credit_exact_job(id, finish);
            if let Some(job) = self.table.get_mut(id) {
                job.executed = job.spec.work_s;
            }
            self.complete(id, finish, sink);
            if self.tracked_complete() {
                return Ok(Step::Finished);
            }
        }
        self.now = t;
        Ok(Step::Continue)
    }

    fn credit_exact(&mut self, t: Time) {
        for job in self.table.iter_mut() {
            if job.is_running() {
                credit_exact(job, &mut self.state[job.id.index()], t);
            }
        }
    }

    fn credit_exact_job(&mut self, id: JobId, t: Time) {
        if let Some(job) = self.table.get_mut(id) {
            credit_exact(job, &mut self.state[id.index()], t);
        }
    }

    fn fetch_and_admit<S: Scheduler + ?Sized, M: MetricSink + ?Sized, W: Workload + ?Sized>(
        &mut self,
        t: Time,
        scheduler: &mut S,
        sink: &mut M,
        workload: &mut W,
    ) -> Result<(), SimError> {
        self.arrivals.clear();
        workload.arrivals_until(t, &mut self.arrivals)?;
        let total = self.cluster.total_gpus();
        for spec in self.arrivals.drain(..) {
            if spec.n_gpus == 0 || spec.n_gpus > total {
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
            self.outcome.arrived += 1;
            sink.on_event(&Event::Arrived {
                time: t,
                seq,
                spec: &spec,
            });
            self.queue.push(QueuedJob { seq, spec });
        }
        if self.queue.is_empty() {
            return Ok(());
        }
        self.admissions.clear();
        {
            let ctx = make_ctx(self.cfg, &self.cluster, &self.table, t);
            scheduler.admit(&ctx, &self.queue, &mut self.admissions);
        }
        let mut taken = vec![false; self.queue.len()];
        for &i in self.admissions.admit.iter().chain(&self.admissions.reject) {
            if i >= self.queue.len() || std::mem::replace(&mut taken[i], true) {
                return Err(SimError::InvalidDecision {
                    component: format!("admission policy `{}`", scheduler.name()),
                    time_s: t.to_string(),
                    message: format!(
                        "queue index {i} is out of range or listed twice (queue has {} jobs)",
                        self.queue.len()
                    ),
                });
            }
        }
        let mut admitted = std::mem::take(&mut self.admissions.admit);
        for &i in &admitted {
            let q = &self.queue[i];
            let id = JobId(self.state.len() as u32);
            self.state.push(RunState::default());
            self.outcome.admitted += 1;
            sink.on_event(&Event::Admitted {
                time: t,
                seq: q.seq,
                job: id,
            });
            self.table.push(Job::new(id, q.spec.clone(), t));
        }
        for &i in &self.admissions.reject {
            self.outcome.rejected += 1;
            sink.on_event(&Event::Rejected {
                time: t,
                seq: self.queue[i].seq,
            });
        }
        let mut i = 0;
        self.queue.retain(|_| {
            i += 1;
            !taken[i - 1]
        });
        admitted.clear();
        self.admissions.admit = admitted;
        Ok(())
    }

    /// Steps 4–5: schedule, place, validate and apply. Returns whether any job started.
    fn decide<S: Scheduler + ?Sized, T: ThroughputModel + ?Sized, M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        scheduler: &mut S,
        throughput: &T,
        sink: &mut M,
    ) -> Result<bool, SimError> {
        self.schedule.clear();
        self.decisions.clear();
        {
            let ctx = make_ctx(self.cfg, &self.cluster, &self.table, t);
            scheduler.schedule(&ctx, &mut self.schedule);
            scheduler.place(&ctx, &self.schedule, &mut self.decisions);
        }
        self.validate(t, scheduler)?;
        let d = std::mem::take(&mut self.decisions);
        let blox = self.blox();

        // In exact semantics a stop undone by a start on the same GPUs is no change.
        let mut kept: Vec<JobId> = Vec::new();
        if !blox {
            for &id in &d.stop {
                let job = self.table.get(id).expect("validated");
                if d.start
                    .iter()
                    .any(|(s, g)| *s == id && same_gpus(g, &job.gpus))
                {
                    kept.push(id);
                }
            }
        }
        let counted = d.stop.len() - kept.len();
        if blox {
            let running = self.running_jobs - d.stop.len();
            let s = self.sample(t, running as u32, d.stop.len() as u32);
            sink.on_event(&Event::Round(s));
        }
        for &id in &d.stop {
            self.state[id.index()].touched = t;
            if kept.contains(&id) {
                continue;
            }
            if !blox {
                self.credit_exact_job(id, t);
            }
            let job = self.table.get_mut(id).expect("validated");
            let gpus = std::mem::take(&mut job.gpus);
            job.preemptions += 1;
            self.running_jobs -= 1;
            self.cluster.release(&gpus);
            sink.on_event(&Event::Preempted {
                time: t,
                job: id,
                counted: true,
            });
        }
        self.outcome.preemptions += counted as u64;
        let mut started = false;
        for (id, gpus) in &d.start {
            self.state[id.index()].touched = t;
            if kept.contains(id) {
                continue;
            }
            started = true;
            self.start(*id, gpus, t, throughput, sink)?;
        }
        // The state after this round's decisions: the exact-mode sample, and what a skipped
        // round repeats in either mode.
        debug_assert_eq!(
            self.running_jobs,
            self.table.iter().filter(|j| j.is_running()).count()
        );
        let running = self.running_jobs as u32;
        let after = self.sample(t, running, counted as u32);
        if !blox {
            sink.on_event(&Event::Round(after));
        }
        let mut steady = after;
        steady.preemptions = 0;
        self.last_sample = Some(steady);
        self.decisions = d;
        Ok(started)
    }

    fn sample(&self, t: Time, running: u32, preemptions: u32) -> RoundSample {
        let s = RoundSample::new(
            t,
            self.table.len() as u32 - running,
            running,
            self.queue.len() as u32,
            self.cluster.free_gpus(),
            self.table.gpu_demand(),
            preemptions,
        );
        if self.events.is_some() {
            s.with_available_gpus(self.cluster.available_gpus())
        } else {
            s
        }
    }

    fn start<T: ThroughputModel + ?Sized, M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        gpus: &GpuSet,
        t: Time,
        throughput: &T,
        sink: &mut M,
    ) -> Result<(), SimError> {
        let blox = self.blox();
        let r = self.cfg.round;
        let cost = self.cfg.preemption_cost;
        self.cluster.allocate(id, gpus);
        self.running_jobs += 1;
        let job = self.table.get_mut(id).expect("validated");
        job.gpus = gpus.clone();
        job.time_since_scheduled = Time::ZERO;
        job.last_start = Some(t);
        if job.first_start.is_none() {
            job.first_start = Some(t);
        }
        let job = self.table.get(id).expect("validated");
        let speed = throughput.speed(job, gpus, &self.cluster);
        if !(speed.is_finite() && speed > 0.0) {
            return Err(SimError::InvalidDecision {
                component: format!("throughput model `{}`", throughput.name()),
                time_s: t.to_string(),
                message: format!("speed {speed} for job {id} is not a positive number"),
            });
        }
        let st = &mut self.state[id.index()];
        let resumed = st.started;
        st.started = true;
        st.executed_at_start = job.executed;
        st.speed = speed;
        st.credited_to = t;
        if blox {
            // Blox credits `R` per round from the next round on; find the round whose credit
            // reaches the total, with the same operation order the credit loop uses.
            let step = r.as_secs_f64();
            let mut x = job.executed;
            let mut k: u64 = 0;
            loop {
                x += step * speed;
                k += 1;
                if x >= job.spec.work_s || k >= 100_000_000 {
                    break;
                }
            }
            st.finish = t + Time(k * r.as_millis());
        } else {
            st.stall_until = if resumed { t + cost } else { t };
            let secs = job.remaining_work() / speed;
            let dur = Time::from_secs_f64_ceil(secs).unwrap_or(Time::MAX);
            st.finish = st.stall_until + dur;
            self.finishes.push(Reverse((st.finish, id, t)));
        }
        sink.on_event(&Event::Started {
            time: t,
            job: id,
            gpus,
            speed,
        });
        if !blox && !st.responded {
            st.responded = true;
            sink.on_event(&Event::FirstProgress { time: t, job: id });
        }
        Ok(())
    }

    /// Check a placement's decisions against the live state before anything is applied.
    fn validate<S: Scheduler + ?Sized>(&mut self, t: Time, scheduler: &S) -> Result<(), SimError> {
        self.decisions
            .validate(&self.cluster, &self.table, &mut self.scratch)
            .map_err(|message| SimError::InvalidDecision {
                component: format!("scheduler `{}`", scheduler.name()),
                time_s: t.to_string(),
                message,
            })
    }

    /// Step 6: starvation counters.
    fn age(&mut self, t: Time) {
        if self.running_jobs == self.table.len() {
            // Every job runs: their counters were reset when they started.
            return;
        }
        let r = self.cfg.round;
        let threshold = self.cfg.starvation;
        for job in self.table.iter_mut() {
            if job.is_running() || self.state[job.id.index()].touched == t {
                job.time_since_scheduled = Time::ZERO;
            } else {
                job.time_since_scheduled += r;
                if threshold.is_some_and(|th| job.time_since_scheduled >= th) {
                    job.priority = PRIORITY_STARVED;
                }
            }
        }
    }

    fn check_stall(&mut self, t: Time) -> Result<(), SimError> {
        let running = self.running_jobs > 0;
        if running
            || (self.running_jobs == self.table.len() && self.queue.is_empty())
            || self.waits_for_cluster()
        {
            self.idle_rounds = 0;
            return Ok(());
        }
        let waiting = self.table.iter().find(|j| !j.is_running());
        self.idle_rounds += 1;
        if self.idle_rounds >= STALL_ROUNDS {
            let what = match waiting {
                Some(j) => format!(
                    "job {} (arrival {} s, {} GPUs) has waited on an idle cluster of {} GPUs for \
                     {STALL_ROUNDS} rounds up to t={t} s; the placement can never start it",
                    j.id,
                    j.arrival(),
                    j.n_gpus(),
                    self.cluster.total_gpus()
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

    /// The next round in which anything can change.
    fn next_round<W: Workload + ?Sized>(
        &mut self,
        t: Time,
        started: bool,
        workload: &mut W,
    ) -> Result<Time, SimError> {
        let r = self.cfg.round;
        let next = t + r;
        let busy = !self.queue.is_empty() || self.running_jobs < self.table.len();
        if busy || (started && self.blox()) {
            return Ok(next);
        }
        let mut target = Time::MAX;
        if let Some(a) = workload.next_arrival()? {
            target = target.min(a.ceil_to(r).max(next));
        }
        if self.blox() {
            for job in self.table.iter() {
                target = target.min(self.state[job.id.index()].finish.max(next));
            }
        } else {
            while let Some(&Reverse((finish, id, start))) = self.finishes.peek() {
                let live = self
                    .table
                    .get(id)
                    .is_some_and(|j| j.is_running() && j.last_start == Some(start));
                if live {
                    // Its completion frees GPUs between rounds; nothing waits for them, so the
                    // next decision is only needed when something arrives, but the completion
                    // itself must be processed in time order: stop at its round.
                    target = target.min(finish.ceil_to(r).max(next));
                    break;
                }
                self.finishes.pop();
            }
        }
        if let Some(e) = self.next_cluster_event() {
            target = target.min(e.ceil_to(r).max(next));
        }
        if target == Time::MAX {
            // Nothing will ever happen again: the caller's end check stops the run next round.
            return Ok(next);
        }
        Ok(target)
    }
}

mod nodes;

fn make_ctx<'a>(cfg: &SimConfig, cluster: &'a Cluster, table: &'a JobTable, t: Time) -> Ctx<'a> {
    let r = cfg.round;
    Ctx::new(
        t,
        t.as_millis() / r.as_millis(),
        r,
        cfg.semantics,
        cluster,
        table,
    )
}

fn credit_exact(job: &mut Job, st: &mut RunState, t: Time) {
    if t <= st.credited_to {
        return;
    }
    let from = st.credited_to.max(st.stall_until);
    if t > from {
        job.executed = (job.executed + st.speed * (t - from).as_secs_f64()).min(job.spec.work_s);
    }
    job.attained_service += f64::from(job.spec.n_gpus) * (t - st.credited_to).as_secs_f64();
    st.credited_to = t;
}

fn same_gpus(a: &[GpuId], b: &[GpuId]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut x: Vec<GpuId> = a.to_vec();
    let mut y: Vec<GpuId> = b.to_vec();
    x.sort_unstable();
    y.sort_unstable();
    x == y
}
