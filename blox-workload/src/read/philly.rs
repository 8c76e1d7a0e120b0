//! Microsoft Philly `cluster_job_log` (ATC'19 trace, `msr-fiddle/philly-traces`): one JSON
//! array of jobs.
//!
//! | field | type | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|
//! | `jobid` | text | YARN application id → `source_id` |
//! | `vc` | text | virtual-cluster hash; not kept |
//! | `user` | text | anonymised user → `tenant` (Blox's `tenant_id`) |
//! | `status` | text | `Pass`, `Killed`, `Failed`; not used (every final state held GPUs) |
//! | `submitted_time` | `YYYY-MM-DD HH:MM:SS` | → `arrival` = time − time origin (the earliest `submitted_time` of a job with attempts, as Blox; or [`ReadOptions::time_origin`](super::ReadOptions::time_origin)) |
//! | `attempts[]` | array | each `{start_time, end_time, detail: [{ip, gpus: [..]}]}`; times may be `null` or contain `"None"` |
//!
//! An attempt is **valid** when both times are present, `end − start > 0` s and it holds at
//! least one GPU (`Σ len(detail[].gpus)`).
//!
//! Two modes ([`PhillyMode`]):
//! - [`PhillyMode::Trace`] keeps the trace's own numbers: `work_s` = the sum of the valid
//!   attempts' durations (s), `n_gpus` = the largest GPU count of a valid attempt. Filtered and
//!   counted: `no attempts`, `no valid attempt`.
//! - [`PhillyMode::Blox`] applies Blox's `parse_philly_jobs.py` rules (BLOX-SEMANTICS §12): a
//!   job is kept only if its **last** attempt is valid and the summed duration lies strictly
//!   between [`BLOX_PHILLY_MIN_S`] (60·10^1.5 s) and [`BLOX_PHILLY_MAX_S`] (600,000 s); it gets
//!   1 GPU and class `i mod 5` (its index among survivors). Blox then **replaces** each
//!   duration with a synthetic draw (`get_gavel_like_iter`) and never uses the arrivals: what
//!   matters is the survivor count N ([`philly_blox_trace_jobs`]), which blox-sim's Blox
//!   generator takes. Here `work_s` holds the trace's summed duration. Filtered and counted:
//!   `no attempts`, `last attempt invalid`, `outside Blox's duration range`.
//!
//! Errors give the line on which the offending job's JSON object starts. A document that is not
//! a JSON array is an error even with `skip_bad_lines`.

use super::{
    apply_wall_clock, parse_datetime, within_bound, Collector, ReadOptions, Row, TraceRead,
};
use crate::WorkloadError;
use blox_core::JobSpec;
use serde_json::value::RawValue;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Blox's lower bound on a job's summed attempt duration, exclusive: `60 · 10^1.5` s.
pub const BLOX_PHILLY_MIN_S: f64 = 1_897.366_596_101_027_7;
/// Blox's upper bound on a job's summed attempt duration, exclusive: 600,000 s.
pub const BLOX_PHILLY_MAX_S: f64 = 600_000.0;

/// How the Philly reader turns jobs into [`JobSpec`]s (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PhillyMode {
    /// The trace's own arrivals, summed attempt durations and GPU counts.
    #[default]
    Trace,
    /// Blox's parse and filter (1 GPU, class `i mod 5`, summed durations in Blox's range).
    Blox,
    /// Blox's parse and filter with `multigpu=True` (BLOX-SEMANTICS, appendix): as
    /// [`PhillyMode::Blox`], but each kept job has the GPU count of its **last** attempt.
    BloxMultiGpu,
}

/// The GPU counts of the jobs a Philly `cluster_job_log` keeps under Blox's filter with
/// `multigpu=True` ([`PhillyMode::BloxMultiGpu`]), in file order: what Blox's
/// `blox-multigpu-trace` workload cycles through.
pub fn philly_blox_gpu_counts(path: &Path) -> Result<Vec<u32>, WorkloadError> {
    let opts = ReadOptions::default().with_philly_mode(PhillyMode::BloxMultiGpu);
    Ok(super::read_trace(path, super::TraceFormat::Philly, &opts)?
        .jobs
        .iter()
        .map(|j| j.n_gpus)
        .collect())
}

