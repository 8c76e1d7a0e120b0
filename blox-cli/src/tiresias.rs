//! `--semantics tiresias`: runs the `tiresias` time model of `blox-sim`
//! ([`blox_sim::time::tiresias`]) with Tiresias' schedules and placement schemes by their own
//! names, and writes the project's output files plus Tiresias' own `job.csv`.

use blox_metrics::{
    write_jct_cdf_csv, write_jobs_csv, write_timeline_csv, JobLog, RunMetrics, Timeline,
};
use blox_placement::tiresias::{PeerScheme, TiresiasClusterSpec};
use blox_policies::tiresias_peer::{
    GittinsTable, PeerPolicy, PeerSchedule, TIRESIAS_GITTINS_SAMPLE,
};
use blox_sim::time::tiresias::{
    run_tiresias, run_tiresias_engine, PeerInput, PeerRun, PeerStop, TiresiasConfig,
};
use blox_sim::SimError;
use blox_workload::{read_traces, ReadOptions, TraceFormat};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything a `--semantics tiresias` run needs from the command line.
#[derive(Clone, Debug, Default)]
pub(crate) struct TiresiasArgs {
    pub trace: Vec<PathBuf>,
    pub trace_format: Option<String>,
    pub skip_bad_lines: bool,
    pub cluster: Option<String>,
    pub cluster_spec: Option<PathBuf>,
    pub policy: Option<String>,
    pub placement: Option<String>,
    pub out: Option<PathBuf>,
}

/// A finished `--semantics tiresias` run.
pub(crate) struct TiresiasReport {
    pub policy: PeerPolicy,
    pub scheme: PeerScheme,
    pub cluster: TiresiasClusterSpec,
    pub gittins_sample: Option<PathBuf>,
    pub run: PeerRun,
    pub log: JobLog,
    pub timeline: Timeline,
    pub metrics: RunMetrics,
}

impl TiresiasArgs {
    fn cluster(&self) -> Result<TiresiasClusterSpec, SimError> {
        let cfg = |e: blox_placement::tiresias::ClusterSpecError| SimError::Config(e.0);
        match (&self.cluster_spec, &self.cluster) {
            (Some(_), Some(_)) => Err(SimError::Config(
                "give either --cluster or --cluster-spec, not both".into(),
            )),
            (Some(f), None) => TiresiasClusterSpec::read(f).map_err(cfg),
            (None, Some(c)) if c.to_ascii_lowercase().ends_with(".csv") => {
                TiresiasClusterSpec::read(Path::new(c)).map_err(cfg)
            }
            (None, Some(c)) => TiresiasClusterSpec::from_shape(c).map_err(cfg),
            (None, None) => Ok(TiresiasClusterSpec::DEFAULT),
        }
    }

