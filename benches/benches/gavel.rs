//! One solve of each of Gavel's convex programs (`blox-gavel`, `--semantics gavel`), through
//! the policy as a run calls it: ECOS's algorithm on cvxpy's cone program behind
//! `max_min_fairness_perf`, `finish_time_fairness_perf`, `max_sum_throughput_perf` and
//! `min_total_duration_perf` (its bisection: a coarse structured-barrier estimate, then ECOS
//! near the threshold), the structured interior-point solver behind the agnostic
//! `max_min_fairness`; on a problem the size of the physical-cluster traces' average solve (36
//! active jobs):
//!
//! - `gavel-solve/{max_min_fairness_perf,max_min_fairness,finish_time_fairness_perf}/3-types`:
//!   4 K80 + 4 P100 + 4 V100 (`bench --gavel`'s heterogeneous cluster);
//! - `gavel-solve/{max_min_fairness_perf,finish_time_fairness_perf}/1-type`: 8 GPUs of one type;
//! - `gavel-solve/{max_sum_throughput_perf,min_total_duration_perf}/{3-types,1-type}`: the
//!   max-sum program and the feasibility programs of the horizon's bisection, on both.
//!
//! The jobs are drawn from a named seed stream: scale factors 1, 2 or 4 (mostly 1), K80
//! throughputs of 1 to 100 steps/s with the P100 1.2-2.1x and the V100 1.5-3.8x faster (the
//! ranges of Gavel's throughput tables), 10^3 to 10^6 steps left, up to a day since arrival.
//! A fresh policy per solve (finish-time fairness keeps state across solves).

use blox_core::Seed;
use blox_gavel::{GavelPolicy, GavelPolicyKind, SolveJob};
use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

/// One job's data (throughputs in alphabetical type order: k80, p100, v100).
struct JobData {
    scale_factor: u32,
    throughput: Vec<f64>,
    remaining_steps: f64,
    since_arrival: f64,
}

fn jobs(m: usize, types: usize) -> Vec<JobData> {
    let mut rng = Seed(2024).stream("bench/gavel");
    (0..m)
        .map(|_| {
            let scale_factor = [1, 1, 1, 2, 4][rng.below(5) as usize];
            let k80 = 1.0 + 99.0 * rng.next_f64();
            let p100 = k80 * (1.2 + 0.9 * rng.next_f64());
            let v100 = k80 * (1.5 + 2.3 * rng.next_f64());
            let throughput = if types == 3 {
                vec![k80, p100, v100]
            } else {
                vec![v100]
            };
            JobData {
                scale_factor,
                throughput,
                remaining_steps: (1_000 + rng.below(999_000)) as f64,
                since_arrival: 86_400.0 * rng.next_f64(),
            }
        })
        .collect()
}

fn solve_jobs(data: &[JobData]) -> Vec<SolveJob<'_>> {
    data.iter()
        .enumerate()
        .map(|(i, d)| SolveJob {
            id: i as u32,
            scale_factor: d.scale_factor,
            weight: 1.0,
            throughput: &d.throughput,
            remaining_steps: d.remaining_steps,
            since_arrival: d.since_arrival,
        })
        .collect()
}

fn gavel(c: &mut Criterion) {
    let mut group = c.benchmark_group("gavel-solve");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let cases: [(GavelPolicyKind, usize, &[u32], &str); 9] = [
        (
            GavelPolicyKind::MaxMinFairnessPerf,
            3,
            &[4, 4, 4],
            "3-types",
        ),
        (GavelPolicyKind::MaxMinFairness, 3, &[4, 4, 4], "3-types"),
        (
            GavelPolicyKind::FinishTimeFairnessPerf,
            3,
            &[4, 4, 4],
            "3-types",
        ),
        (GavelPolicyKind::MaxMinFairnessPerf, 1, &[8], "1-type"),
        (GavelPolicyKind::FinishTimeFairnessPerf, 1, &[8], "1-type"),
        (
            GavelPolicyKind::MaxSumThroughputPerf,
            3,
            &[4, 4, 4],
            "3-types",
        ),
        (GavelPolicyKind::MaxSumThroughputPerf, 1, &[8], "1-type"),
        (
            GavelPolicyKind::MinTotalDurationPerf,
            3,
            &[4, 4, 4],
            "3-types",
        ),
        (GavelPolicyKind::MinTotalDurationPerf, 1, &[8], "1-type"),
    ];
    for (kind, types, counts, label) in cases {
        let data = jobs(36, types);
        let solve = solve_jobs(&data);
        let x = GavelPolicy::new(kind, 0).allocate(&solve, counts);
        assert_eq!(x.len(), solve.len(), "{kind} allocates every job");
        group.bench_function(BenchmarkId::new(kind.as_str(), label), |b| {
            b.iter(|| {
                let mut policy = GavelPolicy::new(kind, 0);
                black_box(policy.allocate(black_box(&solve), counts))
            });
        });
    }
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    gavel(&mut c);
    c.final_summary();
}
