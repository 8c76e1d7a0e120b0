//! Per-round cost of each placement, called directly (no engine).
//!
//! - `<placement>/{fit,preempt}/G`: one `place` call on a cluster of G GPUs (64 and 512 on
//!   4-GPU nodes, 4,096 on 8-GPU nodes) that is half full of running 1-GPU jobs on randomly
//!   chosen GPUs. The schedule lists waiting jobs (alternately 1 and 4 GPUs) first, then the
//!   running jobs. In `fit` the waiting jobs ask for exactly the free half, so all start and
//!   nothing is preempted; in `preempt` they ask for the whole cluster, so every running job is
//!   evicted. `scattered-blox` is `BloxScattered` (Blox's quirks, so fewer jobs may start).
//! - `decision/<placement>/G`: one decision: a single waiting 8-GPU job on the same half-full
//!   cluster (no preemption needed).
//!
//! Randomness comes from named streams of one `Seed`, so every run benchmarks the same inputs.

use blox_benches::half_busy;
use blox_core::{Cluster, Ctx, Decisions, PlacementPolicy, Schedule, Seed, Time};
use blox_original::BloxScattered;
use blox_placement::{Consolidated, FirstFit, ResourceAware, Scattered, Topology, TopologyAware};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

const SEED: Seed = Seed(2024);
const ROUND: Time = Time::from_secs(300);

fn placements(cluster: &Cluster) -> Vec<(&'static str, Box<dyn PlacementPolicy>)> {
    let topo = Arc::new(Topology::default_for(cluster.spec()));
    vec![
        ("scattered", Box::new(Scattered::new())),
        ("first-fit", Box::new(FirstFit::default())),
        ("consolidated", Box::new(Consolidated::default())),
        ("resource-aware", Box::new(ResourceAware::default())),
        ("topology", Box::new(TopologyAware::new(Some(topo)))),
    ]
}

fn bench_one(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    ctx: &Ctx<'_>,
    schedule: &Schedule,
    p: &mut dyn PlacementPolicy,
) {
    let mut out = Decisions::default();
    group.bench_function(id, |b| {
        b.iter(|| {
            out.clear();
            p.place(black_box(ctx), schedule, &mut out);
            black_box(out.start.len())
        });
    });
}

const SHAPES: [(u32, u32); 3] = [(16, 4), (128, 4), (512, 8)];

fn rounds(c: &mut Criterion) {
    let mut group = c.benchmark_group("place");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (nodes, per_node) in SHAPES {
        let total = nodes * per_node;
        for (case, waiting, stops) in [("fit", total / 2, 0), ("preempt", total, total / 2)] {
            let (cluster, jobs, schedule) = half_busy(SEED, nodes, per_node, waiting, [1, 4]);
            let ctx = Ctx::new(ROUND, 1, ROUND, &cluster, &jobs);
            for (name, mut p) in placements(&cluster) {
                let mut out = Decisions::default();
                p.place(&ctx, &schedule, &mut out);
                let started: usize = out.start.iter().map(|(_, g)| g.len()).sum();
                assert_eq!(started as u32, waiting, "{name} {case}/{total}: all start");
                assert_eq!(out.stop.len() as u32, stops, "{name} {case}/{total}: stops");
                bench_one(
                    &mut group,
                    BenchmarkId::new(format!("{name}/{case}"), total),
                    &ctx,
                    &schedule,
                    p.as_mut(),
                );
            }
            bench_one(
                &mut group,
                BenchmarkId::new(format!("scattered-blox/{case}"), total),
                &ctx,
                &schedule,
                &mut BloxScattered::new(),
            );
        }
    }
    group.finish();
}

fn decisions(c: &mut Criterion) {
    let mut group = c.benchmark_group("decision");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (nodes, per_node) in SHAPES {
        let total = nodes * per_node;
        let (cluster, jobs, mut schedule) = half_busy(SEED, nodes, per_node, 8, [8, 8]);
        schedule.entries.truncate(1);
        let ctx = Ctx::new(ROUND, 1, ROUND, &cluster, &jobs);
        for (name, mut p) in placements(&cluster) {
            let mut out = Decisions::default();
            p.place(&ctx, &schedule, &mut out);
            assert_eq!(out.start.len(), 1, "{name}/{total}: the job starts");
            bench_one(
                &mut group,
                BenchmarkId::new(name, total),
                &ctx,
                &schedule,
                p.as_mut(),
            );
        }
    }
    group.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, without the undocumented `pub fn` the
// macro generates (the workspace warns on missing docs).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    rounds(&mut c);
    decisions(&mut c);
    c.final_summary();
}
