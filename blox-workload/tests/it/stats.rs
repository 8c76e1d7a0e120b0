//! Tests of `stats` (the library's `src/stats.rs`) through the public API.

use blox_core::*;
use blox_workload::*;
use std::collections::BTreeMap;

#[test]
fn nearest_rank_percentiles() {
    let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
    assert_eq!(percentile(&v, 50.0), Some(5.0));
    assert_eq!(percentile(&v, 90.0), Some(9.0));
    assert_eq!(percentile(&v, 95.0), Some(10.0));
    assert_eq!(percentile(&v, 0.0), Some(1.0));
    assert_eq!(percentile(&v, 100.0), Some(10.0));
    assert_eq!(percentile(&v, 101.0), None);
    assert_eq!(percentile(&[], 50.0), None);
    assert_eq!(percentile(&[7.0], 1.0), Some(7.0));
}

#[test]
fn hand_computed_stats() {
    let jobs = [
        JobSpec::new(Time::from_secs(0), 1, 100.0),
        JobSpec::new(Time::from_secs(50), 2, 300.0),
        JobSpec::new(Time::from_secs(100), 1, 200.0),
    ];
    let s = TraceStats::compute(&jobs, Some(4));
    assert_eq!(s.jobs, 3);
    assert_eq!(s.span_s, 100.0);
    assert_eq!(s.gpu_histogram, BTreeMap::from([(1, 2), (2, 1)]));
    let d = s.duration.clone().unwrap();
    assert_eq!((d.min, d.p50, d.max, d.mean), (100.0, 200.0, 300.0, 200.0));
    // (100 + 600 + 200) GPU-s over 100 s.
    assert_eq!(s.gpu_seconds, 900.0);
    assert_eq!(s.offered_load_gpus, Some(9.0));
    assert_eq!(s.offered_load_fraction, Some(2.25));
    let text = s.to_string();
    assert!(text.contains("GPUs per job (gpus:jobs): 1:2 2:1"), "{text}");
    let empty = TraceStats::compute(&[], None);
    assert_eq!(empty.jobs, 0);
    assert_eq!(empty.offered_load_gpus, None);
    assert!(empty.to_string().contains("n/a"));
}
