//! Scenarios: a whole run described as data (a TOML or JSON file, or command-line flags), and
//! running one through the boxed (runtime) path.

use crate::preset;
use crate::registry::{Named, Registry};
use blox_admission::AdmissionConfig;
use blox_core::{
    BoxThroughput, ClusterSpec, ConstantSpeed, HeteroSpeed, JobId, Pipeline, Semantics,
    ThroughputTable, Time,
};
use blox_metrics::{
    plot_timeline, write_fairness_csv, write_jct_cdf_csv, write_jobs_csv, write_timeline_csv,
    JobLog, RunMetrics, Summary, Timeline,
};
use blox_placement::{PlacementConfig, PlacementSpeed, SynergyMode, Topology};
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_sim::time::{Blox, Exact, Synergy as SynergyTime, TimeModel};
use blox_sim::workload::{
    BloxDefaultWorkload, BloxMultiGpuTrace, BloxSynthetic, JobList, SynergyWorkload, Workload,
};
use blox_sim::SimError;
use blox_sim::{SimConfig, Simulator, TrackWindow, BLOX_STARVATION};
use blox_workload::{GavelThroughputs, ReadOptions, TraceFormat};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Blox's `multigpu=True` workload over a Philly `cluster_job_log` (BLOX-SEMANTICS,
    /// appendix): `blox-default`'s arrivals and durations at `load`, with N = the jobs the trace
    /// keeps under Blox's filter, each job taking the GPU count of kept entry `i mod N`.
    BloxMultigpuTrace {
        /// Jobs per hour.
        #[serde(default = "default_load")]
        load: f64,
        /// The Philly `cluster_job_log` (JSON, gzip allowed).
        path: PathBuf,
    },
    /// Blox's synthetic workload without a trace (BLOX-SEMANTICS, appendix): one seed stream
    /// draws each job's arrival, duration and GPU count (1, 2, 4 or 8).
    BloxSynthetic {
        /// Jobs per hour.
        #[serde(default = "default_load")]
        load: f64,
    },
    /// Jobs read from one or more files of one format, merged by arrival.
    Trace {
        /// The files (`path = "a.csv"` or `paths = ["a.csv", "b.csv"]` in scenario files).
        #[serde(alias = "path", deserialize_with = "one_or_many")]
        paths: Vec<PathBuf>,
        /// Their format: canonical, philly, itp, pollux, gavel, tiresias, alibaba2023, helios.
        #[serde(default = "default_format")]
        format: String,
        /// Count and skip malformed lines instead of stopping at the first.
        #[serde(default)]
        skip_bad_lines: bool,
    },
    /// Poisson arrivals at `load` jobs/hour with configurable durations and GPU counts
    /// (`blox_workload::PoissonGenerator`, seeded by the scenario's seed).
    Poisson {
        /// Jobs per hour.
        load: f64,
        /// How many jobs.
        #[serde(default = "default_jobs")]
        jobs: usize,
        /// `philly-like` (Blox/Gavel's mix), `constant:S`, `uniform:LO..HI`,
        /// `log-uniform:LO..HI` or `exponential:MEAN` (seconds).
        #[serde(default = "default_durations")]
        durations: String,
        /// `philly` (Philly's GPU-count mix, capped at the cluster size), `N`, or weights
        /// `1:0.7,4:0.2,8:0.1`.
        #[serde(default = "default_gpus")]
        gpus: String,
    },
    /// Blox's bursty workload in its intended form (long base jobs at `load` jobs/hour plus
    /// bursts of short jobs at 4 × load in recurring windows; `blox_workload::DualLoad`).
    DualLoad {
        /// Base jobs per hour.
        load: f64,
        /// How many jobs.
        #[serde(default = "default_jobs")]
        jobs: usize,
    },
    /// Synergy's default generator (OSDI 2022), bit-exact from the seed: Poisson arrivals at
    /// `load` jobs/hour, Gavel-style durations, 1 GPU, models of Synergy's zoo assigned to hold
    /// the class split (`blox_sim::workload::SynergyWorkload`).
    SynergyDefault {
        /// Jobs per hour (Synergy's default run: 9).
        #[serde(default = "default_synergy_load")]
        load: f64,
        /// Class split `IMAGE,LANGUAGE,SPEECH` in percent (default `20,70,10`).
        #[serde(default = "default_class_split")]
        class_split: String,
    },
    /// A real trace resampled at a target load: `jobs` jobs drawn with replacement, with fresh
    /// Poisson arrivals at `load` jobs/hour.
    Resample {
        /// The trace files.
        #[serde(alias = "path", deserialize_with = "one_or_many")]
        paths: Vec<PathBuf>,
        /// Their format.
        #[serde(default = "default_format")]
        format: String,
        /// Target arrival rate, jobs per hour.
        load: f64,
        /// How many jobs.
        #[serde(default = "default_jobs")]
        jobs: usize,
    },
}

