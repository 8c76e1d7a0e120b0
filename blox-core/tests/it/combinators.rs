//! Tests of `combinators` (the library's `src/combinators.rs`) through the public API.

use blox_core::*;
use blox_core::{ClusterSpec, JobSpec, Time};

fn table(gpus: &[u32]) -> JobTable {
    let mut t = JobTable::new();
    for (i, &g) in gpus.iter().enumerate() {
        t.push(Job::new(
            JobId(i as u32),
            JobSpec::new(Time::ZERO, g, 100.0),
            Time::ZERO,
        ));
    }
    t
}

/// Lowest free GPUs, jobs in schedule order, skipping jobs that do not fit.
fn first_fit() -> impl PlacementPolicy {
    placement_fn(
        "first-fit",
        |ctx: &Ctx<'_>, s: &Schedule, out: &mut Decisions| {
            let mut plan = ctx.cluster.free_map();
            for a in s.iter() {
                let free: Vec<GpuId> = (0..ctx.cluster.total_gpus())
                    .map(GpuId)
                    .filter(|&g| plan.is_free(g))
                    .take(a.n_gpus as usize)
                    .collect();
                if free.len() == a.n_gpus as usize {
                    plan.occupy(&free);
                    out.start(a.job, &free);
                }
            }
        },
    )
}

#[test]
fn or_else_offers_leftovers_on_the_remaining_cluster() {
    let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
    let jobs = table(&[2, 1, 1]);
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
    let mut s = Schedule::default();
    for j in jobs.iter() {
        s.push(j.id, j.n_gpus());
    }
    // The first only places job 0.
    let only_zero = placement_fn(
        "only-zero",
        |_: &Ctx<'_>, _: &Schedule, out: &mut Decisions| {
            out.start(JobId(0), &[GpuId(0), GpuId(1)]);
        },
    );
    let mut p = only_zero.or_else(first_fit());
    let mut out = Decisions::default();
    p.place(&ctx, &s, &mut out);
    let got: Vec<(u32, Vec<u32>)> = out
        .start
        .iter()
        .map(|(j, g)| (j.0, g.iter().map(|g| g.0).collect()))
        .collect();
    assert_eq!(got, vec![(0, vec![0, 1]), (1, vec![2]), (2, vec![3])]);
}

#[test]
fn either_dispatches_and_names() {
    let mut e: Either<blox_core::ConstantSpeed, blox_core::ConstantSpeed> =
        Either::Right(blox_core::ConstantSpeed(2.0));
    let cluster = Cluster::new(ClusterSpec::uniform(1, 1));
    let job = Job::new(JobId(0), JobSpec::new(Time::ZERO, 1, 1.0), Time::ZERO);
    assert_eq!(e.speed(&job, &[], &cluster), 2.0);
    e = Either::Left(blox_core::ConstantSpeed(1.0));
    assert_eq!(e.name(), "constant");
    let boxed: blox_core::BoxThroughput = Box::new(e);
    assert_eq!(boxed.speed(&job, &[], &cluster), 1.0);
}
