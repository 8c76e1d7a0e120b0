//! proptest strategies for clusters, workloads and live states.

use blox_core::{Cluster, ClusterSpec, Ctx, GpuId, Job, JobId, JobSpec, JobTable, Schedule, Time};
use proptest::prelude::*;

/// Clusters of 1–6 nodes with 1, 2, 4 or 8 GPUs each (all nodes alike).
pub fn cluster_spec() -> impl Strategy<Value = ClusterSpec> {
    (1u32..=6, prop::sample::select(vec![1u32, 2, 4, 8]))
        .prop_map(|(n, g)| ClusterSpec::uniform(n, g))
}

/// Up to `max_jobs` jobs in arrival order: arrivals within 50,000 s, 1–20,000 s of work,
/// 1–`max_gpus` GPUs.
pub fn jobs(max_jobs: usize, max_gpus: u32) -> impl Strategy<Value = Vec<JobSpec>> {
    prop::collection::vec(
        (0u64..50_000, 1u64..20_000, 1..=max_gpus.max(1)),
        1..=max_jobs.max(1),
    )
    .prop_map(|mut v| {
        v.sort_by_key(|j| j.0);
        v.into_iter()
            .map(|(a, w, g)| JobSpec::new(Time::from_secs(a), g, w as f64))
            .collect()
    })
}

/// A live state: a cluster and a job table in which some jobs run on valid, distinct GPUs and
/// carry some progress and attained service.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The cluster, with running jobs' GPUs allocated.
    pub cluster: Cluster,
    /// The active jobs.
    pub jobs: JobTable,
    /// The current time.
    pub now: Time,
}

impl Snapshot {
    /// The context components see.
    pub fn ctx(&self) -> Ctx<'_> {
        let r = Time::from_secs(300);
        Ctx::new(
            self.now,
            self.now.as_millis() / r.as_millis(),
            r,
            &self.cluster,
            &self.jobs,
        )
    }

    /// Every active job, in id order, with its request: a simple schedule to feed placements.
    pub fn id_order(&self) -> Schedule {
        let mut s = Schedule::default();
        for j in self.jobs.iter() {
            s.push(j.id, j.n_gpus());
        }
        s
    }
}

/// Live states on [`cluster_spec`] clusters with up to `max_jobs` active jobs. Jobs request at most the cluster's GPUs; each is running (on the lowest free GPUs)
/// with probability one half when it fits.
pub fn snapshot(max_jobs: usize) -> impl Strategy<Value = Snapshot> {
    cluster_spec()
        .prop_flat_map(move |spec| {
            let total = spec.total_gpus();
            let job = (
                1..=total,
                1u64..20_000,
                0u64..20_000,
                any::<bool>(),
                0u32..3,
            );
            (Just(spec), prop::collection::vec(job, 0..=max_jobs.max(1)))
        })
        .prop_map(|(spec, raw)| {
            let mut cluster = Cluster::new(spec);
            let mut jobs = JobTable::new();
            for (i, (gpus, work, served, run, prio)) in raw.into_iter().enumerate() {
                let id = JobId(i as u32);
                let mut j = Job::new(
                    id,
                    JobSpec::new(Time::from_secs(i as u64 * 10), gpus, work as f64),
                    Time::ZERO,
                );
                j.attained_wall_s = served as f64;
                j.attained_gpu_s = served as f64 * f64::from(gpus);
                j.executed = (served.min(work)) as f64;
                if prio == 0 {
                    j.priority = blox_core::PRIORITY_STARVED;
                }
                if run {
                    let free: Vec<GpuId> = (0..cluster.total_gpus())
                        .map(GpuId)
                        .filter(|&g| cluster.owner(g).is_none())
                        .take(gpus as usize)
                        .collect();
                    if free.len() == gpus as usize {
                        cluster.allocate(id, &free);
                        j.gpus = free.into_iter().collect();
                    }
                }
                jobs.push(j);
            }
            Snapshot {
                cluster,
                jobs,
                now: Time::from_secs(3_000),
            }
        })
}
