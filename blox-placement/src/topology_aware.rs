use crate::plan::{Fit, Plan, RoundLoop};
use crate::topology::{DomainTree, Topology};
use blox_core::{Ctx, Decisions, GpuId, GpuSet, Job, PlacementPolicy, Schedule};
use std::sync::Arc;

/// Topology-aware placement: a job of n GPUs gets the free set whose ring all-reduce has the
/// highest bottleneck bandwidth on the interconnect ([`Topology`]).
///
/// The topology's domains nest (an NVSwitch node inside a rack inside the cluster), and a
/// ring's bottleneck is the bandwidth of the smallest domain holding all its GPUs (see
/// [`Topology::ring_bandwidth`]). So the search is over domains, not sets:
///
/// 1. among the domains with at least n free GPUs, take the fastest; ties: the fewest free
///    GPUs (best fit, to keep large free domains whole), then the lowest GPU id;
/// 2. inside it, use as few sub-domains as possible: the sub-domains with the most free GPUs
///    whole, and for the remainder the best-fitting sub-domain, recursively.
///
/// The cost it minimises is thus, in order: the ring's bottleneck bandwidth (higher is
/// better), the number of sub-domains spanned at each level, the free GPUs left in the chosen
/// domain. Free counts per domain are kept up to date as the plan changes (O(h) per GPU for a
/// tree of height h), so one decision costs O(D + c log c + n·h) for D domains (≈ nodes + racks)
/// and c sub-domains of the chosen domain: at 4,096 GPUs on 512 8-GPU nodes, about 550 domains.
///
/// Without a topology (or with one that does not match the cluster's GPU count) it uses
/// [`Topology::default_for`] the cluster. The round loop is the shared `exact` one (see the
/// crate docs); an elastic job that grows gets its extra GPUs in the smallest domain around its
/// current ones that has room.
///
/// Ties: schedule order, then as above, then lowest GPU ids.
#[derive(Clone, Debug)]
pub struct TopologyAware {
    round: RoundLoop<DomainFit>,
}

impl Default for TopologyAware {
    fn default() -> Self {
        Self::new(None)
    }
}

impl TopologyAware {
    /// Placement over this topology, or over the cluster's default topology when `None`.
    pub fn new(topology: Option<Arc<Topology>>) -> Self {
        TopologyAware {
            round: RoundLoop::new(DomainFit {
                given: topology,
                default: None,
                free: Vec::new(),
                n_dom: 0,
                gpu_type: Vec::new(),
                units: Vec::new(),
                stack: Vec::new(),
            }),
        }
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

impl PlacementPolicy for TopologyAware {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.round.place(ctx, schedule, out);
    }

    fn name(&self) -> String {
        "topology".into()
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

#[derive(Clone, Debug)]
struct DomainFit {
    given: Option<Arc<Topology>>,
    default: Option<Arc<Topology>>,
    /// Free GPUs per domain, in the plan: all types in the first `n_dom` slots, then, on a
    /// cluster of several GPU types, one block of `n_dom` per type.
    free: Vec<u32>,
    n_dom: usize,
    /// Each GPU's type (only on a cluster of several types).
    gpu_type: Vec<u32>,
    /// Scratch: (free, first GPU, domain or GPU) units of one domain.
    units: Vec<(u32, u32, Unit)>,
    stack: Vec<(u32, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Dom(u32),
    Gpu(u32),
}

impl DomainFit {
    fn topo(&self) -> &Topology {
        self.default
            .as_deref()
            .or(self.given.as_deref())
            .expect("begin chose a topology")
    }

    /// Where the counts the plan's type restriction sees start in `free`.
    fn off(&self, plan: &Plan<'_>) -> usize {
        match plan.gpus.restriction() {
            Some(t) if !self.gpu_type.is_empty() => (1 + t.index()) * self.n_dom,
            _ => 0,
        }
    }

    fn add(&mut self, gpus: &[GpuId], delta: i64) {
        let topo = match self.default.as_ref().or(self.given.as_ref()) {
            Some(t) => Arc::clone(t),
            None => return,
        };
        let tree = &topo.tree;
        for g in gpus {
            let Some(&d) = tree.gpu_dom.get(g.index()) else {
                continue;
            };
            // The all-types block, and the GPU's own type's block when types are tracked.
            let own = self
                .gpu_type
                .get(g.index())
                .map(|&t| (1 + t as usize) * self.n_dom);
            for off in std::iter::once(0).chain(own) {
                let mut d = d;
                loop {
                    let f = &mut self.free[off + d as usize];
                    *f = (i64::from(*f) + delta) as u32;
                    let p = tree.parent[d as usize];
                    if p == u32::MAX {
                        break;
                    }
                    d = p;
                }
            }
        }
    }

    /// Take `need` free GPUs inside domain `d` (which has that many), fewest sub-domains first.
    fn take(&mut self, plan: &Plan<'_>, d: u32, need: u32, out: &mut GpuSet) {
        let topo = Arc::clone(
            self.default
                .as_ref()
                .or(self.given.as_ref())
                .expect("topology"),
        );
        let tree = &topo.tree;
        let off = self.off(plan);
        self.stack.clear();
        self.stack.push((d, need));
        while let Some((d, need)) = self.stack.pop() {
            let mut units = std::mem::take(&mut self.units);
            units.clear();
            for &c in &tree.children[d as usize] {
                let f = self.free[off + c as usize];
                if f > 0 {
                    units.push((f, tree.first[c as usize], Unit::Dom(c)));
                }
            }
            for &g in &tree.gpus[d as usize] {
                if plan.gpus.is_free(GpuId(g)) {
                    units.push((1, g, Unit::Gpu(g)));
                }
            }
            // One unit that holds it all: the best fit.
            let single = units
                .iter()
                .filter(|u| u.0 >= need)
                .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
                .copied();
            let mut rest: Option<(u32, u32, Unit)> = single;
            let mut whole = 0;
            if single.is_none() {
                units.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                let mut sum = 0;
                while sum < need {
                    sum += units[whole].0;
                    whole += 1;
                }
                whole -= 1;
                let full: u32 = units[..whole].iter().map(|u| u.0).sum();
                let rem = need - full;
                rest = units[whole..]
                    .iter()
                    .filter(|u| u.0 >= rem)
                    .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)))
                    .map(|u| (rem, u.1, u.2));
                for u in &units[..whole] {
                    match u.2 {
                        Unit::Gpu(g) => out.push(GpuId(g)),
                        Unit::Dom(c) => all_free(tree, plan, c, out),
                    }
                }
            }
            match rest {
                Some((_, _, Unit::Gpu(g))) => out.push(GpuId(g)),
                Some((n, _, Unit::Dom(c))) => {
                    let n = if single.is_some() { need } else { n };
                    self.stack.push((c, n));
                }
                None => {}
            }
            self.units = units;
        }
    }
}

/// Every free GPU under domain `d`.
fn all_free(tree: &DomainTree, plan: &Plan<'_>, d: u32, out: &mut GpuSet) {
    let mut stack = vec![d];
    while let Some(d) = stack.pop() {
        for &g in &tree.gpus[d as usize] {
            if plan.gpus.is_free(GpuId(g)) {
                out.push(GpuId(g));
            }
        }
        stack.extend(tree.children[d as usize].iter().copied());
    }
}

impl Fit for DomainFit {
    fn begin(&mut self, ctx: &Ctx<'_>, plan: &Plan<'_>) {
        let total = ctx.cluster.total_gpus();
        let given_ok = self.given.as_ref().is_some_and(|t| t.n_gpus() == total);
        if given_ok {
            self.default = None;
        } else if self.default.as_ref().map_or(true, |t| t.n_gpus() != total) {
            self.default = Some(Arc::new(Topology::default_for(ctx.cluster.spec())));
        }
        let n_dom = self.topo().tree.len();
        self.n_dom = n_dom;
        self.gpu_type.clear();
        let cluster = ctx.cluster;
        if cluster.n_gpu_types() > 1 {
            self.gpu_type
                .extend((0..total).map(|g| cluster.gpu_type(GpuId(g)).0));
        }
        self.free.clear();
        self.free.resize(n_dom * (1 + cluster.n_gpu_types()), 0);
        let free: Vec<GpuId> = (0..total)
            .map(GpuId)
            .filter(|&g| plan.gpus.is_free(g))
            .collect();
        self.add(&free, 1);
    }

