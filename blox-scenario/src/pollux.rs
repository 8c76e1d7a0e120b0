//! `--semantics pollux`: the Pollux artifact's simulator as a preset (its time model, job model
//! and policies by its own names), chosen once here.
//!
//! The time model is [`blox_pollux::Pollux`] over the shared job model of `blox-pollux`
//! ([`PolluxShared`], an [`blox_pollux::IntervalModel`]). `--policy pollux|optimus|tiresias` are
//! the artifact's policies (Pollux's genetic search; Optimus+Oracle+TunedJobs;
//! Tiresias+TunedJobs) with their own node-level placement. Any other policy runs with the
//! scenario's placement on the same job model (elastic Pollux jobs whose agent picks the batch
//! size for the GPUs they get).

use std::path::PathBuf;

use blox_core::{Pipeline, Seed};
use blox_metrics::{JobLog, Timeline};
use blox_pollux::Pollux;
use blox_pollux::{
    Applications, JobSetup, Optimus, PolluxPlacement, PolluxPolicy, PolluxPolicyConfig,
    PolluxScheduling, PolluxShared, RoundPolicy, SharedConfig, Tiresias,
};
use blox_sim::SimError;

use crate::registry::Registry;
use crate::scenario::{RunReport, Scenario, ThroughputChoice, WorkloadConfig};

/// Pollux's knobs beyond the scenario.
#[derive(Clone, Debug, Default)]
pub struct PolluxOptions {
    /// The applications' trace folder (default: `traces/` beside the workload's folder).
    pub traces: Option<PathBuf>,
    /// Goodput lost by a distributed job on a node shared with another distributed job.
    pub interference: f64,
    /// Turn off Pollux's interference avoidance (at most one distributed job per node).
    pub no_avoidance: bool,
    /// Generations of the genetic search (default: the artifact's 100).
    pub generations: Option<usize>,
}

/// The workload file of a Pollux scenario: exactly one `--trace` in `pollux` format.
fn workload_path(s: &Scenario) -> Result<PathBuf, SimError> {
    match &s.workload {
        WorkloadConfig::Trace { paths, format, .. } if paths.len() == 1 && format == "pollux" => {
            Ok(paths[0].clone())
        }
        _ => Err(SimError::Config(
            "--semantics pollux needs one --trace FILE with --trace-format pollux (a \
             workloads*/workload-N.csv of the Pollux artifact)"
                .into(),
        )),
    }
}

/// A Pollux run's report as the one report type of every semantics.
pub fn finished(report: RunReport) -> Result<crate::Finished, SimError> {
    let label = format!(
        "pollux {}/{}",
        report.scenario.admission, report.scenario.policy
    );
    let mut f = report.finished(label, "pollux".into())?;
    f.model = crate::Model::Pollux;
    f.files.push("pollux.json");
    Ok(f)
}

/// Run `s` under the Pollux artifact's semantics (no progress display).
pub fn run(s: &Scenario, opts: &PolluxOptions, registry: &Registry) -> Result<RunReport, SimError> {
    run_observed(s, opts, registry, crate::progress::ProgressMode::Off)
}

