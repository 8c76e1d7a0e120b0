//! Microsoft ITP traces (ElasticFlow, ASPLOS'23): `itp/raw/clusterNN.csv` and
//! `itp/elasticflow/*.csv`. The layout is detected from the header. Files have no trailing
//! newline (accepted).
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `job_id` | UUID | anonymised id, unique over the 10 clusters → `source_id` |
//! | `submission_time` | int s | from the start of trace collection (one clock for all 10 files, so they merge as is) → `arrival` |
//! | `duration` | int s | run time (all ≥ 600 s upstream) → `work_s` |
//! | `num_gpu` | GPUs | 1 – 64 → `n_gpus` |
//! | `model_name` (elasticflow) | text | randomly assigned model → `model` |
//! | `deadline` (elasticflow) | int s | **absolute** deadline on the `submission_time` clock → `deadline` |
//! | `num_iteration`, `batch_size` (elasticflow) | count, samples | generated; not kept |
//!
//! Rows with `num_gpu = 0` or `duration = 0` are filtered and counted (`zero GPUs`, `zero
//! duration`); the shipped files have none.

use super::csvutil::Table;
use super::{secs_to_time, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

const NEED: &str = "an ITP CSV needs job_id,submission_time,duration,num_gpu";

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    let id = t.require("job_id", NEED)?;
    let sub = t.require("submission_time", NEED)?;
    let dur = t.require("duration", NEED)?;
    let gpus = t.require("num_gpu", NEED)?;
    let model = t.col("model_name");
    let deadline = t.col("deadline");
    let mut sink = Collector::new(opts);
    t.for_each(&mut sink, |f| {
        let source_id = f.str(id, "job_id")?;
        let arrival = secs_to_time(
            f.nonneg(sub, "submission_time")?,
            origin,
            f.line,
            "submission_time",
        )?;
        let d = f.secs(dur, "duration")?;
        let n = f.count(gpus, "num_gpu")?;
        let deadline = match deadline {
            Some(c) => Some(secs_to_time(
                f.nonneg(c, "deadline")?,
                origin,
                f.line,
                "deadline",
            )?),
            None => None,
        };
        if n == 0 {
            return Ok(Row::Filtered("zero GPUs"));
        }
        if d == 0.0 {
            return Ok(Row::Filtered("zero duration"));
        }
        let mut j = JobSpec::new(arrival, n, d);
        j.source_id = Some(Arc::from(source_id));
        j.model = f.opt(model).map(Arc::from);
        j.deadline = deadline;
        Ok(Row::Job(Box::new(j)))
    })?;
    Ok(sink.read)
}
