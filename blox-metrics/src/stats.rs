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