/// Blox's N for a Philly `cluster_job_log`: the number of jobs that survive Blox's parse and
/// filter ([`PhillyMode::Blox`]). Pass it to blox-sim's Blox generator (`--blox-trace-jobs`).
pub fn philly_blox_trace_jobs(path: &Path) -> Result<usize, WorkloadError> {
    let opts = ReadOptions::default().with_philly_mode(PhillyMode::Blox);
    Ok(super::read_trace(path, super::TraceFormat::Philly, &opts)?
        .jobs
        .len())
}

struct Attempt {
    start: Option<i64>,
    end: Option<i64>,
    gpus: u64,
}

impl Attempt {
    /// Duration in s and GPUs, if valid.
    fn valid(&self) -> Option<(i64, u64)> {
        let d = self.end?.checked_sub(self.start?)?;
        (d > 0 && self.gpus > 0).then_some((d, self.gpus))
    }
}

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u64
            + 1;
        WorkloadError::input(origin, Some(line), None, format!("not UTF-8: {e}"))
    })?;
    let items: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| {
        WorkloadError::input(
            origin,
            Some(e.line() as u64),
            None,
            format!("not a Philly cluster_job_log (a JSON array of jobs): {e}"),
        )
    })?;
    let mut sink = Collector::new(opts);
    // First pass: parse every job, find Blox's t0 over jobs with attempts.
    let mut parsed = Vec::with_capacity(items.len());
    let (mut line, mut pos) = (1u64, 0usize);
    for item in items {
        let off = (item.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let off = off.min(text.len());
        if off > pos {
            line += text.as_bytes()[pos..off]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            pos = off;
        }
        match job(item.get()) {
            Ok(j) => parsed.push((line, j)),
            Err((field, msg)) => sink.bad(WorkloadError::input(origin, Some(line), field, msg))?,
        }
    }
    let t0 = opts.time_origin.or_else(|| {
        parsed
            .iter()
            .filter_map(|(_, j)| j.as_ref().map(|j| j.submitted))
            .min()
    });
    let mut stamps = Vec::new();
    let mut survivors = 0u32;
    for (line, j) in parsed {
        let Some(j) = j else {
            sink.take(Ok(Row::Filtered("no attempts")))?;
            continue;
        };
        // Trace mode keeps the summed duration as the job's work, so it must be one the engine
        // can replay; Blox's mode filters by its own (much smaller) range below.
        let total: i64 = j
            .attempts
            .iter()
            .filter_map(Attempt::valid)
            .fold(0i64, |a, v| a.saturating_add(v.0));
        let bound = match opts.philly_mode {
            PhillyMode::Trace => within_bound(total as f64).map(drop),
            PhillyMode::Blox | PhillyMode::BloxMultiGpu => Ok(()),
        };
        if let Err(m) = bound {
            sink.take(Err(WorkloadError::at(
                origin,
                line,
                "attempts",
                format!("the attempts' summed duration {m}"),
            )))?;
            continue;
        }
        let row = match opts.philly_mode {
            PhillyMode::Trace => {
                let valid: Vec<(i64, u64)> = j.attempts.iter().filter_map(Attempt::valid).collect();
                if valid.is_empty() {
                    Row::Filtered("no valid attempt")
                } else {
                    let sum: i64 = valid.iter().fold(0i64, |a, v| a.saturating_add(v.0));
                    let gpus = valid.iter().map(|v| v.1).max().unwrap_or(1);
                    let n = u32::try_from(gpus).unwrap_or(u32::MAX);
                    Row::Job(Box::new(spec(&j, n, sum as f64)))
                }
            }
            PhillyMode::Blox | PhillyMode::BloxMultiGpu => {
                let last = j.attempts.last().and_then(Attempt::valid);
                let last_valid = last.is_some();
                let sum: i64 = j
                    .attempts
                    .iter()
                    .filter_map(Attempt::valid)
                    .fold(0i64, |a, v| a.saturating_add(v.0));
                let sum = sum as f64;
                if !last_valid {
                    Row::Filtered("last attempt invalid")
                } else if sum <= BLOX_PHILLY_MIN_S || sum >= BLOX_PHILLY_MAX_S {
                    Row::Filtered("outside Blox's duration range")
                } else {
                    let gpus = match (opts.philly_mode, last) {
                        (PhillyMode::BloxMultiGpu, Some((_, g))) => {
                            u32::try_from(g).unwrap_or(u32::MAX)
                        }
                        _ => 1,
                    };
                    let mut s = spec(&j, gpus, sum);
                    s.class_id = survivors % 5;
                    survivors = survivors.wrapping_add(1);
                    Row::Job(Box::new(s))
                }
            }
        };
        if matches!(row, Row::Job(_)) {
            stamps.push((j.submitted, line));
        }
        sink.take(Ok(row))?;
    }
    let clock = opts.clone().with_time_origin(t0);
    apply_wall_clock(&mut sink, &stamps, &clock, origin, "submitted_time")?;
    Ok(sink.read)
}

