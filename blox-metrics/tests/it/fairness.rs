//! Tests of `fairness` (the library's `src/fairness.rs`) through the public API.

use crate::test_support::{log_ms, log_of};
use blox_core::*;
use blox_metrics::*;

#[test]
fn rho_by_hand() {
    // (arrival, work, first start, completion) in seconds.
    // Job 0: alone, 100 s of work done in 100 s: ρ = 1.
    // Job 1: 100 s of work, waited 100 s: JCT 200, ρ = 2.
    // Job 2: 50 s of work, JCT 200: ρ = 4.
    // Job 3: never completes: no ρ.
    let log = log_of(&[
        (0, 100.0, Some(0), Some(100)),
        (0, 100.0, Some(100), Some(200)),
        (50, 50.0, Some(200), Some(250)),
        (60, 10.0, None, None),
    ]);
    let f = Fairness::by_work(&log, None);
    let rhos: Vec<f64> = f.jobs().iter().map(|j| j.rho).collect();
    assert_eq!(rhos, vec![1.0, 2.0, 4.0]);
    let s = f.stats();
    assert_eq!(s.n, 3);
    assert_eq!(s.worst_rho, 4.0);
    assert_eq!(s.mean_rho, 7.0 / 3.0);
    assert_eq!(s.frac_rho_above_1, 2.0 / 3.0);
    // (1+2+4)² / (3·(1+4+16)) = 49/63.
    assert_eq!(s.jain_rho, 49.0 / 63.0);

    // The window keeps jobs 1..2 only.
    let s = Fairness::by_work(&log, Some((JobId(1), JobId(2)))).stats();
    assert_eq!((s.n, s.worst_rho, s.frac_rho_above_1), (2, 4.0, 1.0));

    let mut buf = Vec::new();
    write_fairness_csv(&mut buf, &f).unwrap();
    assert_eq!(
        String::from_utf8(buf).unwrap(),
        "job_id,n_gpus,jct_s,isolated_s,rho\n0,1,100,100,1.0\n1,1,200,100,2.0\n2,1,200,50,4.0\n"
    );
}

#[test]
fn isolated_time_is_rounded_up_to_the_millisecond() {
    // 100.0004 s of work finishes at 100.001 s in `exact` semantics: ρ is exactly 1.
    let log = log_ms(&[(0, 100.0004, Some(0), Some(100_001))]);
    let s = Fairness::by_work(&log, None).stats();
    assert_eq!((s.worst_rho, s.frac_rho_above_1), (1.0, 0.0));
}

#[test]
fn a_custom_isolated_model_and_unknown_times() {
    let log = log_of(&[(0, 100.0, Some(0), Some(100)), (0, 0.0, Some(0), Some(100))]);
    // Twice as fast alone as its work says (e.g. a better placement): ρ = 2. The job with
    // no work has no ρ.
    let f = Fairness::compute(&log, None, |r| Some(r.work_s / 2.0));
    assert_eq!(f.jobs().len(), 1);
    assert_eq!(f.stats().worst_rho, 2.0);
    assert_eq!(
        Fairness::compute(&log, None, |_| None).stats(),
        FairnessStats::default()
    );
}
