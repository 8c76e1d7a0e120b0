//! Pollux (OSDI'21) artifact CSVs. The layout is detected from the header.
//!
//! ## `traces/philly.csv[.gz]`: Philly-derived job list (82,247 rows)
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `timestamp` | `YYYY-MM-DD HH:MM:SS`, no zone | submission (wall clock; rows **unsorted**) → `arrival` = timestamp − time origin (the earliest timestamp, or [`ReadOptions::time_origin`]) |
//! | `duration` | float s | run time → `work_s` |
//! | `num_gpus` | GPUs | → `n_gpus` |
//! | `gpu_time` | GPU-s | `duration × num_gpus`; not kept |
//! | `cluster` | text | Philly virtual-cluster hash → `tenant` |
//!
//! The file ends with an extra empty line, which is skipped. Pollux's own generator drops jobs
//! under 60 s; this reader keeps every row (filter later if you want Pollux's sample). Rows with
//! zero GPUs or zero duration would be filtered and counted; the file has none.
//!
//! ## `workloads*/workload-N.csv`: the 160-job simulator workloads
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `name` | text | `<application>-<index>` → `source_id` |
//! | `time` | int s | arrival from workload start → `arrival` |
//! | `application` | text | `cifar10, ncf, deepspeech2, bert, yolov3, imagenet` → `model` |
//! | `num_replicas` | GPUs | GPUs asked for → `n_gpus` |
//! | `batch_size` | samples | global batch size; not kept |
//!
//! These files give **no duration**: a Pollux job runs until its application's validation
//! metric converges. The reader sets `work_s = G / num_replicas`, where `G` is the application's
//! reference GPU-time to convergence from [`POLLUX_REFERENCE_GPU_SECONDS`] (ideal linear
//! scaling: the GPU-time is kept whatever the GPU count), and marks the job `elastic` (Pollux
//! adapts GPU counts). An unknown application is a malformed line.

use super::csvutil::Table;
use super::{
    apply_wall_clock, parse_datetime, secs_to_time, Collector, ReadOptions, Row, TraceRead,
};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

/// Reference GPU-seconds to convergence per Pollux application, derived from the shipped
/// measurements in `pollux/traces/<app>/`: the `iteration` of the last epoch in the
/// `validation-<B>.csv` with the smallest batch size `B`, times the `step_time` of the 1-GPU
/// placement (`placement = 1`) whose `local_bsz` is closest to `B`. They fall in the GPU-time
/// buckets Pollux's `workload.py` uses to pick applications (cifar10, ncf < 1 GPU-h;
/// deepspeech2, bert 1–10; yolov3 10–100; imagenet > 100).
///
/// | app | B | iterations | step time (s) | GPU-s |
/// |---|---:|---:|---:|---:|
/// | bert | 12 | 14,774 | 0.92152 | 13,614 |
/// | cifar10 | 128 | 39,062 | 0.10385 | 4,057 |
/// | deepspeech2 | 20 | 28,536 | 0.68120 | 19,439 |
/// | imagenet | 200 | 576,525 | 0.92353 | 532,439 |
/// | ncf | 256 | 194,174 | 0.0074378 | 1,444 |
/// | yolov3 | 8 | 103,444 | 0.32615 | 33,738 |
pub const POLLUX_REFERENCE_GPU_SECONDS: [(&str, f64); 6] = [
    ("bert", 13_614.0),
    ("cifar10", 4_057.0),
    ("deepspeech2", 19_439.0),
    ("imagenet", 532_439.0),
    ("ncf", 1_444.0),
    ("yolov3", 33_738.0),
];

/// The reference GPU-seconds of a Pollux application (see [`POLLUX_REFERENCE_GPU_SECONDS`]).
pub fn pollux_reference_gpu_seconds(application: &str) -> Option<f64> {
    POLLUX_REFERENCE_GPU_SECONDS
        .iter()
        .find(|(a, _)| *a == application)
        .map(|(_, g)| *g)
}

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    if t.col("timestamp").is_some() {
        parse_philly_csv(t, origin, opts)
    } else {
        parse_workload(t, origin, opts)
    }
}

fn parse_philly_csv(
    t: Table<'_>,
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    const NEED: &str = "Pollux's philly.csv needs timestamp,duration,num_gpus";
    let ts = t.require("timestamp", NEED)?;
    let dur = t.require("duration", NEED)?;
    let gpus = t.require("num_gpus", NEED)?;
    let cluster = t.col("cluster");
    let mut sink = Collector::new(opts);
    let mut stamps = Vec::new();
    t.for_each(&mut sink, |f| {
        let raw = f.str(ts, "timestamp")?;
        let stamp = parse_datetime(raw).ok_or_else(|| {
            f.err(
                "timestamp",
                format!("`{raw}` is not a `YYYY-MM-DD HH:MM:SS` time"),
            )
        })?;
        let d = f.secs(dur, "duration")?;
        let n = f.count(gpus, "num_gpus")?;
        if n == 0 {
            return Ok(Row::Filtered("zero GPUs"));
        }
        if d == 0.0 {
            return Ok(Row::Filtered("zero duration"));
        }
        let mut j = JobSpec::new(blox_core::Time::ZERO, n, d);
        j.tenant = f.opt(cluster).map(Arc::from);
        stamps.push((stamp, f.line));
        Ok(Row::Job(Box::new(j)))
    })?;
    apply_wall_clock(&mut sink, &stamps, opts, origin, "timestamp")?;
    Ok(sink.read)
}

fn parse_workload(
    t: Table<'_>,
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    const NEED: &str = "a Pollux workload CSV needs name,time,application,num_replicas \
                        (or, for philly.csv, timestamp,duration,num_gpus)";
    let name = t.require("name", NEED)?;
    let time = t.require("time", NEED)?;
    let app = t.require("application", NEED)?;
    let gpus = t.require("num_replicas", NEED)?;
    let mut sink = Collector::new(opts);
    t.for_each(&mut sink, |f| {
        let source_id = f.str(name, "name")?;
        let arrival = secs_to_time(f.nonneg(time, "time")?, origin, f.line, "time")?;
        let a = f.str(app, "application")?;
        let g = pollux_reference_gpu_seconds(a).ok_or_else(|| {
            f.err(
                "application",
                format!(
                    "unknown application `{a}` (known: bert, cifar10, deepspeech2, imagenet, ncf, yolov3)"
                ),
            )
        })?;
        let n = f.count(gpus, "num_replicas")?;
        if n == 0 {
            return Ok(Row::Filtered("zero GPUs"));
        }
        let mut j = JobSpec::new(arrival, n, g / f64::from(n));
        j.source_id = Some(Arc::from(source_id));
        j.model = Some(Arc::from(a));
        j.elastic = true;
        Ok(Row::Job(Box::new(j)))
    })?;
    Ok(sink.read)
}
