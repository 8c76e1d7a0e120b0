//! Synergy's time model (OSDI 2022), as its simulator runs it (`msr-fiddle/synergy`
//! `simulator/runner.py`, `events/*.py`, `jobs/job.py`; SYNERGY-SEMANTICS §2.2, §4, §9.1).
//!
//! This is a self-contained round driver, [`SynergySim`], over the same components and sinks as
//! the engine (a [`Scheduler`] and a [`MetricSink`]). Each round at `t = k·R` (R = 300 s):
//!
//! 1. **Arrivals** with arrival time ≤ t enter the admission queue (Synergy handles arrival
//!    events before lease ends and lease ends before scheduling at equal times).
//! 2. **Lease ends.** Every job allocated in the previous round releases its GPUs; one whose
//!    iterations have reached its total completes *now* (so finish times are multiples of R and
//!    JCT = t − arrival). When the last tracked job completes the run ends here, before
//!    scheduling, as Synergy's runner does.
//! 3. **Admission, scheduling, placement** on an idle cluster (every job is re-decided; the
//!    placement's stops, if any, cost nothing).
//! 4. **Progress at allocation.** Each started job is credited
//!    `floor(R / (iteration time / speed-up))` iterations for the whole round (capped at its
//!    total), where the speed-up is its [`blox_core::HostShare::speedup`] (1 without one), and
//!    `R × GPUs` of attained service. A job's [`Job::speedup`] becomes that speed-up; a job left
//!    out gets back its ideal speed-up (Synergy resets speed-ups at every schedule), which is
//!    what SRTF and FTF read at the next sort.
//!
//! A job without an iteration count ([`blox_core::JobSpec::iterations`]) counts seconds of work
//! as iterations of 1 s. There are no preemption costs, no checkpoints and no starvation counter
//! beyond what the policies keep.

use crate::engine::{RunOutcome, TrackWindow};
use crate::workload::Workload;
use crate::SimError;
use blox_core::{
    Admissions, Cluster, ClusterSpec, Ctx, Decisions, Event, Job, JobId, JobSpec, JobTable,
    MetricSink, QueuedJob, RoundSample, Schedule, Scheduler, Semantics, Time, ValidationScratch,
};

/// Synergy's round length: 300 s (`Runner` and `Scheduler` defaults).
pub const SYNERGY_ROUND: Time = Time::from_secs(300);

/// How a Synergy run is set up.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SynergyConfig {
    /// Round length (Synergy: 300 s).
    pub round: Time,
    /// Jobs whose completion ends the run (Synergy: ids 4000–4999); `None`: run until the
    /// workload is exhausted and every job has finished.
    pub track: Option<TrackWindow>,
    /// Give up after this many rounds (a guard against a run that cannot end).
    pub max_rounds: u64,
}

impl Default for SynergyConfig {
    fn default() -> Self {
        SynergyConfig {
            round: SYNERGY_ROUND,
            track: Some(TrackWindow {
                first: 4000,
                last: 4999,
            }),
            max_rounds: 10_000_000,
        }
    }
}

impl SynergyConfig {
    /// The default (300 s rounds, jobs 4000–4999) with another tracked window.
    pub fn with_track(mut self, track: Option<TrackWindow>) -> Self {
        self.track = track;
        self
    }

    /// The same with another round length.
    pub fn with_round(mut self, round: Time) -> Self {
        self.round = round;
        self
    }
}

/// Synergy's round driver over a scheduler and a metric sink.
pub struct SynergySim<S, K> {
    cfg: SynergyConfig,
    cluster: Cluster,
    scheduler: S,
    sink: K,
    table: JobTable,
    queue: Vec<QueuedJob>,
    responded: Vec<bool>,
    running: Vec<JobId>,
    next_seq: u64,
    next_id: u32,
    admissions: Admissions,
    schedule: Schedule,
    decisions: Decisions,
    scratch: ValidationScratch,
    arrivals: Vec<JobSpec>,
}

