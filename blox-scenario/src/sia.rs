//! `--semantics sia`: the Sia artifact's simulator (`blox-sia`): its heterogeneous cluster, its
//! job model and the Sia policy by its own name and parameters, on a workload of Sia's
//! (`--trace-format sia`); its Gavel and Pollux baselines; or any other policy name as an
//! engine policy (stock or registered) on Sia's model ([`blox_sia::EnginePolicy`]). Sia's names
//! win (`gavel` and `pollux` are Sia's baselines); `engine:NAME` names the engine's.
//!
//! The artifact's data has no licence and is not in this repository: a missing workload or
//! trace folder is an error that says where to get it (`docs/data.md`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::registry::{Named, Registry};
use crate::Semantics;
use blox_core::ClusterSpec;
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_runner::sia::SiaPolicies;
use blox_sia::ilp::CBC_NOT_BUILT;
use blox_sia::{
    build_jobs, read_sia_workload, EnginePolicy, GavelBaseline, IlpSolver, PolluxUnaware, SiaApps,
    SiaCluster, SiaJob, SiaParams, SiaPolicy, SiaSummary,
};
use blox_sim::SimError;
use serde::Serialize;

/// Where a user gets the data (the artifact has no licence, so it is fetched, never shipped).
pub const DATA_HINT: &str = "the Sia artifact's data (workloads/ and traces/ of \
    siasosp23/artifacts, sia-simulator/) is not part of this repository (it has no licence): \
    docs/data.md gives the fetch step and its SHA256SUMS check";

/// The settings of a `blox-sim run --semantics sia`.
#[derive(Clone, Debug)]
pub struct SiaRun {
    /// The workload (`workloads/<set>/workload-N.csv`, or a Pollux workload).
    pub trace: PathBuf,
    /// The per-type traces folder (`None`: the `traces/` folder above the workload).
    pub traces: Option<PathBuf>,
    /// The cluster as `NODESxGPUS:TYPE` groups (types in order); `None` = Table 3's 64 GPUs.
    pub cluster: Option<String>,
    /// Round length, seconds (`None` = the policy's: 60 for Sia, 360 for Gavel).
    pub round_s: Option<u64>,
    /// The policy and its parameters, e.g. `sia`, `sia:p=-0.5,lambda_n=1.1`, `gavel`,
    /// `pollux`, or an engine policy (`las`, `engine:gavel`, a registered name).
    pub policy: String,
    /// The run's seed: the streams of the Pollux baseline's genetic search (Sia and Gavel draw
    /// nothing).
    pub seed: u64,
    /// Where the files go.
    pub out: Option<PathBuf>,
    /// Where engine policies not stock are found.
    pub registry: Registry,
}

/// The prefix that names the engine's policy where Sia has one of the same name (`gavel`,
/// `pollux`).
pub const ENGINE_PREFIX: &str = "engine:";

/// What `--semantics sia` takes, for errors.
const SIA_TAKES: &str =
    "--semantics sia takes sia[:p=P,lambda_n=L,lambda_a=A,solver=dp|cbc], gavel, \
    pollux[:p=P], or an engine policy (stock: fifo, las, srtf, tiresias, themis, ...; or one \
    registered by the program; engine:NAME for the engine's gavel or pollux)";

/// The policy named by `--policy` under `--semantics sia`.
#[derive(Clone, Debug, PartialEq)]
pub enum SiaPolicyChoice {
    /// Sia's own policy with its parameters.
    Sia(SiaParams),
    /// Sia's Gavel+TunedJobs baseline (max-sum-throughput, fixed GPU counts and batches).
    Gavel,
    /// Sia's heterogeneity-unaware Pollux baseline (§7.2) with its fairness power `p` (−1 in
    /// Sia's runs).
    Pollux(f64),
    /// An engine policy, stock or registered, on Sia's model (fixed GPU counts and batches, as
    /// the Gavel baseline's jobs).
    Engine(Named<PolicyConfig>),
}

