//! `--semantics gavel`: Gavel's (OSDI 2020) trace simulator, reproduced job by job
//! (`blox-gavel`): Gavel's policies by its names ([`blox_gavel::run_gavel`]), or any other
//! policy name as an engine policy (stock or registered) on the same clock
//! ([`blox_gavel::run_gavel_engine`]). Gavel's names win (`fifo` is Gavel's); `engine:NAME`
//! names the engine's.

use crate::bench::thread_cpu_s;
use crate::registry::{Named, Registry};
use crate::scenario::write_atomically;
use crate::Semantics;
use blox_core::ClusterSpec;
use blox_gavel::clock::{register_types, GavelError, GavelOutcome};
use blox_gavel::{run_gavel, run_gavel_colocated, GavelPolicyKind};
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_sim::SimError;
use blox_workload::{locate_table_path, read_gavel_trace, GavelThroughputs, GavelTraceJob};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The prefix that names the engine's policy where Gavel has one of the same name (`fifo`).
pub const ENGINE_PREFIX: &str = "engine:";

/// What `--policy` names under `--semantics gavel`.
enum GavelChoice {
    /// One of Gavel's five policies.
    Gavel(GavelPolicyKind),
    /// An engine policy, stock or registered.
    Engine(Named<PolicyConfig>),
}

impl GavelChoice {
    fn parse(text: &str) -> Result<Self, SimError> {
        let err = |e: blox_core::ConfigError| SimError::Config(format!("--policy: {e}"));
        if let Some(rest) = text.trim().strip_prefix(ENGINE_PREFIX) {
            return rest.parse().map(GavelChoice::Engine).map_err(err);
        }
        if let Ok(kind) = text.parse::<GavelPolicyKind>() {
            return Ok(GavelChoice::Gavel(kind));
        }
        text.parse().map(GavelChoice::Engine).map_err(err)
    }
}

/// Parses `--cluster` for Gavel: typed groups `NODESxGPUS:TYPE` (GPUs summed per type, one GPU
/// per server does not matter: Gavel has no placement effects) or Gavel's own `V:P:K`. An
/// untyped group is an error (the type decides the throughputs).
pub fn parse_cluster(s: &str) -> Result<Vec<(String, u32)>, SimError> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() == 3 && parts.iter().all(|p| p.trim().parse::<u32>().is_ok()) {
        return Ok(["v100", "p100", "k80"]
            .iter()
            .zip(&parts)
            .map(|(t, c)| (t.to_string(), c.trim().parse().unwrap_or(0)))
            .collect());
    }
    let spec: ClusterSpec = s
        .parse()
        .map_err(|e: blox_core::ClusterParseError| SimError::Config(format!("--cluster: {e}")))?;
    let mut out: Vec<(String, u32)> = Vec::new();
    for n in &spec.nodes {
        if n.gpu_type == blox_core::DEFAULT_GPU_TYPE && !s.contains(':') {
            return Err(SimError::Config(format!(
                "--cluster `{s}`: --semantics gavel needs typed groups such as 8x1:v100 or \
                 4x1:v100,4x1:p100,4x1:k80 (or Gavel's V:P:K, e.g. 8:0:0)"
            )));
        }
        match out
            .iter_mut()
            .find(|(t, _)| t.eq_ignore_ascii_case(&n.gpu_type))
        {
            Some(e) => e.1 += n.gpus,
            None => out.push((n.gpu_type.clone(), n.gpus)),
        }
    }
    register_types(&out).map_err(|e| SimError::Config(format!("--cluster `{s}`: {e}")))?;
    Ok(out)
}

/// The settings of a `blox-sim run --semantics gavel`.
#[derive(Clone, Debug)]
pub struct GavelRun {
    /// The Gavel trace (`*.trace`).
    pub trace: PathBuf,
    /// The throughput table (found next to the trace when not given).
    pub throughputs: Option<PathBuf>,
    /// The cluster, e.g. `4x1:v100,4x1:p100,4x1:k80`.
    pub cluster: String,
    /// Gavel's round, seconds.
    pub round_s: u64,
    /// Gavel's seed.
    pub seed: u64,
    /// The policy: one of Gavel's names, or an engine policy.
    pub policy: String,
    /// Where the files go.
    pub out: Option<PathBuf>,
    /// Where engine policies not stock are found.
    pub registry: Registry,
}

