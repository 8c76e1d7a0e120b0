//! Everything about one run in one value ([`RunMetrics`]), and several runs side by side
//! ([`ComparisonRow`], its CSV and JSON writers and its terminal table).

use crate::fairness::Fairness;
use crate::series::TimelineStats;
use crate::{JobLog, JobRecord, Summary, Timeline};
use blox_core::JobId;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The metrics of one run: its job statistics, its cluster time-series statistics, per-job
/// fairness and the JCTs for a CDF.
///
/// Serialises (to the `metrics.json` a caller may write) as
/// `{"label": …, "statistics": Summary, "cluster": TimelineStats}`; the per-job parts are
/// written by [`crate::write_fairness_csv`] and [`crate::write_jct_cdf_csv`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RunMetrics {
    /// What the run is called in tables and legends (e.g. the policy name).
    pub label: String,
    /// Statistics over the tracked jobs.
    pub statistics: Summary,
    /// Utilisation, queue and demand over the whole run.
    pub cluster: TimelineStats,
    /// Finish-time fairness of each tracked, completed job.
    #[serde(skip)]
    pub fairness: Fairness,
    /// JCTs of the tracked completed jobs in seconds, in id order ([`JobLog::jcts_s`]).
    #[serde(skip)]
    pub jcts_s: Vec<f64>,
}

impl RunMetrics {
    /// Compute everything for one run. `window` is the tracked job window (inclusive; `None`
    /// tracks every admitted job); `total_gpus` is the cluster's size (for utilisation). The
    /// isolated JCT of a job is its `work_s`.
    pub fn compute(
        label: impl Into<String>,
        log: &JobLog,
        timeline: &Timeline,
        window: Option<(JobId, JobId)>,
        total_gpus: u32,
    ) -> RunMetrics {
        Self::compute_with(label, log, timeline, window, total_gpus, |r| Some(r.work_s))
    }

    /// [`RunMetrics::compute`] with the isolated JCT of each job (seconds) given by `isolated`,
    /// as in [`Fairness::compute`].
    pub fn compute_with(
        label: impl Into<String>,
        log: &JobLog,
        timeline: &Timeline,
        window: Option<(JobId, JobId)>,
        total_gpus: u32,
        mut isolated: impl FnMut(&JobRecord) -> Option<f64>,
    ) -> RunMetrics {
        RunMetrics {
            label: label.into(),
            statistics: Summary::compute_with(log, window, &mut isolated),
            cluster: TimelineStats::of_timeline(timeline, total_gpus),
            fairness: Fairness::compute(log, window, &mut isolated),
            jcts_s: log.jcts_s(window),
        }
    }

    /// This run's row of a comparison table.
    pub fn row(&self) -> ComparisonRow {
        ComparisonRow::new(self.label.clone(), &self.statistics, &self.cluster)
    }
}

/// One run in a comparison of policies (or of any other setting) on the same workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ComparisonRow {
    /// The run's label, usually the policy (`fifo`, `las`, …).
    pub label: String,
    /// Tracked jobs.
    pub n_tracked: u64,
    /// Tracked jobs that completed.
    pub n_completed: u64,
    /// Mean JCT, seconds.
    pub avg_jct_s: f64,
    /// Median JCT (nearest rank), seconds.
    pub p50_jct_s: f64,
    /// 99th-percentile JCT (nearest rank), seconds.
    pub p99_jct_s: f64,
    /// Last tracked completion − first tracked arrival, seconds.
    pub makespan_s: f64,
    /// Time-weighted mean fraction of GPUs busy over the run, in `[0, 1]`.
    pub utilisation: f64,
    /// Worst finish-time fairness ρ.
    pub worst_rho: f64,
    /// Preemptions. [`ComparisonRow::new`] counts those of tracked jobs; a caller with the
    /// engine's run-wide count may overwrite it (the field is public).
    pub preemptions: u64,
}

impl ComparisonRow {
    /// A row from a run's summary and timeline statistics.
    pub fn new(label: impl Into<String>, s: &Summary, cluster: &TimelineStats) -> ComparisonRow {
        ComparisonRow {
            label: label.into(),
            n_tracked: s.n_tracked,
            n_completed: s.n_completed,
            avg_jct_s: s.avg_jct_s,
            p50_jct_s: s.p50_jct_s,
            p99_jct_s: s.p99_jct_s,
            makespan_s: s.makespan_s,
            utilisation: cluster.mean_utilisation,
            worst_rho: s.worst_rho,
            preemptions: s.preemptions_tracked,
        }
    }
}

