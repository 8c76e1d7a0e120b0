//! Tests of `throughput` (the library's `src/throughput.rs`) through the public API.

use blox_core::*;
use blox_core::{ClusterSpec, JobId, JobSpec, Time};
use blox_placement::*;

fn job(n: u32, model: Option<&str>) -> Job {
    let mut spec = JobSpec::new(Time::ZERO, n, 100.0);
    spec.model = model.map(Into::into);
    Job::new(JobId(0), spec, Time::ZERO)
}

fn g(v: &[u32]) -> Vec<GpuId> {
    v.iter().map(|&x| GpuId(x)).collect()
}

#[test]
fn one_gpu_is_always_full_speed_and_best_placement_too() {
    let cluster = Cluster::new(ClusterSpec::uniform(4, 4));
    let m = PlacementSpeed::new(None);
    assert_eq!(m.speed(&job(1, Some("lstm")), &g(&[7]), &cluster), 1.0);
    assert_eq!(
        m.speed(&job(4, Some("lstm")), &g(&[4, 5, 6, 7]), &cluster),
        1.0
    );
    let split = m.speed(&job(4, Some("lstm")), &g(&[2, 3, 4, 5]), &cluster);
    // 11 ms of compute, 1.5 × 56 MB over 25 GB/s instead of 300 GB/s.
    assert!(
        split > 0.78 && split < 0.79,
        "LSTM on two nodes at 25 GB/s: {split}"
    );
    let res = m.speed(&job(4, Some("resnet50")), &g(&[2, 3, 4, 5]), &cluster);
    assert!(res > 0.99 && res < 1.0, "ResNet-50 barely notices: {res}");
}

#[test]
fn profiles_by_name_and_class() {
    assert_eq!(profile_by_name("ResNet50").unwrap().name, "res50");
    assert_eq!(profile_by_name("alexnet_4").unwrap().name, "alexnet");
    assert!(profile_by_name("gpt-17").is_none());
    let mut j = job(2, None);
    j.spec.class_id = 7;
    assert_eq!(model_profile(&j).name, "lstm");
    j.spec.class_id = 42;
    assert_eq!(model_profile(&j).name, "default");
    assert_eq!(model_profile(&job(2, Some("nope"))).name, "default");
}

#[test]
fn elastic_jobs_scale_with_gpus() {
    let cluster = Cluster::new(ClusterSpec::uniform(2, 8));
    let m = PlacementSpeed::new(None);
    let mut j = job(4, Some("res50"));
    j.spec.elastic = true;
    let two = m.speed(&j, &g(&[0, 1]), &cluster);
    let eight = m.speed(&j, &g(&[0, 1, 2, 3, 4, 5, 6, 7]), &cluster);
    assert!(two < 0.51 && two > 0.49, "{two}");
    assert!(eight > 1.99 && eight < 2.0, "{eight}");
}
