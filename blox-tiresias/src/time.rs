//! The `tiresias` time model: the clock of the Tiresias authors' simulator
//! (SymbioticLab/Tiresias @ 959f9b0, `simulator/run_sim.py`), reproduced job by job
//! (rules in TIRESIAS-SEMANTICS.md), as a [`TimeModel`](blox_sim::TimeModel) for the engine.
//!
//! - **Time** is integer seconds and event-driven: arrivals, completions and (2D-LAS) the
//!   predicted next queue jump; each event runs one full scheduling pass. There are no rounds.
//! - **Progress** is wall-clock seconds; placement, preemption and GPU count never change a
//!   job's speed, and preemption costs nothing.
//! - **Quirks kept**: the mis-computed queue-jump time, one demotion per event, and the
//!   *phantom completion* (a completion list written into an arrival event that a queue jump
//!   then pre-empts is replayed when that arrival is processed).
//!
//! The model knows no scheduler: it is driven by whatever [`Scheduler`](blox_core::Scheduler)
//! the engine runs. [`crate::run`] composes it with Tiresias' own schedules and placements
//! ([`crate::policy`], [`crate::placement`]) or with any engine policy and placement.

use blox_core::{Event, JobId, MetricSink, Time};
use blox_sim::SimError;

/// One completed job, as a row of Tiresias' `job.csv` (`log.py: job_complete`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PeerRow {
    /// Index of the job in arrival order (its [`JobId`]).
    pub job: usize,
    /// `job_id` from the trace.
    pub job_id: String,
    /// GPUs.
    pub num_gpu: i64,
    /// Submission.
    pub submit_time: i64,
    /// First start (`None` only for a job logged without ever starting, which the original's
    /// loops never do).
    pub start_time: Option<i64>,
    /// Completion: the event's time.
    pub end_time: i64,
    /// Duration from the trace.
    pub duration: i64,
    /// Seconds spent waiting, as counted.
    pub pending_time: i64,
    /// Preemptions.
    pub preempt: u32,
    /// Starts and resumes.
    pub resume: u32,
}

impl PeerRow {
    /// A row for job `job` (`job_id` from the trace) completed at `end_time`; every other
    /// field zero or empty, for the caller to fill.
    pub fn new(job: usize, job_id: impl Into<String>, end_time: i64) -> Self {
        PeerRow {
            job,
            job_id: job_id.into(),
            num_gpu: 0,
            submit_time: 0,
            start_time: None,
            end_time,
            duration: 0,
            pending_time: 0,
            preempt: 0,
            resume: 0,
        }
    }

    /// `JCT = end − submit`.
    pub fn jct(&self) -> i64 {
        self.end_time - self.submit_time
    }
}

fn secs(t: i64) -> Time {
    Time::from_secs(t.max(0) as u64)
}

/// Tiresias' event loops as a [`TimeModel`](blox_sim::TimeModel) for the engine: decisions at
/// Tiresias' events only (the next arrival, the earliest completion group and, for the 2D-LAS
/// schedules, the predicted queue jump with its quirk), progress credited in whole wall seconds
/// (`executed`; GPU-seconds in `attained_gpu_s`, seconds in `attained_wall_s`), completions at whole seconds, and the
/// phantom completion of a stale completion list. `blox_cli::tiresias_peer` composes it with
/// Tiresias' components as the scheduler, or with any engine policy and placement (then
/// without queue jumps: decisions at arrivals and completions, as Tiresias' preemptive
/// single-list loop takes them).
///
/// For the jump prediction the model mirrors the policy's queue index of every job (one
/// demotion per decision, from the same facts). It ends the run, like the original, when jobs
/// remain but no arrival and no running job is left. A jump predicted at the current second is
/// taken 1 ms later, in the same whole second (the engine's decision times strictly increase);
/// if such a repeat changed nothing, the original loops for ever, and the model ends the run
/// with [`TiresiasTime::never_ends`] set. A jump before the current time (thresholds that
/// decrease) is taken at the current time, where the original steps back
/// ([`crate::run_tiresias_engine`] refuses such thresholds; the test oracle's event loops
/// reproduce the step back).
#[derive(Clone, Debug, PartialEq)]
pub struct TiresiasTime {
    /// Queue jumps are events (the 2D-LAS schedules only).
    jumps: bool,
    limits: Vec<i64>,
    gpu_time: bool,
    jobs: Vec<TimeJob>,
    /// The completion list of the next decision, and its time.
    completing: Option<(i64, Vec<JobId>)>,
    /// A completion list written into the arrival event at this time (phantom completion).
    stale: Option<(i64, Vec<JobId>)>,
    /// Set when the next decision must end the run (at this time).
    end_at: Option<i64>,
    never_ends: bool,
    last_decision: i64,
    /// Completed jobs, in completion order (Tiresias' `job.csv`).
    rows: Vec<PeerRow>,
    /// Each job's `job_id`.
    ids: Vec<String>,
    /// Something changed at the current decision (a completion, demotion, start or stop).
    changed: bool,
    /// The current decision repeats the previous one's whole second (a jump predicted at the
    /// current time, taken 1 ms later: the engine's decision times strictly increase).
    same_second: bool,
}