fn parse_range(what: &str, v: &str) -> Result<(f64, f64), SimError> {
    let bad = || SimError::Config(format!("{what}: `{v}` is not LO..HI in seconds"));
    let (a, b) = v.split_once("..").ok_or_else(bad)?;
    Ok((
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    ))
}

/// Parse a duration distribution: `philly-like`, `constant:S`, `uniform:LO..HI`,
/// `log-uniform:LO..HI`, `exponential:MEAN`.
pub fn parse_durations(s: &str) -> Result<blox_workload::DurationDist, SimError> {
    use blox_workload::DurationDist as D;
    let (name, arg) = s.split_once(':').map_or((s, None), |(a, b)| (a, Some(b)));
    let num = |v: Option<&str>| -> Result<f64, SimError> {
        v.and_then(|v| v.trim().parse::<f64>().ok()).ok_or_else(|| {
            SimError::Config(format!("durations `{s}`: expected a number of seconds"))
        })
    };
    let d = match name {
        "philly-like" => D::PhillyLike,
        "constant" => D::Constant(num(arg)?),
        "exponential" => D::Exponential { mean: num(arg)? },
        "uniform" | "log-uniform" => {
            let (lo, hi) = parse_range(&format!("durations `{s}`"), arg.unwrap_or(""))?;
            if name == "uniform" {
                D::Uniform { lo, hi }
            } else {
                D::LogUniform { lo, hi }
            }
        }
        _ => {
            return Err(SimError::Config(format!(
                "unknown duration distribution `{s}` (expected philly-like, constant:S, \
                 uniform:LO..HI, log-uniform:LO..HI or exponential:MEAN)"
            )))
        }
    };
    d.validate()
        .map_err(|e| SimError::Config(format!("durations `{s}`: {}", e.message)))?;
    Ok(d)
}

/// Parse a GPU-count distribution: `philly` (capped at `max`), `N`, or `G:W,G:W,...`.
pub fn parse_gpus(s: &str, max: u32) -> Result<blox_workload::GpuDist, SimError> {
    use blox_workload::GpuDist as G;
    let bad = || {
        SimError::Config(format!(
            "GPU distribution `{s}`: expected philly, a whole number, or weights like 1:0.7,4:0.3"
        ))
    };
    let g = if s == "philly" {
        G::philly_up_to(max)
    } else if let Ok(n) = s.trim().parse::<u32>() {
        G::Fixed(n)
    } else {
        let mut v = Vec::new();
        for part in s.split(',') {
            let (g, w) = part.split_once(':').ok_or_else(bad)?;
            v.push((
                g.trim().parse().map_err(|_| bad())?,
                w.trim().parse().map_err(|_| bad())?,
            ));
        }
        G::Weighted(v)
    };
    g.validate()
        .map_err(|e| SimError::Config(format!("GPU distribution `{s}`: {}", e.message)))?;
    Ok(g)
}

/// Jobs generated by a synthetic generator default to this many.
pub const DEFAULT_GENERATED_JOBS: usize = 10_000;

fn default_jobs() -> usize {
    DEFAULT_GENERATED_JOBS
}
fn default_durations() -> String {
    "philly-like".into()
}
fn default_gpus() -> String {
    "philly".into()
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(PathBuf),
        Many(Vec<PathBuf>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(p) => vec![p],
        OneOrMany::Many(v) => v,
    })
}

impl WorkloadConfig {
    /// A trace workload of one canonical CSV file.
    pub fn canonical(path: impl Into<PathBuf>) -> Self {
        WorkloadConfig::Trace {
            paths: vec![path.into()],
            format: default_format(),
            skip_bad_lines: false,
        }
    }
}

/// What reading the workload reported besides its jobs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WorkloadReport {
    /// Jobs read (or, for a generator, `None`).
    pub jobs_read: Option<u64>,
    /// Malformed lines skipped (with `skip_bad_lines`).
    pub bad_lines: u64,
    /// The first few skipped lines' errors.
    pub bad_line_errors: Vec<String>,
    /// Well-formed rows the reader left out, by documented reason.
    pub filtered: std::collections::BTreeMap<String, u64>,
}

