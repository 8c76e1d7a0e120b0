//! The order of Tiresias' single-list schedules (`sjf`, `shortest`, `shortest-gpu`) and of
//! `fifo` as a [`SchedulingPolicy`] for the engine, under the `tiresias` time model.

use super::schedule::PeerSchedule;
use blox_core::{Ctx, JobId, Schedule, SchedulingPolicy};

/// The runnable list of Tiresias' single-list loops, kept between decisions: completed jobs
/// leave it, new ones are appended in id (arrival) order, and it is stably sorted by the
/// schedule's key (`num_gpu`; `duration − executed`; that × `num_gpu`), so ties keep the
/// previous order. For `fifo` the list stays in arrival order. Every active job is listed;
/// the placement (`PeerReplace` or `PeerFifo` in [`crate::placement`]) decides who
/// runs.
#[derive(Clone, Debug)]
pub struct PeerListOrder {
    schedule: PeerSchedule,
    list: Vec<JobId>,
    seen: usize,
}

impl PeerListOrder {
    /// The order of `fifo`, `sjf`, `shortest` or `shortest-gpu`; `None` for a 2D-LAS schedule.
    pub fn new(schedule: PeerSchedule) -> Option<Self> {
        (!schedule.is_dlas()).then_some(PeerListOrder {
            schedule,
            list: Vec::new(),
            seen: 0,
        })
    }
}

impl SchedulingPolicy for PeerListOrder {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        self.list.retain(|&id| ctx.jobs.get(id).is_some());
        for job in ctx.jobs.iter() {
            if job.id.index() >= self.seen {
                self.list.push(job.id);
                self.seen = job.id.index() + 1;
            }
        }
        let key = |id: &JobId| -> i64 {
            let Some(j) = ctx.jobs.get(*id) else {
                return i64::MAX;
            };
            let g = i64::from(j.spec.n_gpus);
            let remaining = j.spec.work_s.trunc() as i64 - j.executed.round() as i64;
            match self.schedule {
                PeerSchedule::Sjf => g,
                PeerSchedule::Shortest => remaining,
                PeerSchedule::ShortestGpu => remaining * g,
                _ => 0,
            }
        };
        if self.schedule != PeerSchedule::Fifo {
            self.list.sort_by_key(key);
        }
        for &id in &self.list {
            if let Some(j) = ctx.jobs.get(id) {
                out.push(id, j.spec.n_gpus);
            }
        }
    }

    fn name(&self) -> String {
        self.schedule.name().to_string()
    }
}
