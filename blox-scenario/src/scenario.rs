//! Scenarios: a whole run described as data (a TOML or JSON file, or command-line flags), and
//! running one through the boxed (runtime) path.

use crate::parsed::Parsed;
use crate::preset;
use crate::registry::{Named, Registry};
use crate::{ModelChoice, Semantics};
use blox_admission::AdmissionConfig;
use blox_core::{
    BoxThroughput, ClusterSpec, ConstantSpeed, HeteroSpeed, JobId, Pipeline, ThroughputTable, Time,
};
use blox_metrics::{ClusterLog, ClusterStats, JobLog, RunMetrics, Summary, Timeline};
use blox_nodes::{
    AutoscaleSpec, BoxEvents, Checkpointing, EventSources, FailureSpec, NodeEventFile,
    RandomFailures,
};
use blox_original::{Blox, BloxDefaultWorkload, BloxMultiGpuTrace, BloxSynthetic};
use blox_placement::{PlacementConfig, PlacementSpeed, Topology};
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_sim::time::Exact;
use blox_sim::workload::Workload;
use blox_sim::SimError;
use blox_sim::{SimConfig, TrackWindow, BLOX_STARVATION};
use blox_synergy::{Synergy as SynergyTime, SynergyMode, SynergyPlacementConfig, SynergyWorkload};
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
    /// the class split (`blox_synergy::SynergyWorkload`).
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
        let total: f64 = v.iter().map(|p: &(u32, f64)| p.1).sum();
        if !total.is_finite() {
            return Err(SimError::Config(format!(
                "GPU distribution `{s}`: the weights add up to {total}, not a finite number \
                 (weights like 1:0.7,4:0.3)"
            )));
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

/// Reads a `T` through a [`toml::Value`]: `T`'s deserialiser (for [`WorkloadConfig`], an
/// internally tagged enum that serde buffers) is compiled once, for `toml::Value`, instead of
/// once per file format. A `toml::Value` holds every value a TOML file can (NaN and infinities
/// too), so a bad value is reported as before, at the same place.
fn via_toml_value<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let v = toml::Value::deserialize(d)?;
    T::deserialize(v).map_err(|e| serde::de::Error::custom(e.message()))
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
    /// The jobs' offered load over the cluster's capacity (GPU-seconds per second of their
    /// arrival span over the GPUs), when it can be told: above 1 the cluster is overloaded. For
    /// a generator it is estimated from its first 2,000 jobs. Not written to `summary.json`.
    #[serde(skip)]
    pub offered_load_fraction: Option<f64>,
}

impl WorkloadReport {
    /// The overload warning for these jobs on `total_gpus` GPUs ([`crate::progress::overload_warning`]),
    /// if they offer more work than the GPUs can do; none for a trace of fewer than
    /// [`crate::progress::MIN_JOBS_FOR_LOAD`] jobs, whose arrival span says nothing of a load.
    pub fn overload_warning(&self, total_gpus: u32) -> Option<String> {
        if self
            .jobs_read
            .is_some_and(|n| n < crate::progress::MIN_JOBS_FOR_LOAD)
        {
            return None;
        }
        self.offered_load_fraction
            .and_then(|f| crate::progress::overload_warning(f, total_gpus))
    }
}

fn default_load() -> f64 {
    DEFAULT_LOAD
}
fn default_synergy_load() -> f64 {
    SYNERGY_LOAD
}
fn default_class_split() -> String {
    blox_synergy::ClassSplit::DEFAULT.label()
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
/// The Pollux artifact's cluster under `--semantics pollux` (`simulator.py --min-nodes 16
/// --num-gpus 4`): 16 nodes of 4 GPUs.
pub const POLLUX_CLUSTER: &str = "16x4";
/// The Pollux artifact's scheduling interval under `--semantics pollux` (`--interval 60`),
/// seconds.
pub const POLLUX_INTERVAL_S: u64 = 60;
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
    #[serde(deserialize_with = "via_toml_value")]
    pub workload: WorkloadConfig,
    /// The cluster as `NODESxGPUS[:TYPE]` groups (e.g. `32x4`, `2x8:v100,4x4:k80`), parsed
    /// when set.
    pub cluster: Parsed<ClusterSpec>,
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
    pub track: Option<Parsed<TrackWindow>>,
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
    /// Node events replayed during the run: a CSV file `time_s,node,event[,gpus,type]` (see
    /// `blox_nodes::NodeEventFile`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_events: Option<PathBuf>,
    /// Seeded random failures, `mtbf=HOURS,mttr=HOURS[,scope=node|gpu]` (drawn from the seed's
    /// `cluster-failures` stream).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<Parsed<FailureSpec>>,
    /// Autoscaling, `min_nodes=N,max_nodes=M[,low=FRACTION,cooldown=ROUNDS,node=GPUS[:TYPE]]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<Parsed<AutoscaleSpec>>,
    /// Seconds between a running job's checkpoints; absent: only when stopped gracefully (a
    /// failure loses everything since the last (re)start); `0`: a failure loses nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_interval_s: Option<f64>,
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
    /// End the run with an error once simulated time passes this many seconds (`None`: no
    /// limit). Left out of `summary.json` when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_sim_time_s: Option<f64>,
    /// `exact` semantics: when decisions are taken, `rounds` (each round) or `events` (also at
    /// every arrival and completion). Left out of `summary.json` when unset (= `rounds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decide: Option<blox_sim::Decide>,
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
            node_events: None,
            failures: None,
            autoscale: None,
            checkpoint_interval_s: None,
            out: None,
            node_cpus: None,
            node_mem_gb: None,
            max_sim_time_s: None,
            decide: None,
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
    /// What cluster management did, for a run with node events, failures or autoscaling
    /// (`None` otherwise: the outputs then have no cluster-management columns or fields).
    pub cluster_events: Option<ClusterStats>,
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
    cluster: Extended<'a, blox_metrics::TimelineStats, ClusterFields>,
    run: Extended<'a, blox_sim::RunOutcome, RunFields>,
    workload: &'a WorkloadReport,
    config: &'a Scenario,
    /// Under `synergy` semantics: the tracked jobs' mean, p99 and p99.9 JCT in hours, as
    /// Synergy prints them.
    #[serde(skip_serializing_if = "Option::is_none")]
    synergy_jct: Option<blox_synergy::SynergyJct>,
}

