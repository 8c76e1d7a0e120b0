//! Trace readers: one function per published format, all producing [`JobSpec`]s.
//!
//! The entry points are [`read_trace`] (a file, gzip or not), [`parse_trace`] (bytes already in
//! memory), and [`read_traces`] (several files merged by arrival). Each format's module documents
//! the source's columns, units and the reader's filters.

mod alibaba;
mod canonical;
mod csvutil;
mod datetime;
mod gavel;
mod helios;
mod itp;
mod philly;
mod pollux;
mod tiresias;

pub use datetime::parse_datetime;
pub use gavel::{
    locate_table_path, parse_gavel_trace, read_gavel_trace, ColocatedThroughputs, GavelThroughputs,
    GavelTraceJob, GAVEL_TABLE_NAMES,
};
pub use philly::{
    philly_blox_gpu_counts, philly_blox_trace_jobs, PhillyMode, BLOX_PHILLY_MAX_S,
    BLOX_PHILLY_MIN_S,
};
pub use pollux::{pollux_reference_gpu_seconds, POLLUX_REFERENCE_GPU_SECONDS};

use crate::WorkloadError;
use blox_core::JobSpec;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How many malformed lines a [`TraceRead`] keeps as examples when they are skipped.
pub const MAX_KEPT_BAD_LINES: usize = 10;

/// Largest decompressed size accepted from a gzip file (a guard against gzip bombs): 4 GiB.
pub const MAX_DECOMPRESSED_BYTES: u64 = 4 << 30;

/// The largest arrival, duration or deadline, in seconds, that a trace may hold: 10^9 s, about
/// 31.7 years. The engine keeps time as whole milliseconds in a `u64` (up to about 1.8·10^16 s),
/// but a value far beyond any real trace (the longest shipped ones span about 1.3·10^7 s) is a
/// mistake in the file, and replaying it would cost rounds without end; so every reader refuses
/// a larger value as a malformed line naming the file, the line and the field.
pub const MAX_TRACE_SECONDS: f64 = 1e9;

/// `s` if it is at most [`MAX_TRACE_SECONDS`], else the message of a malformed line.
pub(crate) fn within_bound(s: f64) -> Result<f64, String> {
    if s <= MAX_TRACE_SECONDS {
        Ok(s)
    } else {
        Err(format!(
            "`{s}` s is beyond the largest time a trace may hold ({MAX_TRACE_SECONDS:e} s, about 31.7 years)"
        ))
    }
}

/// [`within_bound`] as an error naming `origin`, `line` and `field`.
pub(crate) fn bounded_secs(
    s: f64,
    origin: &Path,
    line: u64,
    field: &str,
) -> Result<f64, WorkloadError> {
    within_bound(s).map_err(|m| WorkloadError::at(origin, line, field, m))
}

/// A trace format, by the name given to `--trace-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TraceFormat {
    /// The toolkit's own CSV: `job_id,arrival_s,n_gpus,duration_s[,model]`.
    Canonical,
    /// Microsoft Philly `cluster_job_log` (JSON); see [`PhillyMode`].
    Philly,
    /// Microsoft ITP CSV (ElasticFlow traces): `raw/` and `elasticflow/` layouts.
    Itp,
    /// Pollux (OSDI'21) CSVs: the 160-job `workload-N.csv` files and `traces/philly.csv`.
    Pollux,
    /// Gavel (OSDI'20) `*.trace` TSV files (durations from a throughput table).
    Gavel,
    /// Tiresias (NSDI'19) job CSV (`60_job.csv`).
    Tiresias,
    /// Alibaba GPU cluster 2023 ("openb") pod list CSV.
    Alibaba2023,
    /// SenseTime Helios `cluster_log.csv`.
    Helios,
}

impl TraceFormat {
    /// Every format, in the order of the `--trace-format` help text.
    pub const ALL: [TraceFormat; 8] = [
        TraceFormat::Canonical,
        TraceFormat::Philly,
        TraceFormat::Itp,
        TraceFormat::Pollux,
        TraceFormat::Gavel,
        TraceFormat::Tiresias,
        TraceFormat::Alibaba2023,
        TraceFormat::Helios,
    ];