/// One job as [`TiresiasTime`] counts it (Tiresias' `job` record fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TiresiasJobState {
    /// `num_gpu`.
    pub num_gpu: i64,
    /// `submit_time`, whole seconds.
    pub submit_time: i64,
    /// `duration`, whole seconds.
    pub duration: i64,
    /// Wall seconds run (`total_executed_time`).
    pub executed: i64,
    /// Seconds counted as waiting (`pending_time`).
    pub pending_time: i64,
    /// Preemptions.
    pub preempt: u32,
    /// Starts and resumes.
    pub resume: u32,
    /// First start.
    pub start_time: Option<i64>,
    /// The queue index the model mirrors (2D-LAS; 0 otherwise).
    pub queue: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct TimeJob {
    num_gpu: i64,
    duration: i64,
    executed: i64,
    last_check: i64,
    q: usize,
    running: bool,
    responded: bool,
    /// Seconds counted as waiting (`pending_time`), and starts (`resume`).
    pending: i64,
    starts: u32,
    preempts: u32,
    submit: i64,
    first_start: Option<i64>,
}

impl TiresiasTime {
    /// The model with decisions at arrivals and completions only (no queue jumps): Tiresias'
    /// clock for the `fifo` and single-list schedules, and for any engine policy.
    pub fn events_only() -> Self {
        Self::build(false, Vec::new(), true)
    }

    /// The model of the 2D-LAS schedules: decisions also at each running job's predicted
    /// queue jump, a job in queue `q < limits.len()` being demoted once its service reaches
    /// `limits[q]`; service is GPU-seconds when `gpu_time`, else seconds (`dlas`).
    pub fn with_queue_jumps(limits: Vec<i64>, gpu_time: bool) -> Self {
        Self::build(true, limits, gpu_time)
    }

    fn build(jumps: bool, limits: Vec<i64>, gpu_time: bool) -> Self {
        TiresiasTime {
            jumps,
            limits,
            gpu_time,
            jobs: Vec::new(),
            completing: None,
            stale: None,
            end_at: None,
            never_ends: false,
            last_decision: 0,
            rows: Vec::new(),
            ids: Vec::new(),
            changed: false,
            same_second: false,
        }
    }

    /// Completed jobs in completion order, as Tiresias writes them to its `job.csv`.
    pub fn rows(&self) -> &[PeerRow] {
        &self.rows
    }

    /// Every admitted job's counters, in admission (arrival) order.
    pub fn job_states(&self) -> impl Iterator<Item = TiresiasJobState> + '_ {
        self.jobs.iter().map(|t| TiresiasJobState {
            num_gpu: t.num_gpu,
            submit_time: t.submit,
            duration: t.duration,
            executed: t.executed,
            pending_time: t.pending,
            preempt: t.preempts,
            resume: t.starts,
            start_time: t.first_start,
            queue: t.q,
        })
    }

    /// Whether the run ended where the original never terminates.
    pub fn never_ends(&self) -> bool {
        self.never_ends
    }

    /// Job `id`'s `pending_time` (seconds counted as waiting, at event times), `resume`
    /// (starts) and wall seconds run, as Tiresias keeps them; `None` for an unknown id.
    pub fn counters(&self, id: JobId) -> Option<(i64, u32, i64)> {
        self.jobs
            .get(id.index())
            .map(|j| (j.pending, j.starts, j.executed))
    }

    fn service(&self, j: &TimeJob) -> i64 {
        if self.gpu_time {
            j.executed * j.num_gpu
        } else {
            j.executed
        }
    }
}

