//! Gavel (OSDI'20) job traces, `*.trace`: tab-separated, **no header, no quoting**, 10 fields
//! (the layout Gavel's `utils.parse_trace` reads).
//!
//! | # | name | unit | meaning → [`JobSpec`](blox_core::JobSpec) |
//! |---|---|---|---|
//! | 1 | `job_type` | text | model and batch size, e.g. `ResNet-50 (batch size 16)`; key into the throughput table → `model` |
//! | 2 | `command` | text | training command line; not kept |
//! | 3 | `working_directory` | text | not kept |
//! | 4 | `num_steps_arg` | text | not kept |
//! | 5 | `needs_data_dir` | 0/1 | not kept |
//! | 6 | `total_steps` | iterations | steps to run |
//! | 7 | `scale_factor` | GPUs | → `n_gpus` |
//! | 8 | `priority_weight` | int | not kept |
//! | 9 | `SLO` | multiplier | `-1` = none; if > 0, `deadline = arrival + SLO × work_s` |
//! | 10 | `arrival_time` | s | → `arrival` |
//!
//! The trace gives steps, not seconds: `work_s = total_steps / throughput`, where throughput is
//! the job's isolated rate in iterations per second for `(job_type, scale_factor)` on the worker
//! type [`ReadOptions::gavel_worker_type`] (`v100` by default) in a Gavel throughput table
//! ([`GavelThroughputs`]). A job type missing from the table is a malformed line. Rows with
//! `scale_factor = 0` or `total_steps = 0` are filtered and counted. Blank lines are skipped and
//! a trailing `\r` is dropped.

use super::csvutil::{parse_count, parse_nonneg};
use super::{read_input, secs_to_time, within_bound, Collector, ReadOptions, Row, TraceRead};
use crate::WorkloadError;
use blox_core::{JobSpec, ThroughputTable, Time};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Gavel's throughput table: isolated throughput (iterations per second) per worker type, job
/// type and scale factor, from `physical_cluster_throughputs.json` or
/// `simulation_throughputs.json` (gzipped or not).
///
/// The JSON nests `worker type → "('<job_type>', <scale_factor>)" → "null" → rate`; the other
/// inner keys, `"('<job_type>', <scale_factor>)"` of a co-located partner, give the pair's
/// `[rate of this job, rate of the partner]` when both share one GPU set (Gavel's space
/// sharing, kept in [`GavelThroughputs::colocated`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GavelThroughputs {
    table: ThroughputTable,
    colocated: ColocatedThroughputs,
}

/// Gavel's co-located throughputs: on a worker type, job type `a` at scale factor `sa` sharing
/// its GPUs with `b` at `sb` runs at `[rate of a, rate of b]` (iterations per second).
/// `file[worker][repr((a, sa))][repr((b, sb))]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColocatedThroughputs {
    map: std::collections::BTreeMap<(String, String, u32, String, u32), [f64; 2]>,
}

impl ColocatedThroughputs {
    /// The pair's rates `[a's, b's]` on `worker`, if the table has them.
    pub fn get(&self, worker: &str, a: &str, sa: u32, b: &str, sb: u32) -> Option<[f64; 2]> {
        self.map
            .get(&(worker.to_owned(), a.to_owned(), sa, b.to_owned(), sb))
            .copied()
    }

