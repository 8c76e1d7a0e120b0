use crate::consolidated::NodeFit;
use crate::plan::RoundLoop;
use blox_core::{Ctx, Decisions, PlacementPolicy, Schedule};

/// Resource-aware placement (Synergy, OSDI 2022): a job gets GPUs only on nodes that also have
/// its CPU and memory share, consolidated.
///
/// A job's CPU and memory demand ([`blox_core::JobSpec::cpus`], [`blox_core::JobSpec::mem_gb`],
/// for the whole job) is split equally among its requested GPUs; a node can take as many of the
/// job's GPUs as its free GPUs, free cores and free memory all allow. A job with no stated
/// demand needs the node's GPU-proportional share (`node.cpus / node.gpus` per GPU), Synergy's
/// baseline. Running jobs are accounted the same way, per GPU they hold on each node, so a node
/// is never over its cores or memory. Over these capacities the choice is [`crate::Consolidated`]'s:
/// one best-fit node, or else the fewest nodes.
///
/// The round loop is the shared `exact` one (see the crate docs). Ties: schedule order, then
/// fewest nodes, least leftover, lowest node ids. Cost per round: O(s + n + (j + v)·N log N)
/// for a schedule of s entries, n running jobs, j placed jobs, v victims, N nodes.
#[derive(Clone, Debug)]
pub struct ResourceAware {
    round: RoundLoop<NodeFit>,
}

impl Default for ResourceAware {
    fn default() -> Self {
        ResourceAware {
            round: RoundLoop::new(NodeFit::with_host()),
        }
    }
}

impl ResourceAware {
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

impl PlacementPolicy for ResourceAware {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.round.place(ctx, schedule, out);
    }

    fn name(&self) -> String {
        "resource-aware".into()
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