    /// The name accepted by [`FromStr`] (and `--trace-format`).
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Canonical => "canonical",
            TraceFormat::Philly => "philly",
            TraceFormat::Itp => "itp",
            TraceFormat::Pollux => "pollux",
            TraceFormat::Gavel => "gavel",
            TraceFormat::Tiresias => "tiresias",
            TraceFormat::Alibaba2023 => "alibaba2023",
            TraceFormat::Helios => "helios",
        }
    }
}

impl TraceFormat {
    /// The header columns a file of this format must have (any of the sets, for a format with
    /// several layouts); empty for the formats without a CSV header (Philly's JSON, Gavel's
    /// TSV).
    pub fn required_columns(self) -> &'static [&'static [&'static str]] {
        match self {
            TraceFormat::Canonical => &[&["job_id", "arrival_s", "n_gpus", "duration_s"]],
            TraceFormat::Itp => &[&["job_id", "submission_time", "duration", "num_gpu"]],
            TraceFormat::Pollux => &[
                &["timestamp", "duration", "num_gpus"],
                &["name", "time", "application"],
            ],
            TraceFormat::Tiresias => &[&["job_id", "num_gpu", "submit_time", "duration"]],
            TraceFormat::Alibaba2023 => &[&[
                "name",
                "cpu_milli",
                "memory_mib",
                "num_gpu",
                "creation_time",
                "deletion_time",
                "scheduled_time",
            ]],
            TraceFormat::Helios => &[&["job_id", "gpu_num", "submit_time", "duration"]],
            TraceFormat::Philly | TraceFormat::Gavel => &[],
        }
    }

    /// The format of a trace, recognised from its first bytes (decompressed): JSON is Philly's
    /// `cluster_job_log`, a tab-separated first line is a Gavel trace, and a CSV header is the
    /// format whose required columns it has. `Err` lists the formats that fit when several do
    /// (empty when none does).
    pub fn detect(bytes: &[u8]) -> Result<TraceFormat, Vec<TraceFormat>> {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
        let text = text.trim_start_matches('\u{feff}').trim_start();
        if text.starts_with('[') || text.starts_with('{') {
            return Ok(TraceFormat::Philly);
        }
        let first = text.lines().next().unwrap_or("");
        if first.contains('\t') && !first.contains(',') {
            return Ok(TraceFormat::Gavel);
        }
        let header: Vec<String> = first
            .split(',')
            .map(|c| c.trim().trim_matches('"').to_ascii_lowercase())
            .collect();
        let fits: Vec<TraceFormat> = TraceFormat::ALL
            .into_iter()
            .filter(|f| {
                f.required_columns()
                    .iter()
                    .any(|set| set.iter().all(|c| header.iter().any(|h| h == c)))
            })
            .collect();
        match fits.as_slice() {
            [one] => Ok(*one),
            _ => Err(fits),
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown format name; its message lists the known ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = TraceFormat::ALL.iter().map(|t| t.name()).collect();
        write!(
            f,
            "unknown trace format `{}` (known: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for TraceFormat {
    type Err = UnknownFormat;
    /// Case-insensitive; surrounding spaces are ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        TraceFormat::ALL
            .into_iter()
            .find(|t| t.name() == wanted)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// Options shared by every reader. Start from `ReadOptions::default()` and chain the `with_*`
/// methods (or set the public fields on a mutable value).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Count and skip malformed lines (keeping the first [`MAX_KEPT_BAD_LINES`] errors in
    /// [`TraceRead::bad_lines`]) instead of failing on the first one. A bad header, an
    /// unreadable file or a JSON document that does not parse at all is still an error.
    pub skip_bad_lines: bool,
    /// How Philly jobs are turned into [`JobSpec`]s.
    pub philly_mode: PhillyMode,
    /// Time zero, in seconds since 1970-01-01 00:00:00 of the trace's own (naive) clock, for the
    /// formats with wall-clock timestamps (Philly, Pollux `philly.csv`, Helios). `None` (the
    /// default) uses the earliest timestamp in each file. Set it when merging several such files
    /// so that they share a clock (see [`parse_datetime`]).
    pub time_origin: Option<i64>,
    /// The Gavel throughput table (`*.json` or `*.json.gz`). `None` looks for
    /// `simulation_throughputs.json[.gz]` (the table Gavel's simulator uses), then
    /// `physical_cluster_throughputs.json[.gz]`, in the trace's folder, its parent and its
    /// grandparent (the shipped and upstream layouts).
    pub gavel_throughputs: Option<PathBuf>,
    /// The Gavel worker type whose isolated throughput turns steps into seconds (`v100`).
    pub gavel_worker_type: String,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            skip_bad_lines: false,
            philly_mode: PhillyMode::Trace,
            time_origin: None,
            gavel_throughputs: None,
            gavel_worker_type: "v100".to_owned(),
        }
    }
}

impl ReadOptions {
    /// Sets [`ReadOptions::skip_bad_lines`].
    pub fn with_skip_bad_lines(mut self, skip: bool) -> Self {
        self.skip_bad_lines = skip;
        self
    }

