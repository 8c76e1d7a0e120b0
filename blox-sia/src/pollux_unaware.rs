//! Sia's heterogeneity-unaware Pollux baseline (`multi_simulator_unaware.py --policy=pollux
//! --policy_p_val=-1`, `cluster_unaware.py`, `pollux_unaware.py`; SIA-SEMANTICS §7.2).
//!
//! The unmodified Pollux policy runs on a virtual homogeneous cluster:
//!
//! - **virtual nodes** ([`VirtualNodes`]) of the smallest GPUs-per-node of the cluster's types
//!   (4 on every shipped cluster): an aws node is one vnode, a dgx-ext or rtx node two, in type
//!   order (16 vnodes, 64 GPUs on Table 3's cluster);
//! - every job is **unaware** ([`SiaJob::unaware`]): one profile merged across types (the first
//!   observation of a key wins) and one fitted model, and the policy's goodput uses the **aws**
//!   application's batch limits and max batch;
//! - `max_replicas = min(max(2 × largest profiled, 1), cap, aws max batch // aws min local)`,
//!   `cap` = the smallest type capacity limited by its max physical nodes ([`replica_cap`], 16
//!   on Table 3's cluster);
//! - the genetic search is blox-pollux's [`PolluxPolicy`] (100 × 100, p = −1, repair with
//!   interference avoidance on vnodes), drawing from the run's seed stream `pollux-ga/<round>`
//!   as under `--semantics pollux` (the original is unseeded, §10);
//! - **repair to one type** ([`keep_one_type`], `fix_allocations_by_dropping`): a job whose
//!   vnodes span types keeps the GPUs of the type with the most, ties between the two leading
//!   types to the faster one (dgx-ext > azure > quad > rtx > aws); the others stay idle;
//! - vnodes map back to `(type, sorted real node ids)` (a placement over more nodes than the
//!   type physically profiled is rebalanced, [`fix_physical_nodes`]); the repaired vnode
//!   allocation is what the search sees as the current state next round.
//!
//! The policy is driven through blox-pollux's public API only: each round a
//! [`PolluxSim`] of stand-in [`PolluxJob`]s (the aws application, the merged fit, the job's
//! attained service and restarts) makes the one `RoundInput` and decision, with a zero-length
//! interval so it advances nothing.

use std::collections::BTreeMap;

use blox_core::Seed;
use blox_pollux::{Allocations, PolluxJob, PolluxPolicy, PolluxPolicyConfig, PolluxSim, SimConfig};

use crate::cluster::{ClusterError, SiaCluster};
use crate::job::SiaJob;
use crate::policy::Decision;
use crate::sim::{HeteroPolicy, SimError};

/// The order in which a tie between two types is broken, best first
/// (`fix_allocations_by_dropping`'s `prio_order`).
pub const KEEP_ORDER: [&str; 5] = ["dgx-ext", "azure", "quad", "rtx", "aws"];

/// A type's rank in [`KEEP_ORDER`]; a type it does not name (`dgx`, where the original fails
/// with a `KeyError`) ranks after all of them.
fn keep_rank(name: &str) -> usize {
    KEEP_ORDER
        .iter()
        .position(|t| *t == name)
        .unwrap_or(KEEP_ORDER.len())
}

/// The virtual homogeneous cluster: vnode `v` is `(type index, real node id)` `map[v]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualNodes {
    /// GPUs per vnode: the smallest GPUs-per-node among the cluster's types.
    pub gpus: u32,
    /// Per vnode: its GPU type (index in the cluster's type order) and real node id.
    pub map: Vec<(usize, u32)>,
}

impl VirtualNodes {
    /// The vnodes of `cluster`: types in order, each real node split into
    /// `GPUs-per-node / vnode size` consecutive vnodes.
    pub fn new(cluster: &SiaCluster) -> VirtualNodes {
        let gpus = cluster
            .types
            .iter()
            .map(|t| t.gpus_per_node)
            .min()
            .unwrap_or(1)
            .max(1);
        let mut map = Vec::new();
        for (t, ty) in cluster.types.iter().enumerate() {
            let per = (ty.gpus_per_node / gpus).max(1);
            for node in 0..ty.nodes {
                for _ in 0..per {
                    map.push((t, node));
                }
            }
        }
        VirtualNodes { gpus, map }
    }

    /// Vnodes in all.
    pub fn count(&self) -> u32 {
        self.map.len() as u32
    }