    fn fit(&mut self, plan: &Plan<'_>, _job: &Job, need: u32, out: &mut GpuSet) -> bool {
        out.clear();
        if need == 0 || plan.gpus.total_free() < need {
            return false;
        }
        let off = self.off(plan);
        let free = &self.free[off..off + self.n_dom];
        let best = {
            let tree = &self.topo().tree;
            let mut best: Option<u32> = None;
            for d in 0..tree.len() {
                let f = free[d];
                if f < need {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some(b) => {
                        let b = b as usize;
                        tree.bw[d]
                            .total_cmp(&tree.bw[b])
                            .then(free[b].cmp(&f))
                            .then(tree.first[b].cmp(&tree.first[d]))
                            .is_gt()
                    }
                };
                if better {
                    best = Some(d as u32);
                }
            }
            best
        };
        let Some(d) = best else {
            return false;
        };
        self.take(plan, d, need, out);
        out.sort_unstable();
        debug_assert_eq!(out.len(), need as usize);
        true
    }

    fn extend(
        &mut self,
        plan: &Plan<'_>,
        _job: &Job,
        have: &[GpuId],
        extra: u32,
        out: &mut GpuSet,
    ) -> bool {
        out.clear();
        if extra == 0 || plan.gpus.total_free() < extra {
            return false;
        }
        let mut d = {
            let tree = &self.topo().tree;
            let n = tree.gpu_dom.len() as u32;
            match tree.lca_of(have.iter().map(|g| g.0).filter(|&g| g < n)) {
                Some(d) => d,
                None => tree.len() as u32 - 1,
            }
        };
        let off = self.off(plan);
        loop {
            if self.free[off + d as usize] >= extra {
                self.take(plan, d, extra, out);
                out.sort_unstable();
                return true;
            }
            let p = self.topo().tree.parent[d as usize];
            if p == u32::MAX {
                return false;
            }
            d = p;
        }
    }

    fn occupied(&mut self, gpus: &[GpuId]) {
        self.add(gpus, -1);
    }

    fn released(&mut self, gpus: &[GpuId]) {
        self.add(gpus, 1);
    }
}
