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

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::{Event, MetricSink, RoundSample, RoundStretch, Time};

    fn sample(t: u64, queue: u32, free: u32) -> RoundSample {
        RoundSample::new(Time::from_secs(t), queue, 1, 0, free, 1, 0)
    }

    fn csv(tl: &Timeline) -> String {
        let mut buf = Vec::new();
        write_timeline_csv(&mut buf, tl).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn a_stretch_is_its_first_and_last_row() {
        let mut tl = Timeline::default();
        tl.on_event(&Event::Round(sample(0, 2, 0)));
        tl.on_rounds(&RoundStretch::new(
            sample(300, 0, 3),
            Time::from_secs(300),
            1_000_000,
        ));
        tl.on_event(&Event::Round(sample(300_000_300, 1, 0)));
        // A stretch of two is written in full, one of one is a plain row.
        tl.on_rounds(&RoundStretch::new(
            sample(300_000_600, 0, 4),
            Time::from_secs(300),
            2,
        ));
        tl.on_rounds(&RoundStretch::new(
            sample(300_001_200, 0, 2),
            Time::from_secs(300),
            1,
        ));
        assert_eq!(tl.round_count(), 1_000_005);
        assert_eq!(tl.stored_len(), 5);
        assert_eq!(
            csv(&tl),
            format!(
                "{TIMELINE_CSV_HEADER}\n0,2,1,0,1,0,0\n300,0,1,3,1,0,0\n300000000,0,1,3,1,0,0\n\
                 300000300,1,1,0,1,0,0\n300000600,0,1,4,1,0,0\n300000900,0,1,4,1,0,0\n\
                 300001200,0,1,2,1,0,0\n"
            )
        );
    }

    #[test]
    fn without_long_stretches_there_is_one_row_per_round() {
        let mut compact = Timeline::default();
        let mut plain = Timeline::default();
        for (i, t) in [0u64, 300, 900, 1200].into_iter().enumerate() {
            let s = sample(t, i as u32, 1);
            compact.on_event(&Event::Round(s));
            plain.on_event(&Event::Round(s));
        }
        let st = RoundStretch::new(sample(1500, 0, 4), Time::from_secs(300), 2);
        compact.on_rounds(&st);
        for s in st.samples() {
            plain.on_event(&Event::Round(s));
        }
        assert_eq!(csv(&compact), csv(&plain));
        assert_eq!(compact.stored_len(), 5);
        // The two equal rounds fed one by one are merged as the engine's stretch of two is.
        assert_eq!(plain.stored_len(), 5);
    }

    #[test]
    fn equal_processed_rounds_are_one_stretch_and_preemptions_are_never_merged() {
        // A model that decides every round (Synergy's) while nothing changes: a million equal
        // rounds, one entry, two rows.
        let mut tl = Timeline::default();
        for k in 0..1_000_000u64 {
            tl.on_event(&Event::Round(sample(300 * k, 0, 3)));
        }
        assert_eq!((tl.round_count(), tl.stored_len()), (1_000_000, 1));
        assert_eq!(
            csv(&tl),
            format!("{TIMELINE_CSV_HEADER}\n0,0,1,3,1,0,0\n299999700,0,1,3,1,0,0\n")
        );
        // A change of value, or of spacing, starts a new entry; rounds with preemptions are
        // kept one by one, so summing the column over the rows counts every preemption.
        tl.on_event(&Event::Round(sample(300_000_000, 1, 3)));
        tl.on_event(&Event::Round(sample(300_000_900, 1, 3)));
        tl.on_event(&Event::Round(sample(300_001_200, 1, 3)));
        let pre = RoundSample::new(Time::from_secs(300_001_500), 1, 1, 0, 3, 1, 2);
        tl.on_event(&Event::Round(pre));
        let mut again = pre;
        again.time = Time::from_secs(300_001_800);
        tl.on_event(&Event::Round(again));
        assert_eq!(tl.round_count(), 1_000_005);
        assert_eq!(tl.stored_len(), 5);
        let rows: Vec<String> = csv(&tl).lines().skip(3).map(String::from).collect();
        assert_eq!(
            rows,
            [
                "300000000,1,1,3,1,0,0",
                "300000900,1,1,3,1,0,0",
                "300001200,1,1,3,1,0,0",
                "300001500,1,1,3,1,2,0",
                "300001800,1,1,3,1,2,0",
            ]
        );
    }
}
