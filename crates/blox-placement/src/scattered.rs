use blox_core::{
    Ctx, Decisions, FreeGpus, GpuId, GpuSet, JobId, NodeId, PlacementPolicy, Schedule, Semantics,
};

/// Blox's "Place" (`placement/placement.py`, `JobPlacement`) with the scattered fit: walk the
/// schedule in order, start each waiting job on free GPUs, and preempt running jobs from the
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
/// In [`Semantics::Blox`] two of Blox's quirks are reproduced:
/// - **overshoot**: the fit appends up to `needed` GPUs from *each* node and succeeds only when the
///   list holds exactly `needed` after some node, so 4 GPUs over a node with 2 free and one with 4
///   free fail (2 → 6);
/// - **failed preemption**: when evicting every lower job still does not make room, the victims
///   stay stopped.
///
/// In [`Semantics::Exact`] the fit takes exactly what is needed and a failed preemption is
/// rolled back (the victims keep running).
///
/// Ties: schedule order, then lowest node and GPU ids. Cost per round: O(s + v·N) for a schedule
/// of s jobs, v victims and N nodes.
#[derive(Clone, Debug, Default)]
pub struct Scattered {
    stopped: Vec<bool>,
    victims: Vec<JobId>,
    gpus: GpuSet,
}

impl Scattered {
    /// The placement.
    pub fn new() -> Self {
        Self::default()
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
    for k in 0..plan.n_nodes() {
        let node = NodeId(k as u32);
        if plan.free_on_node(node) == 0 {
            continue;
        }
        let take = if quirks { needed } else { needed - out.len() };
        out.extend(plan.free_of_node(node).take(take));
        if out.len() == needed {
            return true;
        }
        if out.len() > needed {
            return false;
        }
    }
    false
}

impl PlacementPolicy for Scattered {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let quirks = ctx.semantics == Semantics::Blox;
        let jobs = ctx.jobs;
        let mut plan = ctx.cluster.free_map();
        self.stopped.clear();
        self.stopped.resize(jobs.len(), false);
        let entries = &schedule.entries;
        for (pos, entry) in entries.iter().enumerate() {
            let Some(idx) = jobs.position(entry.job) else {
                continue;
            };
            let job = &jobs.as_slice()[idx];
            if job.is_running() && !self.stopped[idx] {
                continue;
            }
            let mut fits = scattered_fit(&plan, entry.n_gpus, quirks, &mut self.gpus);
            if !fits {
                self.victims.clear();
                for below in entries[pos + 1..].iter().rev() {
                    let Some(vidx) = jobs.position(below.job) else {
                        continue;
                    };
                    let victim = &jobs.as_slice()[vidx];
                    if !victim.is_running() || self.stopped[vidx] {
                        continue;
                    }
                    self.stopped[vidx] = true;
                    self.victims.push(victim.id);
                    plan.release(&victim.gpus);
                    fits = scattered_fit(&plan, entry.n_gpus, quirks, &mut self.gpus);
                    if fits {
                        break;
                    }
                }
                if !fits && !quirks {
                    // Exact semantics: roll the failed preemption back.
                    for v in &self.victims {
                        let vidx = jobs.position(*v).expect("victim is active");
                        self.stopped[vidx] = false;
                        plan.occupy(&jobs.as_slice()[vidx].gpus);
                    }
                    self.victims.clear();
                }
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
