//! The real round loop: the same [`Scheduler`] as in simulation, over an [`Executor`].
//!
//! # The loop
//!
//! Every tick (100 ms) the loop polls the executor (starts, progress, exits), applies cancel
//! requests, credits attained service, and launches placed jobs whose GPUs have been drained by
//! their previous holders. Every round (`--round`)
//! it does what the simulator's round does, in the same order: arrivals (new submissions),
//! admission, scheduling, placement (validated like the simulator validates it: no GPU twice,
//! none busy, no unknown job, rigid sizes kept; every stop before any start; a stop undone by a
//! start on the same GPUs is no change), the round sample, then the starvation counters.
//!
//! A stop frees the job's GPUs in the scheduler's view at once (as in simulation); the executor
//! sends the preemption signal and kills the job after the grace period, and a launch on those
//! GPUs waits until the victim has exited (Blox's node manager waits the same way).
//!
//! # Attained service
//!
//! Jobs carry the simulator's facts, [`Job::attained_gpu_s`] and [`Job::attained_wall_s`],
//! but real service is what a job did, not how long its process existed: a job that reports
//! iterations (submitted with `total_iterations` and a known amount of work) is credited its
//! nominal work per iteration (work ÷ iterations) for every iteration it reports beyond what
//! was already credited, times its GPUs for the GPU-seconds; when it exits successfully the
//! iterations it did not get to report are credited too, so a completed job's service is its
//! work exactly. Any other job is credited wall-clock time while its launch is working (from
//! its `started` line or first progress report; see [`lease`]) until it is stopped. Process
//! start-up, checkpoint restore and the drain after a preemption signal are never service.
//! `executed` (the work done, which SRTF-like policies read) comes from the iterations
//! reported, or from the same working time.
//!
//! # Leases
//!
//! A launch that has started working may not be preempted by the scheduler until it has
//! worked for `--min-run` (by default one round): the round's stops of such jobs are deferred
//! by the server (the driver's [`Host`]) and the jobs keep running, together with any start
//! that needed their GPUs. Without it, a policy such as LAS, whose order changes as soon as a
//! job has run, preempts every launch at the next round, however little of it ran. The
//! details are in [`lease`].
//!
//! # State
//!
//! Every change is written to SQLite before the next tick: job states, the loop's per-job
//! record (progress, attained service, preemptions, the live launch's handle) and the event log.
//! A restarted server replays the event log into its metric sinks, rebuilds the job table and
//! the cluster, and asks the executor to adopt every live launch; a launch it cannot find is
//! requeued (it resumes from its checkpoint at its next start).

use crate::model::{JobState, LiveRecord, RunRecord, Submission};
use crate::store::{unix_ms, Store, StoredEvent};
use crate::ClusterError;
use crate::{ExecEvent, Executor, ExitStatus, Launch};
use blox_core::{
    Cluster, Ctx, Decisions, Event, GpuId, GpuSet, Job, JobId, JobTable, MetricSink, QueuedJob,
    RoundSample, Scheduler, Time, PRIORITY_STARVED,
};
use blox_metrics::{write_jobs_csv_with, write_timeline_csv_with, JobLog, RunMetrics, Timeline};
use blox_sim::{DecisionError, Driver, Host};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How the loop runs.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    /// Round length.
    pub round: Duration,
    /// Time between a preemption signal and the kill.
    pub grace: Duration,
    /// The lease: how long a launch must have been working before the scheduler may preempt
    /// it (zero: no lease). See the module docs.
    pub min_run: Duration,
    /// How often the executor is polled.
    pub tick: Duration,
    /// Waiting time after which a job is promoted to the starved class (`None`: never).
    pub starvation: Option<Time>,
    /// Folder of `jobs.csv`, `summary.json`, `timeline.csv`.
    pub out: PathBuf,
    /// Stop once every submitted job has ended (and at least one was submitted).
    pub exit_when_done: bool,
    /// What `summary.json` reports as the configuration.
    pub label: serde_json::Value,
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunCounters {
    /// Rounds processed by this server process.
    pub rounds: u64,
    /// Jobs that arrived.
    pub arrived: u64,
    /// Jobs admitted.
    pub admitted: u64,
    /// Jobs rejected by admission.
    pub rejected: u64,
    /// Jobs completed.
    pub completed: u64,
    /// Jobs failed.
    pub failed: u64,
    /// Jobs cancelled.
    pub cancelled: u64,
    /// Preemptions.
    pub preemptions: u64,
    /// Stops the scheduler decided that were not applied because the job was within its lease
    /// (or its move to other GPUs waited on another job's lease); the job kept running. Counted
    /// by this server process.
    pub lease_kept: u64,
    /// Launches adopted after a restart.
    pub adopted: u64,
    /// Launches requeued because they could not be found after a restart, or vanished (e.g.
    /// their node went down).
    pub requeued: u64,
}

struct Entry {
    state: JobState,
    sub: Submission,
    submitted_ms: u64,
    run: RunRecord,
    cancelling: bool,
}

struct Live {
    attempt: u32,
    gpus: GpuSet,
    stopping: bool,
    /// When it was launched (or adopted).
    launched: Time,
    /// When it first said it works (its `started` line or a progress report).
    working: Option<Time>,
    /// The job's iteration count up to which this launch's service has been credited.
    credited_iter: u64,
    /// Why the executor is ending it, when it fails for a reason of the executor's
    /// ([`ExecEvent::Failing`]): the job then fails with it.
    failure: Option<String>,
}

/// The loop: a scheduler, the one round driver (`blox_sim::Driver`, the same as the simulator's)
/// and the server state it drives.
pub struct RoundLoop<S, E> {
    scheduler: S,
    driver: Driver,
    st: Server<E>,
}