/// Header of `compare.csv`.
pub const COMPARISON_CSV_HEADER: &str =
    "label,n_tracked,n_completed,avg_jct_s,p50_jct_s,p99_jct_s,makespan_s,utilisation,worst_rho,preemptions";

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Write `compare.csv`: one row per run, in the given order. Columns: `label`, `n_tracked`,
/// `n_completed`, `avg_jct_s`, `p50_jct_s`, `p99_jct_s`, `makespan_s` (seconds),
/// `utilisation` (fraction of GPUs busy, time-weighted, 0–1), `worst_rho`, `preemptions`.
/// Numbers are printed in Rust's shortest round-trip form; a value the run did not measure
/// (NaN: utilisation and worst ρ under Gavel's trace mode and Sia) is an empty cell.
pub fn write_comparison_csv(out: &mut impl Write, rows: &[ComparisonRow]) -> io::Result<()> {
    writeln!(out, "{COMPARISON_CSV_HEADER}")?;
    for r in rows {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            csv_text(&r.label),
            r.n_tracked,
            r.n_completed,
            r.avg_jct_s,
            r.p50_jct_s,
            r.p99_jct_s,
            r.makespan_s,
            Measured(r.utilisation),
            Measured(r.worst_rho),
            r.preemptions
        )?;
    }
    Ok(())
}

/// A number, or nothing when it was not measured (NaN).
struct Measured(f64);

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_nan() {
            Ok(())
        } else {
            self.0.fmt(f)
        }
    }
}

/// Write `compare.json`: a pretty-printed JSON array with one object per run, whose keys are
/// the columns of [`write_comparison_csv`], followed by a newline.
pub fn write_comparison_json(out: &mut impl Write, rows: &[ComparisonRow]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, rows)?;
    writeln!(out)
}

/// `x` with `digits` decimals, or `—` when it was not measured (NaN).
fn measured(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "—".to_string()
    } else {
        format!("{x:.digits$}")
    }
}

/// The comparison as an aligned text table for a terminal: one line per run, times in hours,
/// utilisation in percent (`—` where the run did not measure it). Ends with a newline; a header and a rule only when `rows` is empty.
///
/// ```text
/// policy  tracked  avg JCT (h)  p50 JCT (h)  p99 JCT (h)  makespan (h)  util (%)  worst ρ  preemptions
/// ──────  ───────  ───────────  ───────────  ───────────  ────────────  ────────  ───────  ───────────
/// fifo       1001        23.41         9.87       140.22        2103.5      71.2    52.10            0
/// ```
pub fn comparison_table(rows: &[ComparisonRow]) -> String {
    const HEADS: [&str; 9] = [
        "policy",
        "tracked",
        "avg JCT (h)",
        "p50 JCT (h)",
        "p99 JCT (h)",
        "makespan (h)",
        "util (%)",
        "worst ρ",
        "preemptions",
    ];
    let h = |s: f64| s / 3600.0;
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                r.label.chars().filter(|c| !c.is_control()).collect(),
                r.n_tracked.to_string(),
                format!("{:.2}", h(r.avg_jct_s)),
                format!("{:.2}", h(r.p50_jct_s)),
                format!("{:.2}", h(r.p99_jct_s)),
                format!("{:.1}", h(r.makespan_s)),
                measured(r.utilisation * 100.0, 1),
                measured(r.worst_rho, 2),
                r.preemptions.to_string(),
            ]
        })
        .collect();
    let mut widths = HEADS.map(|s| s.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, row: &[String]| {
        for (i, (c, w)) in row.iter().zip(widths).enumerate() {
            let sep = if i == 0 { "" } else { "  " };
            // The label is left-aligned, numbers right-aligned.
            let _ = if i == 0 {
                write!(out, "{sep}{c:<w$}")
            } else {
                write!(out, "{sep}{c:>w$}")
            };
        }
        // No trailing spaces when the label column is the widest thing on the line.
        let trimmed = out.trim_end_matches(' ').len();
        out.truncate(trimmed);
        out.push('\n');
    };
    line(&mut out, &HEADS.map(String::from));
    line(&mut out, &widths.map(|w| "─".repeat(w)));
    for row in &cells {
        line(&mut out, row);
    }
    out
}