/// An object with optional extra fields after its own (none: serialised exactly as the object
/// alone).
#[derive(Serialize)]
struct Extended<'a, A: Serialize, B: Serialize> {
    #[serde(flatten)]
    base: &'a A,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    extra: Option<B>,
}

/// `summary.json`'s `cluster` fields of a run with cluster management.
#[derive(Serialize)]
struct ClusterFields {
    node_events: u64,
    gpu_hours_available: f64,
}

/// `summary.json`'s `run` fields of a run with cluster management.
#[derive(Serialize)]
struct RunFields {
    lost_gpu_s: f64,
    failures_hit: u64,
}

fn node_error(e: blox_nodes::NodeError) -> SimError {
    match e {
        blox_nodes::NodeError::Input {
            file: Some(file),
            line,
            field,
            message,
            ..
        } => SimError::input(file, line, field.as_deref(), message),
        other => SimError::Config(other.to_string()),
    }
}

/// The peer simulators' semantics, which `run`, `compare` and `sweep` take and scenario files
/// do not.
const PEER_SEMANTICS: [&str; 4] = ["tiresias", "gavel", "pollux", "sia"];

/// What to say of a peer simulator's semantics named where only the engine's are taken
/// (scenario files): which commands take it. `None` for any other name.
pub fn peer_semantics_hint(name: &str) -> Option<String> {
    PEER_SEMANTICS.contains(&name).then(|| {
        format!(
            "`{name}` is a peer simulator's semantics, taken by `blox-sim run --semantics {name}`, \
             `blox-sim compare --semantics {name}` and `blox-sim sweep --semantics {name}`; \
             scenario files take `blox`, `exact` or `synergy`"
        )
    })
}

/// A parse error, with [`peer_semantics_hint`] added when it is a peer semantics named as an
/// unknown variant.
fn with_peer_semantics_hint(msg: String) -> String {
    let hint = PEER_SEMANTICS
        .into_iter()
        .find(|n| msg.contains(&format!("unknown variant `{n}`")))
        .and_then(peer_semantics_hint);
    match hint {
        Some(h) => format!("{msg}: {h}"),
        None => msg,
    }
}

impl Scenario {
    /// Whether the run changes its cluster (node events, random failures or autoscaling).
    pub fn manages_cluster(&self) -> bool {
        self.node_events.is_some() || self.failures.is_some() || self.autoscale.is_some()
    }

    /// The checkpointing rule (`checkpoint_interval_s`).
    pub fn checkpointing(&self) -> Result<Checkpointing, SimError> {
        Checkpointing::from_secs(self.checkpoint_interval_s).map_err(node_error)
    }

    /// The random failures, if any.
    pub fn failure_spec(&self) -> Result<Option<FailureSpec>, SimError> {
        self.failures
            .as_ref()
            .map(|f| {
                f.value()
                    .cloned()
                    .map_err(|e| SimError::Config(format!("failures `{f}`: {e}")))
            })
            .transpose()
    }

    /// The sources of cluster events, merged in the order node-event file, random failures,
    /// autoscaler; `None` without any. A node-event file is read and checked against the
    /// cluster here, so that a bad row is reported before the run.
    pub fn cluster_events(&self) -> Result<Option<BoxEvents>, SimError> {
        if !self.manages_cluster() {
            return Ok(None);
        }
        let cluster = self.cluster_spec()?;
        let mut sources = EventSources::new();
        if let Some(path) = &self.node_events {
            let file = NodeEventFile::load(path).map_err(node_error)?;
            file.check(&cluster).map_err(node_error)?;
            sources.push(Box::new(file));
        }
        if let Some(spec) = self.failure_spec()? {
            sources.push(Box::new(RandomFailures::new(
                spec,
                &cluster,
                blox_core::Seed(self.seed),
            )));
        }
        if let Some(a) = &self.autoscale {
            let spec = a
                .value()
                .map_err(|e| SimError::Config(format!("autoscale `{a}`: {e}")))?;
            sources.push(Box::new(spec.build(&cluster).map_err(node_error)?));
        }
        Ok(Some(Box::new(sources)))
    }

