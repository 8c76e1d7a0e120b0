//! Per-round cost of single components, called directly (no engine).
//!
//! - `schedule/{fifo,las,srtf}/N`: one `schedule` call on a job table of N active jobs
//!   (100, 1,000, 10,000). Ids are in admission order, so arrival times grow with the id (as
//!   in every real run); attained service is random, with 30% of the jobs never run (ties broken
//!   by id) and 1% starved. Throughput is in jobs.
//! - `place/{fit,preempt}/G`: one Scattered `place` call on a cluster of G GPUs (64 and 512 on
//!   4-GPU nodes, 4,096 on 8-GPU nodes) that is half full of running 1-GPU jobs on randomly
//!   chosen GPUs. The schedule lists waiting jobs (alternately 1 and 4 GPUs) first, then the
//!   running jobs. In `fit` the waiting jobs ask for exactly the free half, so all start and
//!   nothing is preempted; in `preempt` they ask for the whole cluster, so every running job is
//!   evicted. No Blox quirks (`Scattered`, not `BloxScattered`), so the outcome is fully
//!   predictable.
//!
//! Randomness comes from named streams of one `Seed`, so every run benchmarks the same inputs.

use blox_benches::{bench_policy, half_busy};
use blox_core::{
    Cluster, ClusterSpec, Ctx, Decisions, Job, JobId, JobSpec, JobTable, PlacementPolicy, Seed,
    Time, PRIORITY_STARVED,
};
use blox_placement::Scattered;
use blox_policies::{Fifo, Las, Srtf};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const SEED: Seed = Seed(2024);
const ROUND: Time = Time::from_secs(300);

/// `n` active jobs with Blox-like sizes, increasing arrivals and random attained service.
fn job_table(n: usize) -> JobTable {
    let mut rng = SEED.stream("bench/jobs");
    let mut table = JobTable::new();
    let mut arrival = Time::ZERO;
    for i in 0..n {
        arrival += Time::from_secs(rng.below(900));
        let n_gpus = [1, 1, 1, 2, 4, 8][rng.below(6) as usize];
        let work_s = 60.0 + rng.next_f64() * 100_000.0;
        let mut job = Job::new(
            JobId(i as u32),
            JobSpec::new(arrival, n_gpus, work_s),
            arrival,
        );
        if rng.below(10) >= 3 {
            job.executed = (rng.next_f64() * work_s).floor();
            job.attained_wall_s = job.executed;
            job.attained_gpu_s = job.executed * f64::from(n_gpus);
        }
        if rng.below(100) == 0 {
            job.priority = PRIORITY_STARVED;
        }
        table.push(job);
    }
    table
}

fn schedule(c: &mut Criterion) {
    let cluster = Cluster::new(ClusterSpec::uniform(32, 4));
    let mut group = c.benchmark_group("schedule");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [100, 1_000, 10_000] {
        let jobs = job_table(n);
        let now = jobs.last().map_or(Time::ZERO, Job::arrival).ceil_to(ROUND);
        let ctx = Ctx::new(
            now,
            now.as_millis() / ROUND.as_millis(),
            ROUND,
            &cluster,
            &jobs,
        );
        group.throughput(Throughput::Elements(n as u64));
        bench_policy(&mut group, "fifo", &ctx, Fifo::default());
        bench_policy(&mut group, "las", &ctx, Las::default());
        bench_policy(&mut group, "srtf", &ctx, Srtf::default());
    }
    group.finish();
}

fn place(c: &mut Criterion) {
    let mut group = c.benchmark_group("place");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (nodes, per_node) in [(16, 4), (128, 4), (512, 8)] {
        let total = nodes * per_node;
        for (case, waiting, stops) in [("fit", total / 2, 0), ("preempt", total, total / 2)] {
            let (cluster, jobs, schedule) = half_busy(SEED, nodes, per_node, waiting, [1, 4]);
            let ctx = Ctx::new(ROUND, 1, ROUND, &cluster, &jobs);
            let mut policy = Scattered::new();
            let mut out = Decisions::default();
            policy.place(&ctx, &schedule, &mut out);
            let started: usize = out.start.iter().map(|(_, g)| g.len()).sum();
            assert_eq!(
                started as u32, waiting,
                "{case}/{total}: every waiting job starts"
            );
            assert_eq!(out.stop.len() as u32, stops, "{case}/{total}: preemptions");
            group.bench_function(BenchmarkId::new(case, total), |b| {
                b.iter(|| {
                    out.clear();
                    policy.place(black_box(&ctx), &schedule, &mut out);
                    black_box(out.start.len())
                });
            });
        }
    }
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    schedule(&mut c);
    place(&mut c);
    c.final_summary();
}
