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
//!   worst case, two GPU types with a distinct throughput row per job (nothing reduces), for
//!   300 jobs.
//! - `allocate/gavel-hetero-lp-solve/1000`: one cold solve of Gavel's heterogeneity-aware LP
//!   (`max_min_lp`) for 1,000 jobs on 3 GPU types (36 V100, 36 P100, 36 K80, Gavel's simulated
//!   cluster). Each job is one of 26 job types of Gavel's trace (ResNet-18, ResNet-50,
//!   Transformer, LM, Recommendation at 4-5 batch sizes, CycleGAN, A3C) at its GPU count (1, 2,
//!   4 or 8), with made-up but plausible throughputs (V100 1.5-4x the K80, the P100 in between,
//!   scaling a little worse on faster GPUs); the rows are the speed factors against the V100, as
//!   `Gavel` builds them, so the LP reduces to at most 26 x 4 classes.
//! - `round/{gavel-hetero,gavel-hetero-recompute}/1000`: one `Gavel::schedule` call with that
//!   throughput table on that cluster (9 x 4 of each type), on the `order` job table of 1,000
//!   jobs with a job type each: in steady state (same active set, no LP solve; the per-(job,
//!   type) priority walk), and with a fresh policy every call (LP solve plus walk: the round
//!   cost when the active set changes every round).
//!
//! Randomness comes from named streams of one `Seed`, so every run benchmarks the same inputs.

use blox_benches::bench_policy;
use blox_core::{
    Cluster, ClusterSpec, Ctx, GpuId, GpuTypeId, Job, JobId, JobSpec, JobTable, Schedule,
    SchedulingPolicy, Seed, ThroughputTable, Time, PRIORITY_STARVED,
};
use blox_policies::{
    max_min_lp, Fifo, Gavel, Las, MaxMinSolver, Optimus, Sjf, Srtf, Themis, Tiresias,
};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Arc;
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
            job.attained_gpu_s = job.executed * f64::from(n_gpus);
            job.attained_wall_s = job.executed;
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

/// The heterogeneous cluster: 36 GPUs each of V100, P100 and K80 (Gavel's simulated cluster).
const HETERO_CLUSTER: &str = "9x4:v100,9x4:p100,9x4:k80";

/// Gavel's job types (model and batch size, named as in its traces) with made-up throughputs:
/// (model, batch sizes, V100 and P100 speed-up over the K80 at the smallest batch size).
/// Larger batches gain a little more from the faster GPUs.
const JOB_TYPES: [(&str, &[u32], f64, f64); 7] = [
    ("ResNet-18", &[16, 32, 64, 128, 256], 2.2, 1.5),
    ("ResNet-50", &[16, 32, 64, 128], 3.6, 2.0),
    ("Transformer", &[16, 32, 64, 128, 256], 3.0, 1.8),
    ("LM", &[5, 10, 20, 40, 80], 2.4, 1.6),
    ("Recommendation", &[512, 1024, 2048, 4096, 8192], 1.6, 1.3),
    ("CycleGAN", &[1], 3.8, 2.1),
    ("A3C", &[4], 1.5, 1.2),
];

/// The names of the job types of [`JOB_TYPES`] (26).
fn job_type_names() -> Vec<String> {
    JOB_TYPES
        .iter()
        .flat_map(|&(model, batches, _, _)| {
            batches
                .iter()
                .map(move |b| format!("{model} (batch size {b})"))
        })
        .collect()
}

/// Throughputs (iterations per second) of every job type at 1, 2, 4 and 8 GPUs on each type:
/// K80 rate x speed-up x GPUs x efficiency^log2(GPUs), the efficiency lower on faster GPUs
/// (communication weighs more when compute is faster).
fn throughput_table() -> ThroughputTable {
    let mut table = ThroughputTable::new();
    for &(model, batches, v100, p100) in &JOB_TYPES {
        for (b, batch) in batches.iter().enumerate() {
            let name = format!("{model} (batch size {batch})");
            let k80_rate = 20.0 / (1.0 + b as f64);
            let growth = 1.0 + 0.03 * b as f64;
            for (ty, speedup, efficiency) in [
                ("v100", v100 * growth, 0.90),
                ("p100", p100 * (1.0 + 0.02 * b as f64), 0.93),
                ("k80", 1.0, 0.96),
            ] {
                for (log2, scale) in [1, 2, 4, 8].into_iter().enumerate() {
                    let rate =
                        k80_rate * speedup * f64::from(scale) * f64::powi(efficiency, log2 as i32);
                    table.insert(ty, &name, scale, rate);
                }
            }
        }
    }
    table
}