/// The server state: everything but the scheduler. It is the round driver's [`Host`]: it applies
/// the validated decisions to the executor and records every change.
struct Server<E> {
    cfg: LoopConfig,
    exec: E,
    store: Store,
    epoch: u64,
    now: Time,
    round_len: Time,
    next_round: Time,
    cluster: Cluster,
    table: JobTable,
    queue: Vec<QueuedJob>,
    queue_rows: Vec<i64>,
    entries: BTreeMap<i64, Entry>,
    rows: BTreeMap<JobId, i64>,
    lives: BTreeMap<JobId, Live>,
    credited_to: BTreeMap<JobId, Time>,
    touched: BTreeSet<JobId>,
    dirty: BTreeSet<i64>,
    events: Vec<StoredEvent>,
    sinks: (JobLog, Timeline),
    next_seq: u64,
    next_id: u32,
    counters: RunCounters,
    exec_events: Vec<ExecEvent>,
    ever_submitted: bool,
    /// Nodes out of service now, and how they left.
    down: BTreeMap<blox_core::NodeId, blox_core::NodeChange>,
    /// Node events and failures of this server process (for the outputs).
    cluster_log: blox_metrics::ClusterLog,
    /// The lease (`LoopConfig::min_run`).
    min_run: Time,
    /// This round's decisions that the leases keep from being applied.
    deferred: lease::Deferred,
    /// The error of the last write to the state database, while it fails (changes are then
    /// held in memory; see [`RoundLoop::tick`]).
    unsaved: Option<String>,
    /// The error of the last write of the outputs, while it fails.
    outputs_error: Option<String>,
}

fn gpus_u32(g: &[GpuId]) -> Vec<u32> {
    g.iter().map(|g| g.0).collect()
}