impl SiaPolicyChoice {
    /// Parse `sia[:p=P,lambda_n=L,lambda_a=A,solver=dp|cbc]`, `gavel`, `pollux[:p=P]`, `engine:NAME` or
    /// any other name as an engine policy's (whether the registry knows it is checked when it
    /// is built, [`SiaPolicyChoice::build`]).
    pub fn parse(text: &str) -> Result<SiaPolicyChoice, SimError> {
        let t = text.trim();
        let engine = |s: &str| {
            s.parse::<Named<PolicyConfig>>()
                .map(SiaPolicyChoice::Engine)
                .map_err(|e| SimError::Config(format!("--policy {t}: {e}; {SIA_TAKES}")))
        };
        if let Some(rest) = t.strip_prefix(ENGINE_PREFIX) {
            return engine(rest);
        }
        let (name, params) = t.split_once(':').unwrap_or((t, ""));
        match name.to_ascii_lowercase().as_str() {
            "sia" => {}
            "gavel" if params.trim().is_empty() => return Ok(SiaPolicyChoice::Gavel),
            "gavel" => {
                return Err(SimError::Config(format!(
                    "--policy {t}: Sia's gavel baseline takes no parameters"
                )))
            }
            "pollux" => return parse_pollux(t, params).map(SiaPolicyChoice::Pollux),
            _ => return engine(t),
        }
        let mut p = SiaParams::default();
        for kv in params.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                SimError::Config(format!("--policy {t}: `{kv}` is not KEY=VALUE"))
            })?;
            if k.trim() == "solver" {
                let s: IlpSolver = v
                    .parse()
                    .map_err(|e| SimError::Config(format!("--policy {t}: {e}")))?;
                if !s.available() {
                    return Err(SimError::Config(format!("--policy {t}: {CBC_NOT_BUILT}")));
                }
                p.solver = s;
                continue;
            }
            let v: f64 = v
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| {
                    SimError::Config(format!("--policy {t}: `{}` is not a number", v.trim()))
                })?;
            match k.trim() {
                "p" if v != 0.0 => p.p = v,
                "p" => {
                    return Err(SimError::Config(format!(
                        "--policy {t}: p = 0 is refused (as the original)"
                    )))
                }
                "lambda_n" if v.abs() <= 1e6 => p.lambda_n = v,
                "lambda_a" => p.lambda_a = v,
                k => {
                    return Err(SimError::Config(format!(
                        "--policy {t}: unknown or out-of-range parameter `{k}` (p, lambda_n \
                         within ±1e6, lambda_a, solver=dp|cbc)"
                    )))
                }
            }
        }
        Ok(SiaPolicyChoice::Sia(p))
    }

    /// The engine policy this choice names, built through `registry` (`None` for Sia's own
    /// policies); an unknown name is an error that lists what `--semantics sia` takes.
    pub fn build(&self, registry: &Registry) -> Result<Option<blox_core::BoxScheduling>, SimError> {
        let SiaPolicyChoice::Engine(p) = self else {
            return Ok(None);
        };
        crate::preset::build_policy(Semantics::Exact, registry, p, &PolicyEnv::new(None))
            .map(Some)
            .map_err(|e| SimError::Config(format!("--policy: {e}; {SIA_TAKES}")))
    }

    /// The policy's label in reports: Sia's names as given, an engine policy by its canonical
    /// name (`engine:NAME` where Sia has the same name).
    pub fn label(&self, text: &str) -> String {
        match self {
            SiaPolicyChoice::Engine(p) => {
                let name = p.to_string();
                let bare = name.split(':').next().unwrap_or("").to_ascii_lowercase();
                if ["sia", "gavel", "pollux"].contains(&bare.as_str()) {
                    format!("{ENGINE_PREFIX}{name}")
                } else {
                    name
                }
            }
            _ => text.trim().to_string(),
        }
    }
}

