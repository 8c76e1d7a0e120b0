//! `--semantics tiresias`: runs the `tiresias` time model of `blox-sim`
//! ([`blox_tiresias::time`]) with Tiresias' schedules and placement schemes by their own
//! names, or with any engine policy and placement (stock or registered), and writes the
//! project's output files plus Tiresias' own `job.csv`.
//!
//! Names resolve in this order: a Tiresias schedule (`fifo`, `sjf`, `shortest`,
//! `shortest-gpu`, `dlas`, `dlas-gpu`, `dlas-gpu-gittins`) or scheme (`yarn`, `count`,
//! `random`, `balance`) wins; any other name is an engine component, through the preset and
//! the [`Registry`]. `engine:NAME` always names the engine's component (`engine:fifo`,
//! `engine:sjf`, the two names both have). An engine policy runs on Tiresias' clock without
//! queue jumps (decisions at arrivals and completions, as Tiresias' preemptive single-list
//! loop takes them); with a Tiresias scheme its order goes through Tiresias' re-placement pass
//! ([`SchemePass`]), with an engine placement through that placement. An engine policy's
//! default scheme is `count` (GPU counts only): `yarn`'s memory leak under the re-placement
//! pass (TIRESIAS-SEMANTICS.md §7.3) would end most runs early.

use crate::registry::{Named, Registry};
use crate::Semantics;
use blox_core::{BoxPlacement, BoxScheduling};
use blox_metrics::{JobLog, RunMetrics, Timeline};
use blox_placement::PlacementConfig;
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_runner::tiresias as runs;
use blox_sim::SimError;
use blox_tiresias::placement::{PeerScheme, TiresiasClusterSpec};
use blox_tiresias::policy::{GittinsTable, PeerPolicy, PeerSchedule, TIRESIAS_GITTINS_SAMPLE};
use blox_tiresias::run::{PeerInput, PeerRun, PeerStop, SchemePass, TiresiasConfig};
use blox_tiresias::TiresiasTime;
use blox_workload::{read_traces, ReadOptions, TraceFormat};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything a `--semantics tiresias` run needs from the command line.
#[derive(Clone, Debug, Default)]
pub struct TiresiasArgs {
    /// The trace files.
    pub trace: Vec<PathBuf>,
    /// Their format (Tiresias' CSV by default).
    pub trace_format: Option<String>,
    /// Count and skip malformed lines.
    pub skip_bad_lines: bool,
    /// The cluster as `NODESxGPUS`.
    pub cluster: Option<String>,
    /// The cluster as a Tiresias cluster-spec CSV.
    pub cluster_spec: Option<PathBuf>,
    /// The schedule (Tiresias' names) or an engine policy.
    pub policy: Option<String>,
    /// The placement scheme (Tiresias' names) or an engine placement.
    pub placement: Option<String>,
    /// Where the files go.
    pub out: Option<PathBuf>,
    /// Where engine components not stock are found.
    pub registry: Registry,
}

/// The prefix that names the engine's component where Tiresias has one of the same name.
pub const ENGINE_PREFIX: &str = "engine:";

/// What `--policy` names under `--semantics tiresias`.
enum PolicyChoice {
    /// One of Tiresias' schedules.
    Peer(PeerPolicy),
    /// An engine policy (stock or registered), as its spec.
    Engine(Named<PolicyConfig>),
}

/// What `--placement` names under `--semantics tiresias`.
enum PlacementChoice {
    /// One of Tiresias' schemes.
    Peer(PeerScheme),
    /// An engine placement (stock or registered).
    Engine(Named<PlacementConfig>),
}

/// An engine policy's label: `engine:NAME` where Tiresias has a schedule of the same name, so
/// that the two never share a row label.
fn engine_label(spec: &str) -> String {
    let name = spec.split(':').next().unwrap_or(spec);
    if PeerSchedule::ALL.iter().any(|p| p.name() == name) {
        format!("{ENGINE_PREFIX}{spec}")
    } else {
        spec.to_string()
    }
}

