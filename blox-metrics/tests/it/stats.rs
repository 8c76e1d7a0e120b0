//! Tests of `stats` (the library's `src/stats.rs`) through the public API.

use blox_metrics::*;

#[test]
fn pandas_quantiles_and_python_repr() {
    let series = |n: u64| -> Vec<f64> {
        (0..n)
            .map(|i| ((i * i * 7919 + 13 * i) % 2_000_003 + 300) as f64)
            .collect()
    };
    let mut sorted = series(137);
    sorted.sort_by(f64::total_cmp);
    assert_eq!(pandas_quantile(&sorted, 0.5), 952983.0);
    // The ×100 / 100 round trip of pandas ≤ 2: NumPy's `percentile(v, 99.9)` on 998 zeros,
    // 614194 and 623385 is 614203.1910000008 (`quantile(v, 0.999)`, pandas 3's path, gives
    // 614203.1909999998).
    let mut tail = vec![0.0; 998];
    tail.extend([614194.0, 623385.0]);
    assert_eq!(pandas_quantile(&tail, 0.999), 614203.1910000008);
    assert_eq!(py_repr(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(py_repr(2.0), "2.0");
}

#[test]
fn nearest_rank_percentiles() {
    let xs: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(nearest_rank(&xs, 50.0), 50.0);
    assert_eq!(nearest_rank(&xs, 99.0), 99.0);
    assert_eq!(nearest_rank(&xs, 0.0), 1.0);
    assert_eq!(nearest_rank(&xs, 100.0), 100.0);
    assert_eq!(nearest_rank(&[7.0], 99.0), 7.0);
    assert_eq!(nearest_rank(&[], 50.0), 0.0);
    // Ten values: rank ⌈0.95·10⌉ = 10, ⌈0.5·10⌉ = 5.
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    assert_eq!(nearest_rank(&ten, 95.0), 10.0);
    assert_eq!(nearest_rank(&ten, 50.0), 5.0);
}

#[test]
fn distribution_by_hand() {
    // 20 values 10, 20, …, 200 given out of order: mean 105, p50 rank 10 → 100,
    // p95 rank 19 → 190, p99 rank ⌈19.8⌉ = 20 → 200.
    let xs: Vec<f64> = (1..=20).rev().map(|i| f64::from(i) * 10.0).collect();
    let d = Distribution::of(&xs);
    assert_eq!(d.n, 20);
    assert_eq!(d.mean, 105.0);
    assert_eq!((d.p50, d.p95, d.p99, d.max), (100.0, 190.0, 200.0, 200.0));
    assert_eq!(Distribution::of(&[]), Distribution::default());
    assert_eq!(Distribution::of(&[f64::NAN, 4.0]).n, 1);
}

#[test]
fn jain_by_hand() {
    assert_eq!(jain_index(&[2.0, 2.0, 2.0]), 1.0);
    // One of four holds everything: 1/4.
    assert_eq!(jain_index(&[0.0, 0.0, 0.0, 5.0]), 0.25);
    // (1+3)² / (2·(1+9)) = 16/20.
    assert_eq!(jain_index(&[1.0, 3.0]), 0.8);
    assert_eq!(jain_index(&[]), 0.0);
    assert_eq!(jain_index(&[0.0]), 0.0);
}

#[test]
fn cdf_by_hand() {
    assert_eq!(cdf_points(&[]), vec![]);
    assert_eq!(cdf_points(&[5.0]), vec![(5.0, 1.0)]);
    assert_eq!(
        cdf_points(&[4.0, 1.0, 4.0, 4.0, 2.0]),
        vec![(1.0, 0.2), (2.0, 0.4), (4.0, 1.0)]
    );
    let mut buf = Vec::new();
    write_jct_cdf_csv(&mut buf, &[20.0, 10.0]).unwrap();
    assert_eq!(
        String::from_utf8(buf).unwrap(),
        "jct_s,fraction\n10,0.5\n20,1\n"
    );
}