#[derive(Serialize)]
struct Summary<'a> {
    semantics: &'static str,
    policy: &'a str,
    trace: &'a Path,
    throughputs: &'a Path,
    throughputs_source: &'static str,
    cluster: &'a [(String, u32)],
    round_s: u64,
    seed: u64,
    n_jobs: usize,
    n_completed: usize,
    n_dropped: usize,
    avg_jct_s: Option<f64>,
    makespan_s: f64,
    rounds: u64,
    solves: u64,
    preemptions_total: u64,
}

/// A finished `--semantics gavel` run.
pub struct GavelReport {
    /// The policy as Gavel or the engine names it.
    pub label: String,
    /// The trace's jobs.
    pub jobs: Vec<GavelTraceJob>,
    /// The outcome.
    pub out: GavelOutcome,
    /// The throughput table read, and how it was found.
    pub table_path: PathBuf,
    /// How the table was found (given, or next to the trace).
    pub source: &'static str,
    /// The registered types.
    pub types: Vec<(String, u32)>,
}

impl GavelRun {
    /// Read the trace and table, and run the policy.
    pub fn run(&self) -> Result<GavelReport, SimError> {
        let r = self;
        let choice = GavelChoice::parse(&r.policy)?;
        let cluster = parse_cluster(&r.cluster)?;
        let jobs = read_gavel_trace(&r.trace)?;
        let opts =
            blox_workload::ReadOptions::default().with_gavel_throughputs(r.throughputs.clone());
        let (table_path, source) = match locate_table_path(&r.trace, &opts) {
            Some(p) if r.throughputs.is_some() => (p, "--throughputs"),
            Some(p) => (p, "found next to the trace"),
            None => {
                return Err(SimError::Config(format!(
                    "{}: no --throughputs and no simulation_throughputs.json[.gz] (or \
                     physical_cluster_throughputs.json[.gz]) next to the trace, in its parent or \
                     grandparent folder",
                    r.trace.display()
                )))
            }
        };
        let loaded = GavelThroughputs::load(&table_path)?;
        let colocated = match &choice {
            GavelChoice::Gavel(p) if p.is_packed() => {
                Some(std::sync::Arc::new(loaded.colocated().clone()))
            }
            _ => None,
        };
        let table = loaded.into_table();
        let (label, result) = match choice {
            GavelChoice::Gavel(policy) => (
                policy.as_str().to_string(),
                run_gavel_colocated(
                    &jobs,
                    &table,
                    colocated,
                    &cluster,
                    policy,
                    r.round_s as f64,
                    r.seed,
                ),
            ),
            GavelChoice::Engine(p) => {
                let env = PolicyEnv::new(None)
                    .with_throughputs(std::sync::Arc::new(table.clone()), "v100");
                let policy = crate::preset::build_policy(Semantics::Exact, &r.registry, &p, &env)
                    .map_err(|e| {
                    SimError::Config(format!(
                        "--policy: {e}; or one of Gavel's: fifo, fifo_perf, \
                             max_min_fairness, max_min_fairness_perf, finish_time_fairness_perf, \
                             max_sum_throughput_perf, min_total_duration, min_total_duration_perf, \
                             finish_time_fairness, isolated, fifo_packed, max_min_fairness_packed, \
                             finish_time_fairness_packed, min_total_duration_packed"
                    ))
                })?;
                let name = p.to_string();
                let label = if name.parse::<GavelPolicyKind>().is_ok() {
                    format!("{ENGINE_PREFIX}{name}")
                } else {
                    name
                };
                (
                    label,
                    blox_runner::gavel::run_engine_policy(
                        &jobs,
                        &table,
                        &cluster,
                        policy,
                        r.round_s as f64,
                        r.seed,
                    ),
                )
            }
        };
        let out = result.map_err(|e| match e {
            GavelError::MissingThroughput { line, .. } => SimError::input(
                &r.trace,
                Some(line),
                Some("job_type"),
                format!("{e} ({})", table_path.display()),
            ),
            GavelError::Stuck { .. } => SimError::Stalled(e.to_string()),
            _ => SimError::Config(e.to_string()),
        })?;
        let types = register_types(&cluster).map_err(|e| SimError::Config(e.to_string()))?;
        Ok(GavelReport {
            label,
            jobs,
            out,
            table_path,
            source,
            types,
        })
    }
}

