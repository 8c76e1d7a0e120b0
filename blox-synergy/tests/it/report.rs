//! Tests of `report` (the library's `src/report.rs`) through the public API.

use blox_synergy::*;

#[test]
fn synergy_jct_matches_pandas() {
    // Expected values printed by pandas 3.1.1 / NumPy 2.4.6 for
    // `pd.Series(xs).mean() / 3600` and `.quantile(q) / 3600` over these integer series.
    let series = |n: u64| -> Vec<f64> {
        (0..n)
            .map(|i| ((i * i * 7919 + 13 * i) % 2_000_003 + 300) as f64)
            .collect()
    };
    let s = SynergyJct::of(&series(1000));
    assert_eq!(
        (s.mean_h, s.p99_h, s.p999_h),
        (278.1466486111111, 549.5542694444445, 554.2770916666667)
    );
    let s = SynergyJct::of(&series(137));
    assert_eq!(
        (s.mean_h, s.p99_h, s.p999_h),
        (270.74635442011356, 547.8751111111111, 550.3544711111111)
    );
    assert_eq!(
        SynergyJct::of(&[7200.0]).synergy_lines(),
        "Mean =  2.0\n99th =  2.0\n99.9th =  2.0\n"
    );
}
