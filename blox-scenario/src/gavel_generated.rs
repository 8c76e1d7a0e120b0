//! `--semantics gavel --workload gavel-generated`: Gavel's generated-jobs mode (the paper's
//! figures; `blox_gavel::generated`, GAVEL-GENERATED.md): jobs drawn from Gavel's generator
//! at Poisson arrivals of mean λ seconds, a window of job ids measured, or (λ = 0) a static
//! batch of jobs at t = 0.

use crate::gavel::parse_cluster;
use crate::scenario::write_atomically;
use blox_gavel::clock::GavelError;
use blox_gavel::generated::{run_generated_colocated, GeneratedConfig, GeneratedOutcome};
use blox_gavel::GavelPolicyKind;
use blox_sim::SimError;
use blox_workload::GavelThroughputs;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The `--workload` name of this mode.
pub const WORKLOAD_NAME: &str = "gavel-generated";

/// Where the throughput table is looked for when `--throughputs` is not given: under
/// `$BLOX_TRACES` (or `traces`), `gavel/simulation_throughputs.json[.gz]`.
pub fn default_table_path() -> Option<PathBuf> {
    let dir = std::env::var_os("BLOX_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("traces"));
    [
        "simulation_throughputs.json.gz",
        "simulation_throughputs.json",
    ]
    .iter()
    .map(|n| dir.join("gavel").join(n))
    .find(|p| p.is_file())
}

/// Parses a window `FIRST..LAST` (job ids, inclusive).
pub fn parse_window(s: &str) -> Result<(usize, usize), SimError> {
    let err = || {
        SimError::Config(format!(
            "--track `{s}`: expected FIRST..LAST, job ids inclusive (Gavel's -s FIRST -e LAST+1), \
             e.g. 4000..4999"
        ))
    };
    let (a, b) = s.trim().split_once("..").ok_or_else(err)?;
    let a: usize = a.trim().parse().map_err(|_| err())?;
    let b: usize = b.trim().parse().map_err(|_| err())?;
    if a > b {
        return Err(SimError::Config(format!(
            "--track `{s}`: the first id is above the last"
        )));
    }
    Ok((a, b))
}

/// How λ was given (for the report).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrivalSetting {
    /// `--lambda SECONDS`.
    Lambda(f64),
    /// `--rate JOBS_PER_HOUR`: λ = 3600 / rate.
    Rate(f64),
}

impl ArrivalSetting {
    /// The mean inter-arrival time (s), as Gavel's sweep computes it from a rate.
    pub fn lambda(self) -> f64 {
        match self {
            ArrivalSetting::Lambda(l) => l,
            ArrivalSetting::Rate(r) => 3600.0 / r,
        }
    }
}

/// The settings of a generated-jobs run.
#[derive(Clone, Debug)]
pub struct GavelGeneratedRun {
    /// The throughput table (`None`: [`default_table_path`]).
    pub throughputs: Option<PathBuf>,
    /// The cluster (`V:P:K` or typed groups).
    pub cluster: String,
    /// One of Gavel's policy names.
    pub policy: String,
    /// λ or the rate.
    pub arrivals: ArrivalSetting,
    /// Multi-GPU jobs.
    pub multi_gpu: bool,
    /// Priority weights.
    pub priorities: bool,
    /// Steady-state pre-fill.
    pub steady_state: bool,
    /// Fixed duration (s).
    pub fixed_duration: Option<f64>,
    /// Window, job ids inclusive.
    pub window: Option<(usize, usize)>,
    /// Static mode's job count.
    pub jobs: Option<usize>,
    /// Gavel's seed.
    pub seed: u64,
    /// Round (s).
    pub round_s: u64,
    /// Where the files go.
    pub out: Option<PathBuf>,
}

/// A finished generated-jobs run.
pub struct GavelGeneratedReport {
    /// The policy's Gavel name.
    pub label: String,
    /// The outcome.
    pub out: GeneratedOutcome,
    /// The table read.
    pub table_path: PathBuf,
    /// The registered types.
    pub types: Vec<(String, u32)>,
    /// λ used (s).
    pub lambda: f64,
}

#[derive(Serialize)]
struct Summary<'a> {
    semantics: &'static str,
    workload: &'static str,
    policy: &'a str,
    throughputs: &'a Path,
    cluster: &'a [(String, u32)],
    round_s: u64,
    seed: u64,
    lambda_s: f64,
    rate_jobs_per_hour: Option<f64>,
    multi_gpu: bool,
    priorities: bool,
    steady_state: bool,
    fixed_duration_s: Option<f64>,
    window_first: Option<usize>,
    window_last: Option<usize>,
    static_jobs: Option<usize>,
    jobs_generated: usize,
    n_measured: usize,
    n_completed: usize,
    n_dropped: usize,
    avg_jct_s: Option<f64>,
    avg_jct_low_priority_s: Option<f64>,
    avg_jct_high_priority_s: Option<f64>,
    utilization: f64,
    makespan_s: f64,
    window_start_s: Option<f64>,
    window_duration_s: Option<f64>,
    rounds: u64,
    solves: u64,
    preemptions_total: u64,
}