    /// Sets the pair's rates `[a's, b's]` on `worker`.
    pub fn insert(&mut self, worker: &str, a: &str, sa: u32, b: &str, sb: u32, rates: [f64; 2]) {
        self.map.insert(
            (worker.to_owned(), a.to_owned(), sa, b.to_owned(), sb),
            rates,
        );
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl GavelThroughputs {
    /// An empty table (add rates with [`GavelThroughputs::insert`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the isolated rate of `job_type` at `scale_factor` GPUs on `worker`.
    pub fn insert(&mut self, worker: &str, job_type: &str, scale_factor: u32, rate: f64) {
        self.table.insert(worker, job_type, scale_factor, rate);
    }

    /// The isolated rate (iterations per second), if the table has it.
    pub fn isolated(&self, worker: &str, job_type: &str, scale_factor: u32) -> Option<f64> {
        self.table.exact(worker, job_type, scale_factor)
    }

    /// Number of `(worker, job type, scale factor)` entries.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The co-located (space-sharing) rates.
    pub fn colocated(&self) -> &ColocatedThroughputs {
        &self.colocated
    }

    /// Sets the co-located rates `[a's, b's]` of `a` at `sa` sharing with `b` at `sb` on
    /// `worker`.
    pub fn insert_colocated(
        &mut self,
        worker: &str,
        a: (&str, u32),
        b: (&str, u32),
        rates: [f64; 2],
    ) {
        self.colocated.insert(worker, a.0, a.1, b.0, b.1, rates);
    }

    /// The rates as a [`ThroughputTable`] (worker types are GPU type names, job types model
    /// names), for heterogeneous clusters.
    pub fn table(&self) -> &ThroughputTable {
        &self.table
    }

    /// The rates as a [`ThroughputTable`], by value.
    pub fn into_table(self) -> ThroughputTable {
        self.table
    }

    /// The table a Gavel trace at `trace` is read with: [`ReadOptions::gavel_throughputs`] if
    /// set, else the first of [`GAVEL_TABLE_NAMES`] (simulation table first) in the trace's
    /// folder, its parent or grandparent ([`locate_table_path`]).
    pub fn locate(trace: &Path, opts: &ReadOptions) -> Result<Self, WorkloadError> {
        locate_and_load(trace, opts)
    }

    /// Reads a table file (gzip detected by magic bytes).
    pub fn load(path: &Path) -> Result<Self, WorkloadError> {
        Self::from_json(&read_input(path)?, path)
    }

    /// Parses a table from JSON bytes; `origin` names the input in errors.
    pub fn from_json(bytes: &[u8], origin: &Path) -> Result<Self, WorkloadError> {
        use std::collections::HashMap;
        type Raw = HashMap<String, HashMap<String, HashMap<String, serde_json::Value>>>;
        let raw: Raw = serde_json::from_slice(bytes).map_err(|e| {
            WorkloadError::input(
                origin,
                Some(e.line() as u64),
                None,
                format!("not a Gavel throughput table: {e}"),
            )
        })?;
        let mut t = GavelThroughputs::new();
        for (worker, jobs) in raw {
            for (key, inner) in jobs {
                let Some((job_type, scale)) = parse_key(&key) else {
                    continue;
                };
                for (other, v) in &inner {
                    if other == "null" {
                        continue;
                    }
                    let (Some((b, sb)), Some(arr)) = (parse_key(other), v.as_array()) else {
                        continue;
                    };
                    if let [ra, rb] = arr.as_slice() {
                        if let (Some(ra), Some(rb)) = (ra.as_f64(), rb.as_f64()) {
                            t.colocated
                                .insert(&worker, job_type, scale, b, sb, [ra, rb]);
                        }
                    }
                }
                let Some(rate) = inner.get("null").and_then(serde_json::Value::as_f64) else {
                    continue;
                };
                t.insert(&worker, job_type, scale, rate);
            }
        }
        Ok(t)
    }
}

/// `"('ResNet-50 (batch size 16)', 4)"` → `("ResNet-50 (batch size 16)", 4)`.
fn parse_key(key: &str) -> Option<(&str, u32)> {
    let body = key.strip_prefix("('")?.strip_suffix(')')?;
    let cut = body.rfind("', ")?;
    let scale = body[cut + 3..].trim().parse().ok()?;
    Some((&body[..cut], scale))
}

/// Table file names looked for next to a Gavel trace, in order of preference. The simulation
/// table comes first: it is the one Gavel's trace simulator uses (`--throughputs_file
/// simulation_throughputs.json`, GAVEL-SEMANTICS §1.2).
pub const GAVEL_TABLE_NAMES: [&str; 4] = [
    "simulation_throughputs.json.gz",
    "simulation_throughputs.json",
    "physical_cluster_throughputs.json.gz",
    "physical_cluster_throughputs.json",
];

/// The table file a Gavel trace at `trace` is read with: [`ReadOptions::gavel_throughputs`] if
/// set, else the first of [`GAVEL_TABLE_NAMES`] in the trace's folder, its parent or
/// grandparent (`None` if there is none).
pub fn locate_table_path(trace: &Path, opts: &ReadOptions) -> Option<PathBuf> {
    if let Some(p) = &opts.gavel_throughputs {
        return Some(p.clone());
    }
    let dir = trace.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut dirs: Vec<PathBuf> = vec![dir.clone()];
    let mut d = dir.as_path();
    for _ in 0..2 {
        match d.parent() {
            Some(p) => {
                dirs.push(p.to_path_buf());
                d = p;
            }
            None => break,
        }
    }
    for d in &dirs {
        for n in GAVEL_TABLE_NAMES {
            let p = if d.as_os_str().is_empty() {
                PathBuf::from(n)
            } else {
                d.join(n)
            };
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The table for a trace: the one named in the options, or the first found next to the trace.
pub(crate) fn locate_and_load(
    trace: &Path,
    opts: &ReadOptions,
) -> Result<GavelThroughputs, WorkloadError> {
    match locate_table_path(trace, opts) {
        Some(p) => GavelThroughputs::load(&p),
        None => Err(WorkloadError::input(
            trace,
            None,
            Some("total_steps"),
            "a Gavel trace gives steps, not seconds, and no throughput table \
             (simulation_throughputs.json[.gz] or physical_cluster_throughputs.json[.gz]) was \
             found next to it, in its parent or grandparent folder: name one in the options",
        )),
    }
}

/// One line of a Gavel trace with every field Gavel's simulator uses (GAVEL-SEMANTICS §1.1),
/// unconverted: steps stay steps, the priority weight is kept.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GavelTraceJob {
    /// 1-based line number in the file (for messages).
    pub line: u64,
    /// Job type, the throughput key (`ResNet-18 (batch size 64)`).
    pub job_type: String,
    /// Total steps.
    pub total_steps: u64,
    /// Scale factor (GPUs).
    pub scale_factor: u32,
    /// Priority weight.
    pub priority_weight: f64,
    /// SLO multiplier (`-1` = none); not used by Gavel's trace simulator.
    pub slo: f64,
    /// Arrival time (s).
    pub arrival_s: f64,
}

/// Reads a Gavel trace for Gavel's own simulation rules: one job per non-blank line, job id =
/// its 0-based position among the job lines (= the line index when there are no blank lines).
/// Unlike the conversion to [`JobSpec`]s, nothing is filtered: a zero step count or scale
/// factor is an error, and arrivals must not decrease (Gavel asserts it).
pub fn read_gavel_trace(path: &Path) -> Result<Vec<GavelTraceJob>, WorkloadError> {
    parse_gavel_trace(&read_input(path)?, path)
}

/// [`read_gavel_trace`] on bytes; `origin` names the input in errors.
pub fn parse_gavel_trace(bytes: &[u8], origin: &Path) -> Result<Vec<GavelTraceJob>, WorkloadError> {
    let mut out: Vec<GavelTraceJob> = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = std::str::from_utf8(raw).map_err(|e| {
            WorkloadError::input(origin, Some(line), None, format!("not UTF-8: {e}"))
        })?;
        let f = fields(text, line, origin)?;
        let err = |i: usize, what: &str| {
            WorkloadError::at(origin, line, FIELDS[i], format!("`{}` is not {what}", f[i]))
        };
        let total_steps = f[5]
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| err(5, "a whole number of steps ≥ 1"))?;
        let scale_factor = f[6]
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| err(6, "a whole number of GPUs ≥ 1"))?;
        let priority_weight = f[7]
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| err(7, "a positive number"))?;
        let slo = f[8]
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| err(8, "a number"))?;
        let arrival_s = parse_nonneg(f[9].trim()).ok_or_else(|| err(9, "a time in seconds ≥ 0"))?;
        if let Some(prev) = out.last() {
            if arrival_s < prev.arrival_s {
                return Err(WorkloadError::at(
                    origin,
                    line,
                    "arrival_time",
                    format!(
                        "arrival {arrival_s} is before the previous job's ({}); Gavel requires \
                         non-decreasing arrivals",
                        prev.arrival_s
                    ),
                ));
            }
        }
        out.push(GavelTraceJob {
            line,
            job_type: f[0].to_owned(),
            total_steps,
            scale_factor,
            priority_weight,
            slo,
            arrival_s,
        });
    }
    Ok(out)
}

