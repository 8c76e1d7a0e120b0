//! [`Synergy`]: Synergy's simulator (OSDI 2022), as its runner does it (`msr-fiddle/synergy`
//! `simulator/runner.py`, `events/*.py`, `jobs/job.py`; SYNERGY-SEMANTICS §2.2, §4, §9.1).

use blox_core::{Decisions, Event, Job, JobId, MetricSink, Time};
use blox_sim::time::{Advance, NextView, TimeModel, World};
use blox_sim::SimError;

/// Synergy's round length: 300 s (`Runner` and `Scheduler` defaults).
pub const SYNERGY_ROUND: Time = Time::from_secs(300);

/// Synergy's rounds: every lease ends each round, everything is re-decided, whole iterations are
/// credited at allocation and a job completes at the end of the round its iterations reach the
/// total.
///
/// - **Decisions** every `R` (300 s) from `t = 0`; an idle stretch (nothing running or waiting)
///   jumps to the round boundary at or after the next arrival.
/// - **Leases.** Synergy's placement ([`crate::SynergyPlacement`]-style, one that stops every
///   running job and places the schedule afresh) re-decides every job each round. A job restarted
///   on the same GPUs is no change for the engine (elided), one moved to other GPUs is stopped and
///   started; neither is a preemption (Synergy has no checkpoint or restart cost), so
///   [`TimeModel::counts_stops`] is false.
/// - **Progress at allocation.** Every job the round's decision starts (or keeps) is credited
///   `floor(R / (iteration time / speed-up))` iterations for the round, capped at its total,
///   and `R × GPUs` of attained service (GPU-seconds; Synergy's LAS key is wall-clock × GPUs).
///   The speed-up is the job's [`blox_core::HostShare::speedup`] in the decision (1 without
///   one) times the throughput model's speed (use `ConstantSpeed(1.0)`: Synergy's placement
///   penalty is 1). The credit is booked when the round ends (step 1 of the next decision),
///   which nothing can observe earlier. [`Job::speedup`] is set to that speed-up for the
///   allocated jobs and back to the ideal one ([`blox_core::JobSpec::ideal_speedup`]) for the
///   others, which is what Synergy's SRTF and FTF read at their next sort.
/// - **Completion** at step 1 of the next decision (the lease end), in allocation order;
///   JCT = that round − arrival; the run ends there once the tracked jobs have completed, before
///   scheduling, as Synergy's runner stops at the last tracked job's lease end.
/// - **Responsiveness** is measured to the first allocation.
///
/// A job without an iteration count ([`blox_core::JobSpec::iterations`] and
/// [`blox_core::JobSpec::iter_time_s`]) counts its work as iterations of 1 s.
#[derive(Clone, Debug, Default)]
pub struct Synergy {
    round: Time,
    jobs: Vec<SynergyJob>,
    /// The last decision's allocations: job and speed-up, in start order.
    allocated: Vec<(JobId, f64)>,
    /// Host-resource speed-ups of the decision being applied.
    shares: Vec<(JobId, f64)>,
}

impl PartialEq for Synergy {
    /// Synergy's model has no parameters: every value is the same model (run state is not
    /// compared).
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug)]
struct SynergyJob {
    total: u64,
    iter_time: f64,
    /// Engine speed of its latest start (1 with a constant throughput model).
    speed: f64,
    responded: bool,
}

impl Synergy {
    /// The model.
    pub fn new() -> Self {
        Self::default()
    }
}

/// A job's total iterations and seconds per iteration: its own, or its work in 1 s iterations.
fn iterations_of(job: &Job) -> (u64, f64) {
    match (job.spec.iterations, job.spec.iter_time_s) {
        (Some(n), Some(t)) if t > 0.0 && t.is_finite() => (n, t),
        _ => (job.spec.work_s.max(0.0).ceil() as u64, 1.0),
    }
}

impl TimeModel for Synergy {
    fn name(&self) -> &'static str {
        "synergy"
    }

    fn begin(&mut self, round: Time) -> Result<(), SimError> {
        self.round = round;
        self.jobs.clear();
        self.allocated.clear();
        self.shares.clear();
        Ok(())
    }

    fn admitted(&mut self, job: &Job, _now: Time) {
        debug_assert_eq!(job.id.index(), self.jobs.len());
        let (total, iter_time) = iterations_of(job);
        self.jobs.push(SynergyJob {
            total,
            iter_time,
            speed: 1.0,
            responded: false,
        });
    }

    fn advance<M: MetricSink + ?Sized>(&mut self, t: Time, world: &mut World<'_, M>) -> Advance {
        let round_s = self.round.as_secs_f64();
        let table = world.jobs_mut();
        for mut job in table.iter_progress_mut() {
            *job.speedup_mut() = job.spec.ideal_speedup.unwrap_or(1.0);
        }
        let mut done: Vec<JobId> = Vec::new();
        for &(id, speedup) in &self.allocated {
            let Some(mut job) = table.get_mut(id) else {
                continue;
            };
            let st = &self.jobs[id.index()];
            let rate = st.speed * speedup;
            // `floor(round / (t_iter / speed-up))` in Synergy's operation order.
            let credit = (round_s / (st.iter_time / rate)).floor();
            let credit = if credit.is_finite() && credit > 0.0 {
                credit as u64
            } else {
                0
            };
            job.iterations_done = (job.iterations_done + credit).min(st.total);
            job.executed = job.iterations_done as f64 * st.iter_time;
            job.attained_gpu_s += round_s * f64::from(job.n_gpus());
            job.attained_wall_s += round_s;
            job.speedup = speedup;
            if job.iterations_done >= st.total {
                done.push(id);
            }
        }
        self.allocated.clear();
        for id in done {
            world.complete(id, t);
        }
        if world.tracked_complete() {
            Advance::Finished(t)
        } else {
            Advance::Continue
        }
    }

    fn decided(&mut self, decisions: &Decisions, _t: Time) {
        self.shares.clear();
        self.shares
            .extend(decisions.host.iter().map(|h| (h.job, h.speedup)));
        self.allocated.clear();
        for (id, _) in &decisions.start {
            let s = self
                .shares
                .iter()
                .find(|(j, _)| j == id)
                .map_or(1.0, |&(_, s)| s);
            self.allocated.push((*id, s));
        }
    }

    fn counts_stops(&self) -> bool {
        false
    }

    fn stopping(&mut self, _job: &mut Job, _t: Time) {}

    fn started<M: MetricSink + ?Sized>(
        &mut self,
        id: JobId,
        speed: f64,
        _resumed: bool,
        t: Time,
        world: &mut World<'_, M>,
    ) -> Result<(), SimError> {
        let st = &mut self.jobs[id.index()];
        st.speed = speed;
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
        let next = t + r;
        let busy = view.waiting || world.jobs().iter().any(Job::is_running);
        match next_arrival {
            Some(a) if !busy => a.ceil_to(r).max(next),
            _ => next,
        }
    }

    fn drained_end(&self, t: Time, _last_completion: Time) -> Time {
        t
    }
}
