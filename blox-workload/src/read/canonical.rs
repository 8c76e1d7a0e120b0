//! The toolkit's canonical job CSV.
//!
//! | column | unit | meaning |
//! |---|---|---|
//! | `job_id` | text | the job's name in your data (kept as `source_id`) |
//! | `arrival_s` | s | submission time from the start (≥ 0; fractions kept to the ms) |
//! | `n_gpus` | GPUs | GPUs requested (≥ 1) |
//! | `duration_s` | s | run time on `n_gpus` GPUs at full speed (> 0) |
//! | `model` (optional) | text | model name |
//!
//! Columns in any order; others ignored; blank lines skipped; CRLF accepted. Nothing is
//! filtered: a zero GPU count or duration is a malformed line (the format is ours, so such a row
//! is a mistake).

use super::csvutil::Table;
use super::{secs_to_time, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

const NEED: &str = "a canonical job CSV needs job_id,arrival_s,n_gpus,duration_s";

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    let id = t.require("job_id", NEED)?;
    let arr = t.require("arrival_s", NEED)?;
    let gpus = t.require("n_gpus", NEED)?;
    let dur = t.require("duration_s", NEED)?;
    let model = t.col("model");
    let mut sink = Collector::new(opts);
    t.for_each(&mut sink, |f| {
        let source_id = f.str(id, "job_id")?;
        let arrival = secs_to_time(f.nonneg(arr, "arrival_s")?, origin, f.line, "arrival_s")?;
        let n = f.count(gpus, "n_gpus")?;
        if n == 0 {
            return Err(f.err("n_gpus", "`0` is not a whole number of GPUs ≥ 1"));
        }
        let d = f.secs(dur, "duration_s")?;
        if d <= 0.0 {
            return Err(f.err(
                "duration_s",
                format!("`{d}` is not a duration in seconds > 0"),
            ));
        }
        let mut j = JobSpec::new(arrival, n, d);
        j.source_id = Some(Arc::from(source_id));
        j.model = f.opt(model).map(Arc::from);
        Ok(Row::Job(Box::new(j)))
    })?;
    Ok(sink.read)
}
