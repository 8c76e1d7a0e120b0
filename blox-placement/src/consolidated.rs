use crate::plan::{Fit, Plan, RoundLoop};
use blox_core::{Ctx, Decisions, GpuSet, GpuTypeId, Job, NodeId, PlacementPolicy, Schedule};

/// Consolidated placement: a job goes on as few nodes as possible, best fit.
///
/// - If one node can hold the job, it goes on the node whose free GPUs exceed the need by the
///   least (ties: lowest node id).
/// - Otherwise it spreads over the fewest nodes: the nodes with the most free GPUs, whole,
///   and for the remainder the node that fits it best among the rest.
/// - With `wait` (Tiresias's consolidation), a job that cannot get the fewest nodes it could
///   have on an idle cluster (1 for a job no larger than the largest node) does not spread: it
///   preempts lower jobs if that makes room, or waits.
///
/// GPUs on a chosen node are its lowest free ids; the set is in ascending order. The round loop
/// is the shared `exact` one (see the crate docs).
///
/// Ties: schedule order, then fewest nodes, least leftover, lowest node ids. Cost per round:
/// O(s + (j + v)·N log N) for a schedule of s entries, j placed jobs, v victims, N nodes; a job
/// that fits on one node is placed through the plan's index by free count, without the walk.
#[derive(Clone, Debug)]
pub struct Consolidated {
    round: RoundLoop<NodeFit>,
}

impl Default for Consolidated {
    fn default() -> Self {
        Consolidated {
            round: RoundLoop::new(NodeFit::default()),
        }
    }
}

impl Consolidated {
    /// Wait (or preempt) rather than spread a job over more nodes than it needs on an idle
    /// cluster (default: no).
    pub fn with_wait(mut self, on: bool) -> Self {
        self.round.fit.wait = on;
        self
    }

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

impl PlacementPolicy for Consolidated {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.round.place(ctx, schedule, out);
    }

