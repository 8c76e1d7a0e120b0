//! [`RunSettings`]: every setting of one run as the command line, a scenario file and the Python
//! package give it, under any semantics; [`RunSettings::prepare`] checks it against the model
//! it names (a setting the model does not take is refused, never ignored) and turns it into a
//! [`crate::Prepared`] run. One source of truth for the names, defaults and checks of the
//! settings: `blox-sim` derives its flags from this struct (the `clap` feature), Python maps its
//! keyword arguments onto it.

use crate::model::{Model, Setting};
use crate::registry::Named;
use crate::scenario::{Scenario, WorkloadConfig, BLOX_TRACE_JOBS, DEFAULT_LOAD};
use crate::Semantics;
use blox_admission::AdmissionConfig;
use blox_placement::PlacementConfig;
use blox_sim::SimError;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Every setting of one run (`blox-sim run`'s flags but `--policy`, `--out` and `--progress`;
/// see [`RunSettings::policy`]). `None` (or empty, or `false`) means not given: the model's
/// default, or the scenario file's value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default, deny_unknown_fields)]
pub struct RunSettings {
    /// Scenario file (TOML or JSON); flags given here override it.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub scenario: Option<PathBuf>,
    /// Time semantics: `blox` (Blox's simulator exactly), `exact` (true finish times),
    /// `synergy` (Synergy's simulator: 300 s rounds, everything re-decided each round, whole
    /// iterations credited at allocation; its defaults: --workload synergy-default --load 9
    /// --class-split 20,70,10 --cluster 16x8 with 24 CPUs and 500 GB per node
    /// --placement synergy:mode=tune --track 4000..4999 --seed 42), `tiresias` (the Tiresias
    /// authors' simulator job by job, with its schedules and placements by their own names, or
    /// any engine policy and placement on its clock, on a trace), `gavel`
    /// (Gavel's trace simulator job by job: a gavel --trace, --cluster
    /// of v100/p100/k80, --round, --seed and Gavel's --policy names or any engine policy; or
    /// Gavel's generated jobs with --workload gavel-generated) or
    /// `pollux` (the Pollux artifact's simulator: its job model, 60 s intervals, and its
    /// policies pollux, optimus and tiresias, or any engine policy on its goodput-aware jobs, on a
    /// pollux --trace) or `sia` (the Sia artifact's simulator on a Sia
    /// workload with --policy sia[:p=P,lambda_n=L,lambda_a=A,solver=dp|cbc], gavel (its
    /// Gavel+TunedJobs baseline, 360 s rounds), pollux[:p=P] (its heterogeneity-unaware Pollux
    /// baseline on 4-GPU virtual
    /// nodes, drawing from --seed) or any engine policy (stock or registered, engine:NAME for
    /// the engine's gavel or pollux; one GPU type per job), its heterogeneous --cluster such as
    /// 6x4:aws,2x8:dgx-ext,3x8:rtx (the default) and --round; its data is fetched, see
    /// docs/data.md) [default: exact].
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "blox|exact|synergy|tiresias|gavel|pollux|sia")
    )]
    pub semantics: Option<Model>,
    /// Synthetic workload: blox-default (Blox's generator, bit-exact), blox-multigpu-trace
    /// (Blox's multi-GPU jobs from a Philly log, with --blox-trace), blox-synthetic (Blox's
    /// trace-free multi-GPU generator), poisson (configurable durations and GPU counts),
    /// dual-load (Blox's bursty workload, intended form) or synergy-default (Synergy's
    /// generator, bit-exact from --seed), or, with --semantics gavel, gavel-generated (Gavel's
    /// generated jobs: --lambda or --rate, --track, --multi-gpu, ...) [default: blox-default;
    /// synergy-default under --semantics synergy].
    #[cfg_attr(feature = "clap", arg(long, value_name = "NAME", value_parser = ["blox-default", "blox-multigpu-trace", "blox-synthetic", "poisson", "dual-load", "synergy-default", "gavel-generated"]))]
    pub workload: Option<String>,
    /// The Philly `cluster_job_log` (JSON, gzip allowed) of --workload blox-multigpu-trace.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub blox_trace: Option<PathBuf>,
    /// Class split of synergy-default, IMAGE,LANGUAGE,SPEECH in percent [default: 20,70,10].
    #[cfg_attr(feature = "clap", arg(long, value_name = "I,L,S"))]
    pub class_split: Option<String>,
    /// CPU cores per node [default: 3 per GPU under --semantics synergy, else 16].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub node_cpus: Option<u32>,
    /// Host memory per node in GB [default: 62.5 per GPU under --semantics synergy, else 250].
    #[cfg_attr(feature = "clap", arg(long, value_name = "GB"))]
    pub node_mem: Option<f64>,
    /// Number of jobs of the poisson and dual-load generators and of --resample [default: 10000].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count))]
    pub jobs: Option<usize>,
    /// Durations of the poisson generator: philly-like, constant:S, uniform:LO..HI,
    /// log-uniform:LO..HI, exponential:MEAN [default: philly-like].
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIST"))]
    pub durations: Option<String>,
    /// GPU counts of the poisson generator: philly (Philly's mix, capped at the cluster), N, or
    /// weights such as 1:0.7,4:0.2,8:0.1 [default: philly].
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIST"))]
    pub gpus: Option<String>,
    /// Resample the --trace at this many jobs per hour (--jobs jobs, fresh Poisson arrivals).
    #[cfg_attr(feature = "clap", arg(long, value_name = "JOBS_PER_HOUR", requires = "trace", allow_negative_numbers = true, value_parser = rate))]
    pub resample: Option<f64>,
    /// Arrival rate of the synthetic workload, jobs per hour [default: 8].
    #[cfg_attr(feature = "clap", arg(long, value_name = "JOBS_PER_HOUR", allow_negative_numbers = true, value_parser = rate))]
    pub load: Option<f64>,
    /// Blox's N: durations of the default workload repeat after this many jobs [default: 12000].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count))]
    pub blox_trace_jobs: Option<usize>,
    /// Read jobs from this file instead of generating them; repeat it to merge several files
    /// (e.g. the ten ITP clusters) by arrival. Gzipped files are read transparently.
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE", conflicts_with_all = ["workload", "load", "blox_trace_jobs"]))]
    pub trace: Vec<PathBuf>,
    #[allow(rustdoc::broken_intra_doc_links)] // `[,model]` is `--help` text, not a link
    /// Format of --trace: canonical (job_id,arrival_s,n_gpus,duration_s[,model]), philly, itp,
    /// pollux, gavel, tiresias, alibaba2023, helios [default: recognised from the first file's
    /// header (its columns), and said on standard error].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FORMAT"))]
    pub trace_format: Option<String>,
    /// Count and skip malformed trace lines instead of stopping at the first (the count and the
    /// first errors go to summary.json).
    #[cfg_attr(feature = "clap", arg(long))]
    pub skip_bad_lines: bool,
    /// Cluster shape as NODESxGPUS, or typed groups NODESxGPUS:TYPE separated by `,` or `+`
    /// for a heterogeneous cluster (e.g. `2x4:v100,4x4:p100,6x4:k80`) [default: 32x4; 16x8
    /// under --semantics synergy, 16x4 under --semantics pollux]. Under
    /// --semantics tiresias: NODESxGPUS (one switch, 64 CPUs and 256 GB per node) or a Tiresias
    /// cluster-spec .csv file [default: Tiresias' 32x8].
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "NODESxGPUS[:TYPE],...", allow_hyphen_values = true)
    )]
    pub cluster: Option<String>,
    /// --semantics tiresias: the cluster as a Tiresias cluster-spec CSV
    /// (`num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node`, one row).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FILE", conflicts_with = "cluster")
    )]
    pub cluster_spec: Option<PathBuf>,
    /// Per-model, per-GPU-type throughput table (Gavel's `*_throughputs.json[.gz]`): on a
    /// cluster of several GPU types, jobs run at their model's speed on each type and Gavel
    /// allocates by it [default: for a gavel trace, the table next to it].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub throughputs: Option<PathBuf>,
    /// The GPU type jobs' work is measured on, for --throughputs and Gavel traces
    /// [default: v100].
    #[cfg_attr(feature = "clap", arg(long, value_name = "TYPE"))]
    pub reference_gpu_type: Option<String>,
    /// Round length in seconds [default: 300; 360 under --semantics gavel, 60 under
    /// --semantics pollux, 60 under --semantics sia (360 for its gavel policy)].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = round_secs))]
    pub round: Option<u64>,
    /// Admission policy: `accept-all`, `load-based:FACTOR` or
    /// `queue-cap:limit=N[,mode=hold|reject]` [default: accept-all].
    #[cfg_attr(feature = "clap", arg(long, value_name = "POLICY"))]
    pub admission: Option<Named<AdmissionConfig>>,
    /// Placement: scattered (Blox's Place), first-fit, consolidated, topology, resource-aware;
    /// options as `name:key=value,...` (e.g. `consolidated:wait=true,backfill=true`)
    /// [default: scattered]. With --semantics tiresias: Tiresias' yarn, count, random, balance
    /// (default yarn; count under an engine policy), or an engine placement with an engine
    /// policy.
    #[cfg_attr(feature = "clap", arg(long, value_name = "POLICY"))]
    pub placement: Option<Named<PlacementConfig>>,
    /// Interconnect model: a topology JSON file or a shape (default, dgx, pcie, with options
    /// such as `dgx:rack=8,nic=25,uplink=100`) [default: default, for the cluster shape].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE|SHAPE"))]
    pub topology: Option<String>,
    /// Throughput model: placement (speed depends on where a job runs), policy (Optimus's
    /// scaling model) or constant (Blox's) [default: placement in exact semantics (policy for
    /// optimus), constant in blox].
    #[cfg_attr(feature = "clap", arg(long, value_name = "MODEL"))]
    pub throughput: Option<crate::ThroughputChoice>,
    /// Tracked job ids FIRST..LAST, inclusive; the run ends when all have completed
    /// [default: 3000..4000 for blox-default, every job for a trace].
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "FIRST..LAST", allow_hyphen_values = true)
    )]
    pub track: Option<String>,
    /// Seed; for blox-default it is CPython's random.seed (1 reproduces Blox) [default: 1].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", allow_negative_numbers = true, value_parser = seed))]
    pub seed: Option<u64>,
    /// Exact semantics: seconds a resumed job spends restoring after a preemption [default: 0].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds))]
    pub preemption_cost: Option<f64>,
    /// Seconds of waiting before a job is promoted to the starved class; 0 disables
    /// [default: 3600000, Blox's].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = whole_secs))]
    pub starvation: Option<u64>,
    /// Node events replayed during the run: CSV rows `time_s,node,event[,gpus,type]`, event
    /// join, leave (drain: jobs stopped, progress kept), fail (jobs lose the work since their
    /// last checkpoint) or recover; `gpus[,type]` for a join of a new node (the next id).
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub node_events: Option<PathBuf>,
    /// Seeded random failures of every node (or GPU): `mtbf=HOURS,mttr=HOURS[,scope=node|gpu]`;
    /// needs --max-sim-time (a failure can strike every job before it finishes).
    #[cfg_attr(feature = "clap", arg(long, value_name = "SPEC"))]
    pub failures: Option<String>,
    /// Autoscaling by queue and utilisation:
    /// `min_nodes=N,max_nodes=M[,low=FRACTION,cooldown=ROUNDS,node=GPUS[:TYPE]]`.
    #[cfg_attr(feature = "clap", arg(long, value_name = "SPEC"))]
    pub autoscale: Option<String>,
    /// Seconds between a running job's checkpoints: what a failure loses; 0 = nothing
    /// [default: none, a failure loses everything since the job's last (re)start].
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "SECONDS", allow_negative_numbers = true)
    )]
    pub checkpoint_interval: Option<f64>,
    /// End the run with an error once simulated time passes this many seconds (e.g. 86400 for
    /// one simulated day) [default: no limit; required with --failures].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = limit_secs))]
    pub max_sim_time: Option<f64>,
    /// Exact semantics: take decisions each round (`rounds`) or also at every arrival and
    /// completion (`events`, Tiresias-style) [default: rounds].
    #[cfg_attr(feature = "clap", arg(long, value_name = "rounds|events"))]
    pub decide: Option<blox_sim::Decide>,
    /// Gavel generated jobs: mean inter-arrival time in seconds, an exact float (Gavel's `-l`;
    /// 0 = every job at t = 0, static mode, with --jobs N).
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds, conflicts_with = "rate"))]
    pub lambda: Option<f64>,
    /// Gavel generated jobs: arrival rate in jobs per hour; the mean inter-arrival time is
    /// 3600/rate, computed as Gavel's sweeps compute it.
    #[cfg_attr(feature = "clap", arg(long, value_name = "JOBS_PER_HOUR", allow_negative_numbers = true, value_parser = rate))]
    pub rate: Option<f64>,
    /// Gavel generated jobs: multi-GPU jobs (Gavel's `--generate-multi-gpu-jobs`).
    #[cfg_attr(feature = "clap", arg(long))]
    pub multi_gpu: bool,
    /// Gavel generated jobs: 20 % of jobs get priority weight 5
    /// (`--generate-multi-priority-jobs`).
    #[cfg_attr(feature = "clap", arg(long))]
    pub priorities: bool,
    /// Gavel generated jobs: fill the cluster with jobs at t = 0 first
    /// (`--simulate-steady-state`).
    #[cfg_attr(feature = "clap", arg(long))]
    pub steady_state: bool,
    /// Gavel generated jobs: every job lasts this long on V100s instead of a drawn duration
    /// (Gavel's `-f`).
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = limit_secs))]
    pub fixed_duration: Option<f64>,
    /// Pollux semantics: the applications' trace folder [default: `traces/` beside the
    /// workload's folder, as in the artifact].
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub pollux_traces: Option<PathBuf>,
    /// Sia semantics: the per-GPU-type traces folder of Sia's data (`traces/`, with
    /// `<application>/placements-<type>.csv` and the rest) [default: the `traces/` folder
    /// above the workload, as in the artifact]. With it a workload kept elsewhere runs, such as
    /// Pollux's (`--trace-format pollux`: the same columns and applications).
    #[cfg_attr(feature = "clap", arg(long, value_name = "DIR"))]
    pub sia_traces: Option<PathBuf>,
    /// Pollux semantics: fraction of goodput a distributed job loses on a node shared with
    /// another distributed job [default: 0].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FRACTION"))]
    pub interference: Option<f64>,
    /// Pollux semantics: let the Pollux policy put several distributed jobs on one node (the
    /// artifact's `noavoid` runs).
    #[cfg_attr(feature = "clap", arg(long))]
    pub no_interference_avoidance: bool,
    /// Pollux semantics: generations of the Pollux policy's genetic search [default: 100].
    #[cfg_attr(feature = "clap", arg(long, value_name = "N"))]
    pub generations: Option<usize>,
    /// The scheduling policy, as the model names it (`--policy` of `run`; `compare` and
    /// `sweep` take lists of them): an engine component (stock or registered) under the
    /// engine's semantics, a peer's own name or an engine policy under a peer's.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub policy: Option<String>,
    /// Where the run's files go (`--out` of `run`).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub out: Option<PathBuf>,
}

