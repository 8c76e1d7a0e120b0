//! Tests of `queue_cap` (the library's `src/queue_cap.rs`) through the public API.

use blox_admission::*;
use blox_core::*;
use blox_core::{Cluster, ClusterSpec, Job, JobId, JobSpec, JobTable, Time};

fn queue(n: u64) -> Vec<QueuedJob> {
    (0..n)
        .map(|seq| QueuedJob::new(seq, JobSpec::new(Time::ZERO, 1, 1.0)))
        .collect()
}

#[test]
fn admits_up_to_the_limit_of_waiting_jobs() {
    let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
    let mut jobs = JobTable::new();
    jobs.push(Job::new(
        JobId(0),
        JobSpec::new(Time::ZERO, 1, 1.0),
        Time::ZERO,
    ));
    let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
    let mut out = Admissions::default();
    QueueCap::new(3, Overflow::Hold)
        .unwrap()
        .admit(&ctx, &queue(5), &mut out);
    assert_eq!(out.admit, vec![0, 1], "one job already waits");
    assert!(out.reject.is_empty());
    out.clear();
    QueueCap::new(3, Overflow::Reject)
        .unwrap()
        .admit(&ctx, &queue(5), &mut out);
    assert_eq!(
        (out.admit.clone(), out.reject.clone()),
        (vec![0, 1], vec![2, 3, 4])
    );
    assert!(QueueCap::new(0, Overflow::Hold).is_err());
}
