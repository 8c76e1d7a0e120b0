//! # blox-metrics
//!
//! Metric sinks that observe a run's [`Event`](blox_core::Event)s, the statistics computed from
//! them, and the writers of the standard output files.
//!
//! | component | what it records | cost per event |
//! |---|---|---|
//! | [`JobLog`] | one [`JobRecord`] per arrived job: arrival, id, first start, first progress, completion, preemptions | O(1) |
//! | [`Timeline`] | one [`RoundSample`](blox_core::RoundSample) per round | O(1) |
//! | [`Summary`] | JCT mean and percentiles, responsiveness, preemptions, makespan over the tracked jobs | O(n log n) once |
//!
//! Writers: [`write_jobs_csv`], [`write_timeline_csv`], and [`Summary`] serialises to JSON.
//!
//! ```
//! use blox_core::{Event, JobId, JobSpec, MetricSink, Time};
//! use blox_metrics::{JobLog, Summary};
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
//! ```

mod log;
mod summary;
mod write;

pub use log::{JobLog, JobRecord, Timeline};
pub use summary::Summary;
pub use write::{write_jobs_csv, write_timeline_csv, JOBS_CSV_HEADER, TIMELINE_CSV_HEADER};