    /// Sets [`ReadOptions::philly_mode`].
    pub fn with_philly_mode(mut self, mode: PhillyMode) -> Self {
        self.philly_mode = mode;
        self
    }

    /// Sets [`ReadOptions::time_origin`].
    pub fn with_time_origin(mut self, origin: Option<i64>) -> Self {
        self.time_origin = origin;
        self
    }

    /// Sets [`ReadOptions::gavel_throughputs`].
    pub fn with_gavel_throughputs(mut self, table: Option<PathBuf>) -> Self {
        self.gavel_throughputs = table;
        self
    }

    /// Sets [`ReadOptions::gavel_worker_type`].
    pub fn with_gavel_worker_type(mut self, worker: impl Into<String>) -> Self {
        self.gavel_worker_type = worker.into();
        self
    }
}

/// The result of reading one or more traces: the jobs, and what was left out.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct TraceRead {
    /// The jobs, in file order for one file; merged by arrival (stable) by [`read_traces`].
    pub jobs: Vec<JobSpec>,
    /// Malformed lines skipped under [`ReadOptions::skip_bad_lines`] (always 0 without it).
    pub bad_line_count: u64,
    /// The first [`MAX_KEPT_BAD_LINES`] of those errors, for the report.
    pub bad_lines: Vec<WorkloadError>,
    /// Well-formed rows deliberately left out, by reason (e.g. `CPU-only pod`), per the format's
    /// documented rules.
    pub filtered: BTreeMap<&'static str, u64>,
}

impl TraceRead {
    /// Rows deliberately left out, over all reasons.
    pub fn filtered_count(&self) -> u64 {
        self.filtered.values().sum()
    }

    /// Appends `other`'s jobs and adds up its counts (jobs are not re-sorted).
    pub fn absorb(&mut self, other: TraceRead) {
        self.jobs.extend(other.jobs);
        self.bad_line_count += other.bad_line_count;
        for e in other.bad_lines {
            if self.bad_lines.len() < MAX_KEPT_BAD_LINES {
                self.bad_lines.push(e);
            }
        }
        for (k, v) in other.filtered {
            *self.filtered.entry(k).or_default() += v;
        }
    }

    /// Stably sorts the jobs by arrival: equal arrivals keep their order.
    pub fn sort_by_arrival(&mut self) {
        self.jobs.sort_by_key(|j| j.arrival);
    }
}

/// Collects jobs, filtered rows and (when skipping) bad lines while a reader runs.
pub(crate) struct Collector {
    skip_bad_lines: bool,
    pub(crate) read: TraceRead,
    /// The line of each job id taken by [`Collector::take_at`].
    ids: std::collections::HashMap<std::sync::Arc<str>, u64>,
}

impl Collector {
    pub(crate) fn new(opts: &ReadOptions) -> Self {
        Collector {
            skip_bad_lines: opts.skip_bad_lines,
            read: TraceRead::default(),
            ids: std::collections::HashMap::new(),
        }
    }

