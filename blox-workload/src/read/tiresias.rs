//! Tiresias (NSDI'19) job CSV, e.g. `tiresias/60_job.csv` (CRLF line ends).
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `job_id` | int | job id → `source_id` |
//! | `num_gpu` | GPUs | GPUs requested → `n_gpus` |
//! | `submit_time` | s | submission time from 0 → `arrival` |
//! | `iterations` | count | training iterations (unused by Tiresias's policies; not kept) |
//! | `model_name` | text | TF-benchmark CNN (`vgg19`, `resnet50`, …) → `model` |
//! | `duration` | s | run time → `work_s` |
//! | `interval` | s | gap to the next submission (redundant with `submit_time`; not kept) |
//!
//! Rows with `num_gpu = 0` or `duration = 0` are filtered and counted (`zero GPUs`, `zero
//! duration`); the shipped file has none.

use super::csvutil::Table;
use super::{secs_to_time, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

const NEED: &str = "a Tiresias job CSV needs job_id,num_gpu,submit_time,duration";

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    let id = t.require("job_id", NEED)?;
    let gpus = t.require("num_gpu", NEED)?;
    let sub = t.require("submit_time", NEED)?;
    let dur = t.require("duration", NEED)?;
    let model = t.col("model_name");
    let mut sink = Collector::new(opts);
    t.for_each(&mut sink, |f| {
        let source_id = f.str(id, "job_id")?;
        let n = f.count(gpus, "num_gpu")?;
        let arrival = secs_to_time(f.nonneg(sub, "submit_time")?, origin, f.line, "submit_time")?;
        let d = f.secs(dur, "duration")?;
        if n == 0 {
            return Ok(Row::Filtered("zero GPUs"));
        }
        if d == 0.0 {
            return Ok(Row::Filtered("zero duration"));
        }
        let mut j = JobSpec::new(arrival, n, d);
        j.source_id = Some(Arc::from(source_id));
        j.model = f.opt(model).map(Arc::from);
        Ok(Row::Job(Box::new(j)))
    })?;
    Ok(sink.read)
}
