//! Blox's `Place` on hand-made worlds: failed preemptions keep their victims stopped, no
//! back-filling, no resizing, GPU types ignored; and, on random snapshots, valid decisions.

use crate::{check, elastic, plain, rigid, run, world};
use blox_admission::AcceptAll;
use blox_core::Pipeline;
use blox_core::{ClusterSpec, Decisions, GpuTypeId, JobId, PlacementPolicy, Schedule};
use blox_original::BloxScattered;
use blox_original::{Blox, BloxLas};
use blox_testkit::{
    check_conservation, check_deterministic, check_placement, check_time_monotone, run_recorded,
    strategy,
};
use proptest::prelude::*;

fn typed(entries: &[(u32, u32, Option<u32>)]) -> Schedule {
    let mut s = Schedule::default();
    for &(j, n, t) in entries {
        match t {
            Some(t) => s.push_on(JobId(j), n, GpuTypeId(t)),
            None => s.push(JobId(j), n),
        }
    }
    s
}

#[test]
fn a_failed_preemption_keeps_its_victims_stopped() {
    // H (high, running on 2, 3), W waits for 4 GPUs, L (low) runs on 0, 1.
    let w = world(
        ClusterSpec::uniform(1, 4),
        vec![
            (rigid(2), vec![0, 1]),
            (rigid(2), vec![2, 3]),
            (rigid(4), vec![]),
        ],
    );
    // W cannot start even with L stopped: L stays stopped (the stock placements roll it back).
    check(
        &mut BloxScattered::new(),
        &w,
        &[(1, 2), (2, 4), (0, 2)],
        &[0],
        &[],
    );
    // When it succeeds, the victims stop and the job starts on the lowest free GPUs.
    check(
        &mut BloxScattered::new(),
        &w,
        &[(2, 4), (1, 2), (0, 2)],
        &[0, 1],
        &[(2, &[0, 1, 2, 3])],
    );
}

#[test]
fn running_jobs_are_never_resized() {
    let w = world(
        ClusterSpec::uniform(1, 8),
        vec![(elastic(4), vec![0, 1, 2, 3]), (rigid(1), vec![])],
    );
    check(
        &mut BloxScattered::new(),
        &w,
        &[(0, 2), (1, 1)],
        &[],
        &[(1, &[4])],
    );
}

#[test]
fn gpu_types_are_ignored() {
    let w = world(
        "2x4:v100,1x4:k80".parse().unwrap(),
        vec![(rigid(2), vec![])],
    );
    let got = plain(&run(
        &mut BloxScattered::new(),
        &w,
        &typed(&[(0, 2, Some(1))]),
    ));
    assert_eq!(got, (vec![], vec![(0, vec![0, 1])]));
}

proptest! {
    #[test]
    fn decisions_are_always_valid(snap in strategy::snapshot(20)) {
        let ctx = snap.ctx();
        let mut out = Decisions::default();
        BloxScattered::new().place(&ctx, &snap.id_order(), &mut out);
        prop_assert_eq!(check_placement(&ctx, &out), Ok(()));
    }

    #[test]
    fn whole_runs_conserve_jobs_and_keep_time(jobs in strategy::jobs(30, 4)) {
        // 2 nodes x 4: with Blox's overshoot some 3-GPU jobs may wait, but all fit eventually.
        let p = || Pipeline::new(AcceptAll, BloxLas::default(), BloxScattered::new());
        let run = || run_recorded(p(), 2, 4, Blox::new(), jobs.clone()).unwrap().1;
        let rec = run();
        prop_assert_eq!(check_conservation(&rec, true), Ok(()));
        prop_assert_eq!(check_time_monotone(&rec), Ok(()));
        prop_assert_eq!(check_deterministic(run), Ok(()));
    }
}