/// The value parsers of the numeric settings (the command line's and Python's): each says what is
/// wrong with a value (a negative number included, which clap would otherwise take for a flag).
pub mod values {

    /// A whole number in `min..=max`; `what` says what is expected.
    pub fn whole(v: &str, what: &str, min: u64, max: u64) -> Result<u64, String> {
        let t = v.trim();
        let n = t.parse::<u64>().ok().or_else(|| {
            t.parse::<f64>()
                .ok()
                .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x < u64::MAX as f64)
                .map(|x| x as u64)
        });
        match n {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            _ if t.starts_with('-') => Err(format!("must be {what} (it is negative)")),
            _ => Err(format!("must be {what}")),
        }
    }

    /// A finite number that `ok` accepts; `what` says what is expected.
    pub fn real(v: &str, what: &str, ok: impl Fn(f64) -> bool) -> Result<f64, String> {
        match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && ok(x) => Ok(x),
            Ok(x) if x < 0.0 => Err(format!("must be {what} (it is negative)")),
            _ => Err(format!("must be {what}")),
        }
    }

    /// A number of jobs (`--jobs`, `--blox-trace-jobs`).
    pub fn job_count(v: &str) -> Result<usize, String> {
        let max = crate::MAX_GENERATED_JOBS as u64;
        whole(v, &format!("a whole number of jobs in 1..={max}"), 1, max).map(|n| n as usize)
    }

    /// An arrival rate in jobs per hour (`--load`, `--resample`).
    pub fn rate(v: &str) -> Result<f64, String> {
        let min = crate::MIN_LOAD;
        let what = format!(
            "a number of jobs per hour ≥ {min:e} (a mean inter-arrival time of at most 1e9 s, the \
             simulator's time bound)"
        );
        real(v, &what, |x| x >= min)
    }

    /// A round length in whole seconds (`--round`).
    pub fn round_secs(v: &str) -> Result<u64, String> {
        let max = crate::MAX_ROUND_SECONDS;
        whole(
            v,
            &format!("a whole number of seconds in 1..={max}"),
            1,
            max,
        )
    }

    /// Whole seconds ≥ 0 (`--starvation`).
    pub fn whole_secs(v: &str) -> Result<u64, String> {
        whole(v, "a whole number of seconds ≥ 0", 0, u64::MAX / 1000)
    }

    /// Seconds ≥ 0 (`--preemption-cost`).
    pub fn seconds(v: &str) -> Result<f64, String> {
        let max = blox_workload::MAX_TRACE_SECONDS;
        real(v, &format!("a number of seconds in 0..={max:e}"), |x| {
            (0.0..=max).contains(&x)
        })
    }

    /// A positive time limit in seconds (`--max-sim-time`).
    pub fn limit_secs(v: &str) -> Result<f64, String> {
        let max = blox_workload::MAX_TRACE_SECONDS;
        real(v, &format!("a number of seconds in (0, {max:e}]"), |x| {
            x > 0.0 && x <= max
        })
    }

    /// A seed (`--seed`).
    pub fn seed(v: &str) -> Result<u64, String> {
        whole(
            v,
            &format!("a whole number in 0..={}", u64::MAX),
            0,
            u64::MAX,
        )
    }

    /// A number of worker threads (`--threads`).
    pub fn threads(v: &str) -> Result<usize, String> {
        whole(v, "a whole number of threads ≥ 1", 1, 4096).map(|n| n as usize)
    }

    /// A repetition count ≥ 1 (`bench --repeat`).
    pub fn repeat(v: &str) -> Result<u32, String> {
        whole(v, "a whole number ≥ 1", 1, u64::from(u32::MAX)).map(|n| n as u32)
    }
}
#[cfg(feature = "clap")]
use values::*;

