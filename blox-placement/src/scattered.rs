use crate::plan::{place_round, Fit, LoopOptions, Plan, Scratch};
use blox_core::{Ctx, Decisions, FreeGpus, GpuId, GpuSet, Job, NodeId, PlacementPolicy, Schedule};

/// The scattered placement, after Blox's "Place" (`placement/placement.py`, `JobPlacement`): walk
/// the schedule in order, start each waiting job on free GPUs, and preempt running jobs from the
/// bottom of the schedule when it does not fit.
///
/// For each scheduled job in order:
/// 1. running jobs are never moved or resized; skip them;
/// 2. fit: walk nodes with free GPUs in ascending order, taking free GPUs in ascending id order;
/// 3. if it does not fit, evict running jobs **strictly below it** in the schedule, lowest
///    first, one at a time, re-trying the fit after each;
/// 4. if it still does not fit, stop walking (strict order, no back-filling).
///
/// A victim is no longer running, so when the walk reaches it, it may be started again in the
/// same round (a stop and a start of the same job).
///
/// The fit takes exactly what is needed, a failed preemption is rolled back (the victims keep
/// running), running elastic jobs are resized to their scheduled count (see the crate docs,
/// "shared round loop"), and back-filling can be turned on ([`Scattered::with_backfill`]).
/// Unlike the other placements it does not give a victim its old GPUs back when relaunched in
/// the same round: it keeps Blox's lowest-free choice. Blox's own version, quirks included, is
/// `blox_original::BloxScattered`.
///
/// Ties: schedule order, then lowest node and GPU ids. Cost per round: O(s log n + (j + v)·k)
/// for a schedule of s entries, a table of n jobs, j placed jobs, v victims and k nodes a fit
/// takes GPUs from (the next node with free GPUs comes from the plan's index, not a walk).
#[derive(Clone, Debug, Default)]
pub struct Scattered {
    backfill: bool,
    scratch: Scratch,
}

impl Scattered {
    /// The placement.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep walking the schedule past a job that cannot be placed (default: no, Blox's strict
    /// order).
    pub fn with_backfill(mut self, on: bool) -> Self {
        self.backfill = on;
        self
    }
}

/// The scattered fit: the lowest free GPUs in node order, exactly what is needed.
struct ExactScatteredFit;

impl Fit for ExactScatteredFit {
    fn fit(&mut self, plan: &Plan<'_>, _job: &Job, need: u32, out: &mut GpuSet) -> bool {
        scattered_fit(&plan.gpus, need, out)
    }
}

/// The scattered fit on a plan: the lowest free GPUs in node order, exactly `needed`.
pub(crate) fn scattered_fit(plan: &FreeGpus<'_>, needed: u32, out: &mut GpuSet) -> bool {
    out.clear();
    if needed == 0 || plan.total_free() < needed {
        return false;
    }
    let needed = needed as usize;
    // The nodes with free GPUs in ascending order, through the plan's index (no walk over the
    // full ones).
    let mut next = plan.next_free_node(NodeId(0));
    while let Some(node) = next {
        out.extend(plan.free_of_node(node).take(needed - out.len()));
        if out.len() == needed {
            return true;
        }
        if out.len() > needed {
            return false;
        }
        next = plan.next_free_node(NodeId(node.0 + 1));
    }
    false
}

impl PlacementPolicy for Scattered {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let opts = LoopOptions {
            preempt: true,
            backfill: self.backfill,
            reuse_victim_gpus: false,
        };
        place_round(
            &mut ExactScatteredFit,
            opts,
            &mut self.scratch,
            ctx,
            schedule,
            out,
        );
    }

    fn name(&self) -> String {
        "scattered".into()
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

/// GPU ids as plain numbers, for tests and messages.
#[allow(dead_code)]
pub(crate) fn ids(gpus: &[GpuId]) -> Vec<u32> {
    gpus.iter().map(|g| g.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::{Cluster, ClusterSpec, JobId};

    fn cluster_with_busy(nodes: u32, per: u32, busy: &[u32]) -> Cluster {
        let mut c = Cluster::new(ClusterSpec::uniform(nodes, per));
        let gpus: Vec<GpuId> = busy.iter().map(|&g| GpuId(g)).collect();
        c.allocate(JobId(99), &gpus);
        c
    }

    #[test]
    fn the_fit_takes_exactly_what_is_needed_across_nodes() {
        // Node 0 has 2 free (GPUs 2, 3), node 1 has 4 free: 4 needed takes 2 + 2 (Blox's own
        // fit overshoots here; see `blox_original::BloxScattered`).
        let c = cluster_with_busy(2, 4, &[0, 1]);
        let plan = c.free_map();
        let mut out = GpuSet::new();
        assert!(scattered_fit(&plan, 4, &mut out));
        assert_eq!(ids(&out), vec![2, 3, 4, 5]);
    }

    #[test]
    fn one_gpu_takes_lowest_free() {
        let c = cluster_with_busy(2, 4, &[0, 1, 2, 3, 4]);
        let plan = c.free_map();
        let mut out = GpuSet::new();
        assert!(scattered_fit(&plan, 1, &mut out));
        assert_eq!(ids(&out), vec![5]);
    }
}