impl<S: Scheduler, E: Executor> RoundLoop<S, E> {
    /// Open the state database and rebuild the loop's state from it (a fresh database starts an
    /// empty run).
    pub fn new(
        cfg: LoopConfig,
        scheduler: S,
        mut exec: E,
        db: &Path,
    ) -> Result<Self, ClusterError> {
        if cfg.round.is_zero() {
            return Err(ClusterError::Config("--round must be positive".into()));
        }
        let store = Store::open(db)?;
        let epoch = store.epoch()?;
        let inventory = exec.inventory().clone();
        if inventory.total_gpus() == 0 {
            return Err(ClusterError::Config("the cluster has no GPUs".into()));
        }
        let mut cluster = Cluster::new(inventory.cluster_spec());
        let now = Time(unix_ms().saturating_sub(epoch));
        let mut sinks = (JobLog::default(), Timeline::default());
        let mut counters = RunCounters::default();
        let (events, problems) = store.events_checked()?;
        for p in &problems {
            eprintln!("blox-cluster: {}: event log: {p}", db.display());
        }
        let mut replay = Replay::default();
        let mut checked = Vec::with_capacity(events.len());
        for e in events {
            replay.check(e, &mut checked);
        }
        for e in checked {
            match &e {
                StoredEvent::Arrived { .. } => counters.arrived += 1,
                StoredEvent::Admitted { .. } => counters.admitted += 1,
                StoredEvent::Rejected { .. } => counters.rejected += 1,
                StoredEvent::Completed { .. } => counters.completed += 1,
                StoredEvent::Preempted { .. } => counters.preemptions += 1,
                _ => {}
            }
            e.replay(&mut |ev| sinks.on_event(ev));
        }
        let mut entries = BTreeMap::new();
        let mut rows = BTreeMap::new();
        let mut lives = BTreeMap::new();
        let mut credited_to = BTreeMap::new();
        let mut queued: Vec<(u64, i64, QueuedJob)> = Vec::new();
        let mut jobs: Vec<Job> = Vec::new();
        let mut dirty = BTreeSet::new();
        let mut ever_submitted = false;
        let mut failed_on_load = Vec::new();
        for row in store.jobs()? {
            ever_submitted = true;
            if let Some(r) = &row.repaired {
                eprintln!(
                    "blox-cluster: job {}: unreadable field(s) of its run record replaced by \
                     defaults: {r}",
                    row.id
                );
                dirty.insert(row.id);
            }
            if let Some(why) = row.unreadable.clone() {
                // A job not over yet, or whose state itself is unreadable (the reason then
                // starts with `state`), fails with the reason; an ended one keeps its state.
                if !row.state.is_terminal() || why.starts_with("state ") {
                    failed_on_load.push((row, why));
                    continue;
                }
                eprintln!(
                    "blox-cluster: job {} ({}): {why}",
                    row.id,
                    row.state.as_str()
                );
            }
            let mut e = Entry {
                state: row.state,
                sub: row.submission,
                submitted_ms: row.submitted_ms,
                run: row.run,
                cancelling: false,
            };
            match e.state {
                JobState::Failed => counters.failed += 1,
                JobState::Cancelled => counters.cancelled += 1,
                _ => {}
            }
            let spec = e.sub.to_spec(Time(e.submitted_ms));
            match e.state {
                JobState::Queued => {
                    let seq = e.run.seq.unwrap_or(0);
                    queued.push((seq, row.id, QueuedJob::new(seq, spec)));
                }
                JobState::Waiting | JobState::Starting | JobState::Running | JobState::Stopping => {
                    let id = JobId(e.run.blox_id.ok_or_else(|| {
                        ClusterError::State(format!("job {} is admitted but has no id", row.id))
                    })?);
                    let mut job = Job::new(id, spec, Time(e.run.admitted_ms.unwrap_or(0)));
                    job.executed = e.run.executed;
                    job.attained_gpu_s = e.run.attained;
                    job.attained_wall_s = e
                        .run
                        .attained_wall
                        .unwrap_or_else(|| e.run.attained / f64::from(job.spec.n_gpus.max(1)));
                    job.preemptions = e.run.preemptions;
                    job.priority = e.run.priority;
                    job.time_since_scheduled = Time(e.run.time_since_scheduled_ms);
                    job.first_start = e.run.first_start_ms.map(Time);
                    job.last_start = e.run.last_start_ms.map(Time);
                    let mut adopted = None;
                    if let Some(live) = e.run.live.clone() {
                        let gpus: Vec<GpuId> = live.gpus.iter().map(|&g| GpuId(g)).collect();
                        let launch = Launch::new(
                            id,
                            live.attempt,
                            &job.spec,
                            &e.sub.command,
                            &gpus,
                            live.attempt > 0,
                        )
                        .with_total_iterations(e.sub.total_iterations);
                        if exec
                            .adopt(&launch, &live.handle)
                            .map_err(|x| ClusterError::Exec(x.0))?
                        {
                            counters.adopted += 1;
                            if live.stopping {
                                exec.preempt(id, cfg.grace)
                                    .map_err(|x| ClusterError::Exec(x.0))?;
                            }
                            adopted = Some(live);
                        } else {
                            counters.requeued += 1;
                            e.run.live = None;
                            eprintln!(
                                "blox-cluster: job {id}: launch not found after restart; requeued"
                            );
                        }
                    }
                    let mut assigned: Vec<u32> = e.run.gpus.clone();
                    if e.state == JobState::Running && adopted.is_none() {
                        assigned.clear();
                    }
                    let gs: GpuSet = assigned.iter().map(|&g| GpuId(g)).collect();
                    if gs
                        .iter()
                        .all(|&g| cluster.contains(g) && cluster.owner(g).is_none())
                        && !gs.is_empty()
                    {
                        cluster.allocate(id, &gs);
                        job.gpus = gs;
                    }
                    e.run.gpus = gpus_u32(&job.gpus);
                    if let Some(live) = &adopted {
                        lives.insert(
                            id,
                            Live {
                                attempt: live.attempt,
                                gpus: live.gpus.iter().map(|&g| GpuId(g)).collect(),
                                stopping: live.stopping,
                                launched: now,
                                working: Some(now),
                                credited_iter: e.run.iterations,
                                failure: None,
                            },
                        );
                    }
                    credited_to.insert(id, now);
                    e.state = match (&adopted, job.gpus.is_empty()) {
                        (Some(l), _) if l.stopping => JobState::Stopping,
                        (Some(_), false) => JobState::Running,
                        (None, false) => JobState::Starting,
                        (_, true) => JobState::Waiting,
                    };
                    dirty.insert(row.id);
                    rows.insert(id, row.id);
                    jobs.push(job);
                }
                _ => {}
            }
            entries.insert(row.id, e);
        }
        for (row, why) in failed_on_load {
            // A job whose record cannot be read cannot be run (nor its launch adopted): it
            // fails with the reason, and the server goes on with the others.
            let reason = format!("unreadable state record: {why}");
            eprintln!("blox-cluster: job {}: {reason}; marked failed", row.id);
            if let Some(live) = &row.run.live {
                eprintln!(
                    "blox-cluster: job {}: its launch (attempt {}, handle {}) is not adopted",
                    row.id, live.attempt, live.handle
                );
            }
            let mut run = row.run;
            run.live = None;
            run.gpus.clear();
            run.exit_status = Some(reason);
            counters.failed += 1;
            dirty.insert(row.id);
            entries.insert(
                row.id,
                Entry {
                    state: JobState::Failed,
                    sub: row.submission,
                    submitted_ms: row.submitted_ms,
                    run,
                    cancelling: false,
                },
            );
        }
        jobs.sort_by_key(|j| j.id);
        let mut table = JobTable::new();
        for j in jobs {
            table.push(j);
        }
        queued.sort_by_key(|q| q.0);
        let (queue_rows, queue) = queued.into_iter().map(|(_, r, q)| (r, q)).unzip();
        // The next numbers follow the event log as replayed (the metric sinks number arrivals
        // and admissions the same way).
        let (next_seq, next_id) = (replay.next_seq, replay.next_id);
        let round_len = Time(cfg.round.as_millis().max(1) as u64);
        let min_run = Time(u64::try_from(cfg.min_run.as_millis()).unwrap_or(u64::MAX));
        let mut rl = RoundLoop {
            scheduler,
            driver: Driver::new(),
            st: Server {
                cfg,
                exec,
                store,
                epoch,
                now,
                round_len,
                next_round: now,
                cluster,
                table,
                queue,
                queue_rows,
                entries,
                rows,
                lives,
                credited_to,
                touched: BTreeSet::new(),
                dirty,
                events: Vec::new(),
                sinks,
                next_seq,
                next_id,
                counters,
                exec_events: Vec::new(),
                ever_submitted,
                down: BTreeMap::new(),
                cluster_log: blox_metrics::ClusterLog::new(inventory.total_gpus()),
                min_run,
                deferred: lease::Deferred::default(),
                unsaved: None,
                outputs_error: None,
            },
        };
        // What loading decided (jobs failed for an unreadable record, fields replaced by
        // defaults) is written before the API serves the state, so that no client reads a
        // job that can no longer run as still running.
        rl.st.save();
        Ok(rl)
    }

    /// The run's counters so far.
    pub fn counters(&self) -> &RunCounters {
        &self.st.counters
    }