fn default_load() -> f64 {
    DEFAULT_LOAD
}
fn default_synergy_load() -> f64 {
    SYNERGY_LOAD
}
fn default_class_split() -> String {
    blox_workload::ClassSplit::DEFAULT.label()
}

/// Synergy's default load, jobs per hour (`runner.py`: `np.arange(9.0, 10, 1)`).
pub const SYNERGY_LOAD: f64 = 9.0;
/// Synergy's seed (`runner.py --seed`).
pub const SYNERGY_SEED: u64 = 42;
/// Synergy's default cluster (`configs/default_cluster.ini`): 16 servers of 8 GPUs, with 3 CPUs
/// and 62.5 GB per GPU (24 CPUs, 500 GB per server) under `synergy` semantics.
pub const SYNERGY_CLUSTER: &str = "16x8";
/// Synergy's measured jobs (`series_id_filter = (4000, 5000)`), inclusive.
pub const SYNERGY_TRACK: &str = "4000..4999";
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
    pub admission: Named<AdmissionConfig>,
    /// Scheduling policy.
    pub policy: Named<PolicyConfig>,
    /// Placement policy.
    pub placement: Named<PlacementConfig>,
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
    /// Interconnect model for topology-aware placement and the placement-aware throughput
    /// model: a topology JSON file or a built-in shape (`default`, `dgx`, `pcie`, with options
    /// such as `dgx:rack=8,nic=25,uplink=100`). Default: `default` for the cluster shape.
    pub topology: Option<String>,
    /// Throughput model: `placement` (a job's speed depends on where it runs; the default in
    /// `exact` semantics), `policy` (the policy's scaling model; the default for Optimus in
    /// `exact` semantics) or `constant` (Blox's; the default in `blox` semantics).
    pub throughput_model: Option<ThroughputChoice>,
    /// Per-model, per-GPU-type throughput table (Gavel's `*_throughputs.json[.gz]`), used when
    /// the cluster has several GPU types: jobs run at their model's speed on each type
    /// (relative to `reference_gpu_type`) and Gavel allocates by it. Default: for a `gavel`
    /// trace, the table it is read with; otherwise none (every type runs at the same speed).
    pub throughputs: Option<PathBuf>,
    /// The GPU type jobs' work is measured on (Gavel traces are converted to seconds on it).
    pub reference_gpu_type: String,
    /// Output folder (`jobs.csv`, `summary.json`, `timeline.csv`, …).
    pub out: Option<PathBuf>,
    /// CPU cores per node. Default: 3 per GPU under `synergy` semantics (Synergy's 24 on an
    /// 8-GPU server), else 16 per node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_cpus: Option<u32>,
    /// Host memory per node in GB. Default: 62.5 GB per GPU under `synergy` semantics
    /// (Synergy's 500 GB on an 8-GPU server), else 250 GB per node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_mem_gb: Option<f64>,
}

/// Which throughput model a scenario uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThroughputChoice {
    /// Every job at constant speed wherever it runs (Blox's model).
    Constant,
    /// Compute time plus ring all-reduce time over the placement's bottleneck bandwidth
    /// (`blox_placement::PlacementSpeed`).
    Placement,
    /// The scaling model of the scheduling policy (Optimus's Amdahl model).
    Policy,
}

impl std::str::FromStr for ThroughputChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "constant" => Ok(ThroughputChoice::Constant),
            "placement" => Ok(ThroughputChoice::Placement),
            "policy" => Ok(ThroughputChoice::Policy),
            _ => Err(format!(
                "unknown throughput model `{s}` (expected constant, placement or policy)"
            )),
        }
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            semantics: Semantics::Exact,
            workload: WorkloadConfig::default(),
            cluster: "32x4".into(),
            round_s: 300,
            admission: AdmissionConfig::AcceptAll.into(),
            policy: PolicyConfig::Fifo.into(),
            placement: PlacementConfig::Scattered.into(),
            track: None,
            seed: 1,
            preemption_cost_s: 0.0,
            starvation_s: BLOX_STARVATION.as_secs(),
            topology: None,
            throughput_model: None,
            throughputs: None,
            reference_gpu_type: blox_policies::DEFAULT_REFERENCE_TYPE.to_owned(),
            out: None,
            node_cpus: None,
            node_mem_gb: None,
        }
    }
}