/// [`run`] with a progress display on standard error; `max_sim_time_s` is enforced as in every
/// mode.
pub fn run_observed(
    s: &Scenario,
    opts: &PolluxOptions,
    registry: &Registry,
    progress: crate::progress::ProgressMode,
) -> Result<RunReport, SimError> {
    use crate::progress::{Progress, ProgressState, TimeLimit};
    let workload = workload_path(s)?;
    let traces = opts
        .traces
        .clone()
        .unwrap_or_else(|| Applications::beside_workload(&workload));
    let cluster = s.cluster_spec()?;
    let (nodes, gpn) = uniform(&cluster)?;
    if !(0.0..1.0).contains(&opts.interference) {
        return Err(SimError::Config(format!(
            "--interference {}: must be in [0, 1)",
            opts.interference
        )));
    }
    let name = s.policy.to_string();
    let base = name.split(':').next().unwrap_or_default().to_string();
    let setup = match base.as_str() {
        "tiresias" => JobSetup::TunedGang,
        "optimus" => JobSetup::TunedBatch,
        _ => JobSetup::Adaptive,
    };
    let mut sc = SharedConfig::new(nodes, gpn, setup);
    sc.interference = opts.interference;
    let shared =
        PolluxShared::new(&workload, &traces, sc).map_err(|e| SimError::Config(e.to_string()))?;
    let model = Pollux::new(shared.clone());
    let cfg = s.sim_config()?.with_model(model);
    let mut scen = s.clone();
    scen.throughput_model = Some(ThroughputChoice::Constant);
    let throughput = scen.throughput()?;
    let (wl, wl_report) = scen.load_workload()?;
    let window = s.track_window()?;
    let tracked_total = window.map(|w| w.len()).or(wl_report.jobs_read);
    let state = std::sync::Arc::new(ProgressState::default());
    let limit = match s.max_sim_time_s {
        Some(t) => blox_core::Time::from_secs_f64_ceil(t).unwrap_or(blox_core::Time(u64::MAX)),
        None => blox_core::Time(u64::MAX),
    };
    let mut wl = TimeLimit::new(wl, limit, state.clone(), tracked_total);
    let sink = Progress::new(
        (JobLog::default(), Timeline::default()),
        state,
        window.map(|w| w.ids()),
        tracked_total,
        progress,
        format!("pollux {}", s.policy),
    );
    let artifact: Option<Box<dyn RoundPolicy + Send>> = match base.as_str() {
        "pollux" => {
            let mut pc = PolluxPolicyConfig::default();
            pc.avoid_interference = !opts.no_avoidance;
            if let Some(g) = opts.generations {
                pc.generations = g.max(1);
            }
            Some(Box::new(PolluxPolicy::new(pc)))
        }
        "optimus" => Some(Box::new(Optimus)),
        "tiresias" => Some(Box::new(Tiresias::new())),
        _ => None,
    };
    let admission = registry.build_admission(&s.admission)?;
    // Both arms box their components into the one pipeline type, so the engine is compiled
    // once for Pollux's runs (its per-round cost is the policy's, not the dispatch's).
    let scheduler: blox_core::BoxPipeline = match artifact {
        Some(p) => Pipeline::new(
            admission,
            Box::new(PolluxScheduling::new(shared.clone(), p, Seed(s.seed))),
            Box::new(PolluxPlacement::new(shared.clone())),
        ),
        None => {
            let env = s.policy_env()?;
            Pipeline::new(
                admission,
                registry.build_policy(&s.policy, &env)?,
                registry.build_placement(&s.placement, Some(s.topology_model()?))?,
            )
        }
    };
    let (outcome, sink) =
        blox_runner::run_pollux(cfg, cluster, scheduler, throughput, sink, &mut wl)?;
    let ((log, timeline), err) = (sink.into_inner(), shared_error(&shared));
    if let Some(e) = err {
        return Err(SimError::Config(format!("pollux job model: {e}")));
    }
    let mut report = s.report(outcome, log, timeline)?;
    report.workload = wl_report;
    if let Some(dir) = &s.out {
        report.write(dir)?;
        // The scenario in summary.json names the engine's stock semantics; this file says which
        // preset and knobs the run used.
        let meta = serde_json::json!({
            "semantics": "pollux",
            "policy": name,
            "interval_s": s.round_s,
            "interference": opts.interference,
            "interference_avoidance": !opts.no_avoidance,
            "generations": opts.generations.unwrap_or(PolluxPolicyConfig::default().generations),
            "seed": s.seed,
            "workload": workload.display().to_string(),
            "traces": traces.display().to_string(),
        });
        let bytes =
            serde_json::to_vec_pretty(&meta).map_err(|e| SimError::Config(e.to_string()))?;
        crate::scenario::write_atomically(dir, "pollux.json", &bytes)?;
    }
    Ok(report)
}

fn shared_error(shared: &PolluxShared) -> Option<String> {
    blox_pollux::IntervalModel::error(shared)
}

fn uniform(c: &blox_core::ClusterSpec) -> Result<(u32, u32), SimError> {
    let nodes = c.nodes.len() as u32;
    let gpn = c.nodes.first().map_or(0, |n| n.gpus);
    if nodes == 0 || c.nodes.iter().any(|n| n.gpus != gpn) {
        return Err(SimError::Config(
            "--semantics pollux needs a uniform cluster NODESxGPUS (e.g. 16x4)".into(),
        ));
    }
    Ok((nodes, gpn))
}