impl GavelGeneratedRun {
    /// The generator's and loop's settings.
    pub fn config(&self) -> GeneratedConfig {
        let base = match self.jobs {
            Some(n) if self.arrivals.lambda() == 0.0 => GeneratedConfig::static_jobs(n, self.seed),
            _ => GeneratedConfig::continuous(self.arrivals.lambda(), 0, 0, self.seed),
        };
        let mut c = base
            .multi_gpu(self.multi_gpu)
            .priorities(self.priorities)
            .steady_state(self.steady_state)
            .fixed_duration(self.fixed_duration)
            .round(self.round_s as f64)
            .window(self.window);
        c.jobs = self.jobs;
        c
    }

    /// Loads the table and runs.
    pub fn run(&self) -> Result<GavelGeneratedReport, SimError> {
        let kind: GavelPolicyKind = self.policy.parse().map_err(|e| {
            SimError::Config(format!(
                "--policy: {e} (--workload {WORKLOAD_NAME} runs Gavel's own policies only)"
            ))
        })?;
        if let ArrivalSetting::Rate(r) = self.arrivals {
            if !(r > 0.0 && r.is_finite()) {
                return Err(SimError::Config(format!(
                    "--rate {r}: must be a positive number of jobs per hour (use --lambda 0 for \
                     every job at t = 0)"
                )));
            }
        }
        let cluster = parse_cluster(&self.cluster)?;
        let table_path = match &self.throughputs {
            Some(p) => p.clone(),
            None => default_table_path().ok_or_else(|| {
                SimError::Config(format!(
                    "--workload {WORKLOAD_NAME} needs Gavel's throughput table: give \
                     --throughputs FILE (simulation_throughputs.json[.gz]) or set BLOX_TRACES to \
                     the traces folder (it holds gavel/simulation_throughputs.json.gz)"
                ))
            })?,
        };
        let loaded = GavelThroughputs::load(&table_path)?;
        let colocated = kind
            .is_packed()
            .then(|| std::sync::Arc::new(loaded.colocated().clone()));
        let table = loaded.into_table();
        let cfg = self.config();
        let out = run_generated_colocated(&table, colocated, &cluster, kind, &cfg).map_err(
            |e| match e {
                GavelError::Stuck { .. } => SimError::Stalled(e.to_string()),
                GavelError::MissingThroughput { .. } => {
                    SimError::Config(format!("{e} ({})", table_path.display()))
                }
                _ => SimError::Config(e.to_string()),
            },
        )?;
        let types = blox_gavel::clock::register_types(&cluster)
            .map_err(|e| SimError::Config(e.to_string()))?;
        Ok(GavelGeneratedReport {
            label: kind.as_str().to_string(),
            out,
            table_path,
            types,
            lambda: cfg.lambda,
        })
    }
}

fn types_text(types: &[(String, u32)]) -> String {
    types
        .iter()
        .map(|(t, c)| format!("{c} {t}"))
        .collect::<Vec<_>>()
        .join(" + ")
}

impl GavelGeneratedReport {
    /// The measured jobs' statistics in the columns every semantics reports (JCTs on the
    /// engine's millisecond clock; the mean at Gavel's full precision, numpy's pairwise sum).
    pub fn metrics(&self) -> blox_metrics::RunMetrics {
        let jobs = self.out.measured();
        let total: u32 = self.types.iter().map(|(_, n)| n).sum();
        let mut m = crate::peer::metrics_of_times(
            &self.label,
            jobs.map(|j| (j.arrival, j.finish, j.scale_factor)),
            total,
        );
        if let Some(avg) = self.out.avg_jct {
            m.statistics.avg_jct_s = avg;
        }
        m.cluster.mean_utilisation = self.out.utilization;
        m
    }

