//! Tests of `zoo` (the library's `src/zoo.rs`) through the public API.

use blox_core::Time;
use blox_core::*;
use blox_workload::*;

#[test]
fn zoo_is_indexed_by_class_and_falls_back_to_one_gpu() {
    for (i, m) in MODEL_ZOO.iter().enumerate() {
        assert_eq!(m.class_id as usize, i);
        assert_eq!(m.variants[0].n_gpus, 1);
    }
    let r50 = model("res50").unwrap();
    assert_eq!(r50.variant(2).cpus_per_gpu, 3.0);
    assert_eq!(r50.variant(8).cpus_per_gpu, 4.0);
    assert_eq!(model("shufflenet").unwrap().variant(12).cpus_per_gpu, 3.0);
    assert_eq!(model("lstm").unwrap().variant(1).iter_time_s, 0.011);
    assert!(model("bert").is_none());
}

#[test]
fn assignments() {
    let mut jobs: Vec<JobSpec> = (0..10)
        .map(|i| JobSpec::new(Time::from_secs(i), 2, 100.0))
        .collect();
    assign_models(&mut jobs, ZooAssignment::BloxCycle);
    assert_eq!(jobs[7].class_id, 2);
    assert_eq!(jobs[7].model.as_deref(), Some("res50"));
    assert_eq!(jobs[7].cpus, Some(6.0));
    assert_eq!(jobs[7].mem_gb, Some(125.0));
    assign_models(&mut jobs, ZooAssignment::RoundRobin);
    assert_eq!(jobs[8].model.as_deref(), Some("deepspeech"));
    assert_eq!(jobs[9].class_id, 0);
    let mut a = jobs.clone();
    let mut b = jobs.clone();
    assign_models(&mut a, ZooAssignment::Random(Seed(5)));
    assign_models(&mut b, ZooAssignment::Random(Seed(5)));
    assert_eq!(a, b);
    assert!(a.iter().all(|j| j.class_id < 9));
}