/// [`job_table`] with a job type of [`JOB_TYPES`] drawn for each job.
fn hetero_job_table(n: usize) -> JobTable {
    let names: Vec<Arc<str>> = job_type_names().into_iter().map(Arc::from).collect();
    let mut rng = SEED.stream("bench/policies/job-types");
    let mut table = job_table(n);
    for mut job in table.iter_mut() {
        job.spec.model = Some(names[rng.below(names.len() as u64) as usize].clone());
    }
    table
}

/// Gavel's throughput rows for `jobs` on `cluster`: each job's speed factor on each type against
/// the V100, and the GPUs of each type.
fn gavel_rows(
    table: &ThroughputTable,
    cluster: &Cluster,
    jobs: &JobTable,
) -> (Vec<Vec<f64>>, Vec<u32>, Vec<u32>) {
    let types = (0..cluster.n_gpu_types()).map(|k| GpuTypeId(k as u32));
    let rows = jobs
        .iter()
        .map(|j| {
            let model = j.spec.model.as_deref().expect("every job has a type");
            types
                .clone()
                .map(|k| table.speed_factor(model, j.n_gpus(), cluster.gpu_type_name(k), "v100"))
                .collect()
        })
        .collect();
    let scale = jobs.iter().map(Job::n_gpus).collect();
    let capacity = types.map(|k| cluster.gpus_of_type(k)).collect();
    (rows, scale, capacity)
}

fn ctx_at<'a>(cluster: &'a Cluster, jobs: &'a JobTable) -> Ctx<'a> {
    let now = jobs.last().map_or(Time::ZERO, Job::arrival).ceil_to(ROUND);
    Ctx::new(
        now,
        now.as_millis() / ROUND.as_millis(),
        ROUND,
        cluster,
        jobs,
    )
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
    // shrink this LP (the worst case; 300 jobs, as the dense simplex's cost grows with the cube
    // of the classes: 1,000 take seconds).
    let distinct = 300;
    let hetero: Vec<Vec<f64>> = (0..distinct)
        .map(|i| vec![1.0, 1.0 + (i as f64 * 0.618).fract() * 3.0])
        .collect();
    let half = cluster.total_gpus() / 2;
    group.bench_function(
        BenchmarkId::new("gavel-lp-solve-2-types-distinct", distinct),
        |b| {
            b.iter(|| {
                let sol = max_min_lp(
                    black_box(&hetero),
                    black_box(&scale[..distinct]),
                    &[half, half],
                );
                black_box(sol.map(|s| s.min_share).unwrap_or_default())
            });
        },
    );
    // Three GPU types, jobs of Gavel's 26 job types at 4 scale factors.
    let cluster: Cluster = Cluster::new(HETERO_CLUSTER.parse().expect("a valid cluster"));
    let jobs = hetero_job_table(1_000);
    let (rows, scale, capacity) = gavel_rows(&throughput_table(), &cluster, &jobs);
    let sol = max_min_lp(&rows, &scale, &capacity).expect("the LP solves");
    assert!(sol.min_share > 0.0);
    group.bench_function(BenchmarkId::new("gavel-hetero-lp-solve", jobs.len()), |b| {
        b.iter(|| {
            let sol = max_min_lp(black_box(&rows), black_box(&scale), black_box(&capacity));
            black_box(sol.map(|s| s.min_share).unwrap_or_default())
        });
    });
    group.finish();
}

fn round(c: &mut Criterion) {
    let cluster: Cluster = Cluster::new(HETERO_CLUSTER.parse().expect("a valid cluster"));
    let jobs = hetero_job_table(1_000);
    let ctx = ctx_at(&cluster, &jobs);
    let table = Arc::new(throughput_table());
    let gavel = || Gavel::default().with_throughputs(Arc::clone(&table), "v100");
    let mut group = c.benchmark_group("round");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    // The policy's allocation is the LP's on the rows built here.
    let mut policy = gavel();
    let mut out = Schedule::default();
    policy.schedule(&ctx, &mut out);
    let (rows, scale, capacity) = gavel_rows(&table, &cluster, &jobs);
    let sol = max_min_lp(&rows, &scale, &capacity).expect("the LP solves");
    assert_eq!(policy.n_types(), 3);
    for (x, want) in policy.allocation_by_type().chunks(3).zip(&sol.fractions) {
        for (a, b) in x.iter().zip(want) {
            assert!((a - b.clamp(0.0, 1.0)).abs() < 1e-9, "{a} vs {b}");
        }
    }
    assert!(
        out.iter().all(|a| a.gpu_type.is_some()),
        "every job is listed on a type"
    );
    bench_policy(&mut group, "gavel-hetero", &ctx, gavel());
    // A fresh policy every call: the LP is solved before the walk.
    group.bench_function(
        BenchmarkId::new("gavel-hetero-recompute", jobs.len()),
        |b| {
            b.iter(|| {
                out.clear();
                gavel().schedule(black_box(&ctx), &mut out);
                black_box(out.len())
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
    round(&mut c);
    c.final_summary();
}