impl RunSettings {
    /// Settings from their JSON form (as `serde_json::to_value` writes them). Not generic: a
    /// crate that reads settings calls this instead of compiling their deserialiser again.
    pub fn from_json(v: serde_json::Value) -> Result<RunSettings, serde_json::Error> {
        serde_json::from_value(v)
    }

    /// These settings' JSON form (`serde_json::to_value`), not generic as
    /// [`RunSettings::from_json`].
    pub fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    /// The engine scenario these settings describe (`exact`, `blox`, `synergy`, and the Pollux
    /// preset's base), checked up front: a bad value is blamed on the setting that set it, else
    /// on the scenario file's key.
    pub fn engine_scenario(&self) -> Result<Scenario, SimError> {
        self.engine_scenario_from(None)
    }

    /// [`RunSettings::engine_scenario`] applied onto `base`, a scenario given as data rather
    /// than as the `scenario` file (the Python package's `scenario=` dict, parsed and checked by
    /// the caller). `base` counts as a given scenario, as a file does: Synergy's defaults are
    /// not applied over it, and a check's error names the setting that set the key, else the
    /// key. `None` is [`RunSettings::engine_scenario`]. Giving both `base` and a `scenario` file
    /// is an error.
    pub fn engine_scenario_from(&self, base: Option<Scenario>) -> Result<Scenario, SimError> {
        let given_base = base.is_some() || self.scenario.is_some();
        let mut s = match (base, &self.scenario) {
            (Some(_), Some(path)) => {
                return Err(SimError::Config(format!(
                    "--scenario {}: a scenario is given twice (a file and as data)",
                    path.display()
                )))
            }
            (Some(b), None) => b,
            (None, Some(path)) => Scenario::from_file(path)?,
            (None, None) => Scenario::default(),
        };
        match self.semantics {
            Some(m @ (Model::Exact | Model::Blox | Model::Synergy)) => {
                s.semantics = m.engine().expect("an engine model")
            }
            // The Pollux preset keeps the scenario's semantics for what it shares (labels);
            // `RunSettings::prepare` runs it on the engine after building the scenario.
            Some(Model::Pollux) => {}
            Some(Model::Tiresias) => {
                return Err(SimError::Config(
                    "--semantics tiresias runs its own simulator, not an engine scenario".into(),
                ))
            }
            Some(m @ (Model::Gavel | Model::Sia)) => {
                return Err(SimError::Config(format!(
                    "--semantics {m} runs its own simulator, not an engine scenario"
                )))
            }
            None => {}
        }
        if self.workload.as_deref() == Some("gavel-generated") {
            return Err(SimError::Config(
                "--workload gavel-generated is Gavel's generated-jobs mode: it goes with \
                 --semantics gavel"
                    .into(),
            ));
        }
        if self.cluster_spec.is_some() {
            return Err(SimError::Config(
                "--cluster-spec goes with --semantics tiresias".into(),
            ));
        }
        let jobs = self.jobs.unwrap_or(crate::DEFAULT_GENERATED_JOBS);
        if !self.trace.is_empty() {
            let format = match &self.trace_format {
                Some(f) => f.clone(),
                None => detect_format(&self.trace[0])?,
            };
            s.workload = match self.resample {
                Some(load) => WorkloadConfig::Resample {
                    paths: self.trace.clone(),
                    format,
                    load,
                    jobs,
                },
                None => WorkloadConfig::Trace {
                    paths: self.trace.clone(),
                    format,
                    skip_bad_lines: self.skip_bad_lines,
                },
            };
        } else if self.trace_format.is_some() || self.skip_bad_lines {
            return Err(SimError::Config(
                "--trace-format and --skip-bad-lines need --trace FILE".into(),
            ));
        } else if self.workload.as_deref() == Some("poisson") {
            s.workload = WorkloadConfig::Poisson {
                load: self.load.unwrap_or(DEFAULT_LOAD),
                jobs,
                durations: self
                    .durations
                    .clone()
                    .unwrap_or_else(|| "philly-like".into()),
                gpus: self.gpus.clone().unwrap_or_else(|| "philly".into()),
            };
        } else if self.workload.as_deref() == Some("blox-multigpu-trace") {
            let path = self.blox_trace.clone().ok_or_else(|| {
                SimError::Config(
                    "--workload blox-multigpu-trace needs --blox-trace FILE (a Philly cluster_job_log)"
                        .into(),
                )
            })?;
            s.workload = WorkloadConfig::BloxMultigpuTrace {
                load: self.load.unwrap_or(DEFAULT_LOAD),
                path,
            };
        } else if self.workload.as_deref() == Some("blox-synthetic") {
            s.workload = WorkloadConfig::BloxSynthetic {
                load: self.load.unwrap_or(DEFAULT_LOAD),
            };
        } else if self.workload.as_deref() == Some("synergy-default")
            || (self.workload.is_none() && !given_base && s.semantics == Semantics::Synergy)
            || self.class_split.is_some()
        {
            let (old_load, old_split) = match &s.workload {
                WorkloadConfig::SynergyDefault { load, class_split } => {
                    (*load, class_split.clone())
                }
                _ => (
                    crate::SYNERGY_LOAD,
                    blox_synergy::ClassSplit::DEFAULT.label(),
                ),
            };
            if self
                .workload
                .as_deref()
                .is_some_and(|w| w != "synergy-default")
            {
                return Err(SimError::Config(
                    "--class-split goes with --workload synergy-default".into(),
                ));
            }
            let class_split = self.class_split.clone().unwrap_or(old_split);
            class_split
                .parse::<blox_synergy::ClassSplit>()
                .map_err(|e| SimError::Config(format!("--class-split: {e}")))?;
            s.workload = WorkloadConfig::SynergyDefault {
                load: self.load.unwrap_or(old_load),
                class_split,
            };
        } else if self.workload.as_deref() == Some("dual-load") {
            s.workload = WorkloadConfig::DualLoad {
                load: self.load.unwrap_or(9.0),
                jobs,
            };
        } else if self.durations.is_some() || self.gpus.is_some() {
            return Err(SimError::Config(
                "--durations and --gpus go with --workload poisson".into(),
            ));
        } else if self.blox_trace.is_some() {
            return Err(SimError::Config(
                "--blox-trace goes with --workload blox-multigpu-trace".into(),
            ));
        } else if self.workload.is_some() || self.load.is_some() || self.blox_trace_jobs.is_some() {
            let (old_load, old_n) = match s.workload {
                WorkloadConfig::BloxDefault { load, trace_jobs } => (load, trace_jobs),
                _ => (DEFAULT_LOAD, BLOX_TRACE_JOBS),
            };
            s.workload = WorkloadConfig::BloxDefault {
                load: self.load.unwrap_or(old_load),
                trace_jobs: self.blox_trace_jobs.unwrap_or(old_n),
            };
        }
        // `--jobs` sizes the finite generators (from a flag or a scenario file); anything else
        // would ignore it.
        if let Some(n) = self.jobs {
            match &mut s.workload {
                WorkloadConfig::Poisson { jobs, .. }
                | WorkloadConfig::DualLoad { jobs, .. }
                | WorkloadConfig::Resample { jobs, .. } => *jobs = n,
                _ => {
                    return Err(SimError::Config(
                        "--jobs sets how many jobs --workload poisson, --workload dual-load and \
                         --resample generate; this workload has no such count (Blox's and \
                         Synergy's generators are endless and --track picks the jobs measured; \
                         a trace has the jobs it has)"
                            .into(),
                    ))
                }
            }
        }
        // Synergy's own defaults under its semantics, unless a scenario file or a flag says
        // otherwise.
        if s.semantics == Semantics::Synergy && !given_base {
            s.cluster = crate::SYNERGY_CLUSTER.into();
            s.seed = crate::SYNERGY_SEED;
            s.placement = Named::Peer(blox_synergy::SynergyPlacementConfig::default().to_string());
        }
        // The Pollux artifact's cluster and interval under its preset (its help promises 60 s
        // intervals), unless a scenario file or a flag says otherwise.
        if self.semantics == Some(Model::Pollux) && !given_base {
            s.cluster = crate::POLLUX_CLUSTER.into();
            s.round_s = crate::POLLUX_INTERVAL_S;
        }
        if let Some(v) = &self.cluster {
            s.cluster = v.as_str().into();
        }
        if let Some(v) = self.node_cpus {
            s.node_cpus = Some(v);
        }
        if let Some(v) = self.node_mem {
            s.node_mem_gb = Some(v);
        }
        if let Some(v) = &self.throughputs {
            s.throughputs = Some(v.clone());
        }
        if let Some(v) = &self.reference_gpu_type {
            s.reference_gpu_type = v.clone();
        }
        if let Some(v) = self.round {
            s.round_s = v;
        }
        if let Some(v) = &self.admission {
            s.admission = v.clone();
        }
        if let Some(v) = &self.placement {
            s.placement = v.clone();
        }
        if let Some(v) = &self.topology {
            s.topology = Some(v.clone());
        }
        if let Some(v) = self.throughput {
            s.throughput_model = Some(v);
        }
        if let Some(v) = &self.track {
            s.track = Some(v.as_str().into());
        }
        if let Some(v) = self.seed {
            s.seed = v;
        }
        if let Some(v) = self.preemption_cost {
            s.preemption_cost_s = v;
        }
        if let Some(v) = self.starvation {
            s.starvation_s = v;
        }
        if let Some(v) = &self.node_events {
            s.node_events = Some(v.clone());
        }
        if let Some(v) = &self.failures {
            s.failures = Some(v.as_str().into());
        }
        if let Some(v) = &self.autoscale {
            s.autoscale = Some(v.as_str().into());
        }
        if let Some(v) = self.checkpoint_interval {
            s.checkpoint_interval_s = Some(v);
        }
        if let Some(v) = self.decide {
            s.decide = Some(v);
        }
        if let Some(v) = self.max_sim_time {
            s.max_sim_time_s = Some(v);
        }
        // Validate everything up front so that errors come before any work: a bad value is
        // blamed on the flag that set it, else on the scenario file's key.
        s.check().map_err(
            |bad| match (self.flag_of(bad.key, given_base), &self.scenario) {
                (Some(flag), _) => SimError::Config(format!("{flag}: {}", bad.message)),
                (None, Some(file)) => SimError::input(file, None, Some(bad.key), bad.message),
                (None, None) => SimError::Config(format!("{bad}")),
            },
        )?;
        s.cluster_spec()?;
        s.sim_config()?;
        s.topology_model()?;
        s.policy_env()?;
        s.cluster_events()?;
        check_track_selects_jobs(&s)?;
        Ok(s)
    }
}