    /// A one-type vnode allocation (one vnode id per GPU) as the simulator's decision:
    /// `(type, sorted real node ids)`, `None` when empty (`map_vnode_to_real_node`).
    pub fn decision(&self, alloc: &[u32]) -> Decision {
        let first = *alloc.first()?;
        let t = self.map[first as usize].0;
        debug_assert!(alloc.iter().all(|&v| self.map[v as usize].0 == t));
        let mut ids: Vec<u32> = alloc.iter().map(|&v| self.map[v as usize].1).collect();
        ids.sort_unstable();
        Some((t, ids))
    }
}

/// Repair to one type (`fix_allocations_by_dropping`, §7.2): count the GPUs of each type in
/// `alloc` (types in order of first appearance), keep those of the type with the most; when
/// the two leading types tie, the faster of those two by [`KEEP_ORDER`]. Only the first two
/// are compared, as in the original. The kept vnode ids stay in their order.
pub fn keep_one_type(cluster: &SiaCluster, vnodes: &VirtualNodes, alloc: &[u32]) -> Vec<u32> {
    let mut counts: Vec<(usize, u32)> = Vec::new();
    for &v in alloc {
        let t = vnodes.map[v as usize].0;
        match counts.iter_mut().find(|c| c.0 == t) {
            Some(c) => c.1 += 1,
            None => counts.push((t, 1)),
        }
    }
    if counts.len() <= 1 {
        return alloc.to_vec();
    }
    // `Counter.most_common()`: by count, descending, stable on first appearance.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let mut keep = counts[0].0;
    if counts[0].1 == counts[1].1
        && keep_rank(&cluster.types[counts[1].0].name) < keep_rank(&cluster.types[keep].name)
    {
        keep = counts[1].0;
    }
    alloc
        .iter()
        .copied()
        .filter(|&v| vnodes.map[v as usize].0 == keep)
        .collect()
}

/// The original's fix of a placement spanning more nodes than its type's max physical nodes
/// (`cluster_unaware.py`: "FIXING PLACEMENT FOR LARGE CLUSTER"): `R` GPUs go
/// `ceil(R / max physical nodes)` per node. Expressed on the decision's node ids (its first
/// distinct ids, each repeated its new count) so the placement tuple the simulator derives is
/// the fixed one; GPU count and type are unchanged. Never needed on Table 3's cluster (no type
/// has more nodes than it physically profiled); a scaled cluster can.
pub fn fix_physical_nodes(cluster: &SiaCluster, d: Decision) -> Decision {
    let (t, ids) = d?;
    let mut distinct: Vec<u32> = ids.clone();
    distinct.dedup();
    let maxp = cluster.types[t].max_physical_nodes.max(1) as usize;
    if distinct.len() <= maxp {
        return Some((t, ids));
    }
    let mut left = ids.len();
    let per = left.div_ceil(maxp);
    let mut fixed = Vec::with_capacity(left);
    for &node in &distinct {
        if left == 0 {
            break;
        }
        let k = per.min(left);
        fixed.extend(std::iter::repeat(node).take(k));
        left -= k;
    }
    Some((t, fixed))
}

/// The cluster-wide replica cap (`max_num_replicas` of `multi_simulator_unaware.py`): the
/// smallest over types of `min(GPUs, max physical nodes × GPUs per node)`.
pub fn replica_cap(cluster: &SiaCluster) -> u32 {
    cluster
        .types
        .iter()
        .map(|t| t.gpus().min(t.max_physical_nodes * t.gpus_per_node))
        .min()
        .unwrap_or(0)
}

/// The heterogeneity-unaware Pollux baseline's state.
#[derive(Debug)]
pub struct PolluxUnaware {
    policy: PolluxPolicy,
    seed: Seed,
    round: u64,
    vnodes: VirtualNodes,
    cap: u32,
    aws: usize,
    /// The repaired vnode allocations of the last decision, by workload index.
    prev: Allocations,
}