impl GavelReport {
    /// The run's statistics in the columns every semantics reports (JCTs on the engine's
    /// millisecond clock, the mean and makespan at Gavel's full precision).
    pub fn metrics(&self) -> blox_metrics::RunMetrics {
        let jobs = self.out.jobs.iter();
        let total: u32 = self.types.iter().map(|(_, n)| n).sum();
        let mut m = crate::peer::metrics_of_times(
            &self.label,
            jobs.map(|j| (j.arrival, j.finish, j.scale_factor)),
            total,
        );
        if let Some(avg) = self.out.avg_jct() {
            m.statistics.avg_jct_s = avg;
        }
        m
    }

    /// The report as the one report type of every semantics, its files written into the run's
    /// folder if it has one.
    pub fn finish(&self, r: &GavelRun) -> Result<crate::Finished, SimError> {
        if let Some(dir) = &r.out {
            self.write(r, dir)?;
        }
        let (jobs, out, types) = (&self.jobs, &self.out, &self.types);
        let footer = format!(
            "gavel semantics | {} | {} | R = {} s | seed {} | {} jobs ({} dropped)",
            self.label,
            types_text(types),
            r.round_s,
            r.seed,
            jobs.len(),
            out.dropped()
        );
        let mut more = vec![format!(
            "throughputs: {} ({})",
            self.table_path.display(),
            self.source
        )];
        more.push(match out.avg_jct() {
            Some(a) => format!(
                "avg JCT {a:.6} s | makespan {:.6} s | {} rounds | {} solves",
                out.makespan, out.rounds, out.solves
            ),
            None => "no job completed".into(),
        });
        let context = format!(
            "gavel semantics | {} | R = {} s | seed {} | trace {}",
            types_text(types),
            r.round_s,
            r.seed,
            r.trace.display()
        );
        let note = (out.dropped() > 0).then(|| {
            format!(
                "{}: {} of {} jobs dropped (never completed)",
                self.label,
                out.dropped(),
                jobs.len()
            )
        });
        Ok(crate::Finished {
            model: crate::Model::Gavel,
            metrics: self.metrics(),
            preemptions: out.jobs.iter().map(|j| j.preemptions).sum(),
            end_time_s: out.makespan,
            details: String::new(),
            footer,
            more,
            context,
            note,
            out: r.out.clone(),
            files: vec!["jobs.csv", "summary.json"],
            report: None,
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

impl GavelReport {
    /// `jobs.csv` and `summary.json` into `dir`.
    fn write(&self, r: &GavelRun, dir: &Path) -> Result<(), SimError> {
        let (jobs, out) = (&self.jobs, &self.out);
        let summary = Summary {
            semantics: "gavel",
            policy: &self.label,
            trace: &r.trace,
            throughputs: &self.table_path,
            throughputs_source: self.source,
            cluster: &self.types,
            round_s: r.round_s,
            seed: r.seed,
            n_jobs: jobs.len(),
            n_completed: jobs.len() - out.dropped(),
            n_dropped: out.dropped(),
            avg_jct_s: out.avg_jct(),
            makespan_s: out.makespan,
            rounds: out.rounds,
            solves: out.solves,
            preemptions_total: out.jobs.iter().map(|j| j.preemptions).sum(),
        };
        std::fs::create_dir_all(dir).map_err(|e| SimError::io(dir, e))?;
        write_atomically(dir, "jobs.csv", jobs_csv(jobs, out).as_bytes())?;
        let mut json = serde_json::to_vec_pretty(&summary).expect("serialising to memory");
        json.push(b'\n');
        write_atomically(dir, "summary.json", &json)
    }
}

/// `jobs.csv` in gavel semantics: one row per trace job, times at full precision (Rust's
/// shortest round-trip form, the same digits as Python's `repr`).
pub fn jobs_csv(jobs: &[GavelTraceJob], out: &GavelOutcome) -> String {
    let mut s = String::from(
        "job_id,job_type,scale_factor,total_steps,arrival_s,finish_s,jct_s,status,gpu_types,micro_tasks,preemptions\n",
    );
    for (j, r) in jobs.iter().zip(&out.jobs) {
        let opt = |v: Option<f64>| v.map(|x| format!("{x:?}")).unwrap_or_default();
        let _ = writeln!(
            s,
            "{},\"{}\",{},{},{:?},{},{},{},{},{},{}",
            r.id,
            j.job_type.replace('"', "\"\""),
            r.scale_factor,
            j.total_steps,
            r.arrival,
            opt(r.finish),
            opt(r.jct),
            if r.jct.is_some() {
                "completed"
            } else {
                "dropped"
            },
            r.gpu_types.join("+"),
            r.micro_tasks,
            r.preemptions
        );
    }
    s
}

/// Gavel's 8 `physical_cluster` traces, in file-name order.
pub const PHYSICAL_CLUSTER_TRACES: [&str; 8] = [
    "artifact_evaluation",
    "debug",
    "debug_v2",
    "highmem_test",
    "max_min_fairness",
    "medium_test",
    "minimize_makespan",
    "small_test",
];

/// `blox-sim bench --gavel`: the 80 seed-0 runs (8 physical-cluster traces × 5 policies ×
/// 8 V100 and 4 V100 + 4 P100 + 4 K80, R = 360 s) one after another on one thread; prints the
/// wall and process CPU time. Then every policy of [`GavelPolicyKind::ALL`] and
/// [`GavelPolicyKind::MORE`] on every trace and both clusters, each run `repeat` times (best
/// CPU time kept), against the CPU time Gavel's own simulator took for the same run
/// (`GAVEL_REFERENCE_CPU` in `gavel_reference.rs`: recorded, not measured by this command).
/// `dir` is the traces folder (it holds `gavel/`).
pub fn bench(dir: &Path, repeat: u32) -> Result<(), SimError> {
    let gavel = dir.join("gavel");
    let table_path = gavel.join("simulation_throughputs.json.gz");
    let cpu0 = process_cpu_s();
    let t0 = std::time::Instant::now();
    let table = GavelThroughputs::load(&table_path)?.into_table();
    let traces: Vec<Vec<GavelTraceJob>> = PHYSICAL_CLUSTER_TRACES
        .iter()
        .map(|n| read_gavel_trace(&gavel.join(format!("physical_cluster/{n}.trace"))))
        .collect::<Result<_, _>>()?;
    let load_s = t0.elapsed().as_secs_f64();
    let clusters = [
        vec![("v100".to_string(), 8)],
        vec![
            ("v100".to_string(), 4),
            ("p100".to_string(), 4),
            ("k80".to_string(), 4),
        ],
    ];
    let mut per_policy = Vec::new();
    let mut runs = 0;
    let t1 = std::time::Instant::now();
    for kind in GavelPolicyKind::ALL {
        let t = std::time::Instant::now();
        for jobs in &traces {
            for c in &clusters {
                run_gavel(jobs, &table, c, kind, 360.0, 0)
                    .map_err(|e| SimError::Config(e.to_string()))?;
                runs += 1;
            }
        }
        per_policy.push((kind, t.elapsed().as_secs_f64()));
    }
    let sim_s = t1.elapsed().as_secs_f64();
    let cpu = process_cpu_s().zip(cpu0).map(|(a, b)| a - b);
    println!(
        "Gavel semantics: {runs} seed-0 runs (8 physical-cluster traces x 5 policies x 8 V100 and \
         4 V100 + 4 P100 + 4 K80, R = 360 s), one thread"
    );
    println!("  loading the table and traces: {load_s:.3} s wall");
    for (k, s) in &per_policy {
        println!("  {k}: {s:.3} s wall");
    }
    match cpu {
        Some(c) => {
            println!("  simulation: {sim_s:.3} s wall; process CPU including loading: {c:.2} s")
        }
        None => println!("  simulation: {sim_s:.3} s wall"),
    }
    let recorded = |col: fn(&(&str, &str, &str, f64, f64)) -> f64| -> f64 {
        GAVEL_REFERENCE_CPU
            .iter()
            .filter(|r| GavelPolicyKind::ALL.iter().any(|k| k.as_str() == r.0))
            .map(col)
            .sum()
    };
    println!(
        "  target: < 2 s of CPU; Gavel's own simulator (recorded, GAVEL_REFERENCE_CPU) took \
         {:.1} s of process CPU for these runs, {:.1} s of it in its simulation",
        recorded(|r| r.4),
        recorded(|r| r.3)
    );
    ratios(&traces, &table, repeat.max(1))
}

/// The per-policy table of [`bench`]: each run's CPU time here (this thread, best of
/// `repeat`) against [`GAVEL_REFERENCE_CPU`].
fn ratios(
    traces: &[Vec<GavelTraceJob>],
    table: &blox_core::ThroughputTable,
    repeat: u32,
) -> Result<(), SimError> {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let Some(_) = thread_cpu_s() else {
        println!("  (per-policy ratios need a thread CPU clock: not on this system)");
        return Ok(());
    };
    println!(
        "Gavel's own simulator against this one, per policy (CPU seconds, user + system; {cores} \
         cores online, one thread used; best of {repeat} here)"
    );
    println!(
        "  Gavel: RECORDED, not measured now (GAVEL_REFERENCE_CPU: c4fa400 unmodified, the \
         driver's main(), Python 3 + cvxpy 1.9.3 + ECOS 2.0.14, 2026-12-06, 2 shared cores)"
    );
    println!(
        "  {:<26} {:>7} {:>11} {:>9} {:>7}  lowest trace ratio",
        "policy", "cluster", "here ms", "Gavel s", "ratio"
    );
    for kind in GavelPolicyKind::ALL
        .into_iter()
        .chain(GavelPolicyKind::MORE)
    {
        for (label, cluster) in BENCH_CLUSTERS {
            let c: Vec<(String, u32)> = cluster.iter().map(|&(t, n)| (t.to_string(), n)).collect();
            let (mut here, mut theirs) = (0.0, 0.0);
            let mut worst: Option<(f64, &str)> = None;
            let mut each = Vec::new();
            for (name, jobs) in PHYSICAL_CLUSTER_TRACES.iter().zip(traces) {
                let mut best = f64::INFINITY;
                for _ in 0..repeat {
                    let a = thread_cpu_s().unwrap_or(0.0);
                    run_gavel(jobs, table, &c, kind, 360.0, 0)
                        .map_err(|e| SimError::Config(e.to_string()))?;
                    best = best.min(thread_cpu_s().unwrap_or(0.0) - a);
                }
                here += best;
                let recorded = gavel_reference_cpu(kind.as_str(), name, label);
                each.push(match recorded {
                    Some(r) => format!("{name} {:.2}/{:.0}x", best * 1e3, r / best.max(1e-9)),
                    None => format!("{name} {:.2}", best * 1e3),
                });
                if let Some(r) = recorded {
                    theirs += r;
                    let ratio = r / best.max(1e-9);
                    if worst.map_or(true, |(w, _)| ratio < w) {
                        worst = Some((ratio, name));
                    }
                }
            }
            let (ratio, low) = match worst {
                Some((w, n)) => (
                    format!("{:.0}x", theirs / here.max(1e-9)),
                    format!("{w:.0}x ({n})"),
                ),
                None => ("-".into(), "no reference".into()),
            };
            println!(
                "  {:<26} {:>7} {:>11.2} {:>9.3} {:>7}  {low}",
                kind.as_str(),
                label,
                here * 1e3,
                theirs,
                ratio
            );
            println!("      per trace, ms here/ratio: {}", each.join(", "));
        }
    }
    println!("  target: every LP policy >= 100x on every trace");
    Ok(())
}

/// The clusters of [`bench`] by Gavel's `-c V:P:K` name.
const BENCH_CLUSTERS: [(&str, &[(&str, u32)]); 2] = [
    ("8:0:0", &[("v100", 8)]),
    ("4:4:4", &[("v100", 4), ("p100", 4), ("k80", 4)]),
];

/// Gavel's CPU seconds for one (policy, trace, cluster) run of [`GAVEL_REFERENCE_CPU`].
fn gavel_reference_cpu(policy: &str, trace: &str, cluster: &str) -> Option<f64> {
    GAVEL_REFERENCE_CPU
        .iter()
        .find(|r| r.0 == policy && r.1 == trace && r.2 == cluster)
        .map(|r| r.3)
}

/// User + system CPU seconds of this process (Linux `/proc/self/stat`, 100 ticks per second
/// assumed); `None` elsewhere.
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

#[path = "gavel_reference.rs"]
mod gavel_reference;
use gavel_reference::GAVEL_REFERENCE_CPU;

#[cfg(test)]
mod tests {
    use crate::bench::thread_cpu_s;

    /// `bench --gavel` divides by this clock: on Linux it reads, and it counts this thread's
    /// work (checked by work until it moves, not by any duration).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_thread_cpu_clock_reads_and_counts_this_threads_work() {
        let a = thread_cpu_s().expect("CLOCK_THREAD_CPUTIME_ID is readable on Linux");
        let mut x = 1u64;
        let mut b = a;
        for _ in 0..1_000 {
            for i in 0..1_000_000u64 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
            }
            std::hint::black_box(x);
            b = thread_cpu_s().expect("the clock reads again");
            if b > a {
                break;
            }
        }
        assert!(
            a >= 0.0 && b > a,
            "the thread's CPU clock did not move: {a} then {b}"
        );
    }
}