    /// Run until `stop` is set, or (with `exit_when_done`) until every job has ended. Jobs
    /// still running when the loop stops keep running; a restarted loop adopts them.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), ClusterError> {
        loop {
            self.tick()?;
            let done = self.st.cfg.exit_when_done && self.st.done() && self.st.unsaved.is_none();
            if stop.load(Ordering::SeqCst) || done {
                self.write_outputs()?;
                return Ok(());
            }
            std::thread::sleep(self.st.cfg.tick);
        }
    }

    /// One tick: poll, cancel, credit, launch, and a round when one is due.
    ///
    /// When the state database cannot be written (a full disk, a lock held too long), the
    /// server does not stop: it keeps watching its launches and keeps every change in memory,
    /// but decides and launches nothing new (a launch the database does not know of could run
    /// twice after a restart) until a write succeeds; it retries every tick.
    pub fn tick(&mut self) -> Result<(), ClusterError> {
        let st = &mut self.st;
        let wall = Time(unix_ms().saturating_sub(st.epoch));
        st.now = st.now.max(wall);
        let now = st.now;
        st.poll(now)?;
        if st.unsaved.is_some() {
            st.credit(now);
            st.save();
            return Ok(());
        }
        st.cancels(now)?;
        st.credit(now);
        st.launch_ready(now)?;
        if now >= self.st.next_round {
            self.round(now)?;
            let st = &mut self.st;
            st.launch_ready(now)?;
            st.next_round = Time((now.0 / st.round_len.0 + 1) * st.round_len.0);
            st.save();
            if let Err(e) = self.write_outputs() {
                // The outputs are rewritten every round: report, and try again next round.
                let msg = e.to_string();
                if self.st.outputs_error.as_ref() != Some(&msg) {
                    eprintln!("blox-cluster: outputs not written: {msg}");
                    self.st.outputs_error = Some(msg);
                }
            } else {
                self.st.outputs_error = None;
            }
        } else {
            self.st.save();
        }
        Ok(())
    }

    /// A round: arrivals, then the round protocol through the driver (admission, scheduling,
    /// placement, validation, apply, the round sample), then the starvation counters.
    fn round(&mut self, t: Time) -> Result<(), ClusterError> {
        self.st.arrivals(t)?;
        self.driver.admit(&mut self.scheduler, &mut self.st, t)?;
        self.driver
            .decide(&mut self.scheduler, &mut self.st, t, true)?;
        self.st.age(t);
        Ok(())
    }

    /// Write `jobs.csv`, `timeline.csv` and `summary.json` (each through a temporary file).
    pub fn write_outputs(&self) -> Result<(), ClusterError> {
        self.st.write_outputs(&self.scheduler.name())
    }
}

impl<E: Executor> Server<E> {
    fn done(&self) -> bool {
        self.ever_submitted
            && self.entries.values().all(|e| e.state.is_terminal())
            && self.lives.is_empty()
    }

    fn emit(&mut self, e: &Event<'_>) {
        self.sinks.on_event(e);
        self.cluster_log.on_event(e);
        if let Some(s) = StoredEvent::capture(e) {
            self.events.push(s);
        }
    }

    fn entry(&mut self, id: JobId) -> Option<(i64, &mut Entry)> {
        let row = *self.rows.get(&id)?;
        self.dirty.insert(row);
        self.entries.get_mut(&row).map(|e| (row, e))
    }

    fn set_state(&mut self, id: JobId, state: JobState) {
        if let Some((_, e)) = self.entry(id) {
            e.state = state;
        }
    }

    /// Credit wall-clock service up to `now` to running jobs that do not report iterations
    /// (those that do are credited from their progress reports, in [`Server::poll`]): only
    /// while their launch is working, so process start-up is not service.
    fn credit(&mut self, now: Time) {
        for mut job in self.table.iter_mut() {
            let Some(from) = self.credited_to.get_mut(&job.id) else {
                continue;
            };
            let live = self.lives.get(&job.id).filter(|l| !l.stopping);
            let sub = self
                .rows
                .get(&job.id)
                .and_then(|r| self.entries.get(r))
                .map(|e| &e.sub);
            if let (true, Some(live), Some(sub)) = (job.is_running(), live, sub) {
                let begin = (*from).max(live.working_from());
                if now > begin {
                    let dt = (now - begin).as_secs_f64();
                    if service_per_iteration(sub).is_none() {
                        job.attained_gpu_s += f64::from(job.spec.n_gpus) * dt;
                        job.attained_wall_s += dt;
                    }
                    if sub.total_iterations.is_none() {
                        job.executed = (job.executed + dt).min(job.spec.work_s);
                    }
                }
            }
            *from = now;
        }
    }

