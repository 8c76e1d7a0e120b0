//! Tests of `compare` (the library's `src/compare.rs`) through the public API.

use crate::test_support::log_of;
use blox_core::{Event, MetricSink, RoundSample, Time};
use blox_metrics::*;

fn rows() -> Vec<ComparisonRow> {
    let log = log_of(&[
        (0, 3600.0, Some(0), Some(3600)),
        (0, 3600.0, Some(3600), Some(7200)),
    ]);
    let mut tl = Timeline::default();
    for (t, free) in [(0, 1), (3600, 1), (7200, 2)] {
        tl.on_event(&Event::Round(RoundSample::new(
            Time::from_secs(t),
            0,
            1,
            0,
            free,
            2,
            0,
        )));
    }
    let m = RunMetrics::compute("fifo", &log, &tl, None, 2);
    assert_eq!(m.jcts_s, vec![3600.0, 7200.0]);
    assert_eq!(m.fairness.jobs().len(), 2);
    let mut b = m.row();
    b.label = "las, \"tuned\"".into();
    b.preemptions = 12;
    vec![m.row(), b]
}

#[test]
fn rows_by_hand() {
    let r = &rows()[0];
    assert_eq!((r.n_tracked, r.n_completed), (2, 2));
    assert_eq!(
        (r.avg_jct_s, r.p50_jct_s, r.p99_jct_s),
        (5400.0, 3600.0, 7200.0)
    );
    assert_eq!(r.makespan_s, 7200.0);
    // One of two GPUs busy from 0 to 7200 s.
    assert_eq!(r.utilisation, 0.5);
    assert_eq!(r.worst_rho, 2.0);
}

#[test]
fn csv_json_and_table() {
    let rows = rows();
    let mut csv = Vec::new();
    write_comparison_csv(&mut csv, &rows).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        format!(
            "{COMPARISON_CSV_HEADER}\nfifo,2,2,5400,3600,7200,7200,0.5,2,0\n\"las, \"\"tuned\"\"\",2,2,5400,3600,7200,7200,0.5,2,12\n"
        )
    );
    let mut json = Vec::new();
    write_comparison_json(&mut json, &rows).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v[1]["label"], "las, \"tuned\"");
    assert_eq!(v[0]["utilisation"], 0.5);
    assert_eq!(v[1]["preemptions"], 12);
    assert_eq!(v.as_array().unwrap().len(), 2);

    let t = comparison_table(&rows);
    let expected = "\
policy        tracked  avg JCT (h)  p50 JCT (h)  p99 JCT (h)  makespan (h)  util (%)  worst ρ  preemptions
────────────  ───────  ───────────  ───────────  ───────────  ────────────  ────────  ───────  ───────────
fifo                2         1.50         1.00         2.00           2.0      50.0     2.00            0
las, \"tuned\"        2         1.50         1.00         2.00           2.0      50.0     2.00           12
";
    assert_eq!(t, expected);
    assert_eq!(comparison_table(&[]).lines().count(), 2);
}

/// What a run did not measure (NaN) is an empty cell, `null` and `—`, never a 0.
#[test]
fn unmeasured_values_are_not_zeros() {
    let mut r = rows().remove(0);
    r.utilisation = f64::NAN;
    r.worst_rho = f64::NAN;
    let mut csv = Vec::new();
    write_comparison_csv(&mut csv, std::slice::from_ref(&r)).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.ends_with("\nfifo,2,2,5400,3600,7200,7200,,,0\n"),
        "{text}"
    );
    let mut json = Vec::new();
    write_comparison_json(&mut json, std::slice::from_ref(&r)).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert!(v[0]["utilisation"].is_null() && v[0]["worst_rho"].is_null());
    let t = comparison_table(&[r]);
    let last = t.lines().last().unwrap();
    assert!(
        last.ends_with("2.0         —        —            0"),
        "{last}"
    );
}
