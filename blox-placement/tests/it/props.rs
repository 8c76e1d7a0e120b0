//! Invariants of every placement on random worlds: exactly the scheduled GPUs, distinct and free
//! after the stops, never over a node's GPUs, cores or memory (resource-aware), the fewest nodes
//! (consolidated), deterministic.

use crate::{plain, run, World};
use blox_core::{
    ClusterSpec, Ctx, Decisions, GpuId, JobId, JobSpec, NodeId, NodeSpec, PlacementPolicy,
    Schedule, Time,
};
use blox_placement::{Consolidated, FirstFit, ResourceAware, Scattered, Topology, TopologyAware};
use proptest::prelude::*;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct JobGen {
    n: u32,
    elastic: bool,
    cpus: Option<f64>,
    mem: Option<f64>,
    run: bool,
    seed: u64,
    count: u32,
}

fn job_gen() -> impl Strategy<Value = JobGen> {
    (
        1u32..=6,
        prop::bool::weighted(0.3),
        prop::option::of(0.0f64..24.0),
        prop::option::of(0.0f64..300.0),
        any::<bool>(),
        any::<u64>(),
        0u32..=9,
    )
        .prop_map(|(n, elastic, cpus, mem, run, seed, count)| JobGen {
            n,
            elastic,
            cpus,
            mem,
            run,
            seed,
            count,
        })
}

/// A random world (jobs running on random GPUs, rigid and elastic, with and without host
/// demands) and a schedule in random order; elastic entries ask for random counts.
pub(crate) fn any_world() -> impl Strategy<Value = (World, Schedule)> {
    (
        prop::collection::vec((1u32..=8, 4u32..=32, 32.0f64..512.0), 1..=6),
        prop::collection::vec(job_gen(), 0..=14),
        any::<u64>(),
    )
        .prop_map(|(nodes, jobs, seed)| {
            let spec = ClusterSpec {
                nodes: nodes
                    .iter()
                    .map(|&(gpus, cpus, mem_gb)| {
                        let mut n = NodeSpec::with_gpus(gpus);
                        n.cpus = cpus;
                        n.mem_gb = mem_gb;
                        n
                    })
                    .collect(),
            };
            let total = spec.total_gpus();
            let mut free: Vec<u32> = (0..total).collect();
            let mut list = Vec::new();
            let mut counts = Vec::new();
            for g in jobs {
                let n = g.n.min(total);
                let mut s = JobSpec::new(Time::ZERO, n, 1000.0);
                s.elastic = g.elastic;
                s.cpus = g.cpus;
                s.mem_gb = g.mem;
                let mut gpus = Vec::new();
                let hold = if g.elastic {
                    (g.count.max(1)).min(total)
                } else {
                    n
                };
                if g.run && free.len() >= hold as usize {
                    let mut r = g.seed;
                    for _ in 0..hold {
                        let k = (r % free.len() as u64) as usize;
                        r = r / 5 + 11;
                        gpus.push(free.swap_remove(k));
                    }
                }
                counts.push(if g.elastic { g.count.min(total) } else { n });
                list.push((s, gpus));
            }
            let n_jobs = list.len();
            let w = crate::world(spec, list);
            let mut order: Vec<u32> = (0..n_jobs as u32).collect();
            let mut s = seed;
            for i in (1..order.len()).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (s >> 33) as usize % (i + 1));
            }
            let mut sched = Schedule::default();
            for &j in &order {
                sched.push(JobId(j), counts[j as usize]);
            }
            (w, sched)
        })
}

/// Every placement, each with whether it ignores GPU types (none of the stock ones; Blox's own
/// `Place` does, and `blox-original` tests it with these properties).
pub(crate) fn placements(w: &World) -> Vec<(Box<dyn PlacementPolicy>, bool)> {
    let topo = Arc::new(Topology::default_for(w.cluster.spec()));
    vec![
        (Box::new(Scattered::new()), false),
        (Box::new(Scattered::new().with_backfill(true)), false),
        (Box::new(FirstFit::default()), false),
        (Box::new(FirstFit::default().with_backfill(true)), false),
        (Box::new(Consolidated::default()), false),
        (
            Box::new(Consolidated::default().with_wait(true).with_backfill(true)),
            false,
        ),
        (Box::new(ResourceAware::default()), false),
        (
            Box::new(ResourceAware::default().with_backfill(true)),
            false,
        ),
        (Box::new(TopologyAware::new(Some(topo))), false),
        (
            Box::new(
                TopologyAware::default()
                    .with_backfill(true)
                    .with_preemption(false),
            ),
            false,
        ),
    ]
}

/// Per-node (cores, memory) used by the jobs holding GPUs, with the resource-aware accounting.
fn host_use(w: &World, holders: &[(JobId, Vec<GpuId>)]) -> Vec<(f64, f64)> {
    let spec = w.cluster.spec();
    let mut used = vec![(0.0, 0.0); spec.nodes.len()];
    for (id, gpus) in holders {
        let job = w.jobs.get(*id).unwrap();
        for g in gpus {
            let node = w.cluster.node_of(*g);
            let ns = &spec.nodes[node.index()];
            let per = |own: Option<f64>, total: f64| match own {
                Some(x) => x / f64::from(job.spec.n_gpus),
                None => total / f64::from(ns.gpus),
            };
            used[node.index()].0 += per(job.spec.cpus, f64::from(ns.cpus));
            used[node.index()].1 += per(job.spec.mem_gb, ns.mem_gb);
        }
    }
    used
}