impl<S: Scheduler, K: MetricSink> SynergySim<S, K> {
    /// A run on `cluster` (each node's CPUs and memory are what Synergy's mechanisms share).
    pub fn new(cfg: SynergyConfig, cluster: ClusterSpec, scheduler: S, sink: K) -> Self {
        SynergySim {
            cfg,
            cluster: Cluster::new(cluster),
            scheduler,
            sink,
            table: JobTable::new(),
            queue: Vec::new(),
            responded: Vec::new(),
            running: Vec::new(),
            next_seq: 0,
            next_id: 0,
            admissions: Admissions::default(),
            schedule: Schedule::default(),
            decisions: Decisions::default(),
            scratch: ValidationScratch::default(),
            arrivals: Vec::new(),
        }
    }

    /// The sink.
    pub fn sink(&self) -> &K {
        &self.sink
    }

    /// Take the sink back.
    pub fn into_sink(self) -> K {
        self.sink
    }

    /// Run until the tracked jobs have completed (or, without a window, until the workload is
    /// exhausted and the cluster idle).
    pub fn run(&mut self, workload: &mut dyn Workload) -> Result<RunOutcome, SimError> {
        let r = self.cfg.round;
        if r == Time::ZERO {
            return Err(SimError::Config("the round length must be positive".into()));
        }
        let mut out = RunOutcome {
            end_time: Time::ZERO,
            rounds: 0,
            rounds_processed: 0,
            arrived: 0,
            admitted: 0,
            rejected: 0,
            completed: 0,
            preemptions: 0,
        };
        let mut tracked_left: u64 = self
            .cfg
            .track
            .map_or(0, |w| u64::from(w.last - w.first) + 1);
        let mut t = Time::ZERO;
        let mut round: u64 = 0;
        loop {
            // 1. Arrivals.
            self.arrivals.clear();
            workload.arrivals_until(t, &mut self.arrivals)?;
            for spec in self.arrivals.drain(..) {
                let seq = self.next_seq;
                self.next_seq += 1;
                out.arrived += 1;
                self.sink.on_event(&Event::Arrived {
                    time: t,
                    seq,
                    spec: &spec,
                });
                self.queue.push(QueuedJob { seq, spec });
            }
            // 2. Lease ends.
            let mut done_tracked = false;
            for id in std::mem::take(&mut self.running) {
                let job = self
                    .table
                    .get_mut(id)
                    .expect("running jobs are in the table");
                let gpus = std::mem::take(&mut job.gpus);
                self.cluster.release(&gpus);
                let (total, _) = iterations_of(&job.spec);
                if job.iterations_done >= total {
                    self.sink.on_event(&Event::Completed { time: t, job: id });
                    out.completed += 1;
                    self.table.remove(id);
                    if self.cfg.track.is_some_and(|w| w.contains(id)) {
                        tracked_left -= 1;
                        done_tracked |= tracked_left == 0;
                    }
                }
            }
            if done_tracked {
                break;
            }
            // 3. Admission, scheduling, placement.
            self.admit(t, round, &mut out)?;
            self.schedule.clear();
            self.decisions.clear();
            let ctx = Ctx::new(t, round, r, Semantics::Synergy, &self.cluster, &self.table);
            self.scheduler.schedule(&ctx, &mut self.schedule);
            self.scheduler
                .place(&ctx, &self.schedule, &mut self.decisions);
            self.decisions
                .validate(&self.cluster, &self.table, &mut self.scratch)
                .map_err(|message| SimError::InvalidDecision {
                    component: format!("scheduler `{}`", self.scheduler.name()),
                    time_s: t.to_string(),
                    message,
                })?;
            // 4. Progress at allocation.
            self.apply(t);
            out.rounds_processed += 1;
            let running = self.running.len() as u32;
            self.sink.on_event(&Event::Round(RoundSample::new(
                t,
                self.table.len() as u32 - running,
                running,
                self.queue.len() as u32,
                self.cluster.free_gpus(),
                self.table.gpu_demand(),
                0,
            )));
            // Next round; skip idle stretches.
            let idle = self.table.is_empty() && self.queue.is_empty();
            let mut next = Time::from_millis(t.as_millis() + r.as_millis());
            if idle {
                match workload.next_arrival()? {
                    Some(a) => next = next.max(a.ceil_to(r)),
                    None => break,
                }
            }
            round = next.as_millis() / r.as_millis();
            t = next;
            if round > self.cfg.max_rounds {
                return Err(SimError::Stalled(format!(
                    "synergy run still going after {} rounds ({} jobs active, {} tracked left)",
                    self.cfg.max_rounds,
                    self.table.len(),
                    tracked_left
                )));
            }
        }
        out.end_time = t;
        out.rounds = t.as_millis() / r.as_millis() + 1;
        self.sink.on_event(&Event::End { time: t });
        Ok(out)
    }

