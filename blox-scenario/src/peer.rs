//! One run path for every semantics: [`RunSettings::prepare`] matches the [`Model`] once and
//! gives a [`Prepared`] run; every arm implements [`PeerRun`], whose `run` returns the one
//! report type, [`Finished`]. `blox-sim run`, `compare` and `sweep`, and the Python package, all
//! go through here, so a new peer is one more arm (and its crate), not a new command path.

#[cfg(feature = "gavel")]
use crate::gavel::GavelRun;
#[cfg(feature = "gavel")]
use crate::gavel_generated::{parse_window, ArrivalSetting, GavelGeneratedRun, WORKLOAD_NAME};
use crate::model::Model;
#[cfg(feature = "pollux")]
use crate::pollux::PolluxOptions;
use crate::progress::ProgressMode;
use crate::registry::Registry;
use crate::settings::RunSettings;
#[cfg(feature = "tiresias")]
use crate::tiresias::TiresiasArgs;
use crate::{RunReport, Scenario, Semantics};
use blox_metrics::{ComparisonRow, RunMetrics};
use blox_sim::SimError;
use std::path::{Path, PathBuf};

/// How a run reports while it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Observe {
    /// Progress on standard error (the engine's semantics and Pollux's).
    pub progress: ProgressMode,
    /// Print the overload warning on standard error when the jobs offer more work than the
    /// cluster can do.
    pub warn: bool,
}

impl Observe {
    /// Quiet: no progress, no warning.
    pub fn quiet() -> Self {
        Observe::default()
    }

    /// With progress in `mode` and, if `warn`, the overload warning.
    pub fn new(progress: ProgressMode, warn: bool) -> Self {
        Observe { progress, warn }
    }
}

/// A finished run under any semantics: its statistics (the same columns for every model) and
/// what `blox-sim` prints of it. Its files are in [`Finished::out`] when the run had one.
#[derive(Debug)]
#[non_exhaustive]
pub struct Finished {
    /// The semantics it ran under.
    pub model: Model,
    /// Its label (the component's name as given), statistics over the tracked jobs, the
    /// cluster series and the JCTs.
    pub metrics: RunMetrics,
    /// Preemptions over the whole run.
    pub preemptions: u64,
    /// When the run ended on its clock, seconds.
    pub end_time_s: f64,
    /// Printed after the results table of a single run (e.g. Synergy's own JCT lines); may be
    /// empty.
    pub details: String,
    /// One line on the run (semantics, cluster, workload, end); `run` adds the wall time.
    pub footer: String,
    /// Lines after the footer (e.g. Gavel's average JCT at full precision).
    pub more: Vec<String>,
    /// What the runs of a comparison share (semantics, cluster, workload), for its footer.
    pub context: String,
    /// Said under a comparison's table for this run, e.g. that not every job completed.
    pub note: Option<String>,
    /// The folder its files were written into, if any.
    pub out: Option<PathBuf>,
    /// The names of the files written there.
    pub files: Vec<&'static str>,
    /// The engine's full report, for runs the engine's `Driver` ran (`exact`, `blox`,
    /// `synergy`, `pollux`).
    pub report: Option<RunReport>,
}

impl Finished {
    /// The run's row of a comparison table.
    pub fn row(&self) -> ComparisonRow {
        let mut row = self.metrics.row();
        row.preemptions = self.preemptions;
        row
    }

    /// `wrote DIR/{a,b,c}` for the files written, if any.
    pub fn wrote(&self) -> Option<String> {
        self.out
            .as_ref()
            .map(|d| format!("wrote {}/{{{}}}", d.display(), self.files.join(",")))
    }
}

/// A run of one model, ready to go: its settings checked, its output folder checked.
pub trait PeerRun {
    /// The semantics it runs under.
    fn model(&self) -> Model;
    /// Run it (and write its files, if it has an output folder).
    fn run(&self, registry: &Registry, observe: Observe) -> Result<Finished, SimError>;
}

