//! What a long run says while it runs, from outside the engine: a metric sink that reports
//! progress (simulated time, tracked jobs done) on standard error, a workload wrapper that ends
//! the run with a clear error once simulated time passes `--max-sim-time`, and the overload
//! warning given at start.
//!
//! Neither needs an engine hook: the sink sees every event, and the engine asks the workload for
//! its arrivals at every decision time, so the wrapper sees simulated time advance. (The
//! timeline samples of skipped idle rounds are emitted before that call; bounding their memory
//! is the engine's part.)

use blox_core::{Event, JobId, JobSpec, MetricSink, Time};
use blox_sim::workload::Workload;
use blox_sim::SimError;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counters shared by the progress sink and the time limit (so the limit's message can say how
/// far the run got).
#[derive(Debug, Default)]
pub struct ProgressState {
    /// Tracked jobs completed.
    pub tracked_done: AtomicU64,
    /// Jobs arrived.
    pub arrived: AtomicU64,
}

/// Where a run's progress goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgressMode {
    /// Nowhere.
    #[default]
    Off,
    /// Standard error, as a line redrawn in place (a terminal).
    Terminal,
    /// Standard error, one line per report (a log file).
    Lines,
}

/// A metric sink that counts completions and reports progress, forwarding every event to `M`.
pub struct Progress<M> {
    inner: M,
    state: Arc<ProgressState>,
    window: Option<(JobId, JobId)>,
    tracked_total: Option<u64>,
    mode: ProgressMode,
    label: String,
    events: u64,
    last_print: Option<Instant>,
    now: Time,
}

/// How often (in events) the sink looks at the clock, and how often (wall time) it reports.
const CHECK_EVERY: u64 = 4096;
const PRINT_EVERY: Duration = Duration::from_millis(500);

impl<M> Progress<M> {
    /// Wrap `inner`. `window` is the tracked window (every job when `None`), `tracked_total`
    /// how many tracked jobs there are, when known.
    pub fn new(
        inner: M,
        state: Arc<ProgressState>,
        window: Option<(JobId, JobId)>,
        tracked_total: Option<u64>,
        mode: ProgressMode,
        label: String,
    ) -> Self {
        Progress {
            inner,
            state,
            window,
            tracked_total,
            mode,
            label,
            events: 0,
            last_print: None,
            now: Time::ZERO,
        }
    }

    /// The wrapped sink.
    pub fn into_inner(self) -> M {
        self.inner
    }

    /// The progress line: simulated time, tracked jobs done (of how many), jobs arrived.
    pub fn line(&self) -> String {
        let done = self.state.tracked_done.load(Ordering::Relaxed);
        let of = self
            .tracked_total
            .map_or_else(String::new, |n| format!(" of {n}"));
        format!(
            "{}: simulated {}, {done}{of} tracked jobs done, {} arrived",
            self.label,
            human_time(self.now),
            self.state.arrived.load(Ordering::Relaxed)
        )
    }

    fn print(&mut self, last: bool) {
        let line = self.line();
        let mut err = std::io::stderr().lock();
        let _ = match (self.mode, last) {
            (ProgressMode::Off, _) => Ok(()),
            (ProgressMode::Terminal, false) => write!(err, "\r\x1b[K{line}"),
            (ProgressMode::Terminal, true) => writeln!(err, "\r\x1b[K{line}"),
            (ProgressMode::Lines, _) => writeln!(err, "{line}"),
        };
        let _ = err.flush();
        self.last_print = Some(Instant::now());
    }
}

impl<M: MetricSink> MetricSink for Progress<M> {
    /// A stretch of skipped rounds reaches the inner sinks as one (O(1)) and moves the clock to
    /// its last round.
    fn on_rounds(&mut self, stretch: &blox_core::RoundStretch) {
        self.inner.on_rounds(stretch);
        if stretch.count > 0 {
            self.now = self.now.max(stretch.last().time);
        }
    }

    fn on_event(&mut self, event: &Event<'_>) {
        self.inner.on_event(event);
        match *event {
            Event::Arrived { .. } => {
                self.state.arrived.fetch_add(1, Ordering::Relaxed);
            }
            Event::Completed { time, job } => {
                self.now = self.now.max(time);
                let tracked = self.window.is_none_or_contains(job);
                if tracked {
                    self.state.tracked_done.fetch_add(1, Ordering::Relaxed);
                }
            }
            Event::Round(s) => self.now = self.now.max(s.time),
            Event::End { time } => {
                self.now = self.now.max(time);
                if self.mode != ProgressMode::Off {
                    self.print(true);
                }
                return;
            }
            _ => {}
        }
        if self.mode == ProgressMode::Off {
            return;
        }
        self.events += 1;
        // The first report comes at once; later ones at most every PRINT_EVERY.
        if self.last_print.is_none()
            || (self.events % CHECK_EVERY == 0
                && self.last_print.is_some_and(|t| t.elapsed() >= PRINT_EVERY))
        {
            self.print(false);
        }
    }
}

