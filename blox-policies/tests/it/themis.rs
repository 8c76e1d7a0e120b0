use crate::testing::{check_ordering_policy, order, Table};
use blox_core::*;
use blox_policies::*;
use proptest::prelude::*;

#[test]
fn worst_rho_first() {
    // 4 GPUs, 3 jobs, at t = 1000.
    // Job 0: 1 GPU, 2000 s, ran 1000 s since 0: T_sh = 1000 + 1000, T_id = 2000: ρ = 1.
    // Job 1: 4 GPUs, 1000 s, arrived 0, waited: T_sh = 2000; T_id = 1000 × 3 = 3000: 0.67.
    // Job 2: 1 GPU, 1000 s, arrived 500: T_sh = 1500, T_id = 1000: ρ = 1.5.
    let t = Table::new(4)
        .job(0, 1, 2000.0)
        .served(1000.0, 1000.0)
        .running(0)
        .job(0, 4, 1000.0)
        .job(500, 1, 1000.0)
        .at(1000);
    assert_eq!(order(&mut Themis::default(), &t), vec![2, 0, 1]);
    let ctx = t.ctx();
    let rho = finish_time_fairness(t.jobs.get(JobId(1)).unwrap(), &ctx, 3, 4);
    assert!((rho - 2.0 / 3.0).abs() < 1e-12);
    // Equal ρ: lowest id first; starved first.
    let t = Table::new(4).job(0, 1, 100.0).job(0, 1, 100.0).at(50);
    assert_eq!(order(&mut Themis::default(), &t), vec![0, 1]);
    assert_eq!(order(&mut Themis::default(), &t.starved(1)), vec![1, 0]);
}

proptest! {
    #[test]
    fn invariants(t in crate::testing::tables()) {
        check_ordering_policy(Themis::default, &t)?;
    }
}