/// The parameters of `pollux[:p=P]`: the fairness power, −1 by default (Sia's
/// `--policy_p_val=-1`), non-zero.
fn parse_pollux(t: &str, params: &str) -> Result<f64, SimError> {
    let mut p = -1.0;
    for kv in params.split(',').filter(|s| !s.trim().is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| SimError::Config(format!("--policy {t}: `{kv}` is not KEY=VALUE")))?;
        let v: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v != 0.0 && v.abs() <= 100.0)
            .ok_or_else(|| {
                SimError::Config(format!(
                    "--policy {t}: p = `{}` (a non-zero number within ±100)",
                    v.trim()
                ))
            })?;
        match k.trim() {
            "p" => p = v,
            k => {
                return Err(SimError::Config(format!(
                    "--policy {t}: unknown parameter `{k}` (Sia's pollux baseline takes p)"
                )))
            }
        }
    }
    Ok(p)
}

/// Parse `--cluster` for Sia: groups `NODESxGPUS:TYPE` of the artifact's types, in order, the
/// GPUs per node the type's own.
pub fn parse_cluster(s: &str) -> Result<SiaCluster, SimError> {
    let spec: ClusterSpec = s
        .parse()
        .map_err(|e: blox_core::ClusterParseError| SimError::Config(format!("--cluster: {e}")))?;
    let mut counts: Vec<(String, u32, u32)> = Vec::new();
    for n in &spec.nodes {
        match counts.iter_mut().find(|(t, _, _)| *t == n.gpu_type) {
            Some(c) if c.2 == n.gpus => c.1 += 1,
            Some(_) => {
                return Err(SimError::Config(format!(
                    "--cluster `{s}`: type {} has nodes of different sizes",
                    n.gpu_type
                )))
            }
            None => counts.push((n.gpu_type.clone(), 1, n.gpus)),
        }
    }
    let pairs: Vec<(&str, u32)> = counts.iter().map(|(t, n, _)| (t.as_str(), *n)).collect();
    let cluster = SiaCluster::from_counts(&pairs).map_err(|e| {
        SimError::Config(format!(
            "--cluster `{s}`: {e} (groups NODESxGPUS:TYPE, e.g. 6x4:aws,2x8:dgx-ext,3x8:rtx)"
        ))
    })?;
    for ((t, _, g), ty) in counts.iter().zip(&cluster.types) {
        if *g != ty.gpus_per_node {
            return Err(SimError::Config(format!(
                "--cluster `{s}`: {t} nodes have {} GPUs in Sia's traces, not {g}",
                ty.gpus_per_node
            )));
        }
    }
    Ok(cluster)
}

/// The `traces/` folder of Sia's data for a workload `workloads/<set>/[<sub>/]workload-N.csv`:
/// the first ancestor folder that holds `traces/`.
pub fn traces_beside(workload: &Path) -> Option<PathBuf> {
    workload
        .ancestors()
        .skip(1)
        .take(4)
        .map(|d| d.join("traces"))
        .find(|d| is_sia_traces(d))
}

/// Whether `dir` is Sia's per-type traces folder: `cifar10/` with per-type placement files
/// (`placements-<type>.csv`; Pollux's own traces have one `placements.csv`).
fn is_sia_traces(dir: &Path) -> bool {
    std::fs::read_dir(dir.join("cifar10")).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("placements-") && name.ends_with(".csv")
        })
    })
}

#[derive(Serialize)]
struct Summary<'a> {
    semantics: &'static str,
    policy: &'a str,
    p: Option<f64>,
    lambda_n: Option<f64>,
    lambda_a: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    solver: &'static str,
    interval_s: u64,
    cluster: Vec<(String, u32, u32)>,
    workload: String,
    traces: String,
    n_jobs: usize,
    avg_jct_s: f64,
    p99_jct_s: f64,
    makespan_s: f64,
    gpu_hours_per_job: f64,
    restarts_per_job: f64,
    contention_mean: f64,
    contention_max: usize,
    rounds: u64,
}

