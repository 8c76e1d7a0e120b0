//! Tests of `hetero` (the library's `src/hetero.rs`) through the public API.

use blox_core::*;
use std::sync::Arc;

#[test]
fn lookup_rule_prefers_exact_then_below_then_above() {
    let mut t = ThroughputTable::new();
    t.insert("v100", "m", 2, 20.0);
    t.insert("v100", "m", 4, 40.0);
    t.insert("v100", "m", 8, 80.0);
    t.insert("v100", "m", 4, 41.0);
    assert_eq!(t.len(), 3);
    assert_eq!(t.rate("v100", "m", 4), Some(41.0));
    assert_eq!(t.rate("v100", "m", 6), Some(41.0));
    assert_eq!(t.rate("v100", "m", 1), Some(20.0));
    assert_eq!(t.rate("v100", "m", 16), Some(80.0));
    assert_eq!(t.rate("k80", "m", 4), None);
    assert_eq!(t.exact("v100", "m", 6), None);
    assert!(t.has_model("m") && !t.has_model("n"));
    let mut u = ThroughputTable::new();
    u.insert("v100", "m", 8, 80.0);
    u.insert("v100", "m", 4, 41.0);
    u.insert("v100", "m", 2, 20.0);
    assert_eq!(t, u, "the same rates in another order");
}

#[test]
fn factor_is_the_slowest_type_of_the_placement() {
    use blox_core::{ConstantSpeed, JobId, JobSpec, Time};
    let mut t = ThroughputTable::new();
    t.insert("v100", "m", 2, 4.0);
    t.insert("p100", "m", 2, 2.0);
    t.insert("k80", "m", 2, 1.0);
    let cluster = Cluster::new("1x2:v100,1x2:p100,1x2:k80".parse().unwrap());
    let model = HeteroSpeed::new(ConstantSpeed(2.0), Arc::new(t), "v100");
    let mut spec = JobSpec::new(Time::ZERO, 2, 100.0);
    spec.model = Some("m".into());
    let job = Job::new(JobId(0), spec, Time::ZERO);
    let s = |g: &[u32]| {
        let gpus: Vec<GpuId> = g.iter().map(|&g| GpuId(g)).collect();
        model.speed(&job, &gpus, &cluster)
    };
    assert_eq!(s(&[0, 1]), 2.0);
    assert_eq!(s(&[2, 3]), 1.0);
    assert_eq!(s(&[1, 2]), 1.0, "V100 + P100 runs at the P100's speed");
    assert_eq!(s(&[0, 5]), 0.5);
    let anon = Job::new(JobId(1), JobSpec::new(Time::ZERO, 2, 1.0), Time::ZERO);
    assert_eq!(model.speed(&anon, &[GpuId(4)], &cluster), 2.0);
    assert_eq!(
        model.name(),
        format!("hetero({})", ConstantSpeed(2.0).name())
    );
}
