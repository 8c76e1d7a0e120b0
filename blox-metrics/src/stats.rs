//! Plain statistics over samples: nearest-rank percentiles, means, the empirical CDF and Jain's
//! fairness index. Each is a pure function of its input, so callers can test and reuse them.

use serde::Serialize;
use std::io::{self, Write};

/// The nearest-rank percentile of an ascending slice: the value at 1-based rank
/// `⌈p/100 · n⌉`, clamped to `[1, n]`. `0.0` for an empty slice.
///
/// Nearest rank never interpolates: every percentile is one of the samples. With the ten values
/// 1…10, p50 is 5, p95 and p99 are 10, p0 is 1.
///
/// ```
/// assert_eq!(blox_metrics::nearest_rank(&[1.0, 2.0, 3.0, 4.0], 50.0), 2.0);
/// assert_eq!(blox_metrics::nearest_rank(&[1.0, 2.0, 3.0, 4.0], 51.0), 3.0);
/// ```
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The arithmetic mean, summed in slice order; `0.0` for an empty slice.
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Jain's fairness index `(Σx)² / (n · Σx²)`: 1 when every value is equal, `1/n` when one value
/// holds everything. `0.0` for an empty slice or one that is all zeros.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || sum_sq == 0.0 {
        0.0
    } else {
        sum * sum / (xs.len() as f64 * sum_sq)
    }
}

/// The empirical CDF of `values`: one point `(x, F(x))` per distinct value in ascending order,
/// where `F(x)` is the fraction of values `≤ x`. NaNs are dropped; the last point has
/// `F = 1`. Empty input gives no points.
///
/// ```
/// let cdf = blox_metrics::cdf_points(&[3.0, 1.0, 3.0, 2.0]);
/// assert_eq!(cdf, vec![(1.0, 0.25), (2.0, 0.5), (3.0, 1.0)]);
/// ```
pub fn cdf_points(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, &x) in v.iter().enumerate() {
        let f = (i + 1) as f64 / n;
        match out.last_mut() {
            Some(last) if last.0 == x => last.1 = f,
            _ => out.push((x, f)),
        }
    }
    out
}

/// Header of `jct_cdf.csv`.
pub const JCT_CDF_CSV_HEADER: &str = "jct_s,fraction";

/// Write `jct_cdf.csv`: the empirical CDF of `jcts_s` ([`cdf_points`]), one row per distinct
/// JCT: `jct_s` (seconds) and `fraction` (of the jobs with a JCT at most this one, in (0, 1]).
/// Pass [`JobLog::jcts_s`](crate::JobLog::jcts_s).
pub fn write_jct_cdf_csv(out: &mut impl Write, jcts_s: &[f64]) -> io::Result<()> {
    writeln!(out, "{JCT_CDF_CSV_HEADER}")?;
    for (x, f) in cdf_points(jcts_s) {
        writeln!(out, "{x},{f}")?;
    }
    Ok(())
}

/// Count, mean and nearest-rank percentiles of a sample, e.g. the tracked jobs' JCTs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Distribution {
    /// Number of values.
    pub n: u64,
    /// Mean ([`mean`], in the input's order).
    pub mean: f64,
    /// Median ([`nearest_rank`] at 50).
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Distribution {
    /// The distribution of `values` (NaNs dropped). All zeros when empty.
    pub fn of(values: &[f64]) -> Distribution {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        let m = mean(&v);
        v.sort_by(f64::total_cmp);
        Distribution {
            n: v.len() as u64,
            mean: m,
            p50: nearest_rank(&v, 50.0),
            p95: nearest_rank(&v, 95.0),
            p99: nearest_rank(&v, 99.0),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// A quantile of an ascending slice as pandas' `Series.quantile(q)` computes it in pandas 1.x and
/// 2.x (the versions Synergy's simulator runs with: it needs Python ≤ 3.9), with linear
/// interpolation: pandas passes `q × 100` to NumPy's `percentile`, which divides by 100 again
/// (so 0.999 becomes 0.9990000000000001); the virtual index is `(n − 1) · q`, and the two
/// neighbours `a ≤ b` are interpolated as `a + (b − a)·γ` when `γ < 0.5` and
/// `b − (b − a)·(1 − γ)` otherwise (NumPy ≥ 1.22; older NumPy's `a·(1 − γ) + b·γ` gives the same
/// digits on Synergy's default run), each step rounded as in `f64`. pandas 3 calls
/// `np.quantile(q)` directly and can differ in the last digit. `0.0` for an empty slice.
///
/// ```
/// let xs = [1.0, 2.0, 3.0, 4.0];
/// assert_eq!(blox_metrics::pandas_quantile(&xs, 0.5), 2.5);
/// assert_eq!(blox_metrics::pandas_quantile(&xs, 1.0), 4.0);
/// ```
pub fn pandas_quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let q = (q * 100.0) / 100.0;
    let virtual_index = (n - 1) as f64 * q;
    let below = virtual_index.floor().clamp(0.0, (n - 1) as f64);
    let gamma = virtual_index - below;
    let i = below as usize;
    let a = sorted[i];
    let b = sorted[(i + 1).min(n - 1)];
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// Python's `repr(float)` for the values a JCT statistic takes (finite, non-negative, below
/// 10^16): Rust's shortest round-trip digits, with `.0` on whole numbers as Python writes them.
pub fn py_repr(x: f64) -> String {
    let s = format!("{x}");
    if s.contains('.') || s.contains('e') || !x.is_finite() {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