    /// Read a scenario from a `.toml` or `.json` file (any other extension is refused, not
    /// guessed). Relative file paths in it (trace files, the throughput table, a topology file,
    /// node events)
    /// are taken from the scenario's own folder, and every setting is checked
    /// ([`Scenario::check`]): an error names the file, the line and the key.
    pub fn from_file(path: &Path) -> Result<Scenario, SimError> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let is_json = match ext.as_deref() {
            Some("json") => true,
            Some("toml") => false,
            other => {
                let what = other.map_or_else(|| "no extension".to_string(), |e| format!("`.{e}`"));
                return Err(SimError::input(
                    path,
                    None,
                    None,
                    format!(
                        "unsupported scenario format ({what}): a scenario is a `.toml` or a `.json` file"
                    ),
                ));
            }
        };
        let text = std::fs::read_to_string(path).map_err(|e| SimError::io(path, e))?;
        let mut s = Self::parse_text(path, &text, is_json)?;
        s.resolve_paths(path.parent().unwrap_or(Path::new("")));
        s.check().map_err(|bad| {
            SimError::input(path, key_line(&text, bad.key), Some(bad.key), bad.message)
        })?;
        Ok(s)
    }

    /// Relative paths of the scenario taken from `base` (its file's folder).
    fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        match &mut self.workload {
            WorkloadConfig::Trace { paths, .. } | WorkloadConfig::Resample { paths, .. } => {
                paths.iter_mut().for_each(fix)
            }
            WorkloadConfig::BloxMultigpuTrace { path, .. } => fix(path),
            _ => {}
        }
        if let Some(p) = &mut self.throughputs {
            fix(p);
        }
        if let Some(p) = &mut self.node_events {
            fix(p);
        }
        if let Some(t) = &mut self.topology {
            let p = Path::new(t.as_str());
            if p.is_relative() && t.to_ascii_lowercase().ends_with(".json") {
                *t = base.join(p).display().to_string();
            }
        }
    }

    fn parse_text(path: &Path, text: &str, is_json: bool) -> Result<Scenario, SimError> {
        if is_json {
            serde_json::from_str(text).map_err(|e| {
                let msg = with_peer_semantics_hint(e.to_string());
                SimError::input(path, Some(e.line() as u64), None, msg)
            })
        } else {
            toml::from_str(text).map_err(|e| {
                let msg = with_peer_semantics_hint(e.message().to_string());
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

    /// Check every setting, so that a bad value is reported before any work, by its key as in
    /// a scenario file (`workload.load`, `round_s`, …).
    pub fn check(&self) -> Result<(), BadSetting> {
        let bad = |key: &'static str, message: String| Err(BadSetting { key, message });
        let cluster = match self.cluster_spec() {
            Ok(c) => c,
            Err(e) => return bad("cluster", e.to_string()),
        };
        if self.round_s == 0 {
            return bad("round_s", "must be a whole number of seconds ≥ 1".into());
        }
        if self.round_s > MAX_ROUND_SECONDS {
            return bad(
                "round_s",
                format!(
                    "`{}` is above the bound of {MAX_ROUND_SECONDS} s (every job arriving in a \
                     round is generated at its start)",
                    self.round_s
                ),
            );
        }
        let cost = self.preemption_cost_s;
        if !(cost.is_finite() && (0.0..=MAX_SECONDS).contains(&cost)) {
            return bad(
                "preemption_cost_s",
                format!("`{cost}` is not a number of seconds in 0..={MAX_SECONDS:e}"),
            );
        }
        if self.semantics == Semantics::Blox && cost != 0.0 {
            return bad(
                "preemption_cost_s",
                "applies to `exact` semantics only (Blox's preemptions are free)".into(),
            );
        }
        if let Err(e) = self.track_window() {
            return bad("track", e.to_string());
        }
        if let Some(m) = self.max_sim_time_s {
            if !(m.is_finite() && m > 0.0 && m <= MAX_SECONDS) {
                return bad(
                    "max_sim_time_s",
                    format!("`{m}` is not a number of seconds in (0, {MAX_SECONDS:e}]"),
                );
            }
        }
        // The node specs, by their keys, as parsed when they were set.
        if let Some(Err(e)) = self.failures.as_ref().map(Parsed::value) {
            return bad("failures", e.to_string());
        }
        if let Some(Err(e)) = self.autoscale.as_ref().map(Parsed::value) {
            return bad("autoscale", e.to_string());
        }
        self.check_time_bound()?;
        if let Some(load) = self.load() {
            if !(load.is_finite() && load > 0.0) {
                return bad(
                    "workload.load",
                    format!("`{load}` is not a number of jobs per hour > 0"),
                );
            }
            if load < MIN_LOAD {
                return bad(
                    "workload.load",
                    format!(
                        "`{load}` jobs per hour is below the bound of {MIN_LOAD:e} (a mean \
                         inter-arrival time above {MAX_SECONDS:e} s, the simulator's time bound)"
                    ),
                );
            }
            let per_round = load * self.round_s as f64 / 3600.0;
            if per_round > MAX_GENERATED_JOBS as f64 {
                return bad(
                    "workload.load",
                    format!(
                        "`{load}` jobs per hour brings {per_round:.0} jobs in each {} s round, \
                         above the bound of {MAX_GENERATED_JOBS}",
                        self.round_s
                    ),
                );
            }
        }
        let jobs = match &self.workload {
            WorkloadConfig::Poisson { jobs, .. }
            | WorkloadConfig::DualLoad { jobs, .. }
            | WorkloadConfig::Resample { jobs, .. } => Some(*jobs),
            _ => None,
        };
        if let Some(n) = jobs.filter(|n| !(1..=MAX_GENERATED_JOBS).contains(n)) {
            return bad(
                "workload.jobs",
                format!("`{n}` is not a number of jobs in 1..={MAX_GENERATED_JOBS}"),
            );
        }
        match &self.workload {
            WorkloadConfig::BloxDefault { trace_jobs, .. }
                if !(1..=MAX_GENERATED_JOBS).contains(trace_jobs) =>
            {
                return bad(
                    "workload.trace_jobs",
                    format!("`{trace_jobs}` is not a number of jobs in 1..={MAX_GENERATED_JOBS}"),
                );
            }
            WorkloadConfig::Poisson {
                durations, gpus, ..
            } => {
                if let Err(e) = parse_durations(durations) {
                    return bad("workload.durations", e.to_string());
                }
                if let Err(e) = parse_gpus(gpus, cluster.total_gpus()) {
                    return bad("workload.gpus", e.to_string());
                }
            }
            WorkloadConfig::Trace { paths, format, .. }
            | WorkloadConfig::Resample { paths, format, .. } => {
                if let Err(e) = format.parse::<TraceFormat>() {
                    return bad("workload.format", e.to_string());
                }
                if paths.is_empty() {
                    return bad("workload.paths", "needs at least one trace file".into());
                }
            }
            _ => {}
        }
        if let Err(e) = self.topology_model() {
            return bad("topology", e.to_string());
        }
        Ok(())
    }

    /// Random failures can strike every job before it finishes, checkpoints or not (a
    /// checkpoint interval longer than the time between failures saves nothing), so only a
    /// bound on simulated time ends such a run for sure: they need `max_sim_time_s`. (A bad
    /// failure spec is reported by the flag, later.)
    fn check_time_bound(&self) -> Result<(), BadSetting> {
        let random_failures = self.failures.as_ref().is_some_and(|f| f.value().is_ok());
        if random_failures && self.max_sim_time_s.is_none() {
            return Err(BadSetting {
                key: "failures",
                message: "random failures need a bound on simulated time, `max_sim_time_s` \
                          (`--max-sim-time SECONDS`, e.g. 1e8): a job longer than its nodes' \
                          time between failures may never finish, even with checkpoints, and \
                          then nothing else ends the run"
                    .into(),
            });
        }
        Ok(())
    }

    /// The tracked window: the given one, else `3000..4000` for the Blox generator (Blox's
    /// default), else none (every job).
    pub fn track_window(&self) -> Result<Option<TrackWindow>, SimError> {
        match &self.track {
            Some(s) => Ok(Some(
                *s.value().map_err(|e| SimError::Config(e.to_string()))?,
            )),
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
    /// GPU type names are matched case-insensitively: they are lowercased here (throughput
    /// tables, e.g. Gavel's, name types in lowercase).
    pub fn cluster_spec(&self) -> Result<ClusterSpec, SimError> {
        let mut spec = self
            .cluster
            .value()
            .map_err(|e| SimError::Config(e.to_string()))?
            .clone();
        let synergy = self.semantics == Semantics::Synergy;
        if let Some(m) = self.node_mem_gb {
            if !(m.is_finite() && m >= 0.0) {
                return Err(SimError::Config(format!(
                    "node memory `{m}` must be a number of GB ≥ 0"
                )));
            }
        }
        for n in &mut spec.nodes {
            n.gpu_type.make_ascii_lowercase();
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

    /// The engine configuration, with the time model the scenario names; a [`ModelChoice`] is
    /// itself a [`TimeModel`](blox_sim::time::TimeModel), so this goes straight to [`Simulator::new`](blox_sim::Simulator::new):
    ///
    /// ```
    /// use blox_core::{ConstantSpeed, Pipeline};
    /// use blox_metrics::JobLog;
    /// use blox_scenario::Scenario;
    /// use blox_sim::Simulator;
    ///
    /// let s: Scenario = toml::from_str(
    ///     "semantics = \"blox\"\ncluster = \"4x4\"\nworkload = { kind = \"poisson\", load = 4.0, jobs = 30 }",
    /// )
    /// .unwrap();
    /// let scheduler = Pipeline::new(
    ///     blox_admission::AcceptAll,
    ///     blox_policies::Las::default(),
    ///     blox_placement::Scattered::new(),
    /// );
    /// let mut sim =
    ///     Simulator::new(s.sim_config()?, s.cluster_spec()?, scheduler, ConstantSpeed(1.0), JobLog::default());
    /// let outcome = sim.run(&mut s.workload()?)?;
    /// assert!(outcome.end_time.as_secs() > 0);
    /// # Ok::<(), blox_sim::SimError>(())
    /// ```
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
        if self.decide.is_some_and(|d| d != blox_sim::Decide::Rounds)
            && self.semantics != Semantics::Exact
        {
            return Err(SimError::Config(
                "--decide events applies to `exact` semantics only (the peer models decide as \
                 their simulators do)"
                    .into(),
            ));
        }
        let starvation = (self.starvation_s > 0).then(|| Time::from_secs(self.starvation_s));
        let model = match self.semantics {
            Semantics::Blox => ModelChoice::Blox(Blox::new()),
            Semantics::Exact => ModelChoice::Exact(
                Exact::new()
                    .with_preemption_cost(cost)
                    .with_decide(self.decide.unwrap_or_default()),
            ),
            Semantics::Synergy => ModelChoice::Synergy(SynergyTime::new()),
        };
        Ok(SimConfig::new(model)
            .with_round(Time::from_secs(self.round_s))
            .with_track(self.track_window()?)
            .with_starvation(starvation)
            .with_checkpointing(self.checkpointing()?))
    }

    /// Build the workload.
    pub fn workload(&self) -> Result<Box<dyn Workload + Send>, SimError> {
        Ok(self.load_workload()?.0)
    }

    /// Build the workload and report what reading it found (skipped and filtered rows) and
    /// its offered load.
    pub fn load_workload(&self) -> Result<(Box<dyn Workload + Send>, WorkloadReport), SimError> {
        let (w, mut report, jobs) = self.build_workload()?;
        let total = self.cluster_spec()?.total_gpus();
        report.offered_load_fraction = match jobs {
            Some(jobs) => crate::progress::offered_fraction(&jobs, total),
            // A streamed generator: measured over its whole list, one pass over a fresh copy.
            None if report.offered_load_fraction.is_some() => report.offered_load_fraction,
            // Its GPU counts come from a Philly log: not read a second time for an estimate.
            None if matches!(self.workload, WorkloadConfig::BloxMultigpuTrace { .. }) => None,
            None => {
                // A generator: estimate from the first jobs of a fresh copy of it.
                let (mut fresh, _, _) = self.build_workload()?;
                let first = crate::progress::sample(&mut fresh, 2_000)?;
                crate::progress::offered_fraction(&first, total)
            }
        };
        Ok((w, report))
    }

    /// The workload, what reading it found, and its whole job list when it has one.
    #[allow(clippy::type_complexity)]
    fn build_workload(
        &self,
    ) -> Result<
        (
            Box<dyn Workload + Send>,
            WorkloadReport,
            Option<Vec<blox_core::JobSpec>>,
        ),
        SimError,
    > {
        let list = |jobs: Vec<blox_core::JobSpec>, report: WorkloadReport| {
            (blox_runner::workload::list(&jobs), report, Some(jobs))
        };
        // A generator's first `n` jobs, drawn as the run reaches them (never built up front),
        // with the offered load of the whole list, as `list` would report it.
        let stream = |r#gen: Box<dyn Iterator<Item = blox_core::JobSpec> + Send>,
                      fresh: Box<dyn Iterator<Item = blox_core::JobSpec>>,
                      n: usize|
         -> Result<_, SimError> {
            let total = self.cluster_spec()?.total_gpus();
            let w = blox_runner::workload::stream(r#gen, n);
            let report = WorkloadReport {
                offered_load_fraction: blox_runner::workload::offered_fraction_of(fresh, n, total),
                ..WorkloadReport::default()
            };
            Ok((w, report, None))
        };
        Ok(match &self.workload {
            WorkloadConfig::BloxDefault { load, trace_jobs } => (
                Box::new(BloxDefaultWorkload::with_seed(
                    *load,
                    *trace_jobs,
                    self.seed,
                )?),
                WorkloadReport::default(),
                None,
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
                    None,
                )
            }
            WorkloadConfig::BloxSynthetic { load } => (
                Box::new(BloxSynthetic::with_seed(*load, self.seed)?),
                WorkloadReport::default(),
                None,
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
                every_line_bad(&read)?;
                let report = WorkloadReport {
                    jobs_read: Some(read.jobs.len() as u64),
                    bad_lines: read.bad_line_count,
                    bad_line_errors: read.bad_lines.iter().map(ToString::to_string).collect(),
                    filtered: read
                        .filtered
                        .iter()
                        .map(|(k, v)| (k.to_string(), *v))
                        .collect(),
                    offered_load_fraction: None,
                };
                list(read.jobs, report)
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
                let r#gen = blox_workload::PoissonGenerator::new(cfg, blox_core::Seed(self.seed))?;
                stream(Box::new(r#gen.clone()), Box::new(r#gen), *jobs)?
            }
            WorkloadConfig::SynergyDefault { load, class_split } => {
                let split: blox_synergy::ClassSplit = class_split
                    .parse()
                    .map_err(|e: String| SimError::Config(format!("--class-split: {e}")))?;
                let cluster = self.cluster_spec()?;
                let node = cluster
                    .nodes
                    .first()
                    .ok_or_else(|| SimError::Config("the cluster has no nodes".into()))?;
                let server = blox_synergy::ServerSize {
                    gpus: node.gpus,
                    cpus: f64::from(node.cpus),
                    mem_gb: node.mem_gb,
                };
                (
                    Box::new(SynergyWorkload::new(*load, split, server, self.seed)?),
                    WorkloadReport::default(),
                    None,
                )
            }
            WorkloadConfig::DualLoad { load, jobs } => {
                let cfg = blox_workload::DualLoadConfig::new(*load);
                let r#gen = blox_workload::DualLoad::new(cfg, blox_core::Seed(self.seed))?;
                stream(Box::new(r#gen.clone()), Box::new(r#gen), *jobs)?
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
                list(jobs, WorkloadReport::default())
            }
        })
    }

    /// The load (jobs per hour) of a generated or resampled workload, if any: what `sweep
    /// --load` varies.
    pub fn load(&self) -> Option<f64> {
        match self.workload {
            WorkloadConfig::BloxDefault { load, .. }
            | WorkloadConfig::BloxMultigpuTrace { load, .. }
            | WorkloadConfig::BloxSynthetic { load }
            | WorkloadConfig::Poisson { load, .. }
            | WorkloadConfig::DualLoad { load, .. }
            | WorkloadConfig::Resample { load, .. }
            | WorkloadConfig::SynergyDefault { load, .. } => Some(load),
            WorkloadConfig::Trace { .. } => None,
        }
    }

    /// Set the load of a workload that has one (see [`Scenario::load`]); `false` for a trace.
    pub fn set_load(&mut self, value: f64) -> bool {
        match &mut self.workload {
            WorkloadConfig::BloxDefault { load, .. }
            | WorkloadConfig::BloxMultigpuTrace { load, .. }
            | WorkloadConfig::BloxSynthetic { load }
            | WorkloadConfig::Poisson { load, .. }
            | WorkloadConfig::DualLoad { load, .. }
            | WorkloadConfig::Resample { load, .. }
            | WorkloadConfig::SynergyDefault { load, .. } => {
                *load = value;
                true
            }
            WorkloadConfig::Trace { .. } => false,
        }
    }

    /// The load of one of Blox's own generators: what Blox's Optimus keys its speed-up table
    /// by (other workloads' loads mean something else to it).
    fn blox_load(&self) -> Option<f64> {
        match self.workload {
            WorkloadConfig::BloxDefault { load, .. }
            | WorkloadConfig::BloxMultigpuTrace { load, .. }
            | WorkloadConfig::BloxSynthetic { load } => Some(load),
            _ => None,
        }
    }

    /// The options trace readers get: the throughput table and reference type for Gavel
    /// traces.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions::default()
            .with_gavel_throughputs(self.throughputs.clone())
            .with_gavel_worker_type(self.reference_gpu_type.to_ascii_lowercase())
    }

    /// The per-model, per-GPU-type throughput table, on a cluster of several GPU types: the
    /// `throughputs` file, else the table of a `gavel` trace workload, else none. On a cluster
    /// of one type it is `None` (types cannot change a job's speed there).
    pub fn throughput_table(&self) -> Result<Option<Arc<ThroughputTable>>, SimError> {
        let spec = self.cluster_spec()?;
        if spec.gpu_types().len() < 2 {
            return Ok(None);
        }
        let (table, origin) = if let Some(p) = &self.throughputs {
            (GavelThroughputs::load(p)?.into_table(), p.clone())
        } else {
            let gavel_trace = match &self.workload {
                WorkloadConfig::Trace { paths, format, .. }
                | WorkloadConfig::Resample { paths, format, .. } => paths
                    .first()
                    .filter(|_| format.parse::<TraceFormat>().ok() == Some(TraceFormat::Gavel)),
                _ => None,
            };
            match gavel_trace {
                Some(p) => {
                    let opts = self.read_options();
                    let origin = blox_workload::locate_table_path(p, &opts).unwrap_or_default();
                    (GavelThroughputs::locate(p, &opts)?.into_table(), origin)
                }
                None => return Ok(None),
            }
        };
        // An unknown type is an error, not a silent run at the reference speed.
        let known = table.gpu_types();
        let reference = self.reference_gpu_type.to_ascii_lowercase();
        for ty in spec.gpu_types().into_iter().chain([reference.as_str()]) {
            if !known.contains(&ty) {
                return Err(SimError::Config(format!(
                    "GPU type `{ty}` (--cluster / --reference-gpu-type) is not in the throughput \
                     table {} (its types: {})",
                    origin.display(),
                    known.join(", ")
                )));
            }
        }
        Ok(Some(Arc::new(table)))
    }

    /// What the scenario's policy is built with.
    pub fn policy_env(&self) -> Result<PolicyEnv, SimError> {
        let env = PolicyEnv::new(self.blox_load());
        Ok(match self.throughput_table()? {
            Some(t) => env.with_throughputs(t, self.reference_gpu_type.to_ascii_lowercase()),
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
                // A peer's policy implies no scaling model: constant speed.
                None if !self.policy.is_registered() => Box::new(ConstantSpeed(1.0)),
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
        let mech = match self.synergy_mode() {
            Some(SynergyMode::Greedy) => String::new(),
            Some(m) => format!("+{m}"),
            None => format!("/{}", self.placement),
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
        self.run_observed(registry, crate::progress::ProgressMode::Off, false)
    }

    /// [`Scenario::run_with`], reporting progress on standard error in `progress` mode and, if
    /// `warn`, printing the overload warning there when the jobs offer more work than the
    /// cluster can do. `max_sim_time_s` is enforced in every mode.
    pub fn run_observed(
        &self,
        registry: &Registry,
        progress: crate::progress::ProgressMode,
        warn: bool,
    ) -> Result<RunReport, SimError> {
        use crate::progress::{Progress, ProgressState, TimeLimit};
        // Every run ends (scenarios built in code skip `check`).
        self.check_time_bound()
            .map_err(|bad| SimError::Config(bad.to_string()))?;
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
        let total_gpus = cluster.total_gpus();
        let (workload, workload_report) = self.load_workload()?;
        if warn {
            if let Some(w) = workload_report.overload_warning(total_gpus) {
                eprintln!("{w}");
            }
        }
        let window = self.track_window()?;
        let tracked_total =
            window
                .map(|w| w.len())
                .or(workload_report.jobs_read)
                .or(match &self.workload {
                    WorkloadConfig::Poisson { jobs, .. }
                    | WorkloadConfig::DualLoad { jobs, .. } => Some(*jobs as u64),
                    _ => None,
                });
        let state = std::sync::Arc::new(ProgressState::default());
        let limit = match self.max_sim_time_s {
            Some(s) => Time::from_secs_f64_ceil(s).unwrap_or(Time(u64::MAX)),
            None => Time(u64::MAX),
        };
        let mut workload = TimeLimit::new(workload, limit, state.clone(), tracked_total);
        let events = self.cluster_events()?;
        let managed = events.is_some();
        let sink = Progress::new(
            (
                JobLog::with_cluster(&blox_core::Cluster::new(cluster.clone())),
                Timeline::default(),
                ClusterLog::new(total_gpus),
            ),
            state,
            window.map(|w| w.ids()),
            tracked_total,
            progress,
            self.label(),
        );
        // The one place a semantics name becomes a time model type.
        // (`blox-runner` holds the engine's instances, monomorphised over each model.)
        let (outcome, sink) = blox_runner::run_engine(
            cfg,
            cluster,
            scheduler,
            throughput,
            sink,
            events,
            &mut workload,
        )?;
        let (log, timeline, cluster_log) = sink.into_inner();
        let mut report = self.report(outcome, log, timeline)?;
        report.workload = workload_report;
        report.cluster_events = managed.then(|| cluster_log.stats());
        if let Some(dir) = &self.out {
            report.write(dir)?;
        }
        Ok(report)
    }

    /// [`Scenario::run_observed`] as the one report type every semantics gives
    /// ([`crate::Finished`]).
    pub fn run_finished(
        &self,
        registry: &Registry,
        observe: crate::Observe,
    ) -> Result<crate::Finished, SimError> {
        let report = self.run_observed(registry, observe.progress, observe.warn)?;
        let (label, semantics) = (
            report.scenario.label(),
            report.scenario.semantics.to_string(),
        );
        report.finished(label, semantics)
    }

    /// The workload in words, for the lines under a results table.
    pub fn workload_label(&self) -> String {
        let seed = self.seed;
        match &self.workload {
            WorkloadConfig::BloxDefault { load, .. } => {
                format!("blox-default at {load} jobs/h, seed {seed}")
            }
            WorkloadConfig::BloxMultigpuTrace { load, path } => format!(
                "blox-multigpu-trace ({}) at {load} jobs/h, seed {seed}",
                path.display()
            ),
            WorkloadConfig::BloxSynthetic { load } => {
                format!("blox-synthetic at {load} jobs/h, seed {seed}")
            }
            WorkloadConfig::Trace { paths, format, .. } => match paths.as_slice() {
                [one] => format!("trace {} ({format})", one.display()),
                many => format!("{} trace files ({format})", many.len()),
            },
            WorkloadConfig::Poisson {
                load,
                jobs,
                durations,
                gpus,
            } => format!(
                "poisson, {jobs} jobs at {load} jobs/h, durations {durations}, GPUs {gpus}, seed \
                 {seed}"
            ),
            WorkloadConfig::DualLoad { load, jobs } => {
                format!("dual-load, {jobs} jobs at base {load} jobs/h, seed {seed}")
            }
            WorkloadConfig::SynergyDefault { load, class_split } => {
                format!("synergy-default at {load} jobs/h, split {class_split}, seed {seed}")
            }
            WorkloadConfig::Resample {
                load, jobs, format, ..
            } => format!("{format} trace resampled: {jobs} jobs at {load} jobs/h, seed {seed}"),
        }
    }

    /// The mechanism of the run's `synergy` placement, if it has one.
    fn synergy_mode(&self) -> Option<SynergyMode> {
        match &self.placement {
            Named::Peer(spec) => spec
                .parse::<SynergyPlacementConfig>()
                .ok()
                .map(|c| c.mode()),
            _ => None,
        }
    }

    /// The scheduling policy under `synergy` semantics: `fifo`, `srtf`, `las` and `ftf` are
    /// Synergy's own ([`blox_synergy::semantics_policy`]), told the mechanism; any other policy
    /// is built as usual.
    fn synergy_policy(
        &self,
        env: &PolicyEnv,
        registry: &Registry,
    ) -> Result<blox_core::BoxScheduling, SimError> {
        let own = (!self.policy.is_registered())
            .then(|| blox_synergy::semantics_policy(&self.policy.to_string(), self.synergy_mode()))
            .flatten();
        Ok(match own {
            Some(p) => p,
            None => registry.build_policy(&self.policy, env)?,
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
        let metrics =
            blox_runner::output::run_metrics(self.run_name(), &log, &timeline, window, total);
        Ok(RunReport {
            scenario: self.clone(),
            outcome,
            log,
            timeline,
            summary: metrics.statistics.clone(),
            metrics,
            workload: WorkloadReport::default(),
            cluster_events: None,
        })
    }
}

impl RunReport {
    /// This report as the one report type of every semantics, the run called `label` and its
    /// semantics `semantics` in the lines under a table.
    pub fn finished(self, label: String, semantics: String) -> Result<crate::Finished, SimError> {
        let s = &self.scenario;
        let gpus = s.cluster_spec()?.total_gpus();
        let footer = format!(
            "{label} | {gpus} GPUs ({}) | {} | end {} s after {} rounds ({} simulated)",
            s.cluster,
            s.workload_label(),
            self.outcome.end_time,
            self.outcome.rounds,
            self.outcome.rounds_processed,
        );
        let context = format!(
            "{semantics} semantics | {gpus} GPUs ({}) | {} | admission {} | placement {} | jobs {} \
             tracked",
            s.cluster,
            s.workload_label(),
            s.admission,
            s.placement,
            s.track_window()?
                .map_or_else(|| "all".to_string(), |w| w.to_string()),
        );
        let details = self
            .synergy_jct()
            .map(|jct| jct.synergy_lines())
            .unwrap_or_default();
        Ok(crate::Finished {
            model: crate::Model::from(s.semantics),
            metrics: self.metrics.clone(),
            preemptions: self.outcome.preemptions,
            end_time_s: self.outcome.end_time.as_secs_f64(),
            details,
            footer,
            more: Vec::new(),
            context,
            note: None,
            out: s.out.clone(),
            files: vec![
                "jobs.csv",
                "summary.json",
                "timeline.csv",
                "fairness.csv",
                "jct_cdf.csv",
                "timeline.svg",
            ],
            report: Some(self),
        })
    }

    /// Under `synergy` semantics, the tracked jobs' JCT statistics the way Synergy's simulator
    /// prints them (mean, 99th and 99.9th percentile in hours, pandas quantiles); `None` for
    /// other semantics.
    pub fn synergy_jct(&self) -> Option<blox_synergy::SynergyJct> {
        (self.scenario.semantics == Semantics::Synergy)
            .then(|| blox_synergy::SynergyJct::of(&self.log.jcts_s(self.window())))
    }

    fn window(&self) -> Option<(JobId, JobId)> {
        self.scenario.track_window().ok().flatten().map(|w| w.ids())
    }

    /// The `jobs.csv` text.
    pub fn jobs_csv(&self) -> Vec<u8> {
        blox_runner::output::jobs_csv(&self.log, self.window(), self.cluster_events.is_some())
    }

    /// The `timeline.csv` text.
    pub fn timeline_csv(&self) -> Vec<u8> {
        let total = self.scenario.cluster_spec().map_or(0, |c| c.total_gpus());
        blox_runner::output::timeline_csv(
            &self.timeline,
            self.cluster_events.is_some().then_some(total),
        )
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
            cluster: Extended {
                base: &self.metrics.cluster,
                extra: self.cluster_events.map(|c| ClusterFields {
                    node_events: c.node_events,
                    gpu_hours_available: c.gpu_hours_available,
                }),
            },
            run: Extended {
                base: &self.outcome,
                extra: self.cluster_events.map(|c| RunFields {
                    lost_gpu_s: c.lost_gpu_s,
                    failures_hit: c.failures_hit,
                }),
            },
            workload: &self.workload,
            config: &self.scenario,
            synergy_jct: self.synergy_jct(),
        };
        let mut buf = serde_json::to_vec_pretty(&file).expect("serialising to memory");
        buf.push(b'\n');
        buf
    }

    /// Write the run's files into `dir` (created if missing): `jobs.csv`, `summary.json`,
    /// `timeline.csv`, `fairness.csv`, `jct_cdf.csv` and `timeline.svg`, as one unit (see
    /// [`write_all_or_nothing`]): after a failure (a full disk, a folder in a file's place) the
    /// previous run's files are all still there, unchanged, and no temporary file is left.
    pub fn write(&self, dir: &Path) -> Result<(), SimError> {
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        let fairness = blox_runner::output::fairness_csv(&self.metrics.fairness);
        let cdf = blox_runner::output::jct_cdf_csv(&self.metrics.jcts_s);
        let total = self.scenario.cluster_spec()?.total_gpus();
        let title = format!("{}: utilisation and queue", self.scenario.label());
        let svg = blox_runner::output::timeline_svg(&title, &self.timeline, total)
            .map_err(|e| SimError::Config(format!("timeline plot: {e}")))?;
        write_all_or_nothing(
            dir,
            &[
                ("jobs.csv", self.jobs_csv()),
                ("timeline.csv", self.timeline_csv()),
                ("fairness.csv", fairness),
                ("jct_cdf.csv", cdf),
                ("timeline.svg", svg),
                ("summary.json", self.summary_json()),
            ],
        )
    }
}

/// Write several files into `dir` as one unit: either every one of them is replaced, or none is
/// and the folder holds exactly what it held before, with no temporary file left behind (see
/// [`blox_metrics::write_all_or_nothing`]).
pub fn write_all_or_nothing(dir: &Path, files: &[(&str, Vec<u8>)]) -> Result<(), SimError> {
    blox_metrics::write_all_or_nothing(dir, files).map_err(|e| SimError::io(e.path, e.source))
}

/// Write `bytes` to `dir/name` through a temporary file and a rename; on failure the old file
/// is untouched and the temporary file is removed.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), SimError> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .map_err(|e| SimError::io(&path, e))
        .and_then(|()| std::fs::rename(&tmp, &path).map_err(|e| SimError::io(&path, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A scenario setting that is not valid: its key as in a scenario file, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BadSetting {
    /// The key, e.g. `workload.load` or `round_s`.
    pub key: &'static str,
    /// What is wrong with its value.
    pub message: String,
}

impl std::fmt::Display for BadSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

/// The most jobs a generator may be asked for (a larger count would only exhaust memory).
pub const MAX_GENERATED_JOBS: usize = 10_000_000;

/// The largest number of seconds a setting such as the preemption cost may hold (the same bound
/// as a trace's times, `blox_workload::MAX_TRACE_SECONDS`).
const MAX_SECONDS: f64 = blox_workload::MAX_TRACE_SECONDS;

/// The longest round, seconds (about 11.6 days): every job arriving in a round is generated
/// when it starts, so memory grows with the round.
pub const MAX_ROUND_SECONDS: u64 = 1_000_000;

/// The lowest load, jobs per hour: a mean inter-arrival time of at most `MAX_SECONDS` (1e9 s).
pub const MIN_LOAD: f64 = 3600.0 / MAX_SECONDS;

/// The 1-based line of a scenario file that sets `key` (its last part, e.g. `load` of
/// `workload.load`, looked for after the line that names its table), if one does.
fn key_line(text: &str, key: &str) -> Option<u64> {
    let (table, last) = match key.rsplit_once('.') {
        Some((t, l)) => (Some(t), l),
        None => (None, key),
    };
    let sets = |line: &str, name: &str| {
        let mut rest = line;
        while let Some(i) = rest.find(name) {
            let before = rest[..i].chars().next_back();
            let after = rest[i + name.len()..].trim_start_matches(['"', ' ', '\t']);
            let boundary = !before.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if boundary && (after.starts_with('=') || after.starts_with(':')) {
                return true;
            }
            rest = &rest[i + name.len()..];
        }
        false
    };
    let lines: Vec<&str> = text.lines().collect();
    let start = table
        .and_then(|t| lines.iter().position(|l| l.contains(t)))
        .unwrap_or(0);
    lines[start..]
        .iter()
        .position(|l| sets(l, last))
        .map(|i| (start + i) as u64 + 1)
}

/// A trace whose every job line was malformed (and skipped) is an error, not an empty run.
pub fn every_line_bad(read: &blox_workload::TraceRead) -> Result<(), SimError> {
    if read.jobs.is_empty() && read.bad_line_count > 0 {
        let first = read
            .bad_lines
            .first()
            .map_or_else(String::new, |e| format!("; the first: {e}"));
        return Err(SimError::Config(format!(
            "every job line of the trace is malformed ({} skipped with --skip-bad-lines), so \
             there is nothing to run{first}",
            read.bad_line_count
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_without_extra_fields_serialises_as_itself() {
        let stats = blox_metrics::TimelineStats::compute(
            &[blox_core::RoundSample::new(
                Time::from_secs(3),
                1,
                2,
                0,
                3,
                4,
                1,
            )],
            8,
        );
        let plain = serde_json::to_vec_pretty(&stats).unwrap();
        let ext = Extended::<_, ClusterFields> {
            base: &stats,
            extra: None,
        };
        assert_eq!(serde_json::to_vec_pretty(&ext).unwrap(), plain);
        let with = Extended {
            base: &stats,
            extra: Some(ClusterFields {
                node_events: 2,
                gpu_hours_available: 1.5,
            }),
        };
        let text = String::from_utf8(serde_json::to_vec_pretty(&with).unwrap()).unwrap();
        assert!(
            text.ends_with("\"node_events\": 2,\n  \"gpu_hours_available\": 1.5\n}"),
            "{text}"
        );
    }
}