    /// [`Collector::take`] for the row at `origin:line`; a job id given on an earlier line is an
    /// error (even with --skip-bad-lines: which of the two jobs is meant is unknown).
    pub(crate) fn take_at(
        &mut self,
        row: Result<Row, WorkloadError>,
        origin: &Path,
        line: u64,
    ) -> Result<(), WorkloadError> {
        if let Ok(Row::Job(j)) = &row {
            if let Some(id) = &j.source_id {
                if let Some(first) = self.ids.insert(id.clone(), line) {
                    return Err(WorkloadError::input(
                        origin,
                        Some(line),
                        None,
                        format!(
                            "job id `{}` is given twice (first on line {first}); job ids must be \
                             unique",
                            id.escape_debug()
                        ),
                    ));
                }
            }
        }
        self.take(row)
    }

    /// A malformed line: an error, or counted when skipping.
    pub(crate) fn bad(&mut self, e: WorkloadError) -> Result<(), WorkloadError> {
        if !self.skip_bad_lines {
            return Err(e);
        }
        self.read.bad_line_count += 1;
        if self.read.bad_lines.len() < MAX_KEPT_BAD_LINES {
            self.read.bad_lines.push(e);
        }
        Ok(())
    }

    /// Takes a row result: pushes the job, counts a filter reason, or handles the error.
    pub(crate) fn take(&mut self, row: Result<Row, WorkloadError>) -> Result<(), WorkloadError> {
        match row {
            Ok(Row::Job(j)) => self.read.jobs.push(*j),
            Ok(Row::Filtered(reason)) => *self.read.filtered.entry(reason).or_default() += 1,
            Err(e) => self.bad(e)?,
        }
        Ok(())
    }
}

/// What one well-formed row becomes.
pub(crate) enum Row {
    /// A job.
    Job(Box<JobSpec>),
    /// Left out, for this reason.
    Filtered(&'static str),
}

/// Reads the whole file, decompressing it when it starts with the gzip magic bytes `1f 8b`
/// (whatever its name).
pub fn read_input(path: &Path) -> Result<Vec<u8>, WorkloadError> {
    let bytes = std::fs::read(path).map_err(|e| WorkloadError::io(path, e))?;
    decompress(bytes, path)
}

/// Decompresses `bytes` if they start with the gzip magic bytes; returns them unchanged
/// otherwise. Concatenated gzip members are read as one stream.
pub fn decompress(bytes: Vec<u8>, origin: &Path) -> Result<Vec<u8>, WorkloadError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let dec = flate2::read::MultiGzDecoder::new(bytes.as_slice());
    dec.take(MAX_DECOMPRESSED_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| WorkloadError::input(origin, None, None, format!("corrupt gzip data: {e}")))?;
    if out.len() as u64 > MAX_DECOMPRESSED_BYTES {
        return Err(WorkloadError::input(
            origin,
            None,
            None,
            "gzip data decompresses to more than 4 GiB",
        ));
    }
    Ok(out)
}

/// Reads one trace file (gzipped or not) in `format`. See the format's documentation in the
/// crate docs for units, filters and skipped rows.
pub fn read_trace(
    path: &Path,
    format: TraceFormat,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let bytes = read_input(path)?;
    if format == TraceFormat::Gavel {
        let table = gavel::locate_and_load(path, opts)?;
        return gavel::parse(&bytes, path, &table, &opts.gavel_worker_type, opts);
    }
    parse_trace(&bytes, path, format, opts)
}

/// Parses a trace already in memory (gzip is decompressed). `origin` names the input in errors.
///
/// For [`TraceFormat::Gavel`] the throughput table is located from `origin` and `opts` as in
/// [`read_trace`]; use [`parse_gavel`] to pass a table directly.
pub fn parse_trace(
    bytes: &[u8],
    origin: &Path,
    format: TraceFormat,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let owned;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        owned = decompress(bytes.to_vec(), origin)?;
        owned.as_slice()
    } else {
        bytes
    };
    match format {
        TraceFormat::Canonical => canonical::parse(bytes, origin, opts),
        TraceFormat::Philly => philly::parse(bytes, origin, opts),
        TraceFormat::Itp => itp::parse(bytes, origin, opts),
        TraceFormat::Pollux => pollux::parse(bytes, origin, opts),
        TraceFormat::Gavel => {
            let table = gavel::locate_and_load(origin, opts)?;
            gavel::parse(bytes, origin, &table, &opts.gavel_worker_type, opts)
        }
        TraceFormat::Tiresias => tiresias::parse(bytes, origin, opts),
        TraceFormat::Alibaba2023 => alibaba::parse(bytes, origin, opts),
        TraceFormat::Helios => helios::parse(bytes, origin, opts),
    }
}

