//! The scattered placement as it was before its victim search kept a cursor (Blox's Place,
//! literally), and a differential test: `BloxScattered` (quirks on) and `Scattered` (quirks off)
//! must decide exactly the same, for rigid jobs.

use crate::{plain, run, World};
use blox_core::{
    ClusterSpec, Ctx, Decisions, FreeGpus, GpuSet, JobId, NodeId, PlacementPolicy, Schedule,
};
use blox_original::BloxScattered;
use blox_placement::Scattered;
use proptest::prelude::*;

fn scattered_fit(plan: &FreeGpus<'_>, needed: u32, quirks: bool, out: &mut GpuSet) -> bool {
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

fn reference_place(ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions, quirks: bool) {
    let jobs = ctx.jobs;
    let mut plan = ctx.cluster.free_map();
    let mut stopped = vec![false; jobs.slot_bound()];
    let mut victims: Vec<JobId> = Vec::new();
    let mut gpus = GpuSet::new();
    let entries = &schedule.entries;
    for (pos, entry) in entries.iter().enumerate() {
        let Some(idx) = jobs.slot(entry.job) else {
            continue;
        };
        let job = jobs.at(idx);
        if job.is_running() && !stopped[idx] {
            continue;
        }
        let mut fits = scattered_fit(&plan, entry.n_gpus, quirks, &mut gpus);
        if !fits {
            victims.clear();
            for below in entries[pos + 1..].iter().rev() {
                let Some(vidx) = jobs.slot(below.job) else {
                    continue;
                };
                let victim = jobs.at(vidx);
                if !victim.is_running() || stopped[vidx] {
                    continue;
                }
                stopped[vidx] = true;
                victims.push(victim.id);
                plan.release(&victim.gpus);
                fits = scattered_fit(&plan, entry.n_gpus, quirks, &mut gpus);
                if fits {
                    break;
                }
            }
            if !fits && !quirks {
                for v in &victims {
                    let vidx = jobs.slot(*v).expect("victim is active");
                    stopped[vidx] = false;
                    plan.occupy(&jobs.at(vidx).gpus);
                }
                victims.clear();
            }
            out.stop.extend_from_slice(&victims);
        }
        if !fits {
            break;
        }
        plan.occupy(&gpus);
        out.start(job.id, &gpus);
    }
}

/// A random world of rigid jobs: some running on random free GPUs, some waiting; a random
/// schedule order (possibly leaving jobs out).
pub(crate) fn rigid_world() -> impl Strategy<Value = (World, Schedule)> {
    (
        prop::collection::vec(1u32..=8, 1..=6),
        prop::collection::vec((1u32..=6, any::<bool>(), any::<u64>()), 0..=14),
        any::<u64>(),
    )
        .prop_map(|(nodes, jobs, seed)| {
            let spec = ClusterSpec {
                nodes: nodes
                    .iter()
                    .map(|&g| blox_core::NodeSpec::with_gpus(g))
                    .collect(),
            };
            let total: u32 = nodes.iter().sum();
            let mut free: Vec<u32> = (0..total).collect();
            let mut list = Vec::new();
            for (n, run, r) in jobs {
                let n = n.min(total);
                let mut gpus = Vec::new();
                if run && free.len() >= n as usize {
                    let mut r = r;
                    for _ in 0..n {
                        let k = (r % free.len() as u64) as usize;
                        r = r / 7 + 13;
                        gpus.push(free.swap_remove(k));
                    }
                }
                list.push((crate::rigid(n), gpus));
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
            let keep = if n_jobs > 0 {
                n_jobs - (seed % 2) as usize
            } else {
                0
            };
            let mut sched = Schedule::default();
            for &j in &order[..keep] {
                sched.push(JobId(j), w.jobs.get(JobId(j)).expect("active").spec.n_gpus);
            }
            (w, sched)
        })
}

proptest! {
    #[test]
    fn scattered_decides_as_before((w, sched) in rigid_world()) {
        let placements: [(bool, Box<dyn PlacementPolicy>); 2] =
            [(true, Box::new(BloxScattered::new())), (false, Box::new(Scattered::new()))];
        for (quirks, mut p) in placements {
            let ctx = Ctx::new(
                blox_core::Time::ZERO, 0, blox_core::Time::from_secs(300), &w.cluster, &w.jobs,
            );
            let mut want = Decisions::default();
            reference_place(&ctx, &sched, &mut want, quirks);
            let got = run(p.as_mut(), &w, &sched);
            prop_assert_eq!(plain(&got), plain(&want), "quirks {}", quirks);
        }
    }
}
