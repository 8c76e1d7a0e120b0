//! # blox-benches
//!
//! Criterion benchmarks of the Blox toolkit (unpublished). Run them all with
//! `cargo bench -p blox-benches` (a few minutes on 2 cores), one file with
//! `cargo bench -p blox-benches --bench engine`, or a quick check with `-- --quick`.
//!
//! | bench | what it measures |
//! |---|---|
//! | `engine` | whole simulator runs: Blox's README configuration (throughput in simulated rounds), LAS at load 8 under heavy preemption, and static vs boxed dispatch |
//! | `components` | one round of `Fifo`/`Las`/`Srtf` `schedule` at 100 to 10,000 active jobs, and of `Scattered` `place` on 64 to 4,096 GPUs |
//! | `policies` | every stock policy per round at 100 to 10,000 active jobs, and Gavel's LP-based rounds on three GPU types |
//! | `placement` | every stock placement per decision at 64, 512 and 4,096 GPUs |
//! | `pollux` | one Pollux decision (agent fits and genetic search), one throughput fit and a whole baseline run of the artifact's workload 6 |
//! | `gavel` | one solve of each of Gavel's convex programs (`--semantics gavel`'s interior-point solver) for 36 jobs on one and three GPU types |
//!
//! The benchmarks live in `benches/`; this library holds the inputs and harness pieces they
//! share.

use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, Job, JobId, JobSpec, JobTable, Schedule, SchedulingPolicy,
    Seed, Time,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use std::hint::black_box;

/// Benchmarks one round of `policy` on `ctx`'s job table as `name/N`; the schedule is checked
/// once, outside the timing, to list every active job.
pub fn bench_policy<P: SchedulingPolicy>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    ctx: &Ctx<'_>,
    mut policy: P,
) {
    let n = ctx.jobs.len();
    let mut out = Schedule::default();
    policy.schedule(ctx, &mut out);
    assert_eq!(out.len(), n, "{name} schedules every active job");
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter(|| {
            out.clear();
            policy.schedule(black_box(ctx), &mut out);
            black_box(out.len())
        });
    });
}

/// A placement input: a cluster of `nodes` x `per_node` GPUs, half of them held by running
/// 1-GPU jobs (one hour of service each) on GPUs chosen at random from `seed`'s
/// `bench/placement` stream, and a schedule of waiting jobs asking for `waiting_gpus` GPUs in
/// all (`sizes` alternately, 1 GPU when less is left), followed by the running jobs.
pub fn half_busy(
    seed: Seed,
    nodes: u32,
    per_node: u32,
    waiting_gpus: u32,
    sizes: [u32; 2],
) -> (Cluster, JobTable, Schedule) {
    let mut rng = seed.stream("bench/placement");
    let mut cluster = Cluster::new(ClusterSpec::uniform(nodes, per_node));
    let total = cluster.total_gpus();
    // A partial Fisher-Yates shuffle picks the busy half.
    let mut gpus: Vec<u32> = (0..total).collect();
    for i in 0..(total / 2) as usize {
        let j = i + rng.below((gpus.len() - i) as u64) as usize;
        gpus.swap(i, j);
    }
    let mut busy = gpus[..(total / 2) as usize].to_vec();
    busy.sort_unstable();
    let mut jobs = JobTable::new();
    let mut running = Vec::new();
    for &g in &busy {
        let id = JobId(jobs.len() as u32);
        let mut job = Job::new(id, JobSpec::new(Time::ZERO, 1, 1e6), Time::ZERO);
        job.gpus.push(GpuId(g));
        job.attained_gpu_s = 3600.0;
        job.attained_wall_s = 3600.0;
        cluster.allocate(id, &[GpuId(g)]);
        jobs.push(job);
        running.push(id);
    }
    let mut schedule = Schedule::default();
    let mut left = waiting_gpus;
    let mut k = 0;
    while left > 0 {
        let want = sizes[k % 2];
        let n_gpus = if left >= want { want } else { 1 };
        let id = JobId(jobs.len() as u32);
        jobs.push(Job::new(
            id,
            JobSpec::new(Time::from_secs(60), n_gpus, 1e5),
            Time::from_secs(300),
        ));
        schedule.push(id, n_gpus);
        left -= n_gpus;
        k += 1;
    }
    for id in running {
        schedule.push(id, 1);
    }
    (cluster, jobs, schedule)
}