/// A finished run: the summary and the `jobs.csv` text.
#[derive(Debug, Clone)]
pub struct SiaReport {
    /// The §9 metrics.
    pub summary: SiaSummary,
    /// `jobs.csv`.
    pub jobs_csv: String,
    /// `summary.json`.
    pub summary_json: Vec<u8>,
    /// Each job's submission and completion time (s), in workload order.
    pub times: Vec<(f64, f64)>,
    /// The policy's label (an engine policy's canonical name).
    pub label: String,
    /// Restarts of all jobs (migrations included), `restarts_per_job` × jobs: the comparison
    /// table's and `compare.csv`'s `preemptions` under Sia (a job whose allocation changes
    /// stops and restarts).
    pub restarts: u64,
}

impl SiaRun {
    /// Run it.
    pub fn run(&self) -> Result<SiaReport, SimError> {
        if !self.trace.is_file() {
            return Err(SimError::Config(format!(
                "--trace {}: no such file; {DATA_HINT}",
                self.trace.display()
            )));
        }
        let traces = match &self.traces {
            Some(dir) if is_sia_traces(dir) => dir.clone(),
            Some(dir) => {
                return Err(SimError::Config(format!(
                    "--sia-traces {}: not Sia's per-type traces folder (no \
                     cifar10/placements-<type>.csv in it); {DATA_HINT}",
                    dir.display()
                )))
            }
            None => traces_beside(&self.trace).ok_or_else(|| {
                SimError::Config(format!(
                    "--trace {}: no traces/ folder of Sia's data above it (expected \
                     <data>/workloads/<set>/workload-N.csv beside <data>/traces/; or name it \
                     with --sia-traces DIR); {DATA_HINT}",
                    self.trace.display()
                ))
            })?,
        };
        let choice = SiaPolicyChoice::parse(&self.policy)?;
        let cluster = match &self.cluster {
            Some(c) => parse_cluster(c)?,
            None => SiaCluster::default_64(),
        };
        let engine = choice.build(&self.registry)?;
        let interval = self.round_s.unwrap_or(match choice {
            SiaPolicyChoice::Sia(_) | SiaPolicyChoice::Pollux(_) | SiaPolicyChoice::Engine(_) => 60,
            SiaPolicyChoice::Gavel => 360,
        });
        if interval == 0 || interval > 86_400 {
            return Err(SimError::Config(format!(
                "--round {interval}: Sia's interval must be 1 to 86400 s"
            )));
        }
        let cfg = |e: blox_pollux::TraceError| SimError::Config(e.to_string());
        let workload = read_sia_workload(&self.trace).map_err(cfg)?;
        if workload.is_empty() {
            return Err(SimError::Config(format!(
                "--trace {}: no jobs",
                self.trace.display()
            )));
        }
        let mut apps = SiaApps::new(&traces, cluster.clone());
        let fixed = matches!(choice, SiaPolicyChoice::Gavel | SiaPolicyChoice::Engine(_));
        let mut jobs = build_jobs(&workload, &mut apps, fixed).map_err(cfg)?;
        // A bound far past any workload's end (the longest shipped one ends near 110 h).
        let last_arrival = workload.iter().map(|j| j.time).fold(0.0, f64::max);
        let bound = last_arrival as i64 + 365 * 86_400;
        let (summary, outcomes) = match &choice {
            SiaPolicyChoice::Sia(params) => {
                let policy = SiaPolicy::new(params.clone(), &cluster, jobs.len());
                simulate(&cluster, jobs, SiaPolicies::Sia(policy), interval, bound)?
            }
            SiaPolicyChoice::Gavel => {
                let policy = GavelBaseline::new(&cluster, jobs.len(), interval as f64);
                simulate(&cluster, jobs, SiaPolicies::Gavel(policy), interval, bound)?
            }
            SiaPolicyChoice::Pollux(p) => {
                let policy = PolluxUnaware::new(&cluster, *p, blox_core::Seed(self.seed))
                    .map_err(|e| SimError::Config(format!("--policy {}: {e}", self.policy)))?;
                for j in &mut jobs {
                    j.unaware = true;
                }
                simulate(&cluster, jobs, SiaPolicies::Pollux(policy), interval, bound)?
            }
            SiaPolicyChoice::Engine(_) => {
                let Some(engine) = engine else {
                    return Err(SimError::Config("engine policy not built".into()));
                };
                let policy = EnginePolicy::new(engine, &cluster, jobs.len(), interval as f64)
                    .map_err(|e| SimError::Config(format!("--policy {}: {e}", self.policy)))?;
                simulate(&cluster, jobs, SiaPolicies::Engine(policy), interval, bound)?
            }
        };
        let mut csv = String::from(
            "source_id,application,arrival_s,completion_s,jct_s,restarts,gpu_seconds\n",
        );
        for (o, w) in outcomes.iter().zip(&workload) {
            let _ = writeln!(
                csv,
                "{},{},{:?},{},{:?},{},{}",
                o.name,
                w.application,
                o.submission_time,
                o.completion_time,
                o.jct(),
                o.restarts,
                o.gpu_seconds
            );
        }
        let label = choice.label(&self.policy);
        let (policy, params, solver) = match &choice {
            SiaPolicyChoice::Sia(p) => (
                "sia",
                Some(p.clone()),
                match p.solver {
                    IlpSolver::Dp => {
                        "exact dynamic program (blox-sia::ilp; ties: previous, then last type \
                         first)"
                    }
                    IlpSolver::Cbc => {
                        "CBC (the system's Cbc through coin_cbc; the original's model layout, \
                         SIA-SEMANTICS Appendix A)"
                    }
                },
            ),
            SiaPolicyChoice::Gavel => (
                "gavel",
                None,
                "log-barrier interior point (max-sum-throughput LP)",
            ),
            SiaPolicyChoice::Pollux(p) => (
                "pollux",
                Some(SiaParams {
                    p: *p,
                    ..SiaParams::default()
                }),
                "blox-pollux genetic search (100 x 100) on 4-GPU virtual nodes, seeded",
            ),
            SiaPolicyChoice::Engine(_) => (
                label.as_str(),
                None,
                "engine policy's order, one GPU type per job (blox-sia::EnginePolicy)",
            ),
        };
        let pollux = matches!(choice, SiaPolicyChoice::Pollux(_));
        let s = Summary {
            semantics: "sia",
            policy,
            p: params.as_ref().map(|p| p.p),
            lambda_n: params.as_ref().filter(|_| !pollux).map(|p| p.lambda_n),
            lambda_a: params.as_ref().filter(|_| !pollux).map(|p| p.lambda_a),
            seed: pollux.then_some(self.seed),
            solver,
            interval_s: interval,
            cluster: cluster
                .types
                .iter()
                .map(|t| (t.name.clone(), t.nodes, t.gpus_per_node))
                .collect(),
            workload: self.trace.display().to_string(),
            traces: traces.display().to_string(),
            n_jobs: workload.len(),
            avg_jct_s: summary.avg_jct,
            p99_jct_s: summary.p99_jct,
            makespan_s: summary.makespan,
            gpu_hours_per_job: summary.gpu_hours_per_job,
            restarts_per_job: summary.restarts_per_job,
            contention_mean: summary.contention_mean,
            contention_max: summary.contention_max,
            rounds: summary.rounds,
        };
        let mut json = serde_json::to_vec_pretty(&s).expect("serialising to memory");
        json.push(b'\n');
        Ok(SiaReport {
            summary,
            jobs_csv: csv,
            summary_json: json,
            times: outcomes
                .iter()
                .map(|o| (o.submission_time, o.completion_time as f64))
                .collect(),
            label,
            restarts: outcomes.iter().map(|o| u64::from(o.restarts)).sum(),
        })
    }
}