    /// Where the Gittins sample is: `distribution=FILE`, else `yarn-gput1000.csv` next to the
    /// first trace, in the working directory (where the original reads it), in
    /// `$BLOX_TRACES/tiresias/`, or in `shared/traces/tiresias/` above the working directory.
    fn gittins_sample(&self, policy: &PeerPolicy) -> Result<PathBuf, SimError> {
        if let Some(f) = &policy.distribution {
            return Ok(f.clone());
        }
        let mut tried = Vec::new();
        if let Some(dir) = self.trace.first().and_then(|t| t.parent()) {
            tried.push(dir.join(TIRESIAS_GITTINS_SAMPLE));
        }
        tried.push(PathBuf::from(TIRESIAS_GITTINS_SAMPLE));
        if let Some(d) = std::env::var_os("BLOX_TRACES") {
            tried.push(
                PathBuf::from(d)
                    .join("tiresias")
                    .join(TIRESIAS_GITTINS_SAMPLE),
            );
        }
        if let Ok(cwd) = std::env::current_dir() {
            for a in cwd.ancestors() {
                tried.push(
                    a.join("shared/traces/tiresias")
                        .join(TIRESIAS_GITTINS_SAMPLE),
                );
            }
        }
        tried.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
            SimError::Config(format!(
                "dlas-gpu-gittins: no {TIRESIAS_GITTINS_SAMPLE} found (looked next to the trace, \
                 in the working directory, in $BLOX_TRACES/tiresias and in shared/traces/tiresias \
                 above it); give it as dlas-gpu-gittins:distribution=FILE"
            ))
        })
    }

    /// Read, run and (with `out`) write.
    pub(crate) fn run(&self) -> Result<TiresiasReport, SimError> {
        if self.trace.is_empty() {
            return Err(SimError::Config(
                "--semantics tiresias runs a trace: give --trace FILE (e.g. Tiresias' 60_job.csv \
                 with --trace-format tiresias)"
                    .into(),
            ));
        }
        let format: TraceFormat = self
            .trace_format
            .as_deref()
            .unwrap_or("tiresias")
            .parse()
            .map_err(|e: blox_workload::UnknownFormat| SimError::Config(e.to_string()))?;
        let policy = PeerPolicy::parse(self.policy.as_deref().unwrap_or("fifo"))
            .map_err(|e| SimError::Config(format!("--policy: {e}")))?;
        let scheme = PeerScheme::parse(self.placement.as_deref().unwrap_or("yarn"))
            .map_err(|e| SimError::Config(format!("--placement: {e}")))?;
        let cluster = self.cluster()?;
        let (gittins, gittins_sample) = if policy.schedule == PeerSchedule::DlasGpuGittins {
            let path = self.gittins_sample(&policy)?;
            let text = std::fs::read_to_string(&path).map_err(|e| SimError::io(&path, e))?;
            let table = GittinsTable::parse_csv(&text, policy.delta).map_err(|e| {
                SimError::input(
                    &path,
                    (e.line > 0).then_some(e.line as u64),
                    Some("duration"),
                    e.message,
                )
            })?;
            (Some(Arc::new(table)), Some(path))
        } else {
            (None, None)
        };
        let mut opts = ReadOptions::default();
        opts.skip_bad_lines = self.skip_bad_lines;
        let inputs: Vec<(PathBuf, TraceFormat)> =
            self.trace.iter().map(|p| (p.clone(), format)).collect();
        let read = read_traces(&inputs, &opts)?;
        let jobs = PeerInput::from_specs(&read.jobs)?;
        let cfg = TiresiasConfig::new(policy.clone(), scheme, cluster, gittins)?;
        let sink = (JobLog::default(), Timeline::default());
        // The engine's decision times only move forward: runs the original can take back in
        // time (a queue jump predicted before the current event, possible only with thresholds
        // that decrease) and `random`'s crash run on the self-contained event loop.
        let backwards =
            policy.schedule.is_dlas() && policy.thresholds.windows(2).any(|w| w[0] > w[1]);
        let (run, (log, timeline)) =
            if backwards || (scheme == PeerScheme::Random && !policy.schedule.is_dlas()) {
                let mut sink = sink;
                let run = run_tiresias(&cfg, &jobs, &mut sink);
                (run, sink)
            } else {
                let (outcome, model, sink) = run_tiresias_engine(&cfg, &jobs, sink)?;
                (PeerRun::from_engine(&model, &outcome, scheme, &jobs), sink)
            };
        let total = cluster.total_gpus().clamp(0, u32::MAX as i64) as u32;
        let metrics = RunMetrics::compute(policy.to_string(), &log, &timeline, None, total);
        let report = TiresiasReport {
            policy,
            scheme,
            cluster,
            gittins_sample,
            run,
            log,
            timeline,
            metrics,
        };
        if let Some(dir) = &self.out {
            report.write(dir, &self.trace)?;
        }
        if let PeerStop::NeverEnds { time } = report.run.stop {
            return Err(SimError::Stalled(format!(
                "Tiresias' simulator never terminates on this run: at t = {time} s its predicted \
                 queue jump lies at the current time but demotes nothing, forever ({} of {} jobs \
                 had completed{})",
                report.run.rows.len(),
                report.run.jobs.len(),
                if self.out.is_some() {
                    "; outputs written"
                } else {
                    ""
                }
            )));
        }
        Ok(report)
    }
}

