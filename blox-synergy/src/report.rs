//! Synergy's own report: the tracked jobs' JCTs the way its simulator prints them.

use blox_metrics::{mean, pandas_quantile, py_repr};
use serde::Serialize;

/// Job completion times as Synergy's simulator prints them (`metrics/stats.py`,
/// `DataSeriesCollection.plot_cdf`): the mean, 99th and 99.9th percentile in hours, from a
/// pandas series of JCTs in seconds (`series.mean() / 3600`, `series.quantile(q) / 3600`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SynergyJct {
    /// Mean JCT, hours.
    pub mean_h: f64,
    /// 99th percentile (pandas' linear interpolation), hours.
    pub p99_h: f64,
    /// 99.9th percentile, hours.
    pub p999_h: f64,
}

impl SynergyJct {
    /// From JCTs in seconds, in any order. The mean sums in the given order (exact for whole
    /// seconds, as Synergy's are).
    pub fn of(jcts_s: &[f64]) -> SynergyJct {
        let mut sorted = jcts_s.to_vec();
        sorted.sort_by(f64::total_cmp);
        SynergyJct {
            mean_h: mean(jcts_s) / 3600.0,
            p99_h: pandas_quantile(&sorted, 0.99) / 3600.0,
            p999_h: pandas_quantile(&sorted, 0.999) / 3600.0,
        }
    }

    /// The three lines Synergy prints, `Mean =  X`, `99th =  Y`, `99.9th =  Z`, each number
    /// written as Python's `repr` of a float (the shortest text that reads back exactly).
    pub fn synergy_lines(&self) -> String {
        format!(
            "Mean =  {}\n99th =  {}\n99.9th =  {}\n",
            py_repr(self.mean_h),
            py_repr(self.p99_h),
            py_repr(self.p999_h)
        )
    }
}
