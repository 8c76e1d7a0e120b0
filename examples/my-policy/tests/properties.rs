//! Example 4: property-testing the policy with blox-testkit.

use blox_admission::AcceptAll;
use blox_core::{Pipeline, Schedule, SchedulingPolicy};
use blox_placement::Scattered;
use blox_testkit::{
    check_conservation, check_deterministic, check_permutation, run_recorded, strategy,
};
use my_blox_policy::Srsf;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every active job is ordered exactly once, starved jobs first, then by remaining service.
    #[test]
    fn orders_every_job_by_remaining_service(snap in strategy::snapshot(25)) {
        let ctx = snap.ctx();
        let mut s = Schedule::default();
        Srsf::default().schedule(&ctx, &mut s);
        prop_assert_eq!(check_permutation(&ctx, &s), Ok(()));
        let key = |id| {
            let j = ctx.jobs.get(id).unwrap();
            (j.priority, j.remaining_work() * f64::from(j.n_gpus()))
        };
        for w in s.entries.windows(2) {
            let (a, b) = (key(w[0].job), key(w[1].job));
            prop_assert!(a.0 < b.0 || (a.0 == b.0 && a.1 <= b.1));
        }
    }

    /// Whole runs conserve jobs and are deterministic.
    #[test]
    fn runs_conserve_jobs(jobs in strategy::jobs(25, 4)) {
        let run = || run_recorded(Pipeline::new(AcceptAll, Srsf::default(), Scattered::new()), 2, 4, blox_testkit::Exact::new(), jobs.clone()).unwrap().1;
        prop_assert_eq!(check_conservation(&run(), true), Ok(()));
        prop_assert_eq!(check_deterministic(run), Ok(()));
    }
}