fn tiresias_schedules() -> String {
    PeerSchedule::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl PolicyChoice {
    fn parse(text: &str) -> Result<Self, SimError> {
        let err = |e: blox_core::ConfigError| SimError::Config(format!("--policy: {e}"));
        if let Some(rest) = text.trim().strip_prefix(ENGINE_PREFIX) {
            return rest.parse().map(PolicyChoice::Engine).map_err(err);
        }
        let spec = blox_core::ComponentSpec::parse(text, "policy").map_err(err)?;
        if PeerSchedule::ALL.iter().any(|p| p.name() == spec.name) {
            return PeerPolicy::parse(text).map(PolicyChoice::Peer).map_err(err);
        }
        text.parse().map(PolicyChoice::Engine).map_err(err)
    }
}

impl PlacementChoice {
    fn parse(text: &str) -> Result<Self, SimError> {
        let err = |e: blox_core::ConfigError| SimError::Config(format!("--placement: {e}"));
        if let Some(rest) = text.trim().strip_prefix(ENGINE_PREFIX) {
            return rest.parse().map(PlacementChoice::Engine).map_err(err);
        }
        if let Ok(scheme) = PeerScheme::parse(text) {
            return Ok(PlacementChoice::Peer(scheme));
        }
        text.parse().map(PlacementChoice::Engine).map_err(err)
    }
}

/// A finished `--semantics tiresias` run.
pub struct TiresiasReport {
    /// The policy as named (a Tiresias schedule with its options, or an engine policy).
    pub policy: String,
    /// The placement as named.
    pub placement: String,
    /// The cluster.
    pub cluster: TiresiasClusterSpec,
    /// The Gittins sample read, if the schedule uses one.
    pub gittins_sample: Option<PathBuf>,
    /// Tiresias' own results.
    pub run: PeerRun,
    /// The project's per-job records.
    pub log: JobLog,
    /// The cluster over time.
    pub timeline: Timeline,
    /// The run's statistics.
    pub metrics: RunMetrics,
}

impl TiresiasArgs {
    fn cluster(&self) -> Result<TiresiasClusterSpec, SimError> {
        let cfg = |e: blox_tiresias::placement::ClusterSpecError| SimError::Config(e.0);
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
    /// `$BLOX_TRACES/tiresias/`, or in `traces/tiresias/` of the working directory or a folder
    /// above it (the repository's copy).
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
                tried.push(a.join("traces/tiresias").join(TIRESIAS_GITTINS_SAMPLE));
            }
        }
        tried.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
            SimError::Config(format!(
                "dlas-gpu-gittins: no {TIRESIAS_GITTINS_SAMPLE} found (looked next to the trace, \
                 in the working directory, in $BLOX_TRACES/tiresias and in traces/tiresias of the \
                 working directory and above it); give it as dlas-gpu-gittins:distribution=FILE"
            ))
        })
    }

    /// The Gittins table `policy` needs (and where it was read), or none.
    fn gittins(
        &self,
        policy: &PeerPolicy,
    ) -> Result<(Option<Arc<GittinsTable>>, Option<PathBuf>), SimError> {
        if policy.schedule != PeerSchedule::DlasGpuGittins {
            return Ok((None, None));
        }
        let path = self.gittins_sample(policy)?;
        let text = std::fs::read_to_string(&path).map_err(|e| SimError::io(&path, e))?;
        let table = GittinsTable::parse_csv(&text, policy.delta).map_err(|e| {
            SimError::input(
                &path,
                (e.line > 0).then_some(e.line as u64),
                Some("duration"),
                e.message,
            )
        })?;
        Ok((Some(Arc::new(table)), Some(path)))
    }

    /// Read, run and (with `out`) write.
    pub fn run(&self) -> Result<TiresiasReport, SimError> {
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
        let policy_text = self.policy.as_deref().unwrap_or("fifo");
        let policy = PolicyChoice::parse(policy_text)?;
        // Tiresias' default scheme is `yarn`; under an engine policy (Tiresias' preemptive
        // re-placement pass) its memory leak (TIRESIAS-SEMANTICS.md §7.3) ends the run early
        // on most traces, so an engine policy defaults to `count`, which never leaks.
        let default_scheme = match policy {
            PolicyChoice::Peer(_) => "yarn",
            PolicyChoice::Engine(_) => "count",
        };
        let placement =
            PlacementChoice::parse(self.placement.as_deref().unwrap_or(default_scheme))?;
        let cluster = self.cluster()?;
        let mut opts = ReadOptions::default();
        opts.skip_bad_lines = self.skip_bad_lines;
        let inputs: Vec<(PathBuf, TraceFormat)> =
            self.trace.iter().map(|p| (p.clone(), format)).collect();
        let placement_label = match &placement {
            PlacementChoice::Peer(s) => s.name().to_string(),
            PlacementChoice::Engine(p) => p.to_string(),
        };
        let sink = (JobLog::default(), Timeline::default());
        let (label, _scheme, gittins_sample, run, (log, timeline)) = match (policy, placement) {
            (PolicyChoice::Peer(policy), PlacementChoice::Peer(scheme)) => {
                let (gittins, gittins_sample) = self.gittins(&policy)?;
                let read = read_traces(&inputs, &opts)?;
                let jobs = PeerInput::from_specs(&read.jobs)?;
                let cfg = TiresiasConfig::new(policy.clone(), scheme, cluster, gittins)?;
                // `random` under the schedules that call the placement, and decreasing
                // thresholds, are refused here (the original crashes or goes back in time).
                let (outcome, model, sink) = runs::run_peer(&cfg, &jobs, sink)?;
                let run = PeerRun::from_engine(&model, &outcome, scheme, &jobs);
                (policy.to_string(), scheme, gittins_sample, run, sink)
            }
            (PolicyChoice::Peer(policy), PlacementChoice::Engine(p)) => {
                return Err(SimError::Config(format!(
                    "--placement {p}: Tiresias' schedule `{}` runs on Tiresias' placement \
                     schemes (yarn, count, random, balance); engine placements go with engine \
                     policies (e.g. --policy las, or engine:fifo for the engine's fifo)",
                    policy.schedule
                )));
            }
            (PolicyChoice::Engine(p), placement) => {
                let env = PolicyEnv::new(None);
                let built: BoxScheduling =
                    crate::preset::build_policy(Semantics::Exact, &self.registry, &p, &env)
                        .map_err(|e| {
                            SimError::Config(format!(
                                "--policy: {e}; or one of Tiresias' schedules: {}",
                                tiresias_schedules()
                            ))
                        })?;
                let read = read_traces(&inputs, &opts)?;
                let jobs = PeerInput::from_specs(&read.jobs)?;
                let model = TiresiasTime::events_only();
                let (scheme, result) = match placement {
                    PlacementChoice::Peer(PeerScheme::Random) => {
                        return Err(SimError::Config(
                            "--placement random: Tiresias' random placement crashes at the first \
                             completion under every schedule that calls the placement, as an \
                             engine policy's does; use yarn, count or balance"
                                .into(),
                        ))
                    }
                    PlacementChoice::Peer(scheme) => (
                        scheme,
                        runs::run_engine_policy_on_scheme(
                            model,
                            cluster,
                            &jobs,
                            built,
                            SchemePass::new(cluster, scheme),
                            sink,
                        )?,
                    ),
                    PlacementChoice::Engine(pl) => {
                        let placement: BoxPlacement = crate::preset::build_placement(
                            Semantics::Exact,
                            &self.registry,
                            &pl,
                            None,
                        )
                        .map_err(|e| SimError::Config(format!("--placement: {e}")))?;
                        (
                            PeerScheme::Yarn,
                            runs::run_engine_policy(model, cluster, &jobs, built, placement, sink)?,
                        )
                    }
                };
                let (outcome, model, sink) = result;
                let run = PeerRun::from_engine(&model, &outcome, scheme, &jobs);
                (engine_label(&p.to_string()), scheme, None, run, sink)
            }
        };
        let total = cluster.total_gpus().clamp(0, u32::MAX as i64) as u32;
        let metrics = blox_runner::output::run_metrics(label.clone(), &log, &timeline, None, total);
        let report = TiresiasReport {
            policy: label,
            placement: placement_label,
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
    placement: String,
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
    pub fn stop_text(&self) -> &'static str {
        self.run.stop.describe()
    }

    /// Mean JCT over completed jobs, seconds.
    pub fn avg_jct_s(&self) -> f64 {
        if self.run.rows.is_empty() {
            return 0.0;
        }
        self.run.rows.iter().map(|r| r.jct() as f64).sum::<f64>() / self.run.rows.len() as f64
    }

    /// The last completion.
    pub fn makespan_s(&self) -> i64 {
        self.run.rows.iter().map(|r| r.end_time).max().unwrap_or(0)
    }

    fn write(&self, dir: &Path, trace: &[PathBuf]) -> Result<(), SimError> {
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        let jobs = blox_runner::output::jobs_csv(&self.log, None, false);
        let timeline = blox_runner::output::timeline_csv(&self.timeline, None);
        let cdf = blox_runner::output::jct_cdf_csv(&self.metrics.jcts_s);
        let summary = Summary {
            semantics: "tiresias",
            policy: self.policy.clone(),
            placement: self.placement.clone(),
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

impl TiresiasArgs {
    /// A finished run's report as the one report type of every semantics.
    pub fn finish(&self, r: TiresiasReport) -> crate::Finished {
        let completed = r.run.rows.len();
        let jobs = r.run.jobs.len();
        let footer = format!(
            "tiresias {}/{} | {} GPUs (spec {}) | {completed} of {jobs} jobs completed, {} | mean \
             JCT {:.1} s, makespan {} s | {} events",
            r.policy,
            r.placement,
            r.cluster.total_gpus(),
            r.cluster,
            r.stop_text(),
            r.avg_jct_s(),
            r.makespan_s(),
            r.run.events,
        );
        let context = format!(
            "tiresias semantics | {} GPUs (spec {}) | {}",
            r.cluster.total_gpus(),
            r.cluster,
            match self.trace.as_slice() {
                [one] => format!("trace {}", one.display()),
                many => format!("{} trace files", many.len()),
            },
        );
        let note = (completed < jobs).then(|| {
            format!(
                "{}/{}: {completed} of {jobs} jobs completed, {}",
                r.policy,
                r.placement,
                r.stop_text()
            )
        });
        crate::Finished {
            model: crate::Model::Tiresias,
            preemptions: r.run.rows.iter().map(|x| u64::from(x.preempt)).sum(),
            end_time_s: r.run.end_time as f64,
            metrics: r.metrics,
            details: String::new(),
            footer,
            more: Vec::new(),
            context,
            note,
            out: self.out.clone(),
            files: vec![
                "jobs.csv",
                "job.csv",
                "summary.json",
                "timeline.csv",
                "jct_cdf.csv",
            ],
            report: None,
        }
    }
}
