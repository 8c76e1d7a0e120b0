//! A placement that runs exactly the scheduled jobs, for Tiresias' 2D-LAS schedules (which
//! ignore node boundaries and never call a placement scheme).

use blox_core::{Ctx, Decisions, GpuId, JobId, PlacementPolicy, Schedule};

/// Runs exactly the jobs of the schedule: running jobs left out are stopped, running jobs in it
/// keep their GPUs, and the others start on the lowest-numbered free GPUs (node boundaries
/// ignored, as Tiresias' `dlas*` passes only count free GPUs). The schedule must fit the
/// cluster; a job that does not fit is skipped.
#[derive(Clone, Debug, Default)]
pub struct RunSet;

impl PlacementPolicy for RunSet {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let wanted: std::collections::BTreeSet<JobId> = schedule.iter().map(|a| a.job).collect();
        for job in ctx.jobs.iter() {
            if job.is_running() && !wanted.contains(&job.id) {
                out.stop.push(job.id);
            }
        }
        let mut free: Vec<GpuId> = (0..ctx.cluster.total_gpus())
            .map(GpuId)
            .filter(|&g| match ctx.cluster.owner(g) {
                None => true,
                Some(o) => out.stop.contains(&o),
            })
            .collect();
        free.reverse();
        for a in schedule.iter() {
            let Some(job) = ctx.jobs.get(a.job) else {
                continue;
            };
            if job.is_running() {
                continue;
            }
            let n = a.n_gpus as usize;
            if n > free.len() {
                continue;
            }
            let mut gpus: Vec<GpuId> = free.split_off(free.len() - n);
            gpus.reverse();
            out.start(a.job, &gpus);
        }
    }

    fn name(&self) -> String {
        "run-set".into()
    }
}