pub(crate) fn parse(
    bytes: &[u8],
    origin: &Path,
    table: &GavelThroughputs,
    worker: &str,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let mut sink = Collector::new(opts);
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i as u64 + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let row = std::str::from_utf8(raw)
            .map_err(|e| WorkloadError::input(origin, Some(line), None, format!("not UTF-8: {e}")))
            .and_then(|text| row(text, line, origin, table, worker));
        sink.take_at(row, origin, line)?;
    }
    Ok(sink.read)
}

const FIELDS: [&str; 10] = [
    "job_type",
    "command",
    "working_directory",
    "num_steps_arg",
    "needs_data_dir",
    "total_steps",
    "scale_factor",
    "priority_weight",
    "SLO",
    "arrival_time",
];

/// A trace line's tab-separated fields, exactly as many as Gavel's format has.
fn fields<'a>(text: &'a str, line: u64, origin: &Path) -> Result<Vec<&'a str>, WorkloadError> {
    let f: Vec<&str> = text.split('\t').collect();
    if f.len() != FIELDS.len() {
        let field = FIELDS.get(f.len()).or(FIELDS.last()).copied().unwrap_or("");
        return Err(WorkloadError::at(
            origin,
            line,
            field,
            format!(
                "expected {} tab-separated fields, found {}",
                FIELDS.len(),
                f.len()
            ),
        ));
    }
    Ok(f)
}

