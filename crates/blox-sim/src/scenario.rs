//! Scenarios: a whole run described as data (a TOML or JSON file, or command-line flags), and
//! running one through the boxed (runtime) path.

use crate::engine::{SimConfig, Simulator, TrackWindow, BLOX_STARVATION};
use crate::workload::{read_canonical_csv, BloxDefaultWorkload, JobList, Workload};
use crate::SimError;
use blox_admission::AdmissionConfig;
use blox_core::{BoxThroughput, ClusterSpec, ConstantSpeed, JobId, Pipeline, Semantics, Time};
use blox_metrics::{write_jobs_csv, write_timeline_csv, JobLog, Summary, Timeline};
use blox_placement::PlacementConfig;
use blox_policies::{PolicyConfig, PolicyEnv};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Blox's N: the number of trace jobs whose durations the default generator cycles through.
pub const BLOX_TRACE_JOBS: usize = 12_000;

/// Where the jobs come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadConfig {
    /// Blox's default generator: Poisson arrivals at `load` jobs/hour, Blox's Philly-like
    /// durations, 1 GPU per job.
    BloxDefault {
        /// Jobs per hour.
        #[serde(default = "default_load")]
        load: f64,
        /// Blox's N (durations repeat after this many jobs).
        #[serde(default = "default_trace_jobs")]
        trace_jobs: usize,
    },
    /// Jobs read from a file.
    Trace {
        /// The file.
        path: PathBuf,
        /// Its format (only `canonical` for now).
        #[serde(default = "default_format")]
        format: String,
    },
}

fn default_load() -> f64 {
    DEFAULT_LOAD
}
fn default_trace_jobs() -> usize {
    BLOX_TRACE_JOBS
}
fn default_format() -> String {
    "canonical".into()
}

/// The default load of the synthetic workload, in jobs per hour: contended (Blox's default
/// workload saturates 128 GPUs at about 7.6 jobs/h; Blox's admission study uses 8).
pub const DEFAULT_LOAD: f64 = 8.0;

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig::BloxDefault {
            load: DEFAULT_LOAD,
            trace_jobs: BLOX_TRACE_JOBS,
        }
    }
}

/// A complete run description. Every field has a default, so `{}` is a valid scenario: Blox's
/// default workload at load 8 on 32×4 GPUs, FIFO, accept-all, scattered placement, `exact`
/// semantics, 300 s rounds, jobs 3000..4000 tracked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// Time semantics: `blox` or `exact`.
    pub semantics: Semantics,
    /// The workload.
    pub workload: WorkloadConfig,
    /// The cluster as `NODESxGPUS`.
    pub cluster: String,
    /// Round length in seconds.
    pub round_s: u64,
    /// Admission policy.
    pub admission: AdmissionConfig,
    /// Scheduling policy.
    pub policy: PolicyConfig,
    /// Placement policy.
    pub placement: PlacementConfig,
    /// Tracked job ids `FIRST..LAST` (inclusive). Default: `3000..4000` for the Blox generator
    /// (Blox's default), every job for a trace.
    pub track: Option<String>,
    /// Seed. For the Blox generator it is CPython's `random.seed` (1 reproduces Blox).
    pub seed: u64,
    /// `exact` only: seconds a job spends restoring when it resumes after a preemption.
    pub preemption_cost_s: f64,
    /// Seconds of waiting after which a job is promoted to the starved class (Blox: 3,600,000);
    /// `0` disables it.
    pub starvation_s: u64,
    /// Output folder (`jobs.csv`, `summary.json`, `timeline.csv`).
    pub out: Option<PathBuf>,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            semantics: Semantics::Exact,
            workload: WorkloadConfig::default(),
            cluster: "32x4".into(),
            round_s: 300,
            admission: AdmissionConfig::AcceptAll,
            policy: PolicyConfig::Fifo,
            placement: PlacementConfig::Scattered,
            track: None,
            seed: 1,
            preemption_cost_s: 0.0,
            starvation_s: BLOX_STARVATION.as_secs(),
            out: None,
        }
    }
}

/// The result of a run: what the engine reported, what the sinks recorded, and the statistics.
#[derive(Debug)]
pub struct RunReport {
    /// The scenario that was run (with defaults filled in).
    pub scenario: Scenario,
    /// Engine counters.
    pub outcome: crate::RunOutcome,
    /// Per-job records.
    pub log: JobLog,
    /// Per-round samples.
    pub timeline: Timeline,
    /// Statistics over the tracked jobs.
    pub summary: Summary,
}

