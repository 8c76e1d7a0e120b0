//! Per-round cost of the scheduling policies, called directly (no engine).
//!
//! - `order/{fifo,las,srtf,sjf,tiresias,themis,gavel}/N`: one `schedule` call on a job table of N
//!   active jobs (100, 1,000, 10,000) on a 32 x 4 cluster, `exact` semantics. Ids are in
//!   admission order, arrivals grow with the id, 30% of the jobs have never run, 1% are starved,
//!   a third of the rest are running. Throughput is in jobs, so criterion reports jobs per second
//!   (the inverse of the cost per active job). Tiresias and Gavel are called repeatedly on the
//!   same table, which is their steady state (Tiresias's state is warm; Gavel's water-filling
//!   allocation is recomputed only when the active set changes, so `gavel-recompute` measures a
//!   round in which it does).
//! - `allocate/{optimus,gavel-lp-solve}/1000`: Optimus's marginal-gain allocation (20% of the
//!   jobs elastic) on 128 GPUs; one cold solve of Gavel's max-min LP (`max_min_lp`, one GPU
//!   type, reduced by symmetry to the distinct GPU counts) for 1,000 jobs on 128 GPUs; and the
//!   worst case, two GPU types with a distinct throughput row per job (nothing reduces).
//!
//! Randomness comes from named streams of one `Seed`, so every run benchmarks the same inputs.

use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, Job, JobId, JobSpec, JobTable, Schedule, SchedulingPolicy,
    Seed, Semantics, Time, PRIORITY_STARVED,
};
use blox_policies::{
    max_min_lp, Fifo, Gavel, Las, MaxMinSolver, Optimus, Sjf, Srtf, Themis, Tiresias,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const SEED: Seed = Seed(2024);
const ROUND: Time = Time::from_secs(300);

/// `n` active jobs: increasing arrivals, Blox-like sizes, random service in GPU-seconds, some
/// running, some starved, 20% elastic.
fn job_table(n: usize) -> JobTable {
    let mut rng = SEED.stream("bench/policies");
    let mut table = JobTable::new();
    let mut arrival = Time::ZERO;
    for i in 0..n {
        arrival += Time::from_secs(rng.below(900));
        let n_gpus = [1, 1, 1, 2, 4, 8][rng.below(6) as usize];
        let work_s = 60.0 + rng.next_f64() * 100_000.0;
        let mut spec = JobSpec::new(arrival, n_gpus, work_s);
        spec.elastic = rng.below(5) == 0;
        let mut job = Job::new(JobId(i as u32), spec, arrival);
        if rng.below(10) >= 3 {
            job.executed = (rng.next_f64() * work_s).floor();
            job.attained_service = job.executed * f64::from(n_gpus);
            if rng.below(3) == 0 {
                // Policies only ask whether a job runs; the GPU ids need not be consistent.
                job.gpus.push(GpuId(0));
            }
        }
        if rng.below(100) == 0 {
            job.priority = PRIORITY_STARVED;
        }
        table.push(job);
    }
    table
}

fn ctx_at<'a>(cluster: &'a Cluster, jobs: &'a JobTable) -> Ctx<'a> {
    let now = jobs
        .as_slice()
        .last()
        .map_or(Time::ZERO, Job::arrival)
        .ceil_to(ROUND);
    Ctx::new(
        now,
        now.as_millis() / ROUND.as_millis(),
        ROUND,
        Semantics::Exact,
        cluster,
        jobs,
    )
}

/// One round of `policy` on `ctx`'s job table, checked once outside the timing.
fn bench_policy<P: SchedulingPolicy>(
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

fn order(c: &mut Criterion) {
    let cluster = Cluster::new(ClusterSpec::uniform(32, 4));
    let mut group = c.benchmark_group("order");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for n in [100, 1_000, 10_000] {
        let jobs = job_table(n);
        let ctx = ctx_at(&cluster, &jobs);
        group.throughput(Throughput::Elements(n as u64));
        bench_policy(&mut group, "fifo", &ctx, Fifo::default());
        bench_policy(&mut group, "las", &ctx, Las::default());
        bench_policy(&mut group, "srtf", &ctx, Srtf::default());
        bench_policy(&mut group, "sjf", &ctx, Sjf::default());
        bench_policy(&mut group, "tiresias", &ctx, Tiresias::default());
        bench_policy(&mut group, "themis", &ctx, Themis::default());
        bench_policy(&mut group, "gavel", &ctx, Gavel::default());
        // A fresh policy every call: the water-filling allocation is recomputed.
        let mut out = Schedule::default();
        group.bench_function(BenchmarkId::new("gavel-recompute", n), |b| {
            b.iter(|| {
                out.clear();
                Gavel::new(MaxMinSolver::WaterFilling).schedule(black_box(&ctx), &mut out);
                black_box(out.len())
            });
        });
    }
    group.finish();
}

fn allocate(c: &mut Criterion) {
    let cluster = Cluster::new(ClusterSpec::uniform(32, 4));
    let jobs = job_table(1_000);
    let ctx = ctx_at(&cluster, &jobs);
    let mut group = c.benchmark_group("allocate");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let mut optimus = Optimus::default();
    let mut out = Schedule::default();
    optimus.schedule(&ctx, &mut out);
    let total: u32 = out.iter().map(|a| a.n_gpus).sum();
    assert!(
        total <= cluster.total_gpus(),
        "optimus stays within capacity"
    );
    group.bench_function(BenchmarkId::new("optimus", jobs.len()), |b| {
        b.iter(|| {
            out.clear();
            optimus.schedule(black_box(&ctx), &mut out);
            black_box(out.len())
        });
    });
    let tput: Vec<Vec<f64>> = jobs.iter().map(|_| vec![1.0]).collect();
    let scale: Vec<u32> = jobs.iter().map(Job::n_gpus).collect();
    let sol = max_min_lp(&tput, &scale, &[cluster.total_gpus()]).expect("the LP solves");
    assert!(sol.min_share > 0.0);
    group.bench_function(BenchmarkId::new("gavel-lp-solve", jobs.len()), |b| {
        b.iter(|| {
            let sol = max_min_lp(black_box(&tput), black_box(&scale), &[cluster.total_gpus()]);
            black_box(sol.map(|s| s.min_share).unwrap_or_default())
        });
    });
    // Two GPU types and a distinct throughput row per job: the symmetry reduction cannot
    // shrink this LP (the worst case).
    let hetero: Vec<Vec<f64>> = (0..jobs.len())
        .map(|i| vec![1.0, 1.0 + (i as f64 * 0.618).fract() * 3.0])
        .collect();
    let half = cluster.total_gpus() / 2;
    group.bench_function(
        BenchmarkId::new("gavel-lp-solve-2-types-distinct", jobs.len()),
        |b| {
            b.iter(|| {
                let sol = max_min_lp(black_box(&hetero), black_box(&scale), &[half, half]);
                black_box(sol.map(|s| s.min_share).unwrap_or_default())
            });
        },
    );
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    order(&mut c);
    allocate(&mut c);
    c.final_summary();
}