/// The result of a run: what the engine reported, what the sinks recorded, and the statistics.
#[derive(Debug)]
pub struct RunReport {
    /// The scenario that was run (with defaults filled in).
    pub scenario: Scenario,
    /// Engine counters.
    pub outcome: blox_sim::RunOutcome,
    /// Per-job records.
    pub log: JobLog,
    /// Per-round samples.
    pub timeline: Timeline,
    /// What reading the workload reported.
    pub workload: WorkloadReport,
    /// Statistics over the tracked jobs.
    pub summary: Summary,
    /// Statistics, cluster series and fairness (the summary is `metrics.statistics`).
    pub metrics: RunMetrics,
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
    cluster: &'a blox_metrics::TimelineStats,
    run: &'a blox_sim::RunOutcome,
    workload: &'a WorkloadReport,
    config: &'a Scenario,
    /// Under `synergy` semantics: the tracked jobs' mean, p99 and p99.9 JCT in hours, as
    /// Synergy prints them.
    #[serde(skip_serializing_if = "Option::is_none")]
    synergy_jct: Option<blox_metrics::SynergyJct>,
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
                WorkloadConfig::BloxDefault { .. }
                | WorkloadConfig::BloxMultigpuTrace { .. }
                | WorkloadConfig::BloxSynthetic { .. } => Ok(Some(TrackWindow::new(3000, 4000)?)),
                WorkloadConfig::SynergyDefault { .. } => Ok(Some(SYNERGY_TRACK.parse()?)),
                _ => Ok(None),
            },
        }
    }

    /// The cluster, with each node's CPUs and memory: `node_cpus`/`node_mem_gb` when given,
    /// else Synergy's 3 CPUs and 62.5 GB per GPU under `synergy` semantics, else the node
    /// defaults.
    pub fn cluster_spec(&self) -> Result<ClusterSpec, SimError> {
        let mut spec = self
            .cluster
            .parse::<ClusterSpec>()
            .map_err(|e| SimError::Config(e.0))?;
        let synergy = self.semantics == Semantics::Synergy;
        if let Some(m) = self.node_mem_gb {
            if !(m.is_finite() && m >= 0.0) {
                return Err(SimError::Config(format!(
                    "node memory `{m}` must be a number of GB ≥ 0"
                )));
            }
        }
        for n in &mut spec.nodes {
            if let Some(c) = self.node_cpus {
                n.cpus = c;
            } else if synergy {
                n.cpus = 3 * n.gpus;
            }
            if let Some(m) = self.node_mem_gb {
                n.mem_gb = m;
            } else if synergy {
                n.mem_gb = 62.5 * f64::from(n.gpus);
            }
        }
        Ok(spec)
    }

    /// The engine configuration, with the time model the scenario names.
    pub fn sim_config(&self) -> Result<SimConfig<ModelChoice>, SimError> {
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
        if self.semantics != Semantics::Exact && cost != Time::ZERO {
            return Err(SimError::Config(
                "a preemption cost applies to `exact` semantics only (Blox's and Synergy's \
                 preemptions are free)"
                    .into(),
            ));
        }
        let starvation = (self.starvation_s > 0).then(|| Time::from_secs(self.starvation_s));
        let model = match self.semantics {
            Semantics::Blox => ModelChoice::Blox(Blox::new()),
            Semantics::Exact => ModelChoice::Exact(Exact::new().with_preemption_cost(cost)),
            Semantics::Synergy => ModelChoice::Synergy(SynergyTime::new()),
        };
        Ok(SimConfig::new(model)
            .with_round(Time::from_secs(self.round_s))
            .with_track(self.track_window()?)
            .with_starvation(starvation))
    }

    /// Build the workload.
    pub fn workload(&self) -> Result<Box<dyn Workload + Send>, SimError> {
        Ok(self.load_workload()?.0)
    }

    /// Build the workload and report what reading it found (skipped and filtered rows).
    pub fn load_workload(&self) -> Result<(Box<dyn Workload + Send>, WorkloadReport), SimError> {
        Ok(match &self.workload {
            WorkloadConfig::BloxDefault { load, trace_jobs } => (
                Box::new(BloxDefaultWorkload::with_seed(
                    *load,
                    *trace_jobs,
                    self.seed,
                )?),
                WorkloadReport::default(),
            ),
            WorkloadConfig::BloxMultigpuTrace { load, path } => {
                let gpus = blox_workload::philly_blox_gpu_counts(path)?;
                let report = WorkloadReport {
                    jobs_read: Some(gpus.len() as u64),
                    ..WorkloadReport::default()
                };
                (
                    Box::new(BloxMultiGpuTrace::new(*load, gpus, self.seed)?),
                    report,
                )
            }
            WorkloadConfig::BloxSynthetic { load } => (
                Box::new(BloxSynthetic::with_seed(*load, self.seed)?),
                WorkloadReport::default(),
            ),
            WorkloadConfig::Trace {
                paths,
                format,
                skip_bad_lines,
            } => {
                let format: TraceFormat = format
                    .parse()
                    .map_err(|e: blox_workload::UnknownFormat| SimError::Config(e.to_string()))?;
                if paths.is_empty() {
                    return Err(SimError::Config(
                        "a trace workload needs at least one file".into(),
                    ));
                }
                let inputs: Vec<(PathBuf, TraceFormat)> =
                    paths.iter().map(|p| (p.clone(), format)).collect();
                let opts = self.read_options().with_skip_bad_lines(*skip_bad_lines);
                let read = blox_workload::read_traces(&inputs, &opts)?;
                let report = WorkloadReport {
                    jobs_read: Some(read.jobs.len() as u64),
                    bad_lines: read.bad_line_count,
                    bad_line_errors: read.bad_lines.iter().map(ToString::to_string).collect(),
                    filtered: read
                        .filtered
                        .iter()
                        .map(|(k, v)| (k.to_string(), *v))
                        .collect(),
                };
                (Box::new(JobList::new(read.jobs)), report)
            }
            WorkloadConfig::Poisson {
                load,
                jobs,
                durations,
                gpus,
            } => {
                let mut cfg = blox_workload::PoissonConfig::new(*load);
                cfg.duration = parse_durations(durations)?;
                cfg.gpus = parse_gpus(gpus, self.cluster_spec()?.total_gpus())?;
                let gen = blox_workload::PoissonGenerator::new(cfg, blox_core::Seed(self.seed))?;
                (
                    Box::new(JobList::new(gen.take(*jobs).collect())),
                    WorkloadReport::default(),
                )
            }
            WorkloadConfig::SynergyDefault { load, class_split } => {
                let split: blox_workload::ClassSplit = class_split
                    .parse()
                    .map_err(|e: String| SimError::Config(format!("--class-split: {e}")))?;
                let cluster = self.cluster_spec()?;
                let node = cluster
                    .nodes
                    .first()
                    .ok_or_else(|| SimError::Config("the cluster has no nodes".into()))?;
                let server = blox_workload::ServerSize {
                    gpus: node.gpus,
                    cpus: f64::from(node.cpus),
                    mem_gb: node.mem_gb,
                };
                (
                    Box::new(SynergyWorkload::new(*load, split, server, self.seed)?),
                    WorkloadReport::default(),
                )
            }
            WorkloadConfig::DualLoad { load, jobs } => {
                let cfg = blox_workload::DualLoadConfig::new(*load);
                let gen = blox_workload::DualLoad::new(cfg, blox_core::Seed(self.seed))?;
                (
                    Box::new(JobList::new(gen.take(*jobs).collect())),
                    WorkloadReport::default(),
                )
            }
            WorkloadConfig::Resample {
                paths,
                format,
                load,
                jobs,
            } => {
                let format: TraceFormat = format
                    .parse()
                    .map_err(|e: blox_workload::UnknownFormat| SimError::Config(e.to_string()))?;
                let inputs: Vec<(PathBuf, TraceFormat)> =
                    paths.iter().map(|p| (p.clone(), format)).collect();
                let read = blox_workload::read_traces(&inputs, &self.read_options())?;
                let target = blox_workload::LoadTarget::JobsPerHour(*load);
                let jobs =
                    blox_workload::resample(&read.jobs, target, *jobs, blox_core::Seed(self.seed))?;
                (Box::new(JobList::new(jobs)), WorkloadReport::default())
            }
        })
    }

    /// The load of the synthetic workload, if any.
    pub fn load(&self) -> Option<f64> {
        match self.workload {
            WorkloadConfig::BloxDefault { load, .. }
            | WorkloadConfig::BloxMultigpuTrace { load, .. }
            | WorkloadConfig::BloxSynthetic { load }
            | WorkloadConfig::SynergyDefault { load, .. } => Some(load),
            _ => None,
        }
    }

    /// The options trace readers get: the throughput table and reference type for Gavel
    /// traces.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions::default()
            .with_gavel_throughputs(self.throughputs.clone())
            .with_gavel_worker_type(self.reference_gpu_type.clone())
    }

    /// The per-model, per-GPU-type throughput table, on a cluster of several GPU types: the
    /// `throughputs` file, else the table of a `gavel` trace workload, else none. On a cluster
    /// of one type it is `None` (types cannot change a job's speed there).
    pub fn throughput_table(&self) -> Result<Option<Arc<ThroughputTable>>, SimError> {
        if self.cluster_spec()?.gpu_types().len() < 2 {
            return Ok(None);
        }
        if let Some(p) = &self.throughputs {
            return Ok(Some(Arc::new(GavelThroughputs::load(p)?.into_table())));
        }
        let gavel_trace = match &self.workload {
            WorkloadConfig::Trace { paths, format, .. }
            | WorkloadConfig::Resample { paths, format, .. } => paths
                .first()
                .filter(|_| format.parse::<TraceFormat>().ok() == Some(TraceFormat::Gavel)),
            _ => None,
        };
        Ok(match gavel_trace {
            Some(p) => Some(Arc::new(
                GavelThroughputs::locate(p, &self.read_options())?.into_table(),
            )),
            None => None,
        })
    }

    /// What the scenario's policy is built with.
    pub fn policy_env(&self) -> Result<PolicyEnv, SimError> {
        let env = PolicyEnv::new(self.load());
        Ok(match self.throughput_table()? {
            Some(t) => env.with_throughputs(t, self.reference_gpu_type.clone()),
            None => env,
        })
    }

    /// The throughput model the scenario implies: constant speed (1.0, or Blox's Optimus
    /// factor), the placement-aware or the policy's model; on a cluster of several GPU types
    /// with a throughput table, times each job's speed factor on its GPUs' type
    /// ([`HeteroSpeed`]).
    pub fn throughput(&self) -> Result<BoxThroughput, SimError> {
        self.throughput_with(self.topology_model()?, self.policy_env()?)
    }

    /// The interconnect model: `--topology FILE|SHAPE`, else the documented default for the
    /// cluster shape.
    pub fn topology_model(&self) -> Result<Arc<Topology>, SimError> {
        let cluster = self.cluster_spec()?;
        let topo = match &self.topology {
            Some(arg) => {
                Topology::resolve(arg, &cluster).map_err(|e| SimError::Config(e.to_string()))?
            }
            None => Topology::default_for(&cluster),
        };
        Ok(Arc::new(topo))
    }

    fn throughput_with(
        &self,
        topology: Arc<Topology>,
        env: PolicyEnv,
    ) -> Result<BoxThroughput, SimError> {
        let factor = match self.policy.stock() {
            Some(p) => preset::speed_factor(self.semantics, p, &env)?,
            None => 1.0,
        };
        let elastic_policy = matches!(
            self.policy.stock(),
            Some(PolicyConfig::Optimus | PolicyConfig::OptimusWith(_))
        );
        let model = match self.throughput_model {
            Some(t) => t,
            // Blox's constant speed; Synergy's placement penalty is 1 and its speed-ups come
            // from the host-resource shares, so its throughput model is constant 1 too.
            None if self.semantics != Semantics::Exact => ThroughputChoice::Constant,
            // Optimus allocates by its own scaling model; the jobs then run at that speed.
            None if elastic_policy => ThroughputChoice::Policy,
            None => ThroughputChoice::Placement,
        };
        let base: BoxThroughput = match model {
            ThroughputChoice::Constant => Box::new(ConstantSpeed(factor)),
            ThroughputChoice::Policy => match self.policy.stock() {
                Some(p) => preset::policy_throughput(self.semantics, p, &env)?,
                None => {
                    return Err(SimError::Config(format!(
                        "policy `{}` is a registered component and implies no throughput model; \
                         use --throughput placement or constant",
                        self.policy
                    )))
                }
            },
            ThroughputChoice::Placement => {
                if factor != 1.0 {
                    return Err(SimError::Config(
                        "Blox's Optimus speed-up table needs the constant throughput model".into(),
                    ));
                }
                Box::new(PlacementSpeed::new(Some(topology)))
            }
        };
        Ok(match env.throughputs {
            Some(table) => Box::new(HeteroSpeed::new(base, table, env.reference_gpu_type)),
            None => base,
        })
    }

    /// The run's name in tables and plots: the policy, or under `synergy` semantics Synergy's
    /// own scheduler string and split, e.g. `FIFO+tune (20,70,10)`.
    pub fn run_name(&self) -> String {
        if self.semantics != Semantics::Synergy {
            return self.policy.to_string();
        }
        let mech = match &self.placement {
            Named::Stock(PlacementConfig::Synergy { mode }) => match mode {
                SynergyMode::Greedy => String::new(),
                m => format!("+{m}"),
            },
            ref other => format!("/{other}"),
        };
        let split = match &self.workload {
            WorkloadConfig::SynergyDefault { class_split, .. } => format!(" ({class_split})"),
            _ => String::new(),
        };
        format!("{}{mech}{split}", self.policy.to_string().to_uppercase())
    }

    /// A one-line description, e.g. `exact accept-all/las/scattered`.
    pub fn label(&self) -> String {
        format!(
            "{} {}/{}/{}",
            self.semantics, self.admission, self.policy, self.placement
        )
    }

    /// Run the scenario through the boxed (runtime) pipeline with the stock components only,
    /// and write the output files if `out` is set.
    pub fn run(&self) -> Result<RunReport, SimError> {
        self.run_with(&Registry::default())
    }

    /// Run the scenario, building components the stock configurations do not know through
    /// `registry`, and write the output files if `out` is set.
    pub fn run_with(&self, registry: &Registry) -> Result<RunReport, SimError> {
        let env = self.policy_env()?;
        let topology = self.topology_model()?;
        let policy = if self.semantics == Semantics::Synergy {
            self.synergy_policy(&env, registry)?
        } else {
            preset::build_policy(self.semantics, registry, &self.policy, &env)?
        };
        let scheduler = Pipeline::new(
            registry.build_admission(&self.admission)?,
            policy,
            preset::build_placement(
                self.semantics,
                registry,
                &self.placement,
                Some(topology.clone()),
            )?,
        );
        let cfg = self.sim_config()?;
        let cluster = self.cluster_spec()?;
        let throughput = self.throughput_with(topology, env)?;
        let (mut workload, workload_report) = self.load_workload()?;
        let sink = (JobLog::default(), Timeline::default());
        // The one place a semantics name becomes a time model type.
        let (outcome, (log, timeline)) = match cfg.model.clone() {
            ModelChoice::Blox(m) => simulate(
                cfg.with_model(m),
                cluster,
                scheduler,
                throughput,
                sink,
                &mut workload,
            )?,
            ModelChoice::Exact(m) => simulate(
                cfg.with_model(m),
                cluster,
                scheduler,
                throughput,
                sink,
                &mut workload,
            )?,
            ModelChoice::Synergy(m) => simulate(
                cfg.with_model(m),
                cluster,
                scheduler,
                throughput,
                sink,
                &mut workload,
            )?,
        };
        let mut report = self.report(outcome, log, timeline)?;
        report.workload = workload_report;
        if let Some(dir) = &self.out {
            report.write(dir)?;
        }
        Ok(report)
    }

    /// The scheduling policy under `synergy` semantics: `fifo`, `srtf`, `las` and `ftf` are
    /// Synergy's own ([`blox_policies::SynergyFifo`] …), told the mechanism (SRTF and FTF
    /// divide by the speed-up unless it is GPU-proportional; LAS re-sorts by GPU count under
    /// Tune); any other policy is built as usual.
    fn synergy_policy(
        &self,
        env: &PolicyEnv,
        registry: &Registry,
    ) -> Result<blox_core::BoxScheduling, SimError> {
        let mode = match self.placement.stock() {
            Some(PlacementConfig::Synergy { mode }) => Some(*mode),
            _ => None,
        };
        let fair = mode.map_or(true, |m| m == SynergyMode::Fair);
        let tune = mode == Some(SynergyMode::Tune);
        Ok(match self.policy.stock() {
            Some(PolicyConfig::Fifo) => Box::new(blox_policies::SynergyFifo::default()),
            Some(PolicyConfig::Srtf) => Box::new(blox_policies::SynergySrtf::new(fair)),
            Some(PolicyConfig::Las) => Box::new(blox_policies::SynergyLas::new(tune)),
            Some(PolicyConfig::Ftf) => Box::new(blox_policies::SynergyFtf::new(fair)),
            _ => registry.build_policy(&self.policy, env)?,
        })
    }

    /// Turn a finished run's records into a report (write it with [`RunReport::write`]).
    pub fn report(
        &self,
        outcome: blox_sim::RunOutcome,
        log: JobLog,
        timeline: Timeline,
    ) -> Result<RunReport, SimError> {
        let window = self.track_window()?.map(|w| w.ids());
        let total = self.cluster_spec()?.total_gpus();
        let metrics = RunMetrics::compute(self.run_name(), &log, &timeline, window, total);
        Ok(RunReport {
            scenario: self.clone(),
            outcome,
            log,
            timeline,
            summary: metrics.statistics.clone(),
            metrics,
            workload: WorkloadReport::default(),
        })
    }
}