/// The statistics of a peer's run in the columns every semantics reports, from each measured
/// job's `(arrival_s, completion_s or None, GPUs)` on the peer's clock (JCTs on the engine's
/// millisecond clock; the caller may set the mean at the peer's own precision). No timeline
/// and no isolated times: utilisation and worst ρ are NaN (not measured; an empty cell in
/// `compare.csv`, `—` in the table) unless the caller sets them.
#[cfg(any(feature = "gavel", feature = "sia"))]
pub(crate) fn metrics_of_times(
    label: &str,
    jobs: impl Iterator<Item = (f64, Option<f64>, u32)>,
    total_gpus: u32,
) -> RunMetrics {
    use blox_core::{Event, JobId, JobSpec, MetricSink, Time};
    let at = |s: f64| Time::from_secs_f64_ceil(s.max(0.0)).unwrap_or(Time(u64::MAX));
    let mut log = blox_metrics::JobLog::default();
    for (seq, (arrival, finish, gpus)) in jobs.enumerate() {
        let (seq, job, arrival) = (seq as u64, JobId(seq as u32), at(arrival));
        let spec = JobSpec::new(arrival, gpus, 0.0);
        log.on_event(&Event::Arrived {
            time: arrival,
            seq,
            spec: &spec,
        });
        log.on_event(&Event::Admitted {
            time: arrival,
            seq,
            job,
        });
        if let Some(f) = finish {
            log.on_event(&Event::Completed { time: at(f), job });
        }
    }
    let mut m = blox_runner::output::run_metrics_of_jobs(label.to_string(), &log, total_gpus);
    m.cluster.mean_utilisation = f64::NAN;
    m.statistics.worst_rho = f64::NAN;
    m
}

/// A run under one of the models: the one enum every command matches on (through
/// [`PeerRun`]), built by [`RunSettings::prepare`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Prepared {
    /// `exact`, `blox` or `synergy`: the engine's `Driver` with the scenario's components.
    Engine(Scenario),
    /// `pollux`: the engine's `Driver` with the Pollux artifact's job model and policies.
    #[cfg(feature = "pollux")]
    Pollux(Scenario, PolluxOptions),
    /// `tiresias`: the Tiresias authors' simulator's model (`blox-tiresias`).
    #[cfg(feature = "tiresias")]
    Tiresias(TiresiasArgs),
    /// `gavel`: Gavel's trace simulator, with its own clock (`blox-gavel`).
    #[cfg(feature = "gavel")]
    Gavel(GavelRun),
    /// `gavel` with `--workload gavel-generated`: Gavel's generated-jobs mode.
    #[cfg(feature = "gavel")]
    GavelGenerated(GavelGeneratedRun),
    /// `sia`: the Sia artifact's simulator (`blox-sia`).
    #[cfg(feature = "sia")]
    Sia(crate::sia::SiaRun),
}

impl PeerRun for Prepared {
    fn model(&self) -> Model {
        match self {
            Prepared::Engine(s) => Model::from(s.semantics),
            #[cfg(feature = "pollux")]
            Prepared::Pollux(..) => Model::Pollux,
            #[cfg(feature = "tiresias")]
            Prepared::Tiresias(_) => Model::Tiresias,
            #[cfg(feature = "gavel")]
            Prepared::Gavel(_) | Prepared::GavelGenerated(_) => Model::Gavel,
            #[cfg(feature = "sia")]
            Prepared::Sia(_) => Model::Sia,
        }
    }

    fn run(&self, registry: &Registry, observe: Observe) -> Result<Finished, SimError> {
        match self {
            Prepared::Engine(s) => s.run_finished(registry, observe),
            #[cfg(feature = "pollux")]
            Prepared::Pollux(s, opts) => {
                let report = crate::pollux::run_observed(s, opts, registry, observe.progress)?;
                crate::pollux::finished(report)
            }
            #[cfg(feature = "tiresias")]
            Prepared::Tiresias(t) => t.run().map(|r| t.finish(r)),
            #[cfg(feature = "gavel")]
            Prepared::Gavel(g) => g.run().and_then(|r| r.finish(g)),
            #[cfg(feature = "gavel")]
            Prepared::GavelGenerated(g) => g.run().and_then(|r| r.finish(g)),
            #[cfg(feature = "sia")]
            Prepared::Sia(s) => s.run().and_then(|r| r.finish(s)),
        }
    }
}

impl Prepared {
    /// The output folder, if the run has one.
    pub fn out(&self) -> Option<&Path> {
        match self {
            Prepared::Engine(s) => s.out.as_deref(),
            #[cfg(feature = "pollux")]
            Prepared::Pollux(s, _) => s.out.as_deref(),
            #[cfg(feature = "tiresias")]
            Prepared::Tiresias(t) => t.out.as_deref(),
            #[cfg(feature = "gavel")]
            Prepared::Gavel(g) => g.out.as_deref(),
            #[cfg(feature = "gavel")]
            Prepared::GavelGenerated(g) => g.out.as_deref(),
            #[cfg(feature = "sia")]
            Prepared::Sia(s) => s.out.as_deref(),
        }
    }