trait WindowExt {
    fn is_none_or_contains(&self, job: JobId) -> bool;
}

impl WindowExt for Option<(JobId, JobId)> {
    fn is_none_or_contains(&self, job: JobId) -> bool {
        match self {
            None => true,
            Some((a, b)) => *a <= job && job <= *b,
        }
    }
}

/// `93 s`, `2.5 h`, `41.7 d`, `3.2 y`: simulated time for people.
pub fn human_time(t: Time) -> String {
    let s = t.as_secs_f64();
    if s < 3_600.0 {
        format!("{s:.0} s")
    } else if s < 86_400.0 * 2.0 {
        format!("{:.1} h", s / 3_600.0)
    } else if s < 86_400.0 * 730.0 {
        format!("{:.1} d", s / 86_400.0)
    } else {
        format!("{:.1} y", s / (86_400.0 * 365.25))
    }
}

/// A workload that ends the run with an error once simulated time passes `limit` (the engine
/// asks for arrivals at every time it processes, also after the last arrival).
pub struct TimeLimit<W> {
    inner: W,
    limit: Time,
    state: Arc<ProgressState>,
    tracked_total: Option<u64>,
}

impl<W> TimeLimit<W> {
    /// Wrap `inner` with a limit on simulated time.
    pub fn new(
        inner: W,
        limit: Time,
        state: Arc<ProgressState>,
        tracked_total: Option<u64>,
    ) -> Self {
        TimeLimit {
            inner,
            limit,
            state,
            tracked_total,
        }
    }
}

impl<W: Workload> Workload for TimeLimit<W> {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        if t > self.limit {
            let done = self.state.tracked_done.load(Ordering::Relaxed);
            let of = self
                .tracked_total
                .map_or_else(String::new, |n| format!(" of {n}"));
            return Err(SimError::Unfinished(format!(
                "the run passed --max-sim-time ({} s of simulated time; now at {} s) before it \
                 finished: {done}{of} tracked jobs done, {} arrived. Raise --max-sim-time, or \
                 lower the load (no output was written)",
                self.limit.as_secs_f64(),
                t.as_secs_f64(),
                self.state.arrived.load(Ordering::Relaxed)
            )));
        }
        self.inner.arrivals_until(t, out)
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        self.inner.next_arrival()
    }

    fn load(&self) -> Option<f64> {
        self.inner.load()
    }
}

/// The warning printed at start when the jobs offer more work than the cluster can do:
/// `fraction` is the offered load (GPU-seconds of the jobs per second of their arrival span)
/// over the cluster's GPUs. It says what follows and nothing more: the queue grows while jobs
/// arrive (how long the run takes depends on what ends it, not on the load alone).
pub fn overload_warning(fraction: f64, total_gpus: u32) -> Option<String> {
    (fraction > 1.0).then(|| {
        format!(
            "warning: the jobs offer {fraction:.1}x the work {total_gpus} GPUs can do (GPU-seconds \
             per second of their arrival span): the queue and waiting times grow for as long as \
             jobs arrive, so JCTs depend on when the measured jobs arrive; --max-sim-time \
             SECONDS bounds a run"
        )
    })
}

/// The fewest jobs whose arrival span says anything about the offered load: a trace with
/// fewer is not warned about (two jobs a second apart are no load of 360x).
pub const MIN_JOBS_FOR_LOAD: u64 = 20;

/// The offered load of `jobs` on `total_gpus` GPUs (see [`overload_warning`]), if their arrivals
/// span some time.
pub fn offered_fraction(jobs: &[JobSpec], total_gpus: u32) -> Option<f64> {
    blox_workload::TraceStats::compute(jobs, Some(total_gpus)).offered_load_fraction
}

/// Up to `n` jobs from the start of a workload (for estimating a generator's offered load).
pub fn sample(w: &mut dyn Workload, n: usize) -> Result<Vec<JobSpec>, SimError> {
    let mut out = Vec::new();
    while out.len() < n {
        match w.next_arrival()? {
            Some(t) => w.arrivals_until(t, &mut out)?,
            None => break,
        }
    }
    Ok(out)
}