    fn admit(&mut self, t: Time, round: u64, out: &mut RunOutcome) -> Result<(), SimError> {
        if self.queue.is_empty() {
            return Ok(());
        }
        self.admissions.clear();
        let ctx = Ctx::new(
            t,
            round,
            self.cfg.round,
            Semantics::Synergy,
            &self.cluster,
            &self.table,
        );
        self.scheduler
            .admit(&ctx, &self.queue, &mut self.admissions);
        let n = self.queue.len();
        let mut taken = vec![false; n];
        for &i in self.admissions.admit.iter() {
            if i >= n || taken[i] {
                return Err(SimError::InvalidDecision {
                    component: format!("scheduler `{}`", self.scheduler.name()),
                    time_s: t.to_string(),
                    message: format!("admits queue index {i} twice or out of range"),
                });
            }
            taken[i] = true;
            let q = &self.queue[i];
            let id = JobId(self.next_id);
            self.next_id += 1;
            self.sink.on_event(&Event::Admitted {
                time: t,
                seq: q.seq,
                job: id,
            });
            out.admitted += 1;
            self.table.push(Job::new(id, q.spec.clone(), t));
            self.responded.push(false);
        }
        for &i in self.admissions.reject.iter() {
            if i < n && !taken[i] {
                taken[i] = true;
                self.sink.on_event(&Event::Rejected {
                    time: t,
                    seq: self.queue[i].seq,
                });
                out.rejected += 1;
            }
        }
        let mut k = 0;
        self.queue.retain(|_| {
            let keep = !taken[k];
            k += 1;
            keep
        });
        Ok(())
    }

    fn apply(&mut self, t: Time) {
        // Stops: Synergy's placement stops every running job; here none is running (every
        // lease ended), so there is nothing to undo.
        for &id in &self.decisions.stop {
            if let Some(job) = self.table.get_mut(id) {
                let gpus = std::mem::take(&mut job.gpus);
                self.cluster.release(&gpus);
            }
        }
        let round_s = self.cfg.round.as_secs_f64();
        for job in self.table.iter_mut() {
            job.speedup = job.spec.ideal_speedup.unwrap_or(1.0);
        }
        for (id, gpus) in &self.decisions.start {
            let speedup = self
                .decisions
                .host
                .iter()
                .find(|h| h.job == *id)
                .map_or(1.0, |h| h.speedup);
            let job = self.table.get_mut(*id).expect("validated");
            self.cluster.allocate(*id, gpus);
            job.gpus = gpus.clone();
            let (total, iter_time) = iterations_of(&job.spec);
            let per_iter = iter_time / speedup;
            // `floor(round / t_eff)`: finite and non-negative for a positive iteration time.
            let credit = (round_s / per_iter).floor();
            let credit = if credit.is_finite() && credit > 0.0 {
                credit as u64
            } else {
                0
            };
            job.iterations_done = (job.iterations_done + credit).min(total);
            job.executed = job.iterations_done as f64 * iter_time;
            job.attained_service += round_s * f64::from(job.n_gpus());
            job.speedup = speedup;
            job.first_start.get_or_insert(t);
            job.last_start = Some(t);
            self.running.push(*id);
            self.sink.on_event(&Event::Started {
                time: t,
                job: *id,
                gpus,
                speed: speedup,
            });
            let seen = &mut self.responded[id.index()];
            if !*seen {
                *seen = true;
                self.sink
                    .on_event(&Event::FirstProgress { time: t, job: *id });
            }
        }
    }
}

/// A job's total iterations and seconds per iteration: its own, or its work in 1 s iterations.
fn iterations_of(spec: &JobSpec) -> (u64, f64) {
    match (spec.iterations, spec.iter_time_s) {
        (Some(n), Some(t)) if t > 0.0 => (n, t),
        _ => (spec.work_s.max(0.0).ceil() as u64, 1.0),
    }
}
