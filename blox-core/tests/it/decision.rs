//! Tests of `decision` (the library's `src/decision.rs`) through the public API.

use blox_core::*;
use blox_core::{Cluster, ClusterSpec, Job, JobSpec, JobTable, Time};

#[test]
fn validation_names_the_problem() {
    let mut cluster = Cluster::new(ClusterSpec::uniform(1, 2));
    let mut jobs = JobTable::new();
    for i in 0..4 {
        jobs.push(Job::new(
            JobId(i),
            JobSpec::new(Time::ZERO, 1 + i / 3, 10.0),
            Time::ZERO,
        ));
    }
    cluster.allocate(JobId(0), &[GpuId(0)]);
    jobs.get_mut(JobId(0)).unwrap().gpus = GpuSet::from_slice(&[GpuId(0)]);
    let mut scratch = ValidationScratch::default();
    let check = |d: &Decisions, s: &mut ValidationScratch| d.validate(&cluster, &jobs, s);
    let mut d = Decisions::default();
    d.start(JobId(1), &[GpuId(1)]);
    d.start(JobId(2), &[GpuId(1)]);
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "gives GPU 1 to both job 1 and job 2"
    );
    // A GPU twice in one start's list names the job twice; the claims of a failed
    // validation do not outlive it.
    let mut d = Decisions::default();
    d.start(JobId(1), &[GpuId(1)]);
    d.start(JobId(3), &[GpuId(1), GpuId(1)]);
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "gives GPU 1 to both job 1 and job 3"
    );
    let mut d = Decisions::default();
    d.start(JobId(3), &[GpuId(1), GpuId(1)]);
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "gives GPU 1 to both job 3 and job 3"
    );
    let mut d = Decisions::default();
    d.start(JobId(1), &[GpuId(0)]);
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "gives job 1 GPU 0, held by job 0"
    );
    d.stop.push(JobId(0));
    assert_eq!(check(&d, &mut scratch), Ok(()), "free once job 0 stops");
    let mut d = Decisions::default();
    d.stop.push(JobId(1));
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "stops job 1, which is not running"
    );
    let mut d = Decisions::default();
    d.start(JobId(1), &[GpuId(5)]);
    assert_eq!(
        check(&d, &mut scratch).unwrap_err(),
        "gives job 1 GPU 5, which does not exist"
    );
}
