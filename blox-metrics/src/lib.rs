//! # blox-metrics
//!
//! Metric sinks that observe a run's [`Event`](blox_core::Event)s, the statistics computed from
//! them, and the writers of the output files: CSV, JSON and SVG plots.
//!
//! | component | what it records or computes | cost |
//! |---|---|---|
//! | [`JobLog`] (sink) | one [`JobRecord`] per arrived job: arrival, id, GPUs, work, first start, first progress, completion, preemptions | O(1) per event |
//! | [`ClusterLog`] (sink) | node events, GPU-hours in service, work lost to failures and the jobs they hit ([`ClusterStats`]) | O(1) per event |
//! | [`Timeline`] (sink) | [`RoundSample`](blox_core::RoundSample)s: queue, running, free GPUs, GPU demand, preemptions; a stretch of alike rounds (skipped, [`RoundStretch`](blox_core::RoundStretch), or processed with nothing changing) as one entry | O(1) per round processed or stretch skipped; memory O(changes) |
//! | [`Summary`] | over the tracked jobs: JCT mean/p50/p95/p99/max, responsiveness, queueing delay (mean and percentiles), preemptions, makespan, finish-time fairness ρ (mean, worst, fraction > 1, Jain's index) | O(n log n) once |
//! | [`Fairness`] | per-job ρ = shared JCT ÷ isolated JCT (Themis, NSDI 2020), isolated JCT = `work_s` or a caller's model | O(n) once |
//! | [`TimelineStats`] | time-weighted mean GPU utilisation, busy/free GPUs, queue length, GPU demand; maxima; preemptions (stretches weighed, to the bit as their rounds would be) | O(entries) once |
//! | [`Distribution`], [`cdf_points`], [`nearest_rank`], [`jain_index`] | the plain statistics the above are built from | O(n log n) |
//! | [`RunMetrics`], [`ComparisonRow`] | all of a run's metrics; one run's line in a comparison | O(n log n + rounds) once |
//!
//! Percentiles use the **nearest-rank** rule everywhere: the value at 1-based rank
//! `⌈p/100 · n⌉`, so a percentile is always one of the samples.
//!
//! Writers (every column is documented on the function):
//!
//! | file | function |
//! |---|---|
//! | `jobs.csv` | [`write_jobs_csv`] (format frozen); [`write_jobs_csv_with`] adds `failures` for runs with cluster management |
//! | `timeline.csv` | [`write_timeline_csv`] (format frozen; a stretch of three or more alike rounds is its first and last row); [`write_timeline_csv_with`] adds `available_gpus` for runs with cluster management |
//! | `fairness.csv` | [`write_fairness_csv`] |
//! | `jct_cdf.csv` | [`write_jct_cdf_csv`] |
//! | `compare.csv`, `compare.json` | [`write_comparison_csv`], [`write_comparison_json`]; [`comparison_table`] renders it for a terminal |
//! | `summary.json`, `metrics.json` | [`Summary`], [`TimelineStats`], [`RunMetrics`] implement `Serialize` |
//! | `jct_cdf.svg`, `timeline.svg`, `jct_vs_load.svg` | `plot_jct_cdf`, `plot_timeline` / `plot_timeline_of`, `plot_jct_vs_load` (feature `plots`) |
//!
//! Plots (feature `plots`, on by default; the workspace's crates that do not draw leave it
//! off, so plotters is not compiled for them) use plotters' SVG backend only: no system fonts
//! or C libraries are needed; text is drawn by whatever displays the SVG.
//!
//! ```
//! use blox_core::{Event, JobId, JobSpec, MetricSink, RoundSample, Time};
//! use blox_metrics::{comparison_table, JobLog, RunMetrics, Summary, Timeline};
//!
//! let mut log = JobLog::default();
//! let spec = JobSpec::new(Time::from_secs(1000), 1, 1000.0);
//! log.on_event(&Event::Arrived { time: Time::from_secs(1200), seq: 0, spec: &spec });
//! log.on_event(&Event::Admitted { time: Time::from_secs(1200), seq: 0, job: JobId(0) });
//! log.on_event(&Event::FirstProgress { time: Time::from_secs(1500), job: JobId(0) });
//! log.on_event(&Event::Completed { time: Time::from_secs(2400), job: JobId(0) });
//! let s = Summary::compute(&log, None);
//! assert_eq!(s.avg_jct_s, 1400.0);
//! assert_eq!(s.avg_responsiveness_s, 500.0);
//! assert_eq!(s.worst_rho, 1.4); // 1400 s shared ÷ 1000 s alone
//!
//! // A whole run, on a 4-GPU cluster, then a comparison table and a CDF plot.
//! let mut timeline = Timeline::default();
//! timeline.on_event(&Event::Round(RoundSample::new(Time::from_secs(1200), 0, 1, 0, 3, 1, 0)));
//! timeline.on_event(&Event::Round(RoundSample::new(Time::from_secs(2400), 0, 0, 0, 4, 0, 0)));
//! let run = RunMetrics::compute("fifo", &log, &timeline, None, 4);
//! assert_eq!(run.cluster.mean_utilisation, 0.25);
//! let table = comparison_table(&[run.row()]);
//! assert!(table.starts_with("policy"));
//! #[cfg(feature = "plots")]
//! {
//!     let mut svg = Vec::new();
//!     blox_metrics::plot_jct_cdf(&mut svg, "JCT CDF", &[("fifo", &run.jcts_s)]).unwrap();
//!     assert!(String::from_utf8(svg).unwrap().starts_with("<svg"));
//! }
//! ```

mod cluster;
mod compare;
mod fairness;
mod files;
mod log;
#[cfg(feature = "plots")]
mod plot;
mod series;
mod stats;
mod summary;
mod write;

pub use cluster::{ClusterLog, ClusterStats};
pub use compare::{
    comparison_table, write_comparison_csv, write_comparison_json, ComparisonRow, RunMetrics,
    COMPARISON_CSV_HEADER,
};
pub use fairness::{write_fairness_csv, Fairness, FairnessStats, JobFairness, FAIRNESS_CSV_HEADER};
pub use files::{write_all_or_nothing, FileError};
pub use log::{JobLog, JobRecord, Timeline};
#[cfg(feature = "plots")]
pub use plot::{
    plot_jct_cdf, plot_jct_vs, plot_jct_vs_load, plot_jct_vs_spread, plot_timeline,
    plot_timeline_of, PlotError, SpreadPoint,
};
pub use series::{busy_gpus, utilisation, TimelineStats};
pub use stats::{
    cdf_points, jain_index, mean, nearest_rank, pandas_quantile, py_repr, write_jct_cdf_csv,
    Distribution, JCT_CDF_CSV_HEADER,
};
pub use summary::Summary;
pub use write::{
    write_jobs_csv, write_jobs_csv_with, write_timeline_csv, write_timeline_csv_with,
    JOBS_CSV_HEADER, TIMELINE_CSV_HEADER,
};
