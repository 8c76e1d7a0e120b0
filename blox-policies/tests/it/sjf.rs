use crate::testing::{check_ordering_policy, order, Table};
use blox_policies::*;
use proptest::prelude::*;

#[test]
fn orders_by_total_gpu_time_then_id() {
    // GPU-s: 800, 800, 600, 1000.
    let t = Table::new(8)
        .job(0, 8, 100.0)
        .job(0, 1, 800.0)
        .job(5, 2, 300.0)
        .job(0, 1, 1000.0);
    assert_eq!(order(&mut Sjf::default(), &t), vec![2, 0, 1, 3]);
}

#[test]
fn starved_jobs_come_first_and_non_preemptive_keeps_runners_ahead() {
    let t = Table::new(8)
        .job(0, 1, 5000.0)
        .running(0)
        .job(0, 1, 100.0)
        .job(0, 4, 10_000.0)
        .starved(2);
    assert_eq!(order(&mut Sjf::default(), &t), vec![2, 1, 0]);
    assert_eq!(order(&mut Sjf::new(false), &t), vec![2, 0, 1]);
}

proptest! {
    #[test]
    fn invariants(t in crate::testing::tables()) {
        check_ordering_policy(Sjf::default, &t)?;
        check_ordering_policy(|| Sjf::new(false), &t)?;
    }
}
