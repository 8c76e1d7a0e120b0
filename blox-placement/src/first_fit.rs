use crate::plan::{Fit, Plan, RoundLoop};
use crate::scattered::scattered_fit;
use blox_core::{Ctx, Decisions, GpuSet, Job, PlacementPolicy, Schedule};

/// First fit: the lowest-numbered free GPUs of the cluster, exactly as many as the schedule
/// asks, wherever they are.
///
/// The round loop is the shared `exact` one (see the crate docs): elastic resizing, preemption
/// of lower jobs with rollback (on by default), optional back-filling (off by default), and a
/// victim of the round relaunched on its old GPUs when they are still free.
///
/// Ties: schedule order, then lowest GPU ids. Cost per round: O(s + (j + v)·k) for a schedule
/// of s entries, j placed jobs, v victims and k nodes a fit takes GPUs from.
#[derive(Clone, Debug)]
pub struct FirstFit {
    round: RoundLoop<LowestFree>,
}

impl Default for FirstFit {
    fn default() -> Self {
        FirstFit {
            round: RoundLoop::new(LowestFree),
        }
    }
}

impl FirstFit {
    /// Preempt lower jobs when a job does not fit (default: yes).
    pub fn with_preemption(mut self, on: bool) -> Self {
        self.round.set_preemption(on);
        self
    }

    /// Keep walking the schedule past a job that cannot be placed (default: no).
    pub fn with_backfill(mut self, on: bool) -> Self {
        self.round.set_backfill(on);
        self
    }
}

#[derive(Clone, Copy, Debug)]
struct LowestFree;

impl Fit for LowestFree {
    fn fit(&mut self, plan: &Plan<'_>, _job: &Job, need: u32, out: &mut GpuSet) -> bool {
        scattered_fit(&plan.gpus, need, out)
    }
}

impl PlacementPolicy for FirstFit {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.round.place(ctx, schedule, out);
    }

    fn name(&self) -> String {
        "first-fit".into()
    }

    fn reads_progress(&self) -> bool {
        false
    }

    fn skips_settled(&self) -> bool {
        // The shared round loop leaves a settled job where it is and takes victims only below
        // the job it places.
        true
    }
}
