//! The kit on the shipped components, and on deliberately broken ones it must catch.

use blox_admission::AcceptAll;
use blox_core::{
    placement_fn, policy_fn, Ctx, Decisions, GpuId, JobSpec, Pipeline, PlacementPolicy, Schedule,
    SchedulingPolicy, Time,
};
use blox_placement::Scattered;
use blox_policies::{Fifo, Las, Srtf};
use blox_testkit::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn shipped_policies_order_every_active_job(snap in strategy::snapshot(20)) {
        let ctx = snap.ctx();
        for p in [&mut Fifo::default() as &mut dyn SchedulingPolicy, &mut Las::default(), &mut Srtf::default()] {
            let mut s = Schedule::default();
            p.schedule(&ctx, &mut s);
            prop_assert_eq!(check_permutation(&ctx, &s), Ok(()));
            let mut again = Schedule::default();
            p.schedule(&ctx, &mut again);
            prop_assert_eq!(s, again, "deterministic");
        }
    }

    #[test]
    fn scattered_decisions_are_always_valid(snap in strategy::snapshot(20)) {
        let ctx = snap.ctx();
        let mut out = Decisions::default();
        Scattered::new().place(&ctx, &snap.id_order(), &mut out);
        prop_assert_eq!(check_placement(&ctx, &out), Ok(()));
    }

    #[test]
    fn whole_runs_conserve_jobs_and_keep_time(jobs in strategy::jobs(30, 4)) {
        // (blox-original runs the same properties under Blox's model.)
        let p = || Pipeline::new(AcceptAll, Las::default(), Scattered::new());
        let run = || run_recorded(p(), 2, 4, blox_sim::Exact::new(), jobs.clone()).unwrap().1;
        let rec = run();
        prop_assert_eq!(check_conservation(&rec, true), Ok(()));
        prop_assert_eq!(check_time_monotone(&rec), Ok(()));
        prop_assert_eq!(check_deterministic(run), Ok(()));
    }
}

#[test]
fn a_double_allocating_placement_is_reported() {
    // Gives every waiting job GPU 0.
    let mut greedy = placement_fn(
        "greedy",
        |ctx: &Ctx<'_>, s: &Schedule, out: &mut Decisions| {
            for a in s.iter() {
                if !ctx.jobs.get(a.job).is_some_and(|j| j.is_running()) {
                    out.start(a.job, &[GpuId(0)]);
                }
            }
        },
    );
    let snap = strategy::Snapshot {
        cluster: blox_core::Cluster::new(blox_core::ClusterSpec::uniform(1, 4)),
        jobs: {
            let mut t = blox_core::JobTable::new();
            for i in 0..2 {
                t.push(blox_core::Job::new(
                    blox_core::JobId(i),
                    JobSpec::new(Time::ZERO, 1, 10.0),
                    Time::ZERO,
                ));
            }
            t
        },
        now: Time::ZERO,
    };
    let mut out = Decisions::default();
    greedy.place(&snap.ctx(), &snap.id_order(), &mut out);
    let v = check_placement(&snap.ctx(), &out).unwrap_err();
    assert_eq!(v.invariant, "placement-valid");
    assert_eq!(v.detail, "gives GPU 0 to both job 0 and job 1");
}

#[test]
fn a_starving_policy_is_reported() {
    // Newest first: the first long job is overtaken by every later arrival.
    let newest_first = policy_fn("newest-first", |ctx: &Ctx<'_>, out: &mut Schedule| {
        let mut jobs: Vec<_> = ctx.jobs.iter().collect();
        jobs.sort_by_key(|j| std::cmp::Reverse(j.id));
        for j in jobs {
            out.push(j.id, j.n_gpus());
        }
    });
    // One GPU; a job arrives every 300 s, each running 600 s.
    let jobs: Vec<_> = (0..40)
        .map(|i| JobSpec::new(Time::from_secs(i * 300), 1, 600.0))
        .collect();
    let (_, rec) = run_recorded(
        Pipeline::new(AcceptAll, newest_first, Scattered::new()),
        1,
        1,
        blox_sim::Exact::new(),
        jobs.clone(),
    )
    .unwrap();
    let v = check_starvation_free(&rec, Time::from_secs(3_600)).unwrap_err();
    assert_eq!(v.invariant, "starvation-free");
    // FIFO on the same jobs keeps every wait bounded by the backlog it builds.
    let (_, rec) = run_recorded(
        Pipeline::new(AcceptAll, Fifo::default(), Scattered::new()),
        1,
        1,
        blox_sim::Exact::new(),
        jobs,
    )
    .unwrap();
    assert!(check_starvation_free(&rec, Time::from_secs(13_000)).is_ok());
}

#[test]
fn work_conservation_is_checked_on_exact_runs() {
    // Scattered in strict order: a 4-GPU job at the head blocks 1-GPU jobs behind it while 3 GPUs
    // are free, so it is not work-conserving; the checker says when.
    let jobs = vec![
        JobSpec::new(Time::ZERO, 1, 10_000.0),
        JobSpec::new(Time::from_secs(300), 4, 600.0),
        JobSpec::new(Time::from_secs(300), 1, 600.0),
    ];
    let (_, rec) = run_recorded(
        Pipeline::new(AcceptAll, Fifo::default(), Scattered::new()),
        1,
        4,
        blox_sim::Exact::new(),
        jobs,
    )
    .unwrap();
    let v = check_work_conserving(&rec).unwrap_err();
    assert!(v.detail.starts_with("at 300 s, 3 GPUs were free"), "{v}");
}