/// `summary.json`'s shape.
#[derive(Serialize)]
struct SummaryFile<'a> {
    avg_jct_s: f64,
    avg_responsiveness_s: f64,
    n_tracked: u64,
    preemptions_total: u64,
    makespan_s: f64,
    end_time_s: f64,
    statistics: &'a Summary,
    run: &'a crate::RunOutcome,
    config: &'a Scenario,
}

impl Scenario {
    /// Read a scenario from a `.toml` or `.json` file.
    pub fn from_file(path: &Path) -> Result<Scenario, SimError> {
        let text = std::fs::read_to_string(path).map_err(|e| SimError::io(path, e))?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_json {
            serde_json::from_str(&text)
                .map_err(|e| SimError::input(path, Some(e.line() as u64), None, e.to_string()))
        } else {
            toml::from_str(&text).map_err(|e| {
                let msg = e.message().to_string();
                // An unknown key is blamed on the whole table; point at the key's own line.
                let key = msg
                    .strip_prefix("unknown field `")
                    .and_then(|rest| rest.split('`').next())
                    .map(str::to_string);
                let key_line = key.as_deref().and_then(|k| {
                    text.lines().position(|l| {
                        l.trim_start()
                            .strip_prefix(k)
                            .is_some_and(|r| r.trim_start().starts_with('='))
                    })
                });
                let line = key_line.map(|i| i as u64 + 1).or_else(|| {
                    e.span()
                        .map(|s| text[..s.start].matches('\n').count() as u64 + 1)
                });
                SimError::input(path, line, key.as_deref(), msg)
            })
        }
    }

    /// The tracked window: the given one, else `3000..4000` for the Blox generator (Blox's
    /// default), else none (every job).
    pub fn track_window(&self) -> Result<Option<TrackWindow>, SimError> {
        match &self.track {
            Some(s) => Ok(Some(s.parse()?)),
            None => match self.workload {
                WorkloadConfig::BloxDefault { .. } => Ok(Some(TrackWindow::new(3000, 4000)?)),
                WorkloadConfig::Trace { .. } => Ok(None),
            },
        }
    }

    /// The cluster.
    pub fn cluster_spec(&self) -> Result<ClusterSpec, SimError> {
        self.cluster
            .parse::<ClusterSpec>()
            .map_err(|e| SimError::Config(e.0))
    }

    /// The engine configuration.
    pub fn sim_config(&self) -> Result<SimConfig, SimError> {
        if self.round_s == 0 {
            return Err(SimError::Config(
                "--round must be a positive number of seconds".into(),
            ));
        }
        let cost = Time::from_secs_f64_ceil(self.preemption_cost_s).ok_or_else(|| {
            SimError::Config(format!(
                "preemption cost `{}` must be a number of seconds ≥ 0",
                self.preemption_cost_s
            ))
        })?;
        if self.semantics == Semantics::Blox && cost != Time::ZERO {
            return Err(SimError::Config(
                "a preemption cost applies to `exact` semantics only (Blox's preemptions are free)"
                    .into(),
            ));
        }
        let starvation = (self.starvation_s > 0).then(|| Time::from_secs(self.starvation_s));
        Ok(SimConfig::new(self.semantics)
            .with_round(Time::from_secs(self.round_s))
            .with_track(self.track_window()?)
            .with_preemption_cost(cost)
            .with_starvation(starvation))
    }

    /// Build the workload.
    pub fn workload(&self) -> Result<Box<dyn Workload + Send>, SimError> {
        Ok(match &self.workload {
            WorkloadConfig::BloxDefault { load, trace_jobs } => Box::new(
                BloxDefaultWorkload::with_seed(*load, *trace_jobs, self.seed)?,
            ),
            WorkloadConfig::Trace { path, format } => match format.as_str() {
                "canonical" => Box::new(JobList::new(read_canonical_csv(path)?)),
                other => {
                    return Err(SimError::Config(format!(
                        "unknown trace format `{other}` (supported: canonical)"
                    )))
                }
            },
        })
    }

    /// The load of the synthetic workload, if any.
    pub fn load(&self) -> Option<f64> {
        match self.workload {
            WorkloadConfig::BloxDefault { load, .. } => Some(load),
            WorkloadConfig::Trace { .. } => None,
        }
    }

