use crate::{JobLog, Timeline};
use blox_core::JobId;
use std::io::{self, Write};

/// Header of `jobs.csv`.
pub const JOBS_CSV_HEADER: &str = "job_id,arrival_s,n_gpus,first_start_s,completion_s,jct_s,preemptions,tracked,duration_s,responded_s,admitted_s,model,source_id,gpu_types";

/// Header of `timeline.csv`.
pub const TIMELINE_CSV_HEADER: &str =
    "time_s,jobs_in_queue,jobs_running,free_gpus,gpu_demand,preemptions,jobs_pending_admission";

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(String::new, |v| v.to_string())
}

fn text(x: Option<&str>) -> String {
    match x {
        None => String::new(),
        Some(s) if s.contains([',', '"', '\n', '\r']) => format!("\"{}\"", s.replace('"', "\"\"")),
        Some(s) => s.to_string(),
    }
}

/// Write `jobs.csv`: one row per admitted job, in id order (admission order, as Blox numbers
/// jobs). Times are seconds; an empty cell means "never" (e.g. `completion_s` of a job still
/// running when the run ended). `tracked` is 1 for jobs in `window` (all jobs without one).
/// `duration_s` is the service demand, printed so that it round-trips. `gpu_types` lists the
/// GPU types the job ran on (`+`-joined, in the cluster's type order) when the log was built
/// with [`crate::JobLog::with_cluster`], else it is empty.
///
/// Jobs that arrived but were never admitted (held or rejected by admission) have no id and no
/// row; the summary counts them.
pub fn write_jobs_csv(
    out: &mut impl Write,
    log: &JobLog,
    window: Option<(JobId, JobId)>,
) -> io::Result<()> {
    write_jobs_csv_with(out, log, window, false)
}

/// Write `jobs.csv` as [`write_jobs_csv`] does; with `failures`, a last column `failures` holds
/// how often a failure interrupted the job (runs with cluster management write it; others keep
/// the frozen format).
pub fn write_jobs_csv_with(
    out: &mut impl Write,
    log: &JobLog,
    window: Option<(JobId, JobId)>,
    failures: bool,
) -> io::Result<()> {
    if failures {
        writeln!(out, "{JOBS_CSV_HEADER},failures")?;
    } else {
        writeln!(out, "{JOBS_CSV_HEADER}")?;
    }
    for r in log.admitted() {
        let id = r.id.expect("admitted jobs have ids");
        let tracked = window.map_or(true, |(a, b)| id >= a && id <= b);
        write!(
            out,
            "{},{},{},{},{},{},{},{},{:?},{},{},{},{},{}",
            id,
            r.arrival,
            r.n_gpus,
            opt(r.first_start),
            opt(r.completion),
            opt(r.jct()),
            r.preemptions,
            u8::from(tracked),
            r.work_s,
            opt(r.first_progress),
            opt(r.admitted),
            text(r.model.as_deref()),
            text(r.source_id.as_deref()),
            log.gpu_type_names(r).collect::<Vec<_>>().join("+"),
        )?;
        if failures {
            write!(out, ",{}", r.failures)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Write `timeline.csv`: one row per round (see the engine docs for the sampling point), except
/// that a stretch of rounds with the state unchanged is written as its first and last rows
/// only: the rounds between them, one every round length, hold the same values. A stretch is
/// either rounds the engine skipped ([`blox_core::RoundStretch`]) or evenly spaced processed
/// rounds with equal values and no preemption (see [`Timeline`]). Read as a step function (each
/// row's values hold until the next row's time) the file is exact, and every round with a
/// preemption is a row of its own, so the column's sum is the run's preemptions; a one-job run
/// of 10^9 s at one-second rounds is a handful of rows, not 10^9, under every time model. A
/// stretch of one or two rounds is written in full, so a run in which no three consecutive
/// rounds are alike has one row per round.
///
/// Columns: `time_s` (seconds), `jobs_in_queue` (admitted, not running), `jobs_running`,
/// `free_gpus`, `gpu_demand` (Σ requested GPUs of the active jobs), `preemptions` (decided that
/// round), `jobs_pending_admission` (arrived, not yet admitted).
pub fn write_timeline_csv(out: &mut impl Write, timeline: &Timeline) -> io::Result<()> {
    write_timeline_csv_with(out, timeline, None)
}

/// Write `timeline.csv` as [`write_timeline_csv`] does; with `Some(total)`, a last column
/// `available_gpus` holds the GPUs in service (`total` for a sample that does not record them).
/// Runs with cluster management write it; others keep the frozen format.
pub fn write_timeline_csv_with(
    out: &mut impl Write,
    timeline: &Timeline,
    available: Option<u32>,
) -> io::Result<()> {
    if available.is_some() {
        writeln!(out, "{TIMELINE_CSV_HEADER},available_gpus")?;
    } else {
        writeln!(out, "{TIMELINE_CSV_HEADER}")?;
    }
    let row = |out: &mut dyn Write, s: &blox_core::RoundSample| -> io::Result<()> {
        write!(
            out,
            "{},{},{},{},{},{},{}",
            s.time,
            s.jobs_in_queue,
            s.jobs_running,
            s.free_gpus,
            s.gpu_demand,
            s.preemptions,
            s.jobs_pending_admission
        )?;
        if let Some(total) = available {
            write!(out, ",{}", s.available_gpus.unwrap_or(total))?;
        }
        writeln!(out)
    };
    for st in timeline.stretches() {
        row(out, &st.first)?;
        if st.count >= 2 {
            row(out, &st.last())?;
        }
    }
    Ok(())
}
