//! SenseTime Helios (SC'21) job logs: `cluster_log.csv` of HeliosData (clusters Venus, Earth,
//! Saturn, Uranus, and Philly in the same layout).
//!
//! **Not tested on the real file**: the raw logs are not in the repository's `traces/` (see its
//! README, "Not obtained"). The reader follows the published HeliosData schema and is tested on
//! hand-written samples. Columns are found by name, so extra or reordered columns are fine.
//!
//! | column | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `job_id` | text | anonymised job id → `source_id` |
//! | `user` (optional) | text | anonymised user → `tenant` |
//! | `vc` (optional) | text | virtual cluster; not kept |
//! | `gpu_num` | GPUs | GPUs requested → `n_gpus` |
//! | `cpu_num` (optional) | cores | CPU cores → `cpus` |
//! | `node_num`, `state`, `start_time`, `end_time`, `queue` (optional) | | not kept (all final states are replayed: a cancelled or failed job also held its GPUs) |
//! | `submit_time` | `YYYY-MM-DD HH:MM:SS` (or seconds) | → `arrival` = time − time origin (the earliest in the file, or [`ReadOptions::time_origin`]) |
//! | `duration` | s | run time → `work_s` |
//!
//! Filtered and counted: `CPU-only job` (`gpu_num = 0`; most Helios jobs are CPU jobs) and
//! `zero duration`.

use super::csvutil::{parse_nonneg, Table};
use super::{apply_wall_clock, parse_datetime, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::JobSpec;
use std::path::Path;
use std::sync::Arc;

const NEED: &str = "a Helios cluster_log.csv needs job_id,gpu_num,submit_time,duration";

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let t = Table::new(bytes, origin)?;
    let id = t.require("job_id", NEED)?;
    let gpus = t.require("gpu_num", NEED)?;
    let sub = t.require("submit_time", NEED)?;
    let dur = t.require("duration", NEED)?;
    let user = t.col("user");
    let cpus = t.col("cpu_num");
    let mut sink = Collector::new(opts);
    let mut stamps = Vec::new();
    t.for_each(&mut sink, |f| {
        let source_id = f.str(id, "job_id")?;
        let n = f.count(gpus, "gpu_num")?;
        let raw = f.str(sub, "submit_time")?;
        let stamp = parse_datetime(raw)
            .or_else(|| {
                parse_nonneg(raw)
                    .filter(|s| *s < 9.0e15)
                    .map(|s| s.floor() as i64)
            })
            .ok_or_else(|| {
                f.err(
                    "submit_time",
                    format!("`{raw}` is not a `YYYY-MM-DD HH:MM:SS` time or seconds ≥ 0"),
                )
            })?;
        let d = f.secs(dur, "duration")?;
        let c = match cpus {
            Some(c) if f.opt(Some(c)).is_some() => Some(f.nonneg(c, "cpu_num")?),
            _ => None,
        };
        if n == 0 {
            return Ok(Row::Filtered("CPU-only job"));
        }
        if d == 0.0 {
            return Ok(Row::Filtered("zero duration"));
        }
        let mut j = JobSpec::new(blox_core::Time::ZERO, n, d);
        j.source_id = Some(Arc::from(source_id));
        j.tenant = f.opt(user).map(Arc::from);
        j.cpus = c;
        stamps.push((stamp, f.line));
        Ok(Row::Job(Box::new(j)))
    })?;
    apply_wall_clock(&mut sink, &stamps, opts, origin, "submit_time")?;
    Ok(sink.read)
}