    /// The report as the one report type of every semantics, its files written into the run's
    /// folder if it has one.
    pub fn finish(&self, r: &GavelGeneratedRun) -> Result<crate::Finished, SimError> {
        if let Some(dir) = &r.out {
            self.write(r, dir)?;
        }
        let o = &self.out;
        let mode = match r.window {
            Some((a, b)) => format!("window {a}..{b}"),
            None => format!("static, {} jobs", r.jobs.unwrap_or(0)),
        };
        let footer = format!(
            "gavel semantics, generated jobs | {} | {} | lambda {:?} s | R = {} s | seed {} | \
             {mode} | {} jobs generated",
            self.label,
            types_text(&self.types),
            self.lambda,
            r.round_s,
            r.seed,
            o.generated()
        );
        let mut more = vec![format!("throughputs: {}", self.table_path.display())];
        more.push(match o.avg_jct {
            Some(a) => format!(
                "avg JCT {a:.6} s ({:.3} h) | utilisation {:.6} | makespan {:.6} s | {} rounds | \
                 {} solves",
                a / 3600.0,
                o.utilization,
                o.final_clock,
                o.rounds,
                o.solves
            ),
            None => "no measured job completed".into(),
        });
        let context = format!(
            "gavel semantics, generated jobs | {} | lambda {:?} s | R = {} s | seed {} | {mode}",
            types_text(&self.types),
            self.lambda,
            r.round_s,
            r.seed
        );
        Ok(crate::Finished {
            model: crate::Model::Gavel,
            metrics: self.metrics(),
            preemptions: o.jobs.iter().map(|j| j.preemptions).sum(),
            end_time_s: o.final_clock,
            details: String::new(),
            footer,
            more,
            context,
            note: None,
            out: r.out.clone(),
            files: vec!["jobs.csv", "summary.json"],
            report: None,
        })
    }

    /// `jobs.csv` and `summary.json` into `dir`.
    pub fn write(&self, r: &GavelGeneratedRun, dir: &Path) -> Result<(), SimError> {
        let o = &self.out;
        let measured: Vec<_> = o.measured().collect();
        let dropped = measured
            .iter()
            .filter(|j| j.status == blox_gavel::generated::GeneratedStatus::Dropped)
            .count();
        let summary = Summary {
            semantics: "gavel",
            workload: WORKLOAD_NAME,
            policy: &self.label,
            throughputs: &self.table_path,
            cluster: &self.types,
            round_s: r.round_s,
            seed: r.seed,
            lambda_s: self.lambda,
            rate_jobs_per_hour: match r.arrivals {
                ArrivalSetting::Rate(x) => Some(x),
                ArrivalSetting::Lambda(_) => None,
            },
            multi_gpu: r.multi_gpu,
            priorities: r.priorities,
            steady_state: r.steady_state,
            fixed_duration_s: r.fixed_duration,
            window_first: r.window.map(|w| w.0),
            window_last: r.window.map(|w| w.1),
            static_jobs: r.jobs,
            jobs_generated: o.generated(),
            n_measured: measured.len(),
            n_completed: measured.iter().filter(|j| j.jct.is_some()).count(),
            n_dropped: dropped,
            avg_jct_s: o.avg_jct,
            avg_jct_low_priority_s: o.avg_jct_low_priority,
            avg_jct_high_priority_s: o.avg_jct_high_priority,
            utilization: o.utilization,
            makespan_s: o.final_clock,
            window_start_s: o.window_start,
            window_duration_s: o.window_duration(),
            rounds: o.rounds,
            solves: o.solves,
            preemptions_total: o.jobs.iter().map(|j| j.preemptions).sum(),
        };
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        write_atomically(dir, "jobs.csv", jobs_csv(o).as_bytes())?;
        let mut json = serde_json::to_vec_pretty(&summary).expect("serialising to memory");
        json.push(b'\n');
        write_atomically(dir, "summary.json", &json)
    }
}

/// `jobs.csv` of a generated run: every generated job, times at full precision.
pub fn jobs_csv(o: &GeneratedOutcome) -> String {
    let mut s = String::from(
        "job_id,job_type,scale_factor,priority_weight,duration_s,total_steps,arrival_s,finish_s,jct_s,status,tracked,micro_tasks,preemptions\n",
    );
    let opt = |v: Option<f64>| v.map(|x| format!("{x:?}")).unwrap_or_default();
    for j in &o.jobs {
        let _ = writeln!(
            s,
            "{},\"{}\",{},{:?},{:?},{:?},{:?},{},{},{},{},{},{}",
            j.id,
            j.job_type,
            j.scale_factor,
            j.weight,
            j.duration_s,
            j.total_steps,
            j.arrival,
            opt(j.finish),
            opt(j.jct),
            j.status.as_str(),
            j.tracked,
            j.micro_tasks,
            j.preemptions
        );
    }
    s
}

/// The runs of one of Gavel's continuous sweeps at one seed: `base` at each `(rate, λ)` of
/// [`blox_gavel::generated::parse_rates`] (`linspace:0:3:11` gives Figure 9's λ values).
/// A sweep command can map these onto its points; the rate is kept so λ is Gavel's
/// `3600.0 / rate` exactly.
pub fn sweep_runs(
    base: &GavelGeneratedRun,
    rates: &str,
) -> Result<Vec<GavelGeneratedRun>, SimError> {
    let points = blox_gavel::generated::parse_rates(rates)
        .map_err(|e| SimError::Config(format!("--rate {e}")))?;
    Ok(points
        .into_iter()
        .map(|(rate, _)| GavelGeneratedRun {
            arrivals: ArrivalSetting::Rate(rate),
            ..base.clone()
        })
        .collect())
}
