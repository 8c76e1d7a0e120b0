use crate::plan::{place_round, Fit, LoopOptions, Plan, Scratch};
use blox_core::{
    Ctx, Decisions, FreeGpus, GpuId, GpuSet, Job, JobId, NodeId, PlacementPolicy, Schedule,
};

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
/// the same round: it keeps Blox's lowest-free choice. [`BloxScattered`] is Blox's own version,
/// quirks included.
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

/// Blox's "Place" exactly, quirks included: the placement of the `blox` preset.
///
/// As [`Scattered`] (same walk, same victims from the bottom of the schedule, strict order),
/// with two of Blox's quirks reproduced:
/// - **overshoot**: the fit appends up to `needed` GPUs from *each* node and succeeds only when the
///   list holds exactly `needed` after some node, so 4 GPUs over a node with 2 free and one with 4
///   free fail (2 → 6);
/// - **failed preemption**: when evicting every lower job still does not make room, the victims
///   stay stopped.
///
/// Running jobs are never moved or resized, and GPU types in the schedule are ignored, as in
/// Blox. A victim is no longer running, so when the walk reaches it, it may be started again in
/// the same round (a stop and a start of the same job).
///
/// The victim search keeps a cursor across the round (no entry is a candidate twice) and each
/// entry's table position is looked up once.
///
/// Ties: schedule order, then lowest node and GPU ids. Cost per round: O(s log n + (j + v)·k)
/// for a schedule of s entries, a table of n jobs, j placed jobs, v victims and k nodes a fit
/// takes GPUs from.
#[derive(Clone, Debug, Default)]
pub struct BloxScattered {
    stopped: Vec<bool>,
    pos: Vec<Option<usize>>,
    victims: Vec<JobId>,
    gpus: GpuSet,
}

impl BloxScattered {
    /// The placement.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The scattered fit: the lowest free GPUs in node order, exactly what is needed.
struct ExactScatteredFit;

impl Fit for ExactScatteredFit {
    fn fit(&mut self, plan: &Plan<'_>, _job: &Job, need: u32, out: &mut GpuSet) -> bool {
        scattered_fit(&plan.gpus, need, false, out)
    }
}

/// The scattered fit on a plan. With `quirks`, Blox's overshoot rule applies.
pub(crate) fn scattered_fit(
    plan: &FreeGpus<'_>,
    needed: u32,
    quirks: bool,
    out: &mut GpuSet,
) -> bool {
    out.clear();
    if needed == 0 || plan.total_free() < needed {
        return false;
    }
    let needed = needed as usize;
    // The nodes with free GPUs in ascending order, through the plan's index (no walk over the
    // full ones).
    let mut next = plan.next_free_node(NodeId(0));
    while let Some(node) = next {
        let take = if quirks { needed } else { needed - out.len() };
        out.extend(plan.free_of_node(node).take(take));
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
}

impl PlacementPolicy for BloxScattered {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let jobs = ctx.jobs.as_slice();
        let mut plan = ctx.cluster.free_map();
        self.stopped.clear();
        self.stopped.resize(jobs.len(), false);
        let entries = &schedule.entries;
        // Each entry's table position, looked up once per round.
        self.pos.clear();
        self.pos
            .extend(entries.iter().map(|e| ctx.jobs.position(e.job)));
        // Entries at or after `cursor` are never candidate victims again: in Blox's rule a
        // candidate must be running in the live table and not yet stopped this round, and a
        // stopped job stays stopped (even when relaunched). So the bottom-up victim search of
        // every waiting job can resume where the previous one ended, instead of restarting
        // from the bottom of the schedule: the round visits each entry at most once as a
        // candidate.
        let mut cursor = entries.len();
        for (pos, entry) in entries.iter().enumerate() {
            let Some(idx) = self.pos[pos] else {
                continue;
            };
            let job = &jobs[idx];
            if job.is_running() && !self.stopped[idx] {
                continue;
            }
            let mut fits = scattered_fit(&plan, entry.n_gpus, true, &mut self.gpus);
            if !fits {
                self.victims.clear();
                let mut c = cursor;
                while c > pos + 1 {
                    c -= 1;
                    let Some(vidx) = self.pos[c] else {
                        continue;
                    };
                    let victim = &jobs[vidx];
                    if !victim.is_running() || self.stopped[vidx] {
                        continue;
                    }
                    self.stopped[vidx] = true;
                    self.victims.push(victim.id);
                    plan.release(&victim.gpus);
                    fits = scattered_fit(&plan, entry.n_gpus, true, &mut self.gpus);
                    if fits {
                        break;
                    }
                }
                cursor = c;
                // Blox: a failed preemption keeps its victims stopped.
                out.stop.extend_from_slice(&self.victims);
            }
            if !fits {
                break;
            }
            plan.occupy(&self.gpus);
            out.start(job.id, &self.gpus);
        }
    }

    fn name(&self) -> String {
        "scattered".into()
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
    use blox_core::{Cluster, ClusterSpec};

    fn cluster_with_busy(nodes: u32, per: u32, busy: &[u32]) -> Cluster {
        let mut c = Cluster::new(ClusterSpec::uniform(nodes, per));
        let gpus: Vec<GpuId> = busy.iter().map(|&g| GpuId(g)).collect();
        c.allocate(JobId(99), &gpus);
        c
    }

    #[test]
    fn blox_overshoot_makes_a_fitting_job_unplaceable() {
        // Node 0 has 2 free (GPUs 2, 3), node 1 has 4 free: 4 needed goes 2 -> 6 in Blox.
        let c = cluster_with_busy(2, 4, &[0, 1]);
        let plan = c.free_map();
        let mut out = GpuSet::new();
        assert!(!scattered_fit(&plan, 4, true, &mut out));
        assert!(scattered_fit(&plan, 4, false, &mut out));
        assert_eq!(ids(&out), vec![2, 3, 4, 5]);
    }

    #[test]
    fn one_gpu_takes_lowest_free() {
        let c = cluster_with_busy(2, 4, &[0, 1, 2, 3, 4]);
        let plan = c.free_map();
        let mut out = GpuSet::new();
        assert!(scattered_fit(&plan, 1, true, &mut out));
        assert_eq!(ids(&out), vec![5]);
    }
}