impl PolluxUnaware {
    /// The baseline on `cluster` with fairness power `p` (−1 in Sia's runs), drawing from
    /// `seed`. The cluster needs an aws type: the policy reads the aws application's limits.
    pub fn new(cluster: &SiaCluster, p: f64, seed: Seed) -> Result<PolluxUnaware, ClusterError> {
        let aws = cluster
            .types
            .iter()
            .position(|t| t.name == "aws")
            .ok_or_else(|| {
                ClusterError(
                    "Sia's unaware Pollux baseline reads the aws application's batch limits \
                     (SIA-SEMANTICS §7.2): the cluster needs an aws type"
                        .into(),
                )
            })?;
        if p == 0.0 || !p.is_finite() {
            return Err(ClusterError(format!(
                "pollux: p = {p} (a finite non-zero power)"
            )));
        }
        let mut config = PolluxPolicyConfig::default();
        config.p = p;
        Ok(PolluxUnaware {
            policy: PolluxPolicy::new(config),
            seed,
            round: 0,
            vnodes: VirtualNodes::new(cluster),
            cap: replica_cap(cluster),
            aws,
            prev: BTreeMap::new(),
        })
    }

    /// The virtual nodes.
    pub fn vnodes(&self) -> &VirtualNodes {
        &self.vnodes
    }

    /// The cluster-wide replica cap.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// The stand-in Pollux job of `job` as the policy sees it (§7.2, `get_unaware_job_info`).
    fn stand_in(&self, job: &SiaJob, active: bool) -> PolluxJob {
        let app = job.app.per_type[self.aws].clone();
        // Whole seconds: the policy's ages and its order (attained service, then arrival;
        // stable on workload order) read the arrival; Sia's workloads with fractional
        // arrivals (newtrace) lose up to a second of age here.
        let mut p = PolluxJob::new(job.name.clone(), app, job.submission_time.floor() as i64);
        p.agent = false;
        if !active {
            p.completion_time = Some(0);
            return p;
        }
        p.attained_service = job.attained_service;
        p.num_restarts = job.num_restarts;
        p.perf_params = job.merged_perf;
        p.grad_params = job.grad_params;
        // The policy caps at min(max(2 × largest profiled, 1), its GPUs, max batch // min
        // local); the original's cap is `self.cap` (16 on Table 3's cluster) instead of the
        // vnodes' 64. Only the largest profiled replica count reaches the policy (its fit is
        // given), so a one-entry profile with that count limited to cap/2 gives the
        // original's bound (cap is even: every type has 4 or 8 GPUs per node).
        let m = job.max_merged_replicas().min(self.cap / 2);
        if m > 0 {
            p.profile = vec![((1, m, 1), (1.0, 0.0))];
        }
        p
    }
}

impl HeteroPolicy for PolluxUnaware {
    fn name(&self) -> &str {
        "pollux"
    }

    fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Result<Vec<Decision>, SimError> {
        let mut is_active = vec![false; jobs.len()];
        for &j in active {
            is_active[j] = true;
        }
        let stand_ins: Vec<PolluxJob> = jobs
            .iter()
            .zip(&is_active)
            .map(|(j, &a)| self.stand_in(j, a))
            .collect();
        let mut config = SimConfig::default();
        config.nodes = self.vnodes.count();
        config.gpus_per_node = self.vnodes.gpus;
        config.interval = 0;
        config.seed = self.seed;
        let mut sim = PolluxSim::new(stand_ins, config);
        sim.now = now as i64;
        sim.round = self.round;
        sim.allocations = std::mem::take(&mut self.prev);
        sim.step(&mut self.policy)?;
        self.round += 1;
        let mut out = Vec::with_capacity(active.len());
        for &j in active {
            let raw = sim.allocations.get(&j).map(Vec::as_slice).unwrap_or(&[]);
            let kept = keep_one_type(cluster, &self.vnodes, raw);
            out.push(fix_physical_nodes(cluster, self.vnodes.decision(&kept)));
            if !kept.is_empty() {
                self.prev.insert(j, kept);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vnodes_of_the_default_cluster_and_their_real_nodes() {
        let c = SiaCluster::default_64();
        let v = VirtualNodes::new(&c);
        assert_eq!((v.gpus, v.count()), (4, 16));
        assert_eq!(v.count() * v.gpus, c.gpus());
        // aws nodes 0–5 → vnodes 0–5; each dgx-ext and rtx node → two vnodes.
        for n in 0..6 {
            assert_eq!(v.map[n], (0, n as u32));
        }
        assert_eq!(&v.map[6..10], &[(1, 0), (1, 0), (1, 1), (1, 1)]);
        assert_eq!(
            &v.map[10..16],
            &[(2, 0), (2, 0), (2, 1), (2, 1), (2, 2), (2, 2)]
        );
        // Two vnodes of one dgx-ext node are one real node: placement (8,).
        let d = v.decision(&[7, 7, 7, 7, 6, 6, 6, 6]).unwrap();
        assert_eq!(d, (1, vec![0; 8]));
        assert_eq!(crate::policy::placement_tuple(&d.1), [8]);
        // Real node ids sorted: rtx vnodes 15 and 10 → nodes 0, 2.
        assert_eq!(v.decision(&[15, 15, 10]), Some((2, vec![0, 2, 2])));
        assert_eq!(v.decision(&[]), None);
        // Table 3's cap is 16 (dgx-ext: 2 physical nodes × 8); C_S's 8; C_M's 4.
        assert_eq!(replica_cap(&c), 16);
        let c_s = SiaCluster::from_counts(&[("aws", 2), ("rtx", 1)]).unwrap();
        assert_eq!(replica_cap(&c_s), 8);
        let vs = VirtualNodes::new(&c_s);
        assert_eq!(vs.map, vec![(0, 0), (0, 1), (1, 0), (1, 0)]);
        let c_m = SiaCluster::from_counts(&[("aws", 1), ("dgx-ext", 1), ("rtx", 1)]).unwrap();
        assert_eq!(replica_cap(&c_m), 4);
    }

    #[test]
    fn placements_past_the_physical_nodes_are_rebalanced() {
        // Twice Table 3's cluster: dgx-ext has 4 nodes but 2 physically profiled.
        let c = SiaCluster::default_64().scaled(2);
        let d = Some((1, vec![0, 0, 0, 0, 1, 1, 1, 1, 3, 3, 3, 3]));
        let f = fix_physical_nodes(&c, d).unwrap();
        assert_eq!(f, (1, vec![0; 6].into_iter().chain(vec![1; 6]).collect()));
        assert_eq!(crate::policy::placement_tuple(&f.1), [6, 6]);
        // Within the limit, and no allocation: unchanged.
        let ok = Some((1, vec![0, 0, 2]));
        assert_eq!(fix_physical_nodes(&c, ok.clone()), ok);
        assert_eq!(fix_physical_nodes(&c, None), None);
        // Odd counts: ceil per node, the last node takes the rest (rtx, 3 physical nodes).
        let f = fix_physical_nodes(&c, Some((2, vec![0, 1, 2, 3, 3]))).unwrap();
        assert_eq!(crate::policy::placement_tuple(&f.1), [2, 2, 1]);
    }

    #[test]
    fn repair_keeps_the_type_with_most_gpus_ties_to_the_faster() {
        let c = SiaCluster::default_64();
        let v = VirtualNodes::new(&c);
        // One type: unchanged.
        assert_eq!(keep_one_type(&c, &v, &[0, 0, 1]), [0, 0, 1]);
        assert!(keep_one_type(&c, &v, &[]).is_empty());
        // Most GPUs wins: 3 rtx against 2 aws and 1 dgx-ext.
        assert_eq!(keep_one_type(&c, &v, &[0, 1, 6, 10, 10, 12]), [10, 10, 12]);
        // Ties: dgx-ext over aws, rtx over aws, dgx-ext over rtx.
        assert_eq!(keep_one_type(&c, &v, &[0, 0, 6, 6]), [6, 6]);
        assert_eq!(
            keep_one_type(&c, &v, &[5, 5, 5, 5, 15, 15, 15, 15]),
            [15; 4]
        );
        assert_eq!(keep_one_type(&c, &v, &[8, 11]), [8]);
        // Three-way tie: only the first two in order of appearance are compared (aws and
        // dgx-ext here), as the original; dgx-ext wins.
        assert_eq!(keep_one_type(&c, &v, &[0, 6, 10]), [6]);
        // The first-appearing type leads a tie: rtx then aws on C_S keeps rtx (faster) too.
        let c_s = SiaCluster::from_counts(&[("aws", 2), ("rtx", 1)]).unwrap();
        let vs = VirtualNodes::new(&c_s);
        assert_eq!(keep_one_type(&c_s, &vs, &[1, 1, 2, 3]), [2, 3]);
        assert_eq!(vs.decision(&[2, 3]), Some((1, vec![0, 0])));
        // A type order where the slower type appears first and the faster is second.
        let c_r = SiaCluster::from_counts(&[("rtx", 1), ("dgx-ext", 1), ("aws", 1)]).unwrap();
        let vr = VirtualNodes::new(&c_r);
        assert_eq!(vr.map[4], (2, 0));
        assert_eq!(keep_one_type(&c_r, &vr, &[0, 2]), [2]);
        assert_eq!(keep_one_type(&c_r, &vr, &[0, 0, 4]), [0, 0]);
    }
}