    fn poll(&mut self, now: Time) -> Result<(), ClusterError> {
        let mut evs = std::mem::take(&mut self.exec_events);
        evs.clear();
        self.exec
            .poll(&mut evs)
            .map_err(|e| ClusterError::Exec(e.0))?;
        for ev in evs.drain(..) {
            match ev {
                ExecEvent::Started { job, attempt } => {
                    if let Some(l) = self.lives.get_mut(&job).filter(|l| l.attempt == attempt) {
                        l.working.get_or_insert(now);
                    }
                }
                ExecEvent::Progress {
                    job,
                    attempt,
                    iterations,
                } => {
                    let Some(live) = self.lives.get_mut(&job).filter(|l| l.attempt == attempt)
                    else {
                        continue;
                    };
                    live.working.get_or_insert(now);
                    // Service is the progress this launch made beyond what was already
                    // credited (iterations redone after a resume from an older checkpoint are
                    // not counted twice).
                    let gained = iterations.saturating_sub(live.credited_iter);
                    live.credited_iter = live.credited_iter.max(iterations);
                    let sub = self
                        .rows
                        .get(&job)
                        .and_then(|r| self.entries.get(r))
                        .map(|e| &e.sub);
                    let total = sub.and_then(|s| s.total_iterations);
                    let per_iteration = sub.and_then(service_per_iteration);
                    if let Some((_, e)) = self.entry(job) {
                        e.run.iterations = iterations;
                    }
                    if let Some(mut j) = self.table.get_mut(job) {
                        if let Some(total) = total {
                            j.executed = (iterations as f64 / total as f64 * j.spec.work_s)
                                .min(j.spec.work_s);
                        }
                        if let Some(per) = per_iteration {
                            let s = gained as f64 * per;
                            j.attained_wall_s += s;
                            j.attained_gpu_s += s * f64::from(j.spec.n_gpus);
                        }
                    }
                }
                ExecEvent::Failing {
                    job,
                    attempt,
                    reason,
                } => {
                    if let Some(l) = self.lives.get_mut(&job).filter(|l| l.attempt == attempt) {
                        eprintln!("blox-cluster: job {job} attempt {attempt}: {reason}");
                        l.failure = Some(reason);
                    }
                }
                ExecEvent::Exited {
                    job,
                    attempt,
                    status,
                } => {
                    if self.lives.get(&job).map(|l| l.attempt) != Some(attempt) {
                        continue;
                    }
                    let live = self.lives.remove(&job).expect("checked");
                    let running_now = self.table.get(job).is_some_and(|j| j.is_running());
                    // It reported every iteration: its work is done, even if the stop signal
                    // ended it while it was exiting (it must not run again).
                    let all_reported = self
                        .rows
                        .get(&job)
                        .and_then(|r| self.entries.get(r))
                        .and_then(|e| e.sub.total_iterations)
                        .is_some_and(|total| live.credited_iter >= total);
                    let cancelling = self.entry(job).is_some_and(|(_, e)| e.cancelling);
                    if let Some((_, e)) = self.entry(job) {
                        e.run.live = None;
                        e.run.exit_status = Some(status.to_string());
                    }
                    if cancelling {
                        self.counters.cancelled += 1;
                        self.set_state(job, JobState::Cancelled);
                    } else if let Some(reason) = &live.failure {
                        // Ended by the executor for a failure of its own (e.g. its log could
                        // not be written): the job fails with the reason, and only it.
                        if let Some(j) = self.table.remove(job) {
                            self.cluster.release(&j.gpus);
                        }
                        self.counters.failed += 1;
                        if let Some((_, e)) = self.entry(job) {
                            e.state = JobState::Failed;
                            e.run.exit_status = Some(format!("{reason} ({status})"));
                        }
                    } else if live.stopping && !status.success() && !all_reported {
                        let st = if running_now {
                            JobState::Starting
                        } else {
                            JobState::Waiting
                        };
                        self.set_state(job, st);
                    } else if status == ExitStatus::Lost && running_now {
                        // The launch vanished (e.g. its node went down): requeue the job; it
                        // resumes from its checkpoint at its next start.
                        eprintln!("blox-cluster: job {job} attempt {attempt} was lost; requeued");
                        self.credit(now);
                        if let Some(mut j) = self.table.get_mut(job) {
                            let gpus = std::mem::take(&mut j.gpus);
                            self.cluster.release(&gpus);
                        }
                        self.counters.requeued += 1;
                        self.emit(&Event::Preempted {
                            time: now,
                            job,
                            counted: false,
                        });
                        if let Some((_, e)) = self.entry(job) {
                            e.run.gpus.clear();
                            e.state = JobState::Waiting;
                        }
                    } else if status.success() || (live.stopping && all_reported) {
                        // Also when it was being stopped: it finished before the signal did
                        // (or the signal ended it after its last iteration).
                        // It did every iteration, reported or not (its last report may still
                        // have been unread when it exited): credit the rest.
                        let sub = self.rows.get(&job).and_then(|r| self.entries.get(r));
                        let rest = sub.and_then(|e| {
                            let per = service_per_iteration(&e.sub)?;
                            let total = e.sub.total_iterations?;
                            Some(total.saturating_sub(live.credited_iter) as f64 * per)
                        });
                        if let (Some(s), Some(mut j)) = (rest, self.table.get_mut(job)) {
                            j.attained_wall_s += s;
                            j.attained_gpu_s += s * f64::from(j.spec.n_gpus);
                        }
                        self.complete(job, now);
                    } else {
                        eprintln!("blox-cluster: job {job} attempt {attempt} failed: {status}");
                        if let Some(j) = self.table.remove(job) {
                            self.cluster.release(&j.gpus);
                        }
                        self.counters.failed += 1;
                        self.set_state(job, JobState::Failed);
                    }
                }
            }
        }
        self.exec_events = evs;
        Ok(())
    }

    fn complete(&mut self, id: JobId, now: Time) {
        self.credit(now);
        if let Some(job) = self.table.remove(id) {
            self.cluster.release(&job.gpus);
            self.counters.completed += 1;
            self.emit(&Event::Completed { time: now, job: id });
            if let Some((_, e)) = self.entry(id) {
                e.state = JobState::Completed;
                e.run.completion_ms = Some(now.0);
                e.run.executed = job.spec.work_s;
                e.run.attained = job.attained_gpu_s;
                e.run.attained_wall = Some(job.attained_wall_s);
                e.run.gpus.clear();
            }
        }
    }

