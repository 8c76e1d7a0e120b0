use blox_core::*;
use blox_core::{ClusterSpec, JobId, JobSpec, Time};
use blox_policies::*;

#[test]
fn amdahl_is_sublinear_and_relative_to_the_request() {
    let a = Amdahl::default();
    assert_eq!(a.speedup(1), 1.0);
    assert!((a.speedup(8) - 1.0 / (0.05 + 0.95 / 8.0)).abs() < 1e-12);
    let mut prev_gain = f64::INFINITY;
    for k in 1..64 {
        let gain = a.speedup(k + 1) - a.speedup(k);
        assert!(gain > 0.0 && gain < prev_gain, "diminishing returns at {k}");
        prev_gain = gain;
    }
    let job = Job::new(JobId(0), JobSpec::new(Time::ZERO, 4, 1.0), Time::ZERO);
    let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
    let four = [GpuId(0), GpuId(1), GpuId(2), GpuId(3)];
    assert_eq!(a.speed(&job, &four, &cluster), 1.0);
    assert!(a.speed(&job, &four[..2], &cluster) < 1.0);
    assert!(Amdahl::new(1.5).is_err());
    assert_eq!(Amdahl::new(1.0).unwrap().speedup(8), 8.0);
}
