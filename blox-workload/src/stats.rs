//! Summary statistics of a job list: what `blox-sim trace stats` prints.

use blox_core::{JobSpec, Time};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Nearest-rank percentile of ascending `sorted` values: the smallest value such that at least
/// `p` % of the values are ≤ it, i.e. `sorted[⌈p/100 · n⌉ − 1]` (index clamped to `0..n`).
/// `p = 0` gives the minimum, `p = 100` the maximum. `None` for an empty slice or a `p` outside
/// `0..=100`.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Duration (`work_s`) distribution, in seconds. Percentiles are nearest-rank ([`percentile`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DurationSummary {
    /// Shortest.
    pub min: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Longest.
    pub max: f64,
}

/// Summary of a job list.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TraceStats {
    /// Number of jobs.
    pub jobs: usize,
    /// Earliest arrival.
    pub first_arrival: Option<Time>,
    /// Latest arrival.
    pub last_arrival: Option<Time>,
    /// Arrival span in seconds: latest − earliest arrival (0 for fewer than two distinct times).
    pub span_s: f64,
    /// Jobs per requested GPU count.
    pub gpu_histogram: BTreeMap<u32, u64>,
    /// Duration distribution (`None` without jobs).
    pub duration: Option<DurationSummary>,
    /// Σ `n_gpus × work_s` over all jobs, GPU-seconds.
    pub gpu_seconds: f64,
    /// Offered load in GPUs: `gpu_seconds / span_s`, the average number of GPUs the jobs would
    /// keep busy if each ran at full speed during the arrival span (`None` when the span is 0).
    pub offered_load_gpus: Option<f64>,
    /// The cluster size given to [`TraceStats::compute`], if any.
    pub total_gpus: Option<u32>,
    /// `offered_load_gpus / total_gpus` (above 1 means overload).
    pub offered_load_fraction: Option<f64>,
}

impl TraceStats {
    /// Computes the statistics of `jobs` (in any order). `total_gpus`, if given, adds the
    /// offered load as a fraction of that cluster.
    pub fn compute(jobs: &[JobSpec], total_gpus: Option<u32>) -> Self {
        let first_arrival = jobs.iter().map(|j| j.arrival).min();
        let last_arrival = jobs.iter().map(|j| j.arrival).max();
        let span_s = match (first_arrival, last_arrival) {
            (Some(a), Some(b)) => b.saturating_sub(a).as_secs_f64(),
            _ => 0.0,
        };
        let mut gpu_histogram = BTreeMap::new();
        for j in jobs {
            *gpu_histogram.entry(j.n_gpus).or_insert(0u64) += 1;
        }
        let mut d: Vec<f64> = jobs.iter().map(|j| j.work_s).collect();
        d.sort_by(f64::total_cmp);
        let duration = (!d.is_empty()).then(|| {
            let pick = |p| percentile(&d, p).unwrap_or(f64::NAN);
            DurationSummary {
                min: d[0],
                mean: d.iter().sum::<f64>() / d.len() as f64,
                p50: pick(50.0),
                p90: pick(90.0),
                p95: pick(95.0),
                p99: pick(99.0),
                max: d[d.len() - 1],
            }
        });
        let gpu_seconds: f64 = jobs.iter().map(|j| f64::from(j.n_gpus) * j.work_s).sum();
        let offered_load_gpus = (span_s > 0.0).then(|| gpu_seconds / span_s);
        let offered_load_fraction = match (offered_load_gpus, total_gpus) {
            (Some(l), Some(g)) if g > 0 => Some(l / f64::from(g)),
            _ => None,
        };
        TraceStats {
            jobs: jobs.len(),
            first_arrival,
            last_arrival,
            span_s,
            gpu_histogram,
            duration,
            gpu_seconds,
            offered_load_gpus,
            total_gpus,
            offered_load_fraction,
        }
    }
}

impl fmt::Display for TraceStats {
    /// A plain-text report, one quantity per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "jobs: {}", self.jobs)?;
        if let (Some(a), Some(b)) = (self.first_arrival, self.last_arrival) {
            writeln!(
                f,
                "arrivals: {:.3} s .. {:.3} s (span {:.3} s = {:.2} h)",
                a.as_secs_f64(),
                b.as_secs_f64(),
                self.span_s,
                self.span_s / 3600.0
            )?;
        }
        let hist: Vec<String> = self
            .gpu_histogram
            .iter()
            .map(|(g, n)| format!("{g}:{n}"))
            .collect();
        writeln!(f, "GPUs per job (gpus:jobs): {}", hist.join(" "))?;
        if let Some(d) = &self.duration {
            writeln!(
                f,
                "duration s (nearest rank): min {:.1} p50 {:.1} p90 {:.1} p95 {:.1} p99 {:.1} max {:.1} mean {:.1}",
                d.min, d.p50, d.p90, d.p95, d.p99, d.max, d.mean
            )?;
        }
        writeln!(f, "GPU-hours: {:.1}", self.gpu_seconds / 3600.0)?;
        match self.offered_load_gpus {
            Some(l) => write!(f, "offered load: {l:.2} GPUs")?,
            None => write!(f, "offered load: n/a (zero arrival span)")?,
        }
        if let (Some(x), Some(g)) = (self.offered_load_fraction, self.total_gpus) {
            write!(f, " ({:.1}% of {g} GPUs)", x * 100.0)?;
        }
        writeln!(f)
    }
}
