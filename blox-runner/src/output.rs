//! A run's statistics and files from its records: `blox_metrics`' generic functions (over the
//! writer, the label, the isolated-time closure) instantiated here, over the types every run's
//! report uses, so their loops over a run's jobs are optimised.

use blox_core::JobId;
use blox_metrics::{Fairness, JobLog, PlotError, RunMetrics, Timeline};

/// [`RunMetrics::compute`]: the statistics of the jobs in `window` (every job when `None`).
pub fn run_metrics(
    label: String,
    log: &JobLog,
    timeline: &Timeline,
    window: Option<(JobId, JobId)>,
    total_gpus: u32,
) -> RunMetrics {
    RunMetrics::compute(label, log, timeline, window, total_gpus)
}

/// [`RunMetrics::compute_with`] with no isolated times and no timeline (a peer's run, whose
/// records are its jobs' arrivals and completions only).
pub fn run_metrics_of_jobs(label: String, log: &JobLog, total_gpus: u32) -> RunMetrics {
    RunMetrics::compute_with(label, log, &Timeline::default(), None, total_gpus, |_| None)
}

/// The `jobs.csv` text ([`blox_metrics::write_jobs_csv_with`]).
pub fn jobs_csv(log: &JobLog, window: Option<(JobId, JobId)>, failures: bool) -> Vec<u8> {
    let mut buf = Vec::new();
    blox_metrics::write_jobs_csv_with(&mut buf, log, window, failures).expect("writing to memory");
    buf
}

/// The `timeline.csv` text ([`blox_metrics::write_timeline_csv_with`]).
pub fn timeline_csv(timeline: &Timeline, available: Option<u32>) -> Vec<u8> {
    let mut buf = Vec::new();
    blox_metrics::write_timeline_csv_with(&mut buf, timeline, available)
        .expect("writing to memory");
    buf
}

/// The `fairness.csv` text ([`blox_metrics::write_fairness_csv`]).
pub fn fairness_csv(fairness: &Fairness) -> Vec<u8> {
    let mut buf = Vec::new();
    blox_metrics::write_fairness_csv(&mut buf, fairness).expect("writing to memory");
    buf
}

/// The `jct_cdf.csv` text ([`blox_metrics::write_jct_cdf_csv`]).
pub fn jct_cdf_csv(jcts_s: &[f64]) -> Vec<u8> {
    let mut buf = Vec::new();
    blox_metrics::write_jct_cdf_csv(&mut buf, jcts_s).expect("writing to memory");
    buf
}

/// The `timeline.svg` plot ([`blox_metrics::plot_timeline_of`]).
pub fn timeline_svg(
    title: &str,
    timeline: &Timeline,
    total_gpus: u32,
) -> Result<Vec<u8>, PlotError> {
    let mut svg = Vec::new();
    blox_metrics::plot_timeline_of(&mut svg, title, timeline, total_gpus)?;
    Ok(svg)
}