struct PhillyJob {
    jobid: Option<String>,
    user: Option<String>,
    submitted: i64,
    attempts: Vec<Attempt>,
}

fn spec(j: &PhillyJob, n_gpus: u32, work_s: f64) -> JobSpec {
    let mut s = JobSpec::new(blox_core::Time::ZERO, n_gpus, work_s);
    s.source_id = j.jobid.as_deref().map(Arc::from);
    s.tenant = j.user.as_deref().map(Arc::from);
    s
}

type JobErr = (Option<&'static str>, String);

/// One job; `Ok(None)` for a job without attempts (dropped before anything else, as Blox does).
fn job(raw: &str) -> Result<Option<PhillyJob>, JobErr> {
    let v: Value = serde_json::from_str(raw).map_err(|e| (None, e.to_string()))?;
    let obj = v
        .as_object()
        .ok_or_else(|| (None, "a job must be a JSON object".to_owned()))?;
    let attempts = match obj.get("attempts") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) if a.is_empty() => return Ok(None),
        Some(Value::Array(a)) => a,
        Some(_) => return Err((Some("attempts"), "must be an array".to_owned())),
    };
    let text = |k: &'static str| -> Result<Option<String>, JobErr> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Ok(Some(other.to_string())),
        }
    };
    let submitted = match obj.get("submitted_time") {
        Some(Value::String(s)) => parse_datetime(s).ok_or_else(|| {
            (
                Some("submitted_time"),
                format!("`{s}` is not a `YYYY-MM-DD HH:MM:SS` time"),
            )
        })?,
        _ => {
            return Err((
                Some("submitted_time"),
                "missing or not a time string".to_owned(),
            ))
        }
    };
    let mut out = Vec::with_capacity(attempts.len());
    for a in attempts {
        let a = a.as_object().ok_or_else(|| {
            (
                Some("attempts"),
                "an attempt must be a JSON object".to_owned(),
            )
        })?;
        let time = |k: &'static str| -> Result<Option<i64>, JobErr> {
            match a.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.contains("None") => Ok(None),
                Some(Value::String(s)) => parse_datetime(s).map(Some).ok_or_else(|| {
                    (
                        Some(k),
                        format!("`{s}` is not a `YYYY-MM-DD HH:MM:SS` time"),
                    )
                }),
                Some(_) => Err((Some(k), "must be a time string or null".to_owned())),
            }
        };
        let (start, end) = (time("start_time")?, time("end_time")?);
        let mut gpus = 0u64;
        match a.get("detail") {
            None | Some(Value::Null) => {}
            Some(Value::Array(d)) => {
                for m in d {
                    match m.get("gpus") {
                        Some(Value::Array(g)) => gpus = gpus.saturating_add(g.len() as u64),
                        None | Some(Value::Null) => {}
                        Some(_) => return Err((Some("gpus"), "must be an array".to_owned())),
                    }
                }
            }
            Some(_) => return Err((Some("detail"), "must be an array".to_owned())),
        }
        out.push(Attempt { start, end, gpus });
    }
    Ok(Some(PhillyJob {
        jobid: text("jobid")?,
        user: text("user")?,
        submitted,
        attempts: out,
    }))
}