    /// The throughput model the scenario implies: constant speed (1.0, or Blox's Optimus
    /// factor).
    pub fn throughput(&self) -> Result<BoxThroughput, SimError> {
        let env = PolicyEnv::new(self.semantics, self.load());
        Ok(Box::new(ConstantSpeed(self.policy.speed_factor(&env)?)))
    }

    /// A one-line description, e.g. `exact accept-all/las/scattered`.
    pub fn label(&self) -> String {
        format!(
            "{} {}/{}/{}",
            self.semantics, self.admission, self.policy, self.placement
        )
    }

    /// Run the scenario through the boxed (runtime) pipeline, and write the output files if
    /// `out` is set.
    pub fn run(&self) -> Result<RunReport, SimError> {
        let env = PolicyEnv::new(self.semantics, self.load());
        let scheduler = Pipeline::new(
            self.admission.build()?,
            self.policy.build(&env)?,
            self.placement.build()?,
        );
        let cfg = self.sim_config()?;
        let cluster = self.cluster_spec()?;
        let throughput = self.throughput()?;
        let mut workload = self.workload()?;
        let mut sim = Simulator::new(
            cfg,
            cluster,
            scheduler,
            throughput,
            (JobLog::default(), Timeline::default()),
        );
        let outcome = sim.run(&mut workload)?;
        let (log, timeline) = sim.into_sink();
        self.report(outcome, log, timeline)
    }

    /// Turn a finished run's records into a report (and files, if `out` is set).
    pub fn report(
        &self,
        outcome: crate::RunOutcome,
        log: JobLog,
        timeline: Timeline,
    ) -> Result<RunReport, SimError> {
        let window = self
            .track_window()?
            .map(|w| (JobId(w.first), JobId(w.last)));
        let summary = Summary::compute(&log, window);
        let report = RunReport {
            scenario: self.clone(),
            outcome,
            log,
            timeline,
            summary,
        };
        if let Some(dir) = &self.out {
            report.write(dir)?;
        }
        Ok(report)
    }
}

impl RunReport {
    fn window(&self) -> Option<(JobId, JobId)> {
        self.scenario
            .track_window()
            .ok()
            .flatten()
            .map(|w| (JobId(w.first), JobId(w.last)))
    }

    /// The `jobs.csv` text.
    pub fn jobs_csv(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        write_jobs_csv(&mut buf, &self.log, self.window()).expect("writing to memory");
        buf
    }

    /// The `timeline.csv` text.
    pub fn timeline_csv(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        write_timeline_csv(&mut buf, &self.timeline).expect("writing to memory");
        buf
    }

    /// The `summary.json` text.
    pub fn summary_json(&self) -> Vec<u8> {
        let file = SummaryFile {
            avg_jct_s: self.summary.avg_jct_s,
            avg_responsiveness_s: self.summary.avg_responsiveness_s,
            n_tracked: self.summary.n_tracked,
            preemptions_total: self.outcome.preemptions,
            makespan_s: self.summary.makespan_s,
            end_time_s: self.outcome.end_time.as_secs_f64(),
            statistics: &self.summary,
            run: &self.outcome,
            config: &self.scenario,
        };
        let mut buf = serde_json::to_vec_pretty(&file).expect("serialising to memory");
        buf.push(b'\n');
        buf
    }

    /// Write `jobs.csv`, `summary.json` and `timeline.csv` into `dir` (created if missing). Each
    /// file is written to a temporary name and renamed, so an existing output is never left
    /// half-written.
    pub fn write(&self, dir: &Path) -> Result<(), SimError> {
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        for (name, bytes) in [
            ("jobs.csv", self.jobs_csv()),
            ("timeline.csv", self.timeline_csv()),
            ("summary.json", self.summary_json()),
        ] {
            let path = dir.join(name);
            let tmp = dir.join(format!(".{name}.tmp"));
            let mut f = std::fs::File::create(&tmp).map_err(|e| SimError::io(&tmp, e))?;
            f.write_all(&bytes).map_err(|e| SimError::io(&tmp, e))?;
            f.sync_all().map_err(|e| SimError::io(&tmp, e))?;
            std::fs::rename(&tmp, &path).map_err(|e| SimError::io(&path, e))?;
        }
        Ok(())
    }
}