/// One run of `jobs` under `policy` to completion (or `bound`): the metrics and outcomes (the
/// run itself in `blox-runner`, with the simulations' other instances).
fn simulate(
    cluster: &SiaCluster,
    jobs: Vec<SiaJob>,
    policy: SiaPolicies,
    interval: u64,
    bound: i64,
) -> Result<(SiaSummary, Vec<blox_sia::SiaOutcome>), SimError> {
    blox_runner::sia::run(cluster, jobs, policy, interval as i64, bound).map_err(|e| match e {
        // A valid run that did not finish within its bound (exit status 1, not 2).
        blox_sia::SimError::TooLong { .. } => SimError::Unfinished(format!("sia: {e}")),
        _ => SimError::Config(format!("sia: {e}")),
    })
}

impl SiaReport {
    /// The report as the one report type of every semantics, its files written into the run's
    /// folder if it has one.
    pub fn finish(&self, r: &SiaRun) -> Result<crate::Finished, SimError> {
        if let Some(dir) = &r.out {
            crate::write_all_or_nothing(
                dir,
                &[
                    ("jobs.csv", self.jobs_csv.as_bytes().to_vec()),
                    ("summary.json", self.summary_json.clone()),
                ],
            )?;
        }
        let s = &self.summary;
        let times = self.times.iter().map(|&(a, done)| (a, Some(done), 1));
        let mut metrics = crate::peer::metrics_of_times(&self.label, times, 0);
        metrics.statistics.avg_jct_s = s.avg_jct;
        metrics.statistics.preemptions_tracked = self.restarts;
        let footer = format!(
            "sia semantics | {} | {} rounds | avg JCT {:.1} s | p99 {:.1} s | makespan {:.1} s | \
             {:.3} GPU-h/job | {:.3} restarts/job | contention mean {:.2} max {}",
            self.label,
            s.rounds,
            s.avg_jct,
            s.p99_jct,
            s.makespan,
            s.gpu_hours_per_job,
            s.restarts_per_job,
            s.contention_mean,
            s.contention_max
        );
        let context = format!(
            "sia semantics | cluster {} | workload {}",
            r.cluster
                .as_deref()
                .unwrap_or("6x4:aws,2x8:dgx-ext,3x8:rtx"),
            r.trace.display()
        );
        Ok(crate::Finished {
            model: crate::Model::Sia,
            metrics,
            preemptions: self.restarts,
            end_time_s: s.makespan,
            details: String::new(),
            footer,
            more: Vec::new(),
            context,
            note: None,
            out: r.out.clone(),
            files: vec!["jobs.csv", "summary.json"],
            report: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_and_parameters_parse_or_are_refused_by_name() {
        assert_eq!(
            SiaPolicyChoice::parse("sia").unwrap(),
            SiaPolicyChoice::Sia(SiaParams::default())
        );
        let Ok(SiaPolicyChoice::Sia(p)) = SiaPolicyChoice::parse("sia:p=0.5,lambda_n=2") else {
            panic!("sia with parameters parses");
        };
        assert_eq!((p.p, p.lambda_n), (0.5, 2.0));
        assert_eq!(
            SiaPolicyChoice::parse("gavel").unwrap(),
            SiaPolicyChoice::Gavel
        );
        for bad in ["sia:p=0", "sia:q=1", "sia:p=x", "sia:p", "gavel:x=1"] {
            assert!(SiaPolicyChoice::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            SiaPolicyChoice::parse("pollux").unwrap(),
            SiaPolicyChoice::Pollux(-1.0)
        );
        assert_eq!(
            SiaPolicyChoice::parse("pollux:p=-2").unwrap(),
            SiaPolicyChoice::Pollux(-2.0)
        );
        for bad in ["pollux:p=0", "pollux:q=1", "pollux:p=x", "pollux:p"] {
            assert!(SiaPolicyChoice::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sia_solver_parameter() {
        let Ok(SiaPolicyChoice::Sia(p)) = SiaPolicyChoice::parse("sia:solver=dp,p=-0.5") else {
            panic!("sia:solver=dp parses")
        };
        assert_eq!(p.solver, IlpSolver::Dp);
        let e = SiaPolicyChoice::parse("sia:solver=glpk").unwrap_err();
        assert!(e.to_string().contains("unknown ILP solver"), "{e}");
        let cbc = SiaPolicyChoice::parse("sia:solver=cbc");
        if cfg!(feature = "cbc") {
            let Ok(SiaPolicyChoice::Sia(p)) = cbc else {
                panic!("sia:solver=cbc parses with the feature")
            };
            assert_eq!(p.solver, IlpSolver::Cbc);
        } else {
            let e = cbc.unwrap_err().to_string();
            assert!(
                e.contains("--features") && e.contains("coinor-libcbc-dev"),
                "{e}"
            );
        }
    }

    #[test]
    fn other_names_are_engine_policies_built_through_the_registry() {
        let reg = Registry::default();
        for (text, label) in [
            ("fifo", "fifo"),
            ("LAS", "las"),
            ("srtf", "srtf"),
            ("engine:gavel", "engine:gavel"),
        ] {
            let c = SiaPolicyChoice::parse(text).unwrap();
            assert!(matches!(c, SiaPolicyChoice::Engine(_)), "{text}");
            assert_eq!(c.label(text), label);
            assert!(c.build(&reg).unwrap().is_some(), "{text}");
        }
        // Sia's own names win.
        assert_eq!(
            SiaPolicyChoice::parse("gavel").unwrap(),
            SiaPolicyChoice::Gavel
        );
        assert!(SiaPolicyChoice::parse("sia")
            .unwrap()
            .build(&reg)
            .unwrap()
            .is_none());
        // An unknown name fails when built, listing what sia takes; registered, it builds.
        let c = SiaPolicyChoice::parse("my-las").unwrap();
        let e = c.build(&reg).err().unwrap().to_string();
        assert!(
            e.contains("my-las") && e.contains("sia[:p=P") && e.contains("pollux[:p=P]"),
            "{e}"
        );
        let reg = Registry::default().policy("my-las", |_s, _e| {
            Ok(Box::new(blox_policies::Las::default()))
        });
        assert!(c.build(&reg).unwrap().is_some());
        assert_eq!(c.label("my-las"), "my-las");
    }

    /// A toy Sia data folder (no artifact data): `traces/cifar10` measured on aws and rtx, and
    /// a 6-job workload of 1-, 2- and 4-GPU jobs.
    fn toy_data(tag: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("blox-scenario-sia-{}-{tag}", std::process::id()));
        let app = root.join("traces/cifar10");
        std::fs::create_dir_all(&app).unwrap();
        for b in [64, 256, 1024] {
            let mut v = String::from("progress,iteration,grad_sqr,grad_var\n");
            for e in 0..100 {
                v += &format!("{},{},1.0,2.0\n", 40 * (e + 1), 4 * (e + 1));
            }
            std::fs::write(app.join(format!("validation-{b}.csv")), v).unwrap();
        }
        for (t, st, places) in [
            ("aws", 0.2, &[1, 2, 4][..]),
            ("rtx", 0.1, &[1, 2, 4, 8][..]),
        ] {
            let mut text = String::from("local_bsz,step_time,sync_time,placement\n");
            for p in places {
                text += &format!("16,{st},0.01,{p}\n256,{},0.01,{p}\n", st * 4.0);
            }
            std::fs::write(app.join(format!("placements-{t}.csv")), text).unwrap();
        }
        let w = root.join("workloads/toy");
        std::fs::create_dir_all(&w).unwrap();
        let mut csv = String::from("name,time,application,num_replicas,batch_size\n");
        for (i, g) in [4, 1, 2, 4, 1, 2].iter().enumerate() {
            csv += &format!("cifar10-{i},{},cifar10,{g},256\n", 30 * i);
        }
        std::fs::write(w.join("workload-1.csv"), csv).unwrap();
        root
    }

    #[test]
    fn a_registered_policy_runs_under_sias_model_labelled_by_its_name() {
        let root = toy_data("registered");
        let run = |policy: &str, registry: Registry| SiaRun {
            trace: root.join("workloads/toy/workload-1.csv"),
            traces: None,
            cluster: Some("1x4:aws,1x8:rtx".into()),
            round_s: None,
            policy: policy.into(),
            seed: 0,
            out: None,
            registry,
        };
        // Without the registration: the name is unknown, and the error lists what sia takes.
        let e = run("my-fifo", Registry::default())
            .run()
            .unwrap_err()
            .to_string();
        assert!(e.contains("my-fifo") && e.contains("sia[:p=P"), "{e}");
        let reg = Registry::default().policy("my-fifo", |_s, _e| {
            Ok(Box::new(blox_policies::Fifo::default()))
        });
        let mine = run("my-fifo", reg).run().unwrap();
        let json = String::from_utf8(mine.summary_json.clone()).unwrap();
        assert!(
            json.contains("\"policy\": \"my-fifo\"") && json.contains("\"interval_s\": 60"),
            "{json}"
        );
        // Every job completes (a row each), with the columns of every sia run.
        assert_eq!(mine.jobs_csv.lines().count(), 7, "{}", mine.jobs_csv);
        assert!(mine.jobs_csv.starts_with(
            "source_id,application,arrival_s,completion_s,jct_s,restarts,gpu_seconds\n"
        ));
        // The stock FIFO gives the same jobs; LAS other ones.
        let fifo = run("fifo", Registry::default()).run().unwrap();
        assert_eq!(fifo.jobs_csv, mine.jobs_csv);
        let las = run("las", Registry::default()).run().unwrap();
        assert_eq!(las.jobs_csv.lines().count(), 7);
        let _ = std::fs::remove_dir_all(root);
    }

    /// A workload kept away from Sia's data (e.g. one of Pollux's) runs with the per-type
    /// traces named by `--sia-traces`, giving the files it gives beside the data; without it
    /// the error names the flag, and a folder that is not Sia's traces is refused.
    #[test]
    fn a_workload_elsewhere_runs_with_the_traces_named() {
        let root = toy_data("elsewhere");
        let beside = root.join("workloads/toy/workload-1.csv");
        let away_dir = root.with_extension("away");
        std::fs::create_dir_all(&away_dir).unwrap();
        let away = away_dir.join("workload.csv");
        std::fs::copy(&beside, &away).unwrap();
        let run = |trace: &Path, traces: Option<PathBuf>| SiaRun {
            trace: trace.to_path_buf(),
            traces,
            cluster: Some("1x4:aws,1x8:rtx".into()),
            round_s: None,
            policy: "sia".into(),
            seed: 0,
            out: None,
            registry: Registry::default(),
        };
        let want = run(&beside, None).run().unwrap();
        let e = run(&away, None).run().unwrap_err().to_string();
        assert!(e.contains("--sia-traces"), "{e}");
        let e = run(&away, Some(root.clone()))
            .run()
            .unwrap_err()
            .to_string();
        assert!(e.contains("--sia-traces") && e.contains("cifar10"), "{e}");
        let got = run(&away, Some(root.join("traces"))).run().unwrap();
        assert_eq!(got.jobs_csv, want.jobs_csv);
        let _ = std::fs::remove_dir_all(root);
        let _ = std::fs::remove_dir_all(away_dir);
    }

    #[test]
    fn clusters_are_typed_groups_of_the_types_own_size() {
        let c = parse_cluster("6x4:aws,2x8:dgx-ext,3x8:rtx").unwrap();
        assert_eq!(c, SiaCluster::default_64());
        assert!(parse_cluster("6x8:aws").is_err());
        assert!(parse_cluster("2x8:h100").is_err());
        assert!(parse_cluster("16x4").is_err());
    }

    #[test]
    fn a_missing_workload_says_where_to_get_the_data() {
        let r = SiaRun {
            trace: PathBuf::from("/nonexistent/workloads/philly/workload-1.csv"),
            traces: None,
            cluster: None,
            round_s: None,
            policy: "sia".into(),
            seed: 0,
            out: None,
            registry: Registry::default(),
        };
        let e = r.run().unwrap_err().to_string();
        assert!(
            e.contains("docs/data.md") && e.contains("SHA256SUMS"),
            "{e}"
        );
    }
}
