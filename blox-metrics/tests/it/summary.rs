//! Tests of `summary` (the library's `src/summary.rs`) through the public API.

use crate::test_support::{log_of, preempt};
use blox_core::*;
use blox_metrics::*;

#[test]
fn summary_by_hand() {
    // (arrival, work, first start, completion), seconds.
    let mut log = log_of(&[
        (0, 100.0, Some(0), Some(100)),    // JCT 100, queue 0, ρ 1
        (10, 100.0, Some(100), Some(300)), // JCT 290, queue 90, ρ 2.9
        (20, 40.0, Some(300), Some(400)),  // JCT 380, queue 280, ρ 9.5
        (30, 10.0, Some(50), None),        // running at the end: queue 20
        (500, 10.0, None, None),           // never started
    ]);
    preempt(&mut log, 1);
    preempt(&mut log, 1);
    preempt(&mut log, 3);
    let s = Summary::compute(&log, None);
    assert_eq!((s.n_tracked, s.n_completed), (5, 3));
    assert_eq!(s.avg_jct_s, (100.0 + 290.0 + 380.0) / 3.0);
    // Three JCTs: p50 is rank 2, p95 and p99 rank 3.
    assert_eq!(
        (s.p50_jct_s, s.p95_jct_s, s.p99_jct_s),
        (290.0, 380.0, 380.0)
    );
    assert_eq!(s.max_jct_s, 380.0);
    // Queueing delays 0, 90, 280, 20: mean 97.5; sorted 0, 20, 90, 280: p50 rank 2.
    assert_eq!(s.avg_queueing_s, 97.5);
    assert_eq!(
        (s.p50_queueing_s, s.p95_queueing_s, s.max_queueing_s),
        (20.0, 280.0, 280.0)
    );
    // Responsiveness equals queueing here (first progress = first start).
    assert_eq!(s.avg_responsiveness_s, 97.5);
    assert_eq!(
        (s.p50_responsiveness_s, s.p99_responsiveness_s),
        (20.0, 280.0)
    );
    assert_eq!(s.preemptions_tracked, 3);
    // First tracked arrival 0, last completion 400.
    assert_eq!(s.makespan_s, 400.0);
    assert_eq!(s.n_rho, 3);
    assert_eq!(s.worst_rho, 9.5);
    assert_eq!(s.avg_rho, (1.0 + 2.9 + 9.5) / 3.0);
    assert_eq!(s.frac_rho_above_1, 2.0 / 3.0);
    let sum: f64 = 1.0 + 2.9 + 9.5;
    let sq: f64 = 1.0 + 2.9 * 2.9 + 9.5 * 9.5;
    assert_eq!(s.jain_rho, sum * sum / (3.0 * sq));

    // Window 1..=2: JCTs 290 and 380, makespan 400 − 10.
    let w = Summary::compute(&log, Some((JobId(1), JobId(2))));
    assert_eq!((w.n_tracked, w.avg_jct_s, w.makespan_s), (2, 335.0, 390.0));
    assert_eq!(w.preemptions_tracked, 2);
}

#[test]
fn empty_log_gives_zeros() {
    let s = Summary::compute(&JobLog::default(), None);
    assert_eq!(
        (
            s.n_tracked,
            s.avg_jct_s,
            s.makespan_s,
            s.worst_rho,
            s.jain_rho
        ),
        (0, 0.0, 0.0, 0.0, 0.0)
    );
}

#[test]
fn custom_isolated_time() {
    let log = log_of(&[(0, 100.0, Some(0), Some(100))]);
    let s = Summary::compute_with(&log, None, |r| Some(r.work_s / 4.0));
    assert_eq!(s.worst_rho, 4.0);
}