    fn name(&self) -> String {
        if self.round.fit.wait {
            "consolidated(wait)".into()
        } else {
            "consolidated".into()
        }
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

/// The fewest-nodes best fit over per-node capacities (free GPUs, or what host resources allow).
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeFit {
    pub(crate) wait: bool,
    pub(crate) host: bool,
    /// Node GPU counts and types, largest first (for `wait`).
    sizes: Vec<(u32, GpuTypeId)>,
    order: Vec<(u32, u32)>,
    picks: Vec<(u32, u32)>,
}

impl NodeFit {
    /// The fit over host-limited capacities.
    pub(crate) fn with_host() -> Self {
        NodeFit {
            host: true,
            ..NodeFit::default()
        }
    }

    /// Fewest nodes `need` GPUs take on an idle cluster.
    /// The fewest nodes (of type `only`, if given) that can hold `need` GPUs.
    fn min_nodes(&self, need: u32, only: Option<GpuTypeId>) -> usize {
        let mut sum = 0u32;
        let sizes = self
            .sizes
            .iter()
            .filter(|&&(_, t)| only.map_or(true, |o| o == t));
        for (i, &(s, _)) in sizes.enumerate() {
            sum = sum.saturating_add(s);
            if sum >= need {
                return i + 1;
            }
        }
        usize::MAX
    }
}

/// Choose nodes for `need` GPUs given each node's capacity: one best-fit node when one can hold
/// it, otherwise the fewest nodes (largest first, the last one best fit). `max_nodes` caps the
/// count. Fills `picks` with `(node, count)` by ascending node id.
pub(crate) fn choose_nodes(
    caps: impl Fn(NodeId) -> u32,
    n_nodes: usize,
    need: u32,
    max_nodes: usize,
    order: &mut Vec<(u32, u32)>,
    picks: &mut Vec<(u32, u32)>,
) -> bool {
    picks.clear();
    order.clear();
    let mut best: Option<(u32, u32)> = None;
    let mut total: u64 = 0;
    for k in 0..n_nodes {
        let cap = caps(NodeId(k as u32));
        if cap == 0 {
            continue;
        }
        total += u64::from(cap);
        if cap >= need && best.map_or(true, |(c, _)| cap < c) {
            best = Some((cap, k as u32));
        }
        order.push((cap, k as u32));
    }
    if let Some((_, k)) = best {
        picks.push((k, need));
        return true;
    }
    if total < u64::from(need) || max_nodes <= 1 {
        return false;
    }
    order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut sum = 0u32;
    let mut m = 0;
    while sum < need {
        sum += order[m].0;
        m += 1;
    }
    if m > max_nodes {
        return false;
    }
    let full: u32 = order[..m - 1].iter().map(|p| p.0).sum();
    let rem = need - full;
    let last = order[m - 1..]
        .iter()
        .filter(|p| p.0 >= rem)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
        .copied()
        .expect("the m-th largest node holds the remainder");
    picks.extend(order[..m - 1].iter().map(|&(cap, k)| (k, cap)));
    picks.push((last.1, rem));
    picks.sort_unstable_by_key(|p| p.0);
    true
}

impl Fit for NodeFit {
    fn host(&self) -> bool {
        self.host
    }

    fn begin(&mut self, ctx: &Ctx<'_>, _plan: &Plan<'_>) {
        if self.wait {
            self.sizes.clear();
            let cluster = ctx.cluster;
            self.sizes.extend((0..cluster.n_nodes() as u32).map(|k| {
                (
                    cluster.spec().nodes[k as usize].gpus,
                    cluster.node_type(NodeId(k)),
                )
            }));
            self.sizes.sort_unstable_by_key(|s| std::cmp::Reverse(s.0));
        }
    }

    fn fit(&mut self, plan: &Plan<'_>, job: &Job, need: u32, out: &mut GpuSet) -> bool {
        out.clear();
        if need == 0 || plan.gpus.total_free() < need {
            return false;
        }
        // One node that holds it, best fit: straight from the plan's index by free count when
        // capacity is free GPUs alone (the same node the scan below would pick).
        if !plan.host {
            if let Some(node) = plan.gpus.best_fit_node(need) {
                out.extend(plan.gpus.free_of_node(node).take(need as usize));
                return true;
            }
        }
        let max_nodes = if self.wait {
            self.min_nodes(need, plan.gpus.restriction())
        } else {
            usize::MAX
        };
        let n_nodes = plan.gpus.n_nodes();
        if !choose_nodes(
            |node| plan.capacity(job, node),
            n_nodes,
            need,
            max_nodes,
            &mut self.order,
            &mut self.picks,
        ) {
            return false;
        }
        for &(k, count) in &self.picks {
            out.extend(plan.gpus.free_of_node(NodeId(k)).take(count as usize));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(caps: &[u32], need: u32, max: usize, expected: Option<&[(u32, u32)]>) {
        let mut order = Vec::new();
        let mut picks = Vec::new();
        let ok = choose_nodes(
            |n| caps[n.index()],
            caps.len(),
            need,
            max,
            &mut order,
            &mut picks,
        );
        assert_eq!(
            ok.then_some(picks.as_slice()),
            expected,
            "caps {caps:?} need {need}"
        );
    }

    #[test]
    fn best_fit_then_fewest_nodes() {
        check(&[4, 2, 3], 2, usize::MAX, Some(&[(1, 2)]));
        check(&[4, 2, 3], 3, usize::MAX, Some(&[(2, 3)]));
        // 6 GPUs: the 4-node whole, then the remainder 2 on the 2-node (best fit), not the 3.
        check(&[4, 2, 3], 6, usize::MAX, Some(&[(0, 4), (1, 2)]));
        check(&[4, 2, 3], 6, 1, None);
        check(&[4, 2, 3], 10, usize::MAX, None);
        check(
            &[1, 1, 1, 1],
            3,
            usize::MAX,
            Some(&[(0, 1), (1, 1), (2, 1)]),
        );
    }
}
