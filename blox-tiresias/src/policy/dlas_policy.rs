//! Tiresias' 2D-LAS schedules as a [`SchedulingPolicy`] for the engine, under the `tiresias`
//! time model ([`TiresiasTime`](crate::TiresiasTime)), which credits whole wall seconds at Tiresias'
//! event times.

use super::gittins::GittinsTable;
use super::job::{PeerJob, PeerStatus};
use super::mlfq::Mlfq;
use super::schedule::{PeerPolicy, PeerSchedule};
use blox_core::{Ctx, Schedule, SchedulingPolicy};
use std::sync::Arc;

/// `dlas`, `dlas-gpu` or `dlas-gpu-gittins` at each decision: jobs that left the table leave
/// their queue, new jobs enter Q0 in id (arrival) order, jobs that ran since the last decision
/// are demoted at most one level (their service read from the engine's `executed`, whole wall
/// seconds under the `tiresias` model), and the back-filling pass over the whole cluster's
/// GPUs picks who runs. The schedule lists exactly the jobs that run, in queue order; pair it
/// with a placement that runs exactly the scheduled set ([`RunSet`](crate::placement::RunSet)).
#[derive(Clone, Debug)]
pub struct PeerDlasPolicy {
    schedule: PeerSchedule,
    gittins: Option<Arc<GittinsTable>>,
    mlfq: Mlfq,
    jobs: Vec<PeerJob>,
    active: Vec<bool>,
}

impl PeerDlasPolicy {
    /// A 2D-LAS policy; `gittins` is used by `dlas-gpu-gittins` only. Returns `None` for a
    /// schedule that is not one of the three 2D-LAS schemes.
    pub fn new(policy: &PeerPolicy, gittins: Option<Arc<GittinsTable>>) -> Option<Self> {
        if !policy.schedule.is_dlas() {
            return None;
        }
        let gpu_time = policy.schedule != PeerSchedule::Dlas;
        Some(PeerDlasPolicy {
            schedule: policy.schedule,
            gittins: gittins.filter(|_| policy.schedule == PeerSchedule::DlasGpuGittins),
            mlfq: Mlfq::new(&policy.thresholds, gpu_time),
            jobs: Vec::new(),
            active: Vec::new(),
        })
    }
}

impl SchedulingPolicy for PeerDlasPolicy {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        // Completed jobs leave their queue.
        let mut present = vec![false; self.jobs.len()];
        for job in ctx.jobs.iter() {
            if let Some(p) = present.get_mut(job.id.index()) {
                *p = true;
            }
        }
        for (i, was) in self.active.iter_mut().enumerate() {
            if *was && !present[i] {
                *was = false;
                self.mlfq.remove(i, &self.jobs[i]);
            }
        }
        // New jobs enter Q0; everyone is updated from the engine's facts.
        let mut runnable = Vec::with_capacity(ctx.jobs.len());
        for job in ctx.jobs.iter() {
            let i = job.id.index();
            while self.jobs.len() <= i {
                let spec = &job.spec;
                let mut p = PeerJob::new(
                    i64::from(spec.n_gpus),
                    spec.arrival.as_secs() as i64,
                    spec.work_s.trunc() as i64,
                );
                self.mlfq.admit(i, &mut p);
                self.jobs.push(p);
                self.active.push(true);
            }
            let p = &mut self.jobs[i];
            p.executed_time = job.executed.round() as i64;
            p.total_executed_time = p.executed_time;
            p.status = if job.is_running() {
                PeerStatus::Running
            } else {
                PeerStatus::Pending
            };
            if job.is_running() {
                self.mlfq.check_demotion(i, p);
            }
            if let Some(t) = &self.gittins {
                Mlfq::rank(t, p);
            }
            runnable.push(i);
        }
        let (mut started, mut preempted) = (Vec::new(), Vec::new());
        let now = ctx.now.as_secs() as i64;
        self.mlfq.pass(
            now,
            i64::from(ctx.cluster.total_gpus()),
            &mut self.jobs,
            self.gittins.is_some(),
            &mut started,
            &mut preempted,
        );
        for queue in self.mlfq.queues() {
            for &j in queue {
                if self.jobs[j].is_running() {
                    out.push(blox_core::JobId(j as u32), self.jobs[j].num_gpu as u32);
                }
            }
        }
    }

    fn name(&self) -> String {
        self.schedule.name().to_string()
    }
}