impl blox_sim::time::TimeModel for TiresiasTime {
    fn name(&self) -> &'static str {
        "tiresias"
    }

    fn begin(&mut self, _round: Time) -> Result<(), SimError> {
        self.jobs.clear();
        self.completing = None;
        self.stale = None;
        self.end_at = None;
        self.never_ends = false;
        self.last_decision = 0;
        self.rows.clear();
        self.ids.clear();
        self.changed = false;
        self.same_second = false;
        Ok(())
    }

    fn admitted(&mut self, job: &blox_core::Job, _now: Time) {
        let spec = &job.spec;
        self.jobs.push(TimeJob {
            num_gpu: i64::from(spec.n_gpus),
            duration: spec.work_s.trunc() as i64,
            executed: 0,
            last_check: spec.arrival.as_secs() as i64,
            q: 0,
            running: false,
            responded: false,
            pending: 0,
            starts: 0,
            preempts: 0,
            submit: spec.arrival.as_secs() as i64,
            first_start: None,
        });
        self.ids.push(
            spec.source_id
                .as_deref()
                .map_or_else(|| job.id.index().to_string(), str::to_string),
        );
    }

    fn advance<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        world: &mut blox_sim::time::World<'_, M>,
    ) -> blox_sim::time::Advance {
        let now = t.as_secs() as i64;
        if let Some(end) = self.end_at {
            return blox_sim::time::Advance::Finished(secs(end));
        }
        self.changed = false;
        if let Some((at, list)) = self.completing.take() {
            if at == now {
                for id in list {
                    self.changed = true;
                    let tj = &mut self.jobs[id.index()];
                    tj.running = false;
                    let mut row = PeerRow::new(id.index(), self.ids[id.index()].clone(), now);
                    row.num_gpu = tj.num_gpu;
                    row.submit_time = tj.submit;
                    row.start_time = tj.first_start;
                    row.duration = tj.duration;
                    row.pending_time = tj.pending;
                    row.preempt = tj.preempts;
                    row.resume = tj.starts;
                    self.rows.push(row);
                    world.complete(id, t);
                }
            }
        }
        // Credit whole seconds since each job's last check; demote running jobs one level.
        let ids: Vec<JobId> = world.jobs().iter().map(|j| j.id).collect();
        for id in ids {
            let tj = &mut self.jobs[id.index()];
            let gap = now - tj.last_check;
            tj.last_check = now;
            if !tj.running {
                tj.pending += gap;
            }
            if tj.running {
                tj.executed += gap;
                let (executed, g) = (tj.executed, tj.num_gpu);
                if let Some(mut job) = world.jobs_mut().get_mut(id) {
                    job.executed = executed as f64;
                    job.attained_gpu_s += (gap * g) as f64;
                    job.attained_wall_s += gap as f64;
                }
                let tj = self.jobs[id.index()];
                if self.jumps && tj.q < self.limits.len() && self.service(&tj) >= self.limits[tj.q]
                {
                    self.changed = true;
                    self.jobs[id.index()].q += 1;
                }
            }
        }
        if world.tracked_complete() {
            return blox_sim::time::Advance::Finished(t);
        }
        blox_sim::time::Advance::Continue
    }

    fn stopping(&mut self, job: &mut blox_core::Job, _t: Time) {
        let tj = &mut self.jobs[job.id.index()];
        tj.running = false;
        tj.preempts += 1;
        self.changed = true;
    }

    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        _speed: f64,
        _resumed: bool,
        t: Time,
        world: &mut blox_sim::time::World<'_, M>,
    ) -> Result<(), SimError> {
        self.changed = true;
        let tj = &mut self.jobs[id.index()];
        tj.running = true;
        tj.starts += 1;
        tj.first_start.get_or_insert(t.as_secs() as i64);
        if !tj.responded {
            tj.responded = true;
            world.emit(&Event::FirstProgress { time: t, job: id });
        }
        Ok(())
    }

    fn next_decision<M: MetricSink + ?Sized>(
        &mut self,
        t: Time,
        _view: blox_sim::time::NextView,
        next_arrival: Option<Time>,
        world: &blox_sim::time::World<'_, M>,
    ) -> Time {
        let now = t.as_secs() as i64;
        let arrival = next_arrival.map_or(i64::MAX, |a| a.as_secs() as i64);
        let mut end = i64::MAX;
        let mut group: Vec<JobId> = Vec::new();
        let mut jump = i64::MAX;
        for job in world.jobs().iter() {
            let tj = &self.jobs[job.id.index()];
            if !tj.running {
                continue;
            }
            let e = now + tj.duration - tj.executed;
            if e < end {
                end = e;
                group.clear();
                group.push(job.id);
            } else if e == end {
                group.push(job.id);
            }
            if self.jumps && tj.q < self.limits.len() {
                let left = self.limits[tj.q] - tj.executed;
                let j = if self.gpu_time {
                    now + left.div_euclid(tj.num_gpu.max(1))
                } else {
                    now + left
                };
                jump = jump.min(j);
            }
        }
        if arrival == i64::MAX && end == i64::MAX {
            // No arrival and nothing running: the original stops here.
            self.end_at = Some(now);
            return t + Time::from_millis(1);
        }
        if arrival == end {
            self.stale = Some((arrival, group.clone()));
        }
        let soonest = arrival.min(end);
        let next = if soonest > jump {
            self.completing = None;
            jump
        } else if end < arrival {
            self.completing = Some((end, group));
            end
        } else {
            // An arrival event: it carries the list written into it, if any.
            self.completing = self.stale.take().filter(|(at, _)| *at == arrival);
            arrival
        };
        if next <= now {
            // A jump at (or, with thresholds out of order, before) the current second: the
            // original processes a bare event at that time. Taken 1 ms later (same whole
            // second, so nothing is credited). If the previous such event changed nothing, the
            // original repeats it forever.
            if self.same_second && !self.changed {
                self.never_ends = true;
                self.end_at = Some(now);
            }
            self.same_second = true;
            self.completing = None;
            return t + Time::from_millis(1);
        }
        self.same_second = false;
        self.last_decision = next;
        secs(next)
    }

    fn drained_end(&self, t: Time, last_completion: Time) -> Time {
        last_completion.max(t)
    }

    fn admits_oversized(&self) -> bool {
        true
    }
}