fn row(
    text: &str,
    line: u64,
    origin: &Path,
    table: &GavelThroughputs,
    worker: &str,
) -> Result<Row, WorkloadError> {
    let f = fields(text, line, origin)?;
    let err = |i: usize, what: &str| {
        WorkloadError::at(origin, line, FIELDS[i], format!("`{}` is not {what}", f[i]))
    };
    let job_type = f[0].trim();
    let steps = parse_nonneg(f[5].trim()).ok_or_else(|| err(5, "a step count ≥ 0"))?;
    let scale = parse_count(f[6].trim()).ok_or_else(|| err(6, "a whole number of GPUs ≥ 0"))?;
    let slo = f[8]
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| err(8, "a number"))?;
    let arrival_s = parse_nonneg(f[9].trim()).ok_or_else(|| err(9, "a time in seconds ≥ 0"))?;
    let arrival = secs_to_time(arrival_s, origin, line, "arrival_time")?;
    if scale == 0 {
        return Ok(Row::Filtered("zero GPUs"));
    }
    if steps == 0.0 {
        return Ok(Row::Filtered("zero steps"));
    }
    let rate = table
        .isolated(worker, job_type, scale)
        .filter(|r| r.is_finite() && *r > 0.0)
        .ok_or_else(|| {
            WorkloadError::at(
                origin,
                line,
                "job_type",
                format!(
                    "no isolated throughput for (`{job_type}`, {scale}) on worker type `{worker}` in the Gavel throughput table"
                ),
            )
        })?;
    let work_s = steps / rate;
    if !work_s.is_finite() {
        return Err(err(5, "a step count that gives a finite duration"));
    }
    let work_s = within_bound(work_s).map_err(|m| {
        WorkloadError::at(
            origin,
            line,
            FIELDS[5],
            format!("{} steps at {rate} steps/s: {m}", f[5].trim()),
        )
    })?;
    let mut j = JobSpec::new(arrival, scale, work_s);
    j.model = Some(Arc::from(job_type));
    if slo > 0.0 {
        let deadline = within_bound(arrival_s + slo * work_s)
            .map_err(|m| WorkloadError::at(origin, line, FIELDS[8], format!("the deadline {m}")))?;
        j.deadline = Time::from_secs_f64_ceil(deadline);
    }
    Ok(Row::Job(Box::new(j)))
}