#[derive(Serialize)]
struct Summary<'a> {
    semantics: &'static str,
    policy: String,
    placement: &'static str,
    cluster: String,
    trace: &'a [PathBuf],
    gittins_sample: Option<&'a Path>,
    n_jobs: usize,
    n_completed: usize,
    n_never_completed: usize,
    stop: &'static str,
    avg_jct_s: f64,
    makespan_s: i64,
    preemptions_total: u64,
    events: u64,
    end_time_s: i64,
    statistics: &'a blox_metrics::Summary,
    cluster_stats: &'a blox_metrics::TimelineStats,
}

impl TiresiasReport {
    /// Why the run stopped, in words.
    pub(crate) fn stop_text(&self) -> &'static str {
        match self.run.stop {
            PeerStop::AllDone => "all jobs completed",
            PeerStop::NotLargeEnough => {
                "stopped early: jobs remain that can never be placed (\"This cluster is not large enough to run the job\")"
            }
            PeerStop::RandomCrash => {
                "no job logged: Tiresias' random placement crashes at its first completion under this schedule"
            }
            PeerStop::NeverEnds { .. } => {
                "stopped: the original never terminates here (a predicted queue jump at the current time that demotes nothing repeats forever); rows up to then kept"
            }
            _ => "stopped",
        }
    }

    /// Mean JCT over completed jobs, seconds.
    pub(crate) fn avg_jct_s(&self) -> f64 {
        if self.run.rows.is_empty() {
            return 0.0;
        }
        self.run.rows.iter().map(|r| r.jct() as f64).sum::<f64>() / self.run.rows.len() as f64
    }

    /// The last completion.
    pub(crate) fn makespan_s(&self) -> i64 {
        self.run.rows.iter().map(|r| r.end_time).max().unwrap_or(0)
    }

    fn write(&self, dir: &Path, trace: &[PathBuf]) -> Result<(), SimError> {
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        let mut jobs = Vec::new();
        write_jobs_csv(&mut jobs, &self.log, None).expect("writing to memory");
        let mut timeline = Vec::new();
        write_timeline_csv(&mut timeline, &self.timeline).expect("writing to memory");
        let mut cdf = Vec::new();
        write_jct_cdf_csv(&mut cdf, &self.metrics.jcts_s).expect("writing to memory");
        let summary = Summary {
            semantics: "tiresias",
            policy: self.policy.to_string(),
            placement: self.scheme.name(),
            cluster: self.cluster.to_string(),
            trace,
            gittins_sample: self.gittins_sample.as_deref(),
            n_jobs: self.run.jobs.len(),
            n_completed: self.run.rows.len(),
            n_never_completed: self.run.jobs.len() - self.run.rows.len(),
            stop: self.stop_text(),
            avg_jct_s: self.avg_jct_s(),
            makespan_s: self.makespan_s(),
            preemptions_total: self.run.rows.iter().map(|r| u64::from(r.preempt)).sum(),
            events: self.run.events,
            end_time_s: self.run.end_time,
            statistics: &self.metrics.statistics,
            cluster_stats: &self.metrics.cluster,
        };
        let mut json = serde_json::to_vec_pretty(&summary).expect("serialising to memory");
        json.push(b'\n');
        for (name, bytes) in [
            ("jobs.csv", jobs),
            ("job.csv", self.run.job_csv().into_bytes()),
            ("timeline.csv", timeline),
            ("jct_cdf.csv", cdf),
            ("summary.json", json),
        ] {
            crate::scenario::write_atomically(dir, name, &bytes)?;
        }
        Ok(())
    }
}