/// The time model a scenario names (`semantics`): chosen once here, then the engine runs
/// monomorphised over it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ModelChoice {
    /// Blox's simulator exactly.
    Blox(Blox),
    /// True finish times.
    Exact(Exact),
    /// Synergy's simulator.
    Synergy(SynergyTime),
}

/// Run one simulation under time model `Tm` and return its outcome and sink.
fn simulate<S, T, M, Tm, W>(
    cfg: SimConfig<Tm>,
    cluster: ClusterSpec,
    scheduler: S,
    throughput: T,
    sink: M,
    workload: &mut W,
) -> Result<(blox_sim::RunOutcome, M), SimError>
where
    S: blox_core::Scheduler,
    T: blox_core::ThroughputModel,
    M: blox_core::MetricSink,
    Tm: TimeModel,
    W: Workload + ?Sized,
{
    let mut sim = Simulator::new(cfg, cluster, scheduler, throughput, sink);
    let outcome = sim.run(workload)?;
    Ok((outcome, sim.into_sink()))
}

impl RunReport {
    /// Under `synergy` semantics, the tracked jobs' JCT statistics the way Synergy's simulator
    /// prints them (mean, 99th and 99.9th percentile in hours, pandas quantiles); `None` for
    /// other semantics.
    pub fn synergy_jct(&self) -> Option<blox_metrics::SynergyJct> {
        (self.scenario.semantics == Semantics::Synergy)
            .then(|| blox_metrics::SynergyJct::of(&self.log.jcts_s(self.window())))
    }