/// The common checks; returns who holds which GPUs after the decisions.
pub(crate) fn check_valid(
    w: &World,
    sched: &Schedule,
    d: &Decisions,
    name: &str,
) -> Result<Vec<(JobId, Vec<GpuId>)>, TestCaseError> {
    // The kit's checker: no GPU twice or busy, no unknown, idle or doubly started job, rigid
    // sizes kept.
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &w.cluster, &w.jobs);
    if let Err(v) = blox_testkit::check_placement(&ctx, d) {
        return Err(TestCaseError::fail(format!("{name}: {v}")));
    }
    let stopped: std::collections::BTreeSet<JobId> = d.stop.iter().copied().collect();
    let mut holders: Vec<(JobId, Vec<GpuId>)> = w
        .jobs
        .iter()
        .filter(|j| j.is_running() && !stopped.contains(&j.id))
        .map(|j| (j.id, j.gpus.to_vec()))
        .collect();
    for (id, gpus) in &d.start {
        let job = w.jobs.get(*id).unwrap();
        let entry = sched.iter().find(|e| e.job == *id).unwrap();
        let want = entry.n_gpus;
        prop_assert_eq!(gpus.len() as u32, want, "{}: job {} count", name, id);
        if !job.spec.elastic {
            prop_assert_eq!(gpus.len() as u32, job.spec.n_gpus);
        }
        holders.push((*id, gpus.to_vec()));
    }
    Ok(holders)
}

/// Fewest nodes `need` GPUs can take given free counts per node.
fn fewest_nodes(mut free: Vec<u32>, need: u32) -> usize {
    free.sort_unstable_by(|a, b| b.cmp(a));
    let mut sum = 0;
    for (i, f) in free.iter().enumerate() {
        sum += f;
        if sum >= need {
            return i + 1;
        }
    }
    usize::MAX
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_placement_is_valid_and_deterministic((w, sched) in any_world()) {
        for (mut p, blox) in placements(&w) {
            let name = format!("{}{}", p.name(), if blox { " (Blox's)" } else { "" });
            let d = run(p.as_mut(), &w, &sched);
            let holders = check_valid(&w, &sched, &d, &name)?;
            // The same instance again, and a fresh one, decide the same.
            let again = run(p.as_mut(), &w, &sched);
            prop_assert_eq!(plain(&again), plain(&d), "{} reruns", name);
            if name.starts_with("resource-aware") {
                let before: Vec<(JobId, Vec<GpuId>)> = w
                    .jobs
                    .iter()
                    .filter(|j| j.is_running())
                    .map(|j| (j.id, j.gpus.to_vec()))
                    .collect();
                let old = host_use(&w, &before);
                let new = host_use(&w, &holders);
                for (k, ns) in w.cluster.spec().nodes.iter().enumerate() {
                    let cap = (f64::from(ns.cpus), ns.mem_gb);
                    let eps = 1e-6;
                    prop_assert!(
                        new[k].0 <= cap.0.max(old[k].0) + eps,
                        "{}: node {} cores {} > {}", name, k, new[k].0, cap.0
                    );
                    prop_assert!(
                        new[k].1 <= cap.1.max(old[k].1) + eps,
                        "{}: node {} memory {} > {}", name, k, new[k].1, cap.1
                    );
                }
            }
        }
    }

    #[test]
    fn consolidated_uses_the_fewest_nodes((w, _) in any_world(), need in 1u32..=12, wait: bool) {
        // One more waiting job on the same cluster, scheduled alone (no preemption possible).
        let total = w.cluster.total_gpus();
        let need = need.min(total);
        let mut jobs: Vec<(JobSpec, Vec<u32>)> = w
            .jobs
            .iter()
            .map(|j| {
                let mut s = JobSpec::new(Time::ZERO, j.spec.n_gpus, 1.0);
                s.elastic = j.spec.elastic;
                (s, j.gpus.iter().map(|g| g.0).collect())
            })
            .collect();
        jobs.push((JobSpec::new(Time::ZERO, need, 1.0), vec![]));
        let w = crate::world(w.cluster.spec().clone(), jobs);
        let id = w.jobs.len() as u32 - 1;
        let sched = crate::schedule(&[(id, need)]);
        let free: Vec<u32> = (0..w.cluster.n_nodes())
            .map(|k| w.cluster.free_on_node(NodeId(k as u32)))
            .collect();
        let sizes: Vec<u32> = w.cluster.spec().nodes.iter().map(|n| n.gpus).collect();
        let fewest = fewest_nodes(free.clone(), need);
        let idle = fewest_nodes(sizes, need);
        let mut p = Consolidated::default().with_wait(wait);
        let d = run(&mut p, &w, &sched);
        let feasible = fewest != usize::MAX && (!wait || fewest <= idle);
        prop_assert_eq!(d.start.len(), usize::from(feasible));
        if let Some((_, gpus)) = d.start.first() {
            let mut nodes: Vec<NodeId> = gpus.iter().map(|&g| w.cluster.node_of(g)).collect();
            nodes.dedup();
            prop_assert_eq!(nodes.len(), fewest);
            if fewest == 1 {
                // Best fit: no node with fewer free GPUs could have held it.
                let used = free[nodes[0].index()];
                prop_assert!(free.iter().all(|&f| f < need || f >= used));
            }
        }
        // The topology-aware placement never gets a worse ring than consolidated.
        let topo = Topology::default_for(w.cluster.spec());
        let mut t = TopologyAware::new(Some(Arc::new(topo.clone())));
        let dt = run(&mut t, &w, &sched);
        if let (Some((_, a)), Some((_, b))) = (d.start.first(), dt.start.first()) {
            prop_assert!(topo.ring_bandwidth(b) >= topo.ring_bandwidth(a));
        }
    }
}