/// The format of `path`, recognised from its header when `--trace-format` is not given, and
/// said on standard error; an error naming the formats that fit when none or several do.
fn detect_format(path: &std::path::Path) -> Result<String, SimError> {
    use blox_workload::TraceFormat;
    let bytes = blox_workload::read_input(path)?;
    match TraceFormat::detect(&bytes) {
        Ok(f) => {
            eprintln!(
                "blox-sim: reading {} as --trace-format {f} (recognised from its header)",
                path.display()
            );
            Ok(f.name().to_string())
        }
        Err(several) if !several.is_empty() => Err(SimError::Config(format!(
            "{}: its header fits several trace formats ({}); say which with --trace-format",
            path.display(),
            several
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        Err(_) => {
            let needs: Vec<String> = TraceFormat::ALL
                .iter()
                .map(|f| match f.required_columns() {
                    [] if *f == TraceFormat::Philly => "philly (JSON)".to_string(),
                    [] => format!("{f} (tab-separated, no header)"),
                    sets => format!(
                        "{f} ({})",
                        sets.iter()
                            .map(|s| s.join(","))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                })
                .collect();
            Err(SimError::Config(format!(
                "{}: its first line fits no trace format; give --trace-format, one of: {}",
                path.display(),
                needs.join("; ")
            )))
        }
    }
}

/// A tracked window past the last job of a generator with a fixed count selects nothing: an
/// error, not a run that reports `tracked 0` and zero JCTs.
fn check_track_selects_jobs(s: &Scenario) -> Result<(), SimError> {
    let n = match &s.workload {
        WorkloadConfig::Poisson { jobs, .. }
        | WorkloadConfig::DualLoad { jobs, .. }
        | WorkloadConfig::Resample { jobs, .. } => *jobs,
        _ => return Ok(()),
    };
    match s.track_window()? {
        Some(w) if w.first as usize >= n => Err(SimError::Config(format!(
            "--track {}..{} selects no job: the workload has {n} jobs (ids 0..{}); use --jobs \
             {} or more, or a window inside it",
            w.first,
            w.last,
            n.saturating_sub(1),
            u64::from(w.last) + 1
        ))),
        _ => Ok(()),
    }
}

impl RunSettings {
    /// The settings given (not `None`, empty or `false`).
    pub fn given(&self) -> Vec<Setting> {
        let set = [
            (Setting::Scenario, self.scenario.is_some()),
            (Setting::Workload, self.workload.is_some()),
            (Setting::BloxTrace, self.blox_trace.is_some()),
            (Setting::ClassSplit, self.class_split.is_some()),
            (Setting::NodeCpus, self.node_cpus.is_some()),
            (Setting::NodeMem, self.node_mem.is_some()),
            (Setting::Jobs, self.jobs.is_some()),
            (Setting::Durations, self.durations.is_some()),
            (Setting::Gpus, self.gpus.is_some()),
            (Setting::Resample, self.resample.is_some()),
            (Setting::Load, self.load.is_some()),
            (Setting::BloxTraceJobs, self.blox_trace_jobs.is_some()),
            (Setting::Trace, !self.trace.is_empty()),
            (Setting::TraceFormat, self.trace_format.is_some()),
            (Setting::SkipBadLines, self.skip_bad_lines),
            (Setting::Cluster, self.cluster.is_some()),
            (Setting::ClusterSpec, self.cluster_spec.is_some()),
            (Setting::Throughputs, self.throughputs.is_some()),
            (Setting::ReferenceGpuType, self.reference_gpu_type.is_some()),
            (Setting::Round, self.round.is_some()),
            (Setting::Admission, self.admission.is_some()),
            (Setting::Placement, self.placement.is_some()),
            (Setting::Topology, self.topology.is_some()),
            (Setting::Throughput, self.throughput.is_some()),
            (Setting::Track, self.track.is_some()),
            (Setting::Seed, self.seed.is_some()),
            (Setting::PreemptionCost, self.preemption_cost.is_some()),
            (Setting::Starvation, self.starvation.is_some()),
            (Setting::NodeEvents, self.node_events.is_some()),
            (Setting::Failures, self.failures.is_some()),
            (Setting::Autoscale, self.autoscale.is_some()),
            (
                Setting::CheckpointInterval,
                self.checkpoint_interval.is_some(),
            ),
            (Setting::MaxSimTime, self.max_sim_time.is_some()),
            (Setting::Decide, self.decide.is_some()),
            (Setting::PolluxTraces, self.pollux_traces.is_some()),
            (Setting::SiaTraces, self.sia_traces.is_some()),
            (Setting::Interference, self.interference.is_some()),
            (
                Setting::NoInterferenceAvoidance,
                self.no_interference_avoidance,
            ),
            (Setting::Generations, self.generations.is_some()),
            (Setting::Lambda, self.lambda.is_some()),
            (Setting::Rate, self.rate.is_some()),
            (Setting::MultiGpu, self.multi_gpu),
            (Setting::Priorities, self.priorities),
            (Setting::SteadyState, self.steady_state),
            (Setting::FixedDuration, self.fixed_duration.is_some()),
        ];
        set.into_iter()
            .filter(|(_, on)| *on)
            .map(|(s, _)| s)
            .collect()
    }

    /// The model these flags run under, and the flags it does not take refused.
    pub fn model(&self) -> Result<Model, SimError> {
        let model = self.semantics.unwrap_or_default();
        model.check(&self.given()).map_err(SimError::Config)?;
        Ok(model)
    }

    /// The flag that set the scenario key `key` on this command line, if one did.
    /// `given_base`: a scenario (file or data) was given, so a key no flag set came from it.
    fn flag_of(&self, key: &str, given_base: bool) -> Option<&'static str> {
        let given = match key {
            "cluster" => self.cluster.is_some(),
            "round_s" => self.round.is_some(),
            "preemption_cost_s" => self.preemption_cost.is_some() || self.semantics.is_some(),
            "track" => self.track.is_some(),
            "workload.load" => self.load.is_some() || self.resample.is_some(),
            "workload.jobs" => self.jobs.is_some(),
            "workload.trace_jobs" => self.blox_trace_jobs.is_some(),
            "workload.durations" => self.durations.is_some(),
            "workload.gpus" => self.gpus.is_some() || self.cluster.is_some(),
            "workload.format" => self.trace_format.is_some(),
            "workload.paths" => !self.trace.is_empty(),
            "topology" => self.topology.is_some() || self.cluster.is_some(),
            "max_sim_time_s" => self.max_sim_time.is_some(),
            "failures" => self.failures.is_some(),
            "autoscale" => self.autoscale.is_some(),
            _ => false,
        };
        // With no scenario file every value came from a flag or a default.
        if !given && given_base {
            return None;
        }
        Some(match key {
            "cluster" => "--cluster",
            "round_s" => "--round",
            "preemption_cost_s" => "--preemption-cost",
            "track" => "--track",
            "workload.load" if self.resample.is_some() => "--resample",
            "workload.load" => "--load",
            "workload.jobs" => "--jobs",
            "workload.trace_jobs" => "--blox-trace-jobs",
            "workload.durations" => "--durations",
            "workload.gpus" => "--gpus",
            "workload.format" => "--trace-format",
            "workload.paths" => "--trace",
            "topology" => "--topology",
            "max_sim_time_s" => "--max-sim-time",
            "failures" => "--failures",
            "autoscale" => "--autoscale",
            _ => return None,
        })
    }
}