    fn cancels(&mut self, _now: Time) -> Result<(), ClusterError> {
        for row in self.store.cancel_requests()? {
            let Some(e) = self.entries.get_mut(&row) else {
                continue;
            };
            if e.cancelling || e.state.is_terminal() {
                continue;
            }
            self.dirty.insert(row);
            match e.state {
                JobState::Submitted => {
                    e.state = JobState::Cancelled;
                    self.counters.cancelled += 1;
                }
                JobState::Queued => {
                    if let Some(i) = self.queue_rows.iter().position(|&r| r == row) {
                        self.queue_rows.remove(i);
                        self.queue.remove(i);
                    }
                    e.state = JobState::Cancelled;
                    self.counters.cancelled += 1;
                }
                _ => {
                    let Some(id) = e.run.blox_id.map(JobId) else {
                        continue;
                    };
                    if let Some(j) = self.table.remove(id) {
                        self.cluster.release(&j.gpus);
                    }
                    e.run.gpus.clear();
                    match self.lives.get_mut(&id) {
                        Some(live) => {
                            e.cancelling = true;
                            e.state = JobState::Stopping;
                            if !live.stopping {
                                live.stopping = true;
                                self.exec
                                    .preempt(id, self.cfg.grace)
                                    .map_err(|x| ClusterError::Exec(x.0))?;
                            }
                        }
                        None => {
                            e.state = JobState::Cancelled;
                            self.counters.cancelled += 1;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Launch placed jobs whose GPUs no other live launch holds.
    fn launch_ready(&mut self, now: Time) -> Result<(), ClusterError> {
        let mut held: BTreeSet<GpuId> = BTreeSet::new();
        for l in self.lives.values() {
            held.extend(l.gpus.iter().copied());
        }
        let ready: Vec<JobId> = self
            .table
            .iter()
            .filter(|j| j.is_running() && !self.lives.contains_key(&j.id))
            .filter(|j| j.gpus.iter().all(|g| !held.contains(g)))
            .map(|j| j.id)
            .collect();
        for id in ready {
            let row = self.rows[&id];
            let job = self.table.get(id).expect("listed");
            let gpus = job.gpus.clone();
            let e = &self.entries[&row];
            let attempt = e.run.launches;
            let launch = Launch::new(id, attempt, &job.spec, &e.sub.command, &gpus, attempt > 0)
                .with_total_iterations(e.sub.total_iterations);
            match self.exec.launch(&launch) {
                Ok(handle) => {
                    held.extend(gpus.iter().copied());
                    let credited_iter = e.run.iterations;
                    self.lives.insert(
                        id,
                        Live {
                            attempt,
                            gpus: gpus.clone(),
                            stopping: false,
                            launched: now,
                            working: None,
                            credited_iter,
                            failure: None,
                        },
                    );
                    self.credited_to.insert(id, now);
                    let first = {
                        let mut j = self.table.get_mut(id).expect("listed");
                        j.last_start = Some(now);
                        j.first_start.is_none() && {
                            j.first_start = Some(now);
                            true
                        }
                    };
                    if let Some((_, e)) = self.entry(id) {
                        e.run.launches += 1;
                        e.run.live = Some(LiveRecord {
                            attempt,
                            gpus: gpus_u32(&gpus),
                            handle,
                            stopping: false,
                        });
                        e.state = JobState::Running;
                    }
                    self.emit(&Event::Started {
                        time: now,
                        job: id,
                        gpus: &gpus,
                        speed: 1.0,
                    });
                    if first {
                        self.emit(&Event::FirstProgress { time: now, job: id });
                    }
                }
                Err(err) => {
                    eprintln!("blox-cluster: job {id}: {err}");
                    if let Some(j) = self.table.remove(id) {
                        self.cluster.release(&j.gpus);
                    }
                    self.counters.failed += 1;
                    if let Some((_, e)) = self.entry(id) {
                        e.state = JobState::Failed;
                        e.run.exit_status = Some(format!("launch failed: {err}"));
                    }
                }
            }
        }
        Ok(())
    }

    /// A round's arrivals: new submissions join the admission queue.
    fn arrivals(&mut self, t: Time) -> Result<(), ClusterError> {
        self.counters.rounds += 1;
        self.touched.clear();
        // Cluster management before admission, as in simulation.
        self.update_nodes(t)?;
        // Arrivals.
        for row in self.store.new_submissions()? {
            self.ever_submitted = true;
            if self
                .entries
                .get(&row.id)
                .is_some_and(|e| e.state != JobState::Submitted)
            {
                continue;
            }
            if let Some(why) = &row.unreadable {
                let reason = format!("unreadable submission: {why}");
                eprintln!("blox-cluster: job {}: {reason}; marked failed", row.id);
                let mut run = row.run;
                run.exit_status = Some(reason);
                self.counters.failed += 1;
                self.entries.insert(
                    row.id,
                    Entry {
                        state: JobState::Failed,
                        sub: row.submission,
                        submitted_ms: row.submitted_ms,
                        run,
                        cancelling: false,
                    },
                );
                self.dirty.insert(row.id);
                continue;
            }
            let seq = self.next_seq;
            self.next_seq += 1;
            self.counters.arrived += 1;
            let spec = row.submission.to_spec(Time(row.submitted_ms));
            self.emit(&Event::Arrived {
                time: t,
                seq,
                spec: &spec,
            });
            self.queue.push(QueuedJob::new(seq, spec));
            self.queue_rows.push(row.id);
            let mut run = row.run;
            run.seq = Some(seq);
            self.entries.insert(
                row.id,
                Entry {
                    state: JobState::Queued,
                    sub: row.submission,
                    submitted_ms: row.submitted_ms,
                    run,
                    cancelling: false,
                },
            );
            self.dirty.insert(row.id);
        }
        Ok(())
    }

    fn age(&mut self, _t: Time) {
        let r = self.round_len;
        let threshold = self.cfg.starvation;
        let mut changed = Vec::new();
        for mut job in self.table.iter_mut() {
            if job.is_running() || self.touched.contains(&job.id) {
                job.time_since_scheduled = Time::ZERO;
            } else {
                job.time_since_scheduled += r;
                if threshold.is_some_and(|th| job.time_since_scheduled >= th) {
                    job.priority = PRIORITY_STARVED;
                }
            }
            changed.push(job.id);
        }
        for id in changed {
            if let Some(&row) = self.rows.get(&id) {
                self.dirty.insert(row);
            }
        }
    }

    /// [`Server::flush`], holding the changes in memory if the database cannot be written
    /// (see [`RoundLoop::tick`]); reports the first failure and the recovery.
    fn save(&mut self) {
        match self.flush() {
            Ok(()) => {
                if self.unsaved.take().is_some() {
                    eprintln!("blox-cluster: state database written again; the server goes on");
                }
            }
            Err(e) => {
                let msg = e.to_string();
                if self.unsaved.as_ref() != Some(&msg) {
                    eprintln!(
                        "blox-cluster: {msg}; changes are kept in memory and nothing new is \
                         launched until it can be written (retried every tick)"
                    );
                }
                self.unsaved = Some(msg);
            }
        }
    }

    /// Write every change to the database (on failure, every change is kept for the next try).
    fn flush(&mut self) -> Result<(), ClusterError> {
        if self.dirty.is_empty() && self.events.is_empty() {
            return Ok(());
        }
        for job in self.table.iter() {
            let Some(&row) = self.rows.get(&job.id) else {
                continue;
            };
            if let Some(e) = self.entries.get_mut(&row) {
                e.run.executed = job.executed;
                e.run.attained = job.attained_gpu_s;
                e.run.attained_wall = Some(job.attained_wall_s);
                e.run.preemptions = job.preemptions;
                e.run.priority = job.priority;
                e.run.time_since_scheduled_ms = job.time_since_scheduled.0;
                e.run.first_start_ms = job.first_start.map(|t| t.0);
                e.run.last_start_ms = job.last_start.map(|t| t.0);
            }
        }
        let rows: Vec<(i64, JobState, &RunRecord)> = self
            .dirty
            .iter()
            .filter_map(|r| self.entries.get(r).map(|e| (*r, e.state, &e.run)))
            .collect();
        self.store.commit(&rows, &self.events)?;
        self.dirty.clear();
        self.events.clear();
        Ok(())
    }

    /// Write `jobs.csv`, `timeline.csv` and `summary.json`, as one unit.
    fn write_outputs(&self, policy: &str) -> Result<(), ClusterError> {
        let dir = &self.cfg.out;
        std::fs::create_dir_all(dir).map_err(|e| ClusterError::io(dir, e))?;
        let (log, timeline) = &self.sinks;
        let mut jobs = Vec::new();
        let managed = self.managed();
        let total = self.cluster.total_gpus();
        write_jobs_csv_with(&mut jobs, log, None, managed).map_err(|e| ClusterError::io(dir, e))?;
        let mut tl = Vec::new();
        write_timeline_csv_with(&mut tl, timeline, managed.then_some(total))
            .map_err(|e| ClusterError::io(dir, e))?;
        let m = RunMetrics::compute(policy.to_string(), log, timeline, None, total);
        let s = &m.statistics;
        let summary = serde_json::json!({
            "avg_jct_s": s.avg_jct_s,
            "avg_responsiveness_s": s.avg_responsiveness_s,
            "n_tracked": s.n_tracked,
            "preemptions_total": self.counters.preemptions,
            "makespan_s": s.makespan_s,
            "end_time_s": self.now.as_secs_f64(),
            "statistics": s,
            "cluster": m.cluster,
            "run": self.counters,
            "config": self.cfg.label,
        });
        let mut summary = summary;
        if managed {
            let mut log = self.cluster_log.clone();
            log.on_event(&Event::End { time: self.now });
            let c = log.stats();
            summary["cluster"]["node_events"] = c.node_events.into();
            summary["cluster"]["gpu_hours_available"] = c.gpu_hours_available.into();
            summary["run"]["lost_gpu_s"] = c.lost_gpu_s.into();
            summary["run"]["failures_hit"] = c.failures_hit.into();
        }
        let mut sj =
            serde_json::to_vec_pretty(&summary).map_err(|e| ClusterError::State(e.to_string()))?;
        sj.push(b'\n');
        // All three replaced together or none (a full disk leaves the previous files).
        blox_metrics::write_all_or_nothing(
            dir,
            &[
                ("jobs.csv", jobs),
                ("timeline.csv", tl),
                ("summary.json", sj),
            ],
        )
        .map_err(|e| ClusterError::io(&e.path, e.source))
    }
}

impl From<DecisionError> for ClusterError {
    fn from(e: DecisionError) -> Self {
        ClusterError::Decision(format!("{} at t={} s: {}", e.component, e.time, e.message))
    }
}

impl<E: Executor> Host for Server<E> {
    type Error = ClusterError;

    fn ctx(&self, now: Time) -> Ctx<'_> {
        Ctx::new(
            now,
            now.0 / self.round_len.0,
            self.round_len,
            &self.cluster,
            &self.table,
        )
    }

    fn queue(&self) -> &[QueuedJob] {
        &self.queue
    }

    fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    fn jobs(&self) -> &JobTable {
        &self.table
    }

    fn admit(&mut self, i: usize, t: Time) -> Result<(), ClusterError> {
        let id = JobId(self.next_id);
        self.next_id += 1;
        self.counters.admitted += 1;
        let (seq, spec, row) = (
            self.queue[i].seq,
            self.queue[i].spec.clone(),
            self.queue_rows[i],
        );
        self.emit(&Event::Admitted {
            time: t,
            seq,
            job: id,
        });
        self.table.push(Job::new(id, spec, t));
        self.rows.insert(id, row);
        self.credited_to.insert(id, t);
        if let Some((_, e)) = self.entry(id) {
            e.state = JobState::Waiting;
            e.run.blox_id = Some(id.0);
            e.run.admitted_ms = Some(t.0);
        }
        Ok(())
    }

    fn reject(&mut self, i: usize, t: Time) -> Result<(), ClusterError> {
        self.counters.rejected += 1;
        let (seq, row) = (self.queue[i].seq, self.queue_rows[i]);
        self.emit(&Event::Rejected { time: t, seq });
        if let Some(e) = self.entries.get_mut(&row) {
            e.state = JobState::Rejected;
            self.dirty.insert(row);
        }
        Ok(())
    }

    fn retire(&mut self, taken: &[bool]) {
        let mut k = 0;
        self.queue.retain(|_| {
            k += 1;
            !taken[k - 1]
        });
        let mut k = 0;
        self.queue_rows.retain(|_| {
            k += 1;
            !taken[k - 1]
        });
    }

    fn decided(&mut self, d: &Decisions, t: Time) -> Result<(), ClusterError> {
        self.plan_leases(d, t);
        Ok(())
    }

    fn keep(&mut self, id: JobId, _t: Time) {
        self.touched.insert(id);
    }

    fn stop(&mut self, id: JobId, t: Time) -> Result<(), ClusterError> {
        self.touched.insert(id);
        if self.deferred.stops.contains(&id) {
            // Within its lease: it keeps running (see `lease`).
            self.counters.lease_kept += 1;
            return Ok(());
        }
        self.credit(t);
        let gpus = {
            let mut job = self.table.get_mut(id).expect("validated");
            job.preemptions += 1;
            std::mem::take(&mut job.gpus)
        };
        self.cluster.release(&gpus);
        self.counters.preemptions += 1;
        self.emit(&Event::Preempted {
            time: t,
            job: id,
            counted: true,
        });
        let mut state = JobState::Waiting;
        if let Some(live) = self.lives.get_mut(&id) {
            state = JobState::Stopping;
            if !live.stopping {
                live.stopping = true;
                self.exec
                    .preempt(id, self.cfg.grace)
                    .map_err(|x| ClusterError::Exec(x.0))?;
            }
        }
        if let Some((_, e)) = self.entry(id) {
            e.state = state;
            e.run.gpus.clear();
            if let Some(l) = &mut e.run.live {
                l.stopping = true;
            }
        }
        Ok(())
    }

    fn start(&mut self, id: JobId, gpus: &GpuSet, _t: Time) -> Result<(), ClusterError> {
        if self.deferred.starts.contains(&id) {
            // Its GPUs are held by a job within its lease: it waits for the next round.
            return Ok(());
        }
        self.touched.insert(id);
        self.cluster.allocate(id, gpus);
        {
            let mut job = self.table.get_mut(id).expect("validated");
            job.gpus = gpus.clone();
            job.time_since_scheduled = Time::ZERO;
        }
        let stopping = self.lives.contains_key(&id);
        if let Some((_, e)) = self.entry(id) {
            e.run.gpus = gpus_u32(gpus);
            if !stopping {
                e.state = JobState::Starting;
            }
        }
        Ok(())
    }

    fn applied(&mut self, counted: usize, t: Time) -> Result<(), ClusterError> {
        let counted = counted - self.deferred.stops.len();
        let running = self.table.iter().filter(|j| j.is_running()).count() as u32;
        let sample = RoundSample::new(
            t,
            self.table.len() as u32 - running,
            running,
            self.queue.len() as u32,
            self.cluster.free_gpus(),
            self.table.gpu_demand(),
            counted as u32,
        );
        let sample = if self.managed() {
            sample.with_available_gpus(self.cluster.available_gpus())
        } else {
            sample
        };
        self.emit(&Event::Round(sample));
        Ok(())
    }
}

/// Keeps a replayed event log consistent with what the metric sinks expect (arrivals numbered
/// 0, 1, 2, … and admissions likewise), whatever a damaged log holds: an arrival or admission
/// out of order is skipped, and a gap in the arrivals (one unreadable beyond repair) is filled
/// with a placeholder job (1 GPU, no known work), each with a log line.
#[derive(Default)]
struct Replay {
    next_seq: u64,
    next_id: u32,
}

impl Replay {
    fn check(&mut self, e: StoredEvent, out: &mut Vec<StoredEvent>) {
        match &e {
            StoredEvent::Arrived { seq, t, .. } => {
                if *seq < self.next_seq {
                    eprintln!("blox-cluster: event log: arrival {seq} repeated; skipped");
                    return;
                }
                while self.next_seq < *seq {
                    eprintln!(
                        "blox-cluster: event log: arrival {} missing; a placeholder stands in",
                        self.next_seq
                    );
                    out.push(StoredEvent::Arrived {
                        t: *t,
                        seq: self.next_seq,
                        spec: blox_core::JobSpec::new(Time(*t), 1, 0.0),
                    });
                    self.next_seq += 1;
                }
                self.next_seq += 1;
            }
            StoredEvent::Admitted { job, seq, .. } => {
                if *job != self.next_id || *seq >= self.next_seq {
                    eprintln!(
                        "blox-cluster: event log: admission of job {job} (arrival {seq}) out of \
                         order; skipped"
                    );
                    return;
                }
                self.next_id += 1;
            }
            _ => {}
        }
        out.push(e);
    }
}

mod lease;
mod nodes;

/// Service per reported iteration (nominal seconds of work) of a job that reports iterations
/// and has a known amount of work; `None` for the others, which are credited wall-clock time
/// while they work.
fn service_per_iteration(sub: &Submission) -> Option<f64> {
    let work = sub.work_s();
    match sub.total_iterations {
        Some(n) if n > 0 && work > 0.0 => Some(work / n as f64),
        _ => None,
    }
}

/// A flag set by SIGTERM and SIGINT, for a clean stop of `serve`.
pub fn stop_flag() -> Result<Arc<AtomicBool>, ClusterError> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, Arc::clone(&flag))
            .map_err(|e| ClusterError::Config(format!("installing a signal handler: {e}")))?;
    }
    Ok(flag)
}
