//! Blox's placement, quirks included: the `blox` preset's `scattered`.

use blox_core::{Ctx, Decisions, FreeGpus, GpuSet, JobId, NodeId, PlacementPolicy, Schedule};

/// Blox's "Place" exactly, quirks included: the placement of the `blox` preset.
///
/// As `blox_placement::Scattered` (same walk, same victims from the bottom of the schedule, strict order),
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
/// entry's table slot is looked up once.
///
/// Ties: schedule order, then lowest node and GPU ids. Cost per round: O(s log n + (j + v)·N)
/// for a schedule of s entries, a table of n jobs, j placed jobs, v victims and N nodes.
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

/// Blox's fit, overshoot included: up to `needed` GPUs are appended from *each* node with free
/// GPUs, in node order, and the fit succeeds only when the list holds exactly `needed` after
/// some node (BLOX-SEMANTICS §6).
fn blox_fit(plan: &FreeGpus<'_>, needed: u32, out: &mut GpuSet) -> bool {
    out.clear();
    if needed == 0 || plan.total_free() < needed {
        return false;
    }
    let needed = needed as usize;
    // The nodes with free GPUs in ascending order, through the plan's index.
    let mut next = plan.next_free_node(NodeId(0));
    while let Some(node) = next {
        out.extend(plan.free_of_node(node).take(needed));
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

impl PlacementPolicy for BloxScattered {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let jobs = ctx.jobs;
        let mut plan = ctx.cluster.free_map();
        self.stopped.clear();
        self.stopped.resize(jobs.slot_bound(), false);
        let entries = &schedule.entries;
        // Each entry's table slot, looked up once per round.
        self.pos.clear();
        self.pos.extend(entries.iter().map(|e| jobs.slot(e.job)));
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
            if jobs.row(idx).is_running() && !self.stopped[idx] {
                continue;
            }
            let job = jobs.at(idx);
            let mut fits = blox_fit(&plan, entry.n_gpus, &mut self.gpus);
            if !fits {
                self.victims.clear();
                let mut c = cursor;
                while c > pos + 1 {
                    c -= 1;
                    let Some(vidx) = self.pos[c] else {
                        continue;
                    };
                    if !jobs.row(vidx).is_running() || self.stopped[vidx] {
                        continue;
                    }
                    let victim = jobs.at(vidx);
                    self.stopped[vidx] = true;
                    self.victims.push(victim.id);
                    plan.release(&victim.gpus);
                    fits = blox_fit(&plan, entry.n_gpus, &mut self.gpus);
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

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::{Cluster, ClusterSpec};

    #[test]
    fn blox_overshoot_makes_a_fitting_job_unplaceable() {
        // Node 0 has 2 free (GPUs 2, 3), node 1 has 4 free: 4 needed goes 2 -> 6 in Blox.
        let mut c = Cluster::new(ClusterSpec::uniform(2, 4));
        c.allocate(JobId(99), &[blox_core::GpuId(0), blox_core::GpuId(1)]);
        let plan = c.free_map();
        let mut out = GpuSet::new();
        assert!(!blox_fit(&plan, 4, &mut out));
        // One GPU takes the lowest free.
        assert!(blox_fit(&plan, 1, &mut out));
        assert_eq!(out.iter().map(|g| g.0).collect::<Vec<_>>(), vec![2]);
    }
}