/// Parses a Gavel `*.trace` already in memory with the given throughput table, converting steps
/// to seconds with `table`'s isolated throughput on `opts.gavel_worker_type`.
pub fn parse_gavel(
    bytes: &[u8],
    origin: &Path,
    table: &GavelThroughputs,
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    gavel::parse(bytes, origin, table, &opts.gavel_worker_type, opts)
}

/// Reads several traces (each with its own format) and merges their jobs by arrival. The sort
/// is stable: equal arrivals keep the order of `inputs`, then file order. Counts are added up.
pub fn read_traces(
    inputs: &[(PathBuf, TraceFormat)],
    opts: &ReadOptions,
) -> Result<TraceRead, WorkloadError> {
    let mut all = TraceRead::default();
    for (path, format) in inputs {
        let read = read_trace(path, *format, opts)?;
        if read.jobs.is_empty() && read.bad_line_count == 0 {
            let why = if read.filtered.is_empty() {
                "it has no job rows (it is empty, or a header only)".to_string()
            } else {
                let reasons: Vec<String> = read
                    .filtered
                    .iter()
                    .map(|(k, v)| format!("{v} {k}"))
                    .collect();
                format!("every row was left out ({})", reasons.join(", "))
            };
            return Err(WorkloadError::input(
                path,
                None,
                None,
                format!("no jobs to run: {why}"),
            ));
        }
        all.absorb(read);
    }
    all.sort_by_arrival();
    Ok(all)
}

/// Seconds (≥ 0, finite, at most [`MAX_TRACE_SECONDS`]) to engine time, rounded up to the
/// millisecond.
pub(crate) fn secs_to_time(
    s: f64,
    origin: &Path,
    line: u64,
    field: &str,
) -> Result<blox_core::Time, WorkloadError> {
    let s = bounded_secs(s, origin, line, field)?;
    blox_core::Time::from_secs_f64_ceil(s).ok_or_else(|| {
        WorkloadError::at(
            origin,
            line,
            field,
            format!("`{s}` is not a time in seconds ≥ 0"),
        )
    })
}

/// For wall-clock formats: sets each job's arrival to its timestamp minus the time origin
/// ([`ReadOptions::time_origin`], or the earliest stamp). `stamps[i]` is `(seconds, line)` of
/// `sink.read.jobs[i]`. A stamp before a user-given origin is a bad line.
pub(crate) fn apply_wall_clock(
    sink: &mut Collector,
    stamps: &[(i64, u64)],
    opts: &ReadOptions,
    origin: &Path,
    field: &str,
) -> Result<(), WorkloadError> {
    debug_assert_eq!(stamps.len(), sink.read.jobs.len());
    let Some(t0) = opts
        .time_origin
        .or_else(|| stamps.iter().map(|s| s.0).min())
    else {
        return Ok(());
    };
    let jobs = std::mem::take(&mut sink.read.jobs);
    let mut kept = Vec::with_capacity(jobs.len());
    for (mut j, &(ts, line)) in jobs.into_iter().zip(stamps) {
        let Some(rel) = ts.checked_sub(t0).filter(|r| *r >= 0) else {
            sink.bad(WorkloadError::at(
                origin,
                line,
                field,
                format!("timestamp is before the time origin ({t0} s)"),
            ))?;
            continue;
        };
        if let Err(m) = within_bound(rel as f64) {
            sink.bad(WorkloadError::at(origin, line, field, m))?;
            continue;
        }
        // `rel` is in 0..=MAX_TRACE_SECONDS, so its milliseconds fit in u64.
        j.arrival = blox_core::Time(rel as u64 * 1000);
        kept.push(j);
    }
    sink.read.jobs = kept;
    Ok(())
}