    fn window(&self) -> Option<(JobId, JobId)> {
        self.scenario.track_window().ok().flatten().map(|w| w.ids())
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
            cluster: &self.metrics.cluster,
            run: &self.outcome,
            workload: &self.workload,
            config: &self.scenario,
            synergy_jct: self.synergy_jct(),
        };
        let mut buf = serde_json::to_vec_pretty(&file).expect("serialising to memory");
        buf.push(b'\n');
        buf
    }

    /// Write the run's files into `dir` (created if missing): `jobs.csv`, `summary.json`,
    /// `timeline.csv`, `fairness.csv`, `jct_cdf.csv` and `timeline.svg`. Each file is written to a
    /// temporary name and renamed, so an existing output is never left half-written.
    pub fn write(&self, dir: &Path) -> Result<(), SimError> {
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        let mut fairness = Vec::new();
        write_fairness_csv(&mut fairness, &self.metrics.fairness).expect("writing to memory");
        let mut cdf = Vec::new();
        write_jct_cdf_csv(&mut cdf, &self.metrics.jcts_s).expect("writing to memory");
        let mut svg = Vec::new();
        let total = self.scenario.cluster_spec()?.total_gpus();
        let title = format!("{}: utilisation and queue", self.scenario.label());
        plot_timeline(&mut svg, &title, self.timeline.samples(), total)
            .map_err(|e| SimError::Config(format!("timeline plot: {e}")))?;
        for (name, bytes) in [
            ("jobs.csv", self.jobs_csv()),
            ("timeline.csv", self.timeline_csv()),
            ("fairness.csv", fairness),
            ("jct_cdf.csv", cdf),
            ("timeline.svg", svg),
            ("summary.json", self.summary_json()),
        ] {
            write_atomically(dir, name, &bytes)?;
        }
        Ok(())
    }
}

/// Write `bytes` to `dir/name` through a temporary file and a rename.
pub(crate) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), SimError> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut f = std::fs::File::create(&tmp).map_err(|e| SimError::io(&tmp, e))?;
    f.write_all(bytes).map_err(|e| SimError::io(&tmp, e))?;
    f.sync_all().map_err(|e| SimError::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| SimError::io(&path, e))
}
