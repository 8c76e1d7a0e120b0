use crate::testing::{check_ordering_policy, order, Table};
use blox_core::*;
use blox_policies::*;
use proptest::prelude::*;

#[test]
fn demotes_on_crossing_a_threshold_and_is_fifo_within_a_queue() {
    // GPU-s: 3599 (top), 3600 (demoted: the threshold counts), 0 (top), 10 (top).
    let t = Table::new(8)
        .job(0, 1, 1e6)
        .served(3599.0, 3599.0)
        .job(0, 4, 1e6)
        .served(3600.0, 900.0)
        .job(30, 2, 1e6)
        .job(10, 1, 1e6)
        .served(10.0, 10.0);
    let mut p = Tiresias::default();
    assert_eq!(order(&mut p, &t), vec![0, 3, 2, 1]);
    assert_eq!(p.queue_of(JobId(1)), Some(1));
    assert_eq!(p.queue_of(JobId(0)), Some(0));
}

#[test]
fn service_is_counted_in_gpu_seconds() {
    // 1000 wall-clock s on 4 GPUs = 4000 GPU-s: demoted, unlike under Blox's LAS.
    let t = Table::new(8)
        .job(0, 4, 1e6)
        .served_wall(1000.0, 1000.0)
        .job(5, 1, 1e6)
        .served_wall(3000.0, 3000.0);
    assert_eq!(order(&mut Tiresias::default(), &t), vec![1, 0]);
}

#[test]
fn k_queues() {
    let mut p = Tiresias::new(vec![100.0, 1000.0], None).unwrap();
    let t = Table::new(8)
        .job(0, 1, 1e6)
        .served(5000.0, 5000.0)
        .job(1, 1, 1e6)
        .served(500.0, 500.0)
        .job(2, 1, 1e6)
        .served(50.0, 50.0);
    assert_eq!(order(&mut p, &t), vec![2, 1, 0]);
    assert!(Tiresias::new(vec![10.0, 10.0], None).is_err());
    assert!(Tiresias::new(vec![-1.0], None).is_err());
    assert!(Tiresias::new(vec![], Some(0.0)).is_err());
    // One queue: FIFO.
    let mut fifo = Tiresias::new(vec![], None).unwrap();
    assert_eq!(order(&mut fifo, &t), vec![0, 1, 2]);
}

#[test]
fn starvation_promotes_back_to_the_top_queue() {
    // Job 0 ran 4000 s on 1 GPU (demoted), last seen running at t = 4000. With k = 1 it
    // is promoted once it has waited 4000 s, i.e. at t = 8000, and then ranks by arrival.
    let mut p = Tiresias::new(vec![3600.0], Some(1.0)).unwrap();
    let base = Table::new(8)
        .job(0, 1, 1e6)
        .served(4000.0, 4000.0)
        .running(0)
        .job(100, 1, 1e6)
        .at(4000);
    assert_eq!(order(&mut p, &base), vec![1, 0]);
    let mut waiting = base.clone();
    waiting.jobs.get_mut(JobId(0)).unwrap().gpus.clear();
    assert_eq!(order(&mut p, &waiting.clone().at(7700)), vec![1, 0]);
    assert_eq!(order(&mut p, &waiting.clone().at(8000)), vec![0, 1]);
    assert_eq!(p.queue_of(JobId(0)), Some(0));
    // Service now counts from the promotion: once running again, it stays on top until
    // 3600 more GPU-s.
    let mut later = waiting.running(0).at(8300);
    later.jobs.get_mut(JobId(0)).unwrap().attained_gpu_s = 4000.0 + 3599.0;
    assert_eq!(order(&mut p, &later), vec![0, 1]);
    later.jobs.get_mut(JobId(0)).unwrap().attained_gpu_s = 4000.0 + 3600.0;
    assert_eq!(order(&mut p, &later), vec![1, 0]);
}

#[test]
fn gittins_orders_within_a_queue_by_index_not_arrival() {
    // All four in the top queue (< 3600 GPU-s). FIFO gives 0, 1, 2, 3. With the learned
    // demands {10000, 100, 100, 100} and quantum 200: job 1 (50 served) has the best
    // chance to finish soon, then jobs 2 and 3 (nothing served; tie by id); job 0 (150
    // served) can only be the long one: index 0.
    let t = Table::new(8)
        .job(0, 1, 10_000.0)
        .served(150.0, 150.0)
        .job(10, 1, 100.0)
        .served(50.0, 50.0)
        .job(20, 1, 100.0)
        .job(30, 1, 100.0);
    assert_eq!(order(&mut Tiresias::default(), &t), vec![0, 1, 2, 3]);
    let mut g = Tiresias::default().with_gittins(200.0).unwrap();
    assert_eq!(order(&mut g, &t), vec![1, 2, 3, 0]);
    assert_eq!(g.name(), "tiresias-g");
    assert!(Tiresias::default().with_gittins(0.0).is_err());
}

proptest! {
    #[test]
    fn invariants(t in crate::testing::tables()) {
        check_ordering_policy(Tiresias::default, &t)?;
        check_ordering_policy(|| Tiresias::default().with_gittins(1800.0).unwrap(), &t)?;
        check_ordering_policy(|| Tiresias::new(vec![500.0, 5000.0], Some(0.5)).unwrap(), &t)?;
    }
}