    /// Set (or clear) the output folder.
    pub fn set_out(&mut self, out: Option<PathBuf>) {
        match self {
            Prepared::Engine(s) => s.out = out,
            #[cfg(feature = "pollux")]
            Prepared::Pollux(s, _) => s.out = out,
            #[cfg(feature = "tiresias")]
            Prepared::Tiresias(t) => t.out = out,
            #[cfg(feature = "gavel")]
            Prepared::Gavel(g) => g.out = out,
            #[cfg(feature = "gavel")]
            Prepared::GavelGenerated(g) => g.out = out,
            #[cfg(feature = "sia")]
            Prepared::Sia(s) => s.out = out,
        }
    }

    /// The engine scenario, for the models the engine runs.
    pub fn scenario(&self) -> Option<&Scenario> {
        match self {
            Prepared::Engine(s) => Some(s),
            #[cfg(feature = "pollux")]
            Prepared::Pollux(s, _) => Some(s),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl RunSettings {
    /// The run these settings describe under their model, checked before any work: settings
    /// the model does not take are refused (naming the semantics that take them), names are
    /// built once (an unknown policy fails here, not after other runs have written their
    /// files), and the output folder must be writable. The one place a model is matched.
    pub fn prepare(&self, registry: &Registry) -> Result<Prepared, SimError> {
        self.prepare_from(None, registry)
    }

    /// [`RunSettings::prepare`] with the engine's scenario built on `base`, a scenario given as
    /// data (see [`RunSettings::engine_scenario_from`]); a model that takes no scenario refuses
    /// it as it refuses `--scenario`. `None` is [`RunSettings::prepare`].
    pub fn prepare_from(
        &self,
        base: Option<Scenario>,
        registry: &Registry,
    ) -> Result<Prepared, SimError> {
        let model = self.model()?;
        if base.is_some() {
            model
                .check(&[crate::Setting::Scenario])
                .map_err(SimError::Config)?;
        }
        if let Some(out) = &self.out {
            check_out(out)?;
        }
        match model {
            Model::Exact | Model::Blox | Model::Synergy | Model::Pollux => {
                let mut s = self.engine_scenario_from(base)?;
                if let Some(p) = &self.policy {
                    s.policy = p
                        .parse()
                        .map_err(|e| SimError::Config(format!("--policy: {e}")))?;
                }
                if let Some(out) = &self.out {
                    s.out = Some(out.clone());
                }
                if let Some(out) = &s.out {
                    check_out(out)?;
                }
                if model == Model::Pollux {
                    #[cfg(feature = "pollux")]
                    return Ok(Prepared::Pollux(s, self.pollux_options()));
                    #[cfg(not(feature = "pollux"))]
                    return Err(without_feature(model));
                }
                check_names(&s, registry)?;
                Ok(Prepared::Engine(s))
            }
            #[cfg(feature = "tiresias")]
            Model::Tiresias => Ok(Prepared::Tiresias(TiresiasArgs {
                trace: self.trace.clone(),
                trace_format: self.trace_format.clone(),
                skip_bad_lines: self.skip_bad_lines,
                cluster: self.cluster.clone(),
                cluster_spec: self.cluster_spec.clone(),
                policy: self.policy.clone(),
                placement: self.placement.as_ref().map(|p| p.to_string()),
                out: self.out.clone(),
                registry: registry.clone(),
            })),
            #[cfg(feature = "gavel")]
            Model::Gavel if self.gavel_generated()? => {
                self.gavel_generated_run().map(Prepared::GavelGenerated)
            }
            #[cfg(feature = "gavel")]
            Model::Gavel => self.gavel_run(registry).map(Prepared::Gavel),
            #[cfg(feature = "sia")]
            Model::Sia => self.sia_run(registry).map(Prepared::Sia),
            #[allow(unreachable_patterns)]
            other => Err(without_feature(other)),
        }
    }

    /// The Pollux preset's knobs.
    #[cfg(feature = "pollux")]
    pub fn pollux_options(&self) -> PolluxOptions {
        PolluxOptions {
            traces: self.pollux_traces.clone(),
            interference: self.interference.unwrap_or(0.0),
            no_avoidance: self.no_interference_avoidance,
            generations: self.generations,
        }
    }

    /// Whether these settings ask for Gavel's generated-jobs mode (`--workload
    /// gavel-generated`); any other `--workload` is an error under `gavel`, and without it the
    /// generated mode's settings are refused (trace mode).
    #[cfg(feature = "gavel")]
    fn gavel_generated(&self) -> Result<bool, SimError> {
        use crate::model::Setting;
        match self.workload.as_deref() {
            Some(w) if w.trim() == WORKLOAD_NAME => Ok(true),
            Some(w) => Err(SimError::Config(format!(
                "--workload {w}: under --semantics gavel the only workload is {WORKLOAD_NAME} \
                 (Gavel's generated jobs); a Gavel trace is read with --trace"
            ))),
            None => {
                let generated = [
                    Setting::Lambda,
                    Setting::Rate,
                    Setting::MultiGpu,
                    Setting::Priorities,
                    Setting::SteadyState,
                    Setting::FixedDuration,
                    Setting::Jobs,
                    Setting::Track,
                ];
                let flags: Vec<&str> = self
                    .given()
                    .into_iter()
                    .filter(|s| generated.contains(s))
                    .map(|s| s.flag())
                    .collect();
                if flags.is_empty() {
                    return Ok(false);
                }
                Err(SimError::Config(format!(
                    "{} {} Gavel's generated-jobs mode: add --workload {WORKLOAD_NAME} (a Gavel \
                     trace run takes --trace, --throughputs, --cluster, --round, --seed)",
                    flags.join(", "),
                    if flags.len() == 1 {
                        "belongs to"
                    } else {
                        "belong to"
                    }
                )))
            }
        }
    }

    /// The generated-jobs run these settings describe.
    #[cfg(feature = "gavel")]
    fn gavel_generated_run(&self) -> Result<GavelGeneratedRun, SimError> {
        if self.trace_format.is_some() || !self.trace.is_empty() {
            return Err(SimError::Config(format!(
                "--trace, --trace-format: --workload {WORKLOAD_NAME} reads no trace"
            )));
        }
        let arrivals = match (self.lambda, self.rate) {
            (Some(l), None) => ArrivalSetting::Lambda(l),
            (None, Some(r)) => ArrivalSetting::Rate(r),
            (Some(_), Some(_)) => {
                return Err(SimError::Config(
                    "--lambda and --rate say the same thing: give one".into(),
                ))
            }
            (None, None) => {
                return Err(SimError::Config(format!(
                    "--workload {WORKLOAD_NAME} needs --lambda SECONDS (mean inter-arrival time; \
                     0 = all jobs at t = 0 with --jobs N) or --rate JOBS_PER_HOUR"
                )))
            }
        };
        let window = self.track.as_deref().map(parse_window).transpose()?;
        let lambda = arrivals.lambda();
        if lambda > 0.0 && window.is_none() {
            return Err(SimError::Config(
                "--workload gavel-generated with arrivals needs --track FIRST..LAST (job ids, \
                 inclusive; Gavel's -s FIRST -e LAST+1): the run ends when they have all \
                 completed"
                    .into(),
            ));
        }
        if lambda > 0.0 && self.jobs.is_some() {
            return Err(SimError::Config(
                "--jobs is static mode's job count (--lambda 0); with arrivals the run ends at \
                 the --track window"
                    .into(),
            ));
        }
        if lambda == 0.0 && self.jobs.is_none() {
            return Err(SimError::Config(
                "--lambda 0 (every job at t = 0, Gavel's static mode) needs --jobs N".into(),
            ));
        }
        let cluster = self.cluster.clone().ok_or_else(|| {
            SimError::Config(
                "--semantics gavel needs --cluster, e.g. 36:36:36 (V100:P100:K80) or \
                 36x1:v100,36x1:p100,36x1:k80"
                    .into(),
            )
        })?;
        crate::gavel::parse_cluster(&cluster)?;
        Ok(GavelGeneratedRun {
            throughputs: self.throughputs.clone(),
            cluster,
            policy: self.policy.clone().unwrap_or_else(|| "fifo".into()),
            arrivals,
            multi_gpu: self.multi_gpu,
            priorities: self.priorities,
            steady_state: self.steady_state,
            fixed_duration: self.fixed_duration,
            window,
            jobs: self.jobs,
            seed: self.seed.unwrap_or(0),
            round_s: self.round.unwrap_or(360),
            out: self.out.clone(),
        })
    }

    /// The Sia run these settings describe (which settings Sia takes is `Model::Sia`'s data).
    #[cfg(feature = "sia")]
    fn sia_run(&self, registry: &Registry) -> Result<crate::sia::SiaRun, SimError> {
        let trace = match self.trace.as_slice() {
            [one] => one.clone(),
            _ => {
                return Err(SimError::Config(
                    "--semantics sia needs exactly one --trace FILE (a Sia workload-N.csv)".into(),
                ))
            }
        };
        if let Some(f) = self.trace_format.as_deref() {
            // Pollux's workloads have Sia's columns (Sia's simulator is a fork of Pollux's).
            if f != "sia" && f != "pollux" {
                return Err(SimError::Config(format!(
                    "--trace-format {f}: --semantics sia reads Sia workloads (--trace-format \
                     sia) or Pollux's, which have the same columns (--trace-format pollux)"
                )));
            }
        }
        let policy = self.policy.clone().unwrap_or_else(|| "sia".into());
        // An unknown name fails here, before any run of a list writes its files.
        crate::sia::SiaPolicyChoice::parse(&policy)?.build(registry)?;
        if let Some(c) = &self.cluster {
            crate::sia::parse_cluster(c)?;
        }
        Ok(crate::sia::SiaRun {
            trace,
            traces: self.sia_traces.clone(),
            cluster: self.cluster.clone(),
            round_s: self.round,
            policy,
            seed: self.seed.unwrap_or(0),
            out: self.out.clone(),
            registry: registry.clone(),
        })
    }

    #[cfg(feature = "gavel")]
    fn gavel_run(&self, registry: &Registry) -> Result<GavelRun, SimError> {
        // Which settings Gavel's simulator takes is `Model::Gavel`'s data, checked already.
        let trace = match self.trace.as_slice() {
            [one] => one.clone(),
            _ => {
                return Err(SimError::Config(
                    "--semantics gavel needs exactly one --trace FILE (a Gavel *.trace)".into(),
                ))
            }
        };
        if let Some(f) = self.trace_format.as_deref() {
            if f != "gavel" {
                return Err(SimError::Config(format!(
                    "--trace-format {f}: --semantics gavel reads Gavel traces (--trace-format \
                     gavel)"
                )));
            }
        }
        let cluster = self.cluster.clone().ok_or_else(|| {
            SimError::Config(
                "--semantics gavel needs --cluster, e.g. 8x1:v100 or 4x1:v100,4x1:p100,4x1:k80"
                    .into(),
            )
        })?;
        crate::gavel::parse_cluster(&cluster)?;
        Ok(GavelRun {
            trace,
            throughputs: self.throughputs.clone(),
            cluster,
            round_s: self.round.unwrap_or(360),
            seed: self.seed.unwrap_or(0),
            policy: self.policy.clone().unwrap_or_else(|| "fifo".into()),
            out: self.out.clone(),
            registry: registry.clone(),
        })
    }
}

/// The error for a peer whose feature this build of `blox-scenario` left out.
#[allow(dead_code)]
fn without_feature(model: Model) -> SimError {
    SimError::Config(format!(
        "--semantics {model}: this program was built without blox-scenario's `{model}` \
         feature (build it with the feature, e.g. `blox-scenario = {{ features = [\"{model}\"] \
         }}`)"
    ))
}

/// Fails before any work when `dir` cannot be an output folder: it (or a parent) exists and is
/// not a folder, or the folder it would be made in cannot be written.
pub fn check_out(dir: &Path) -> Result<(), SimError> {
    let mut at = dir;
    loop {
        match std::fs::metadata(at) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => {
                return Err(SimError::Config(format!(
                    "--out {}: {} exists and is not a folder (nothing was run)",
                    dir.display(),
                    at.display()
                )))
            }
            Err(_) => match at.parent() {
                Some(p) if !p.as_os_str().is_empty() => at = p,
                _ => {
                    at = Path::new(".");
                    break;
                }
            },
        }
    }
    // Unique per call: a sweep checks its runs' folders from several threads at once.
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let probe = at.join(format!(".blox-write-check-{}-{n}", std::process::id()));
    std::fs::create_dir(&probe)
        .and_then(|()| std::fs::remove_dir(&probe))
        .map_err(|e| {
            SimError::Config(format!(
                "--out {}: cannot write in {} ({e}; nothing was run)",
                dir.display(),
                at.display()
            ))
        })
}

/// Builds the policy and admission `s` names, so that an unknown name in a list is refused
/// before any run starts (and writes its output).
pub fn check_names(s: &Scenario, reg: &Registry) -> Result<(), SimError> {
    if s.semantics != Semantics::Synergy {
        let env = s.policy_env()?;
        crate::preset::build_policy(s.semantics, reg, &s.policy, &env)?;
    }
    reg.build_admission(&s.admission)?;
    Ok(())
}
