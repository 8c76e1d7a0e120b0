//! The `blox-sim` command line: argument parsing and the commands.

use blox_scenario::registry::Registry;
use blox_scenario::values::{
    job_count, limit_secs, repeat, round_secs, seconds, threads, whole_secs,
};
use blox_scenario::{
    check_names, check_out, Finished, Model, Observe, PeerRun, Prepared, RunSettings, Scenario,
    Semantics, WorkloadConfig,
};

use blox_placement::PlacementConfig;
use blox_sim::SimError;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "blox-sim",
    version,
    about = "Simulate deep-learning cluster schedulers composed from Blox components.",
    long_about = "Simulate deep-learning cluster schedulers composed from Blox components.\n\n\
        With no command, compares FIFO, LAS and SRTF on Blox's default workload at a contended \
        load (8 jobs/h on 32x4 GPUs, jobs 3000..4000 tracked, exact semantics) and prints a table.",
    after_help = "Examples:\n  \
        blox-sim\n  \
        blox-sim run --semantics blox --policy las --load 1 --track 3000..4000\n  \
        blox-sim run --trace jobs.csv --trace-format canonical --cluster 16x8 --out results/\n  \
        blox-sim compare --policy fifo,las,srtf --load 6\n\n\
        Exit status: 0 done; 2 bad input (a flag, a value, a file that does not exist, a \
        scenario file or trace that does not read); 1 a run that could not finish (it stalled, \
        a component made an invalid decision, an output could not be written)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and print its results; with --out, write jobs.csv, summary.json and
    /// timeline.csv.
    Run(RunArgs),
    /// Run several policies on the same workload and print one table.
    Compare(CompareArgs),
    /// Run the cross product of settings in parallel (any flag of `run` may be a comma list;
    /// --load and --seed also take inclusive ranges such as 1..9), resumably, into DIR.
    Sweep(SweepArgs),
    /// Join the finished runs under DIR/runs (e.g. from several shards) into DIR/results.csv
    /// and DIR/results.json.
    Merge(MergeArgs),
    /// Inspect traces: `blox-sim trace stats FILE... --trace-format F`.
    #[command(subcommand)]
    Trace(TraceCommand),
    /// Time the engine: Blox's README configuration (LAS, load 1, jobs 3000..4000, blox
    /// semantics: 48,471 rounds), Blox's Figure 6 sweep, the full ITP trace, and 1,000,000
    /// synthetic jobs on 16,384 GPUs; print the figures (about a minute on 2 cores).
    Bench(BenchArgs),
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    settings: RunSettings,
    /// Scheduling policy: fifo, las, srtf, sjf, tiresias, optimus, gavel (Gavel-style max-min,
    /// alias gavel-style), themis (greedy finish-time fairness, alias ftf-greedy); parameters as
    /// `name:key=value,...`, e.g. `tiresias:queues=2,threshold=3600`. In blox semantics
    /// tiresias and optimus are Blox's versions. With --semantics gavel: Gavel's own fifo,
    /// fifo_perf, max_min_fairness, max_min_fairness_perf, finish_time_fairness_perf,
    /// max_sum_throughput_perf, min_total_duration, min_total_duration_perf,
    /// finish_time_fairness, isolated (`-` or `_`), or any engine policy on Gavel's clock
    /// (`engine:fifo` is the engine's FIFO)
    /// [default: fifo]. With --semantics tiresias: Tiresias' fifo, sjf, shortest,
    /// shortest-gpu, dlas, dlas-gpu, dlas-gpu-gittins, or any engine policy (Tiresias' name
    /// wins; `engine:fifo`, `engine:sjf` name the engine's).
    #[arg(long, value_name = "POLICY")]
    policy: Option<String>,
    /// Write jobs.csv, summary.json, timeline.csv, fairness.csv, jct_cdf.csv and timeline.svg
    /// into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Progress on standard error (simulated time, tracked jobs done): auto (when it is a
    /// terminal), always, never [default: auto].
    #[arg(long, value_name = "WHEN", value_parser = ["auto", "always", "never"], default_value = "auto")]
    progress: String,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    settings: RunSettings,
    /// Policies to compare, comma-separated (parameters stay with their policy:
    /// `tiresias:queues=2,threshold=3600,las`).
    #[arg(long, value_name = "P1,P2,...", default_value = "fifo,las,srtf")]
    policy: String,
    /// Placements to compare as well (each policy runs with each), comma-separated, e.g.
    /// `synergy:mode=fair,synergy:mode=tune` [default: --placement].
    #[arg(long, value_name = "PL1,PL2,...")]
    placements: Option<String>,
    /// Class splits of synergy-default to compare as well, separated by `/`, e.g.
    /// `20,70,10/33,33,33/50,0,50` (Synergy's Figure 9) [default: --class-split].
    #[arg(long, value_name = "I,L,S/I,L,S/...")]
    class_splits: Option<String>,
    /// Write compare.csv, compare.json and jct_cdf.svg into DIR, and each policy's outputs into
    /// DIR/POLICY/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct SweepArgs {
    /// `sweep status DIR`: the runs of a sweep submitted with --slurm.
    #[command(subcommand)]
    action: Option<crate::sweep_slurm::SweepAction>,
    /// Scenario file (TOML or JSON) every run starts from.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Semantics to try, e.g. `blox,exact`: `blox`, `exact`, `synergy`, or a peer's
    /// `tiresias`, `gavel`, `pollux` (a peer's runs cross --cluster, --policy, --placement and
    /// --seed; it refuses the other lists).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    semantics: Vec<Model>,
    /// The workload every run generates (see `run --help`): with --load lists for the engine's
    /// generators, or `gavel-generated` with --rate under --semantics gavel.
    #[arg(long, value_name = "NAME", value_parser = ["blox-default", "blox-multigpu-trace", "blox-synthetic", "poisson", "dual-load", "synergy-default", "gavel-generated"])]
    workload: Option<String>,
    /// Jobs of the poisson and dual-load generators, or of Gavel's static mode, for every run.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count)]
    jobs: Option<usize>,
    /// Gavel generated jobs: arrival rates in jobs per hour, a list or Gavel's
    /// `linspace:START:STOP:COUNT` (a leading 0 dropped, lambda = 3600/rate exactly as Gavel's
    /// sweeps compute it); results.csv's `load` column holds the rate.
    #[arg(long, value_name = "LIST")]
    rate: Option<String>,
    /// Gavel generated jobs: multi-GPU jobs, for every run.
    #[arg(long)]
    multi_gpu: bool,
    /// Gavel generated jobs: priority weights, for every run.
    #[arg(long)]
    priorities: bool,
    /// Gavel generated jobs: steady-state pre-fill, for every run.
    #[arg(long)]
    steady_state: bool,
    /// Gavel generated jobs: every job this long on V100s, for every run.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = blox_scenario::values::limit_secs)]
    fixed_duration: Option<f64>,
    /// Loads in jobs/hour: a list and/or inclusive integer ranges, e.g. `1..9` or `2,4.5,8`.
    #[arg(long, value_name = "LIST", allow_negative_numbers = true)]
    load: Option<String>,
    /// Blox's N for the generated workload [default: 12000].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = job_count)]
    blox_trace_jobs: Option<usize>,
    /// Read jobs from this file (repeatable) instead of generating them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["load", "blox_trace_jobs"])]
    trace: Vec<PathBuf>,
    /// Format of --trace [default: canonical].
    #[arg(long, value_name = "FORMAT")]
    trace_format: Option<String>,
    /// Count and skip malformed trace lines.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Clusters to try, e.g. `32x4,16x8`; a heterogeneous one joins its groups with `+`, e.g.
    /// `2x4:v100+6x4:k80`.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    cluster: Vec<String>,
    /// Throughput table for every run (see `run --help`).
    #[arg(long, value_name = "FILE")]
    throughputs: Option<PathBuf>,
    /// Round length in seconds [default: 300].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = round_secs)]
    round: Option<u64>,
    /// Admission policies to try, e.g. `accept-all,load-based:1.2`.
    #[arg(long, value_name = "LIST")]
    admission: Option<String>,
    /// Scheduling policies to try, e.g. `fifo,las,optimus`.
    #[arg(long, value_name = "LIST")]
    policy: Option<String>,
    /// Placements to try.
    #[arg(long, value_name = "LIST")]
    placement: Option<String>,
    /// Interconnect model for every run (see `run --help`).
    #[arg(long, value_name = "FILE|SHAPE")]
    topology: Option<String>,
    /// Throughput model for every run: placement or constant.
    #[arg(long, value_name = "MODEL")]
    throughput: Option<crate::ThroughputChoice>,
    /// Tracked job ids FIRST..LAST for every run.
    #[arg(long, value_name = "FIRST..LAST", allow_hyphen_values = true)]
    track: Option<String>,
    /// Seeds: a list and/or inclusive ranges, e.g. `1..5`.
    #[arg(long, value_name = "LIST", allow_negative_numbers = true)]
    seed: Option<String>,
    /// Exact semantics: preemption cost in seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = seconds)]
    preemption_cost: Option<f64>,
    /// Starvation threshold in seconds; 0 disables.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = whole_secs)]
    starvation: Option<u64>,
    /// Node events for every run (see `run --help`).
    #[arg(long, value_name = "FILE")]
    node_events: Option<PathBuf>,
    /// Random failures to try, separated by `;`, `none` for none, e.g.
    /// `none;mtbf=200,mttr=1;mtbf=50,mttr=1` (writes jct_vs_failure_rate.svg).
    #[arg(long, value_name = "LIST")]
    failures: Option<String>,
    /// Seconds between checkpoints, for every run (see `run --help`).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    checkpoint_interval: Option<f64>,
    /// Stop each run with an error once simulated time passes SECONDS (see `run --help`);
    /// needed with --failures.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = limit_secs)]
    max_sim_time: Option<f64>,
    /// Output folder: runs/LABEL/ per run, results.csv and results.json.
    #[arg(long, value_name = "DIR", required = true)]
    out: Option<PathBuf>,
    /// Run only the runs whose index is K mod N (K from 0), e.g. `--shard 0/4`.
    #[arg(long, value_name = "K/N")]
    shard: Option<blox_scenario::sweep::Shard>,
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = threads)]
    threads: Option<usize>,
    #[command(flatten)]
    slurm: crate::sweep_slurm::SlurmArgs,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Job count, arrival span, GPU-count histogram, duration percentiles and offered load.
    Stats(TraceStatsArgs),
}

#[derive(Args)]
struct TraceStatsArgs {
    /// Trace files (merged by arrival).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Their format: canonical, philly, itp, pollux, gavel, tiresias, alibaba2023, helios.
    #[arg(long, value_name = "FORMAT", default_value = "canonical")]
    trace_format: String,
    /// Count and skip malformed lines.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Also give the offered load as a fraction of this cluster's GPUs.
    #[arg(long, value_name = "NODESxGPUS")]
    cluster: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct MergeArgs {
    /// The sweep's output folder.
    #[arg(value_name = "DIR")]
    out: PathBuf,
}

#[derive(Args)]
struct BenchArgs {
    /// How many times to run the README configuration.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = repeat)]
    repeat: u32,
    /// Only the README configuration (skip the sweep, trace and scale figures).
    #[arg(long)]
    quick: bool,
    /// Only the Gavel figure: the 80 seed-0 runs of Gavel's physical-cluster traces in
    /// `--semantics gavel` (needs the traces folder).
    #[arg(long)]
    gavel: bool,
    /// Folder of the traces, for the ITP and Gavel figures [default: $BLOX_TRACES, else traces].
    #[arg(long, value_name = "DIR")]
    traces: Option<PathBuf>,
}

/// Run the `blox-sim` command line with the arguments of this process and the stock
/// components.
pub fn main() -> ExitCode {
    main_with(Registry::default())
}

/// Run the `blox-sim` command line with the arguments of this process; names that are not
/// stock components are built through `registry` (in `run`, `compare`, `sweep` and scenario
/// files alike).
///
/// A whole `blox-sim` with one more policy:
///
/// ```no_run
/// use blox_cli::Registry;
/// use blox_policies::Srtf;
///
/// fn main() -> std::process::ExitCode {
///     blox_cli::main_with(
///         Registry::default().policy("my-srtf", |_spec, _env| Ok(Box::new(Srtf::default()))),
///     )
/// }
/// ```
pub fn main_with(registry: Registry) -> ExitCode {
    if let Err(e) = registry.check() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let cli = parse_with_registered_names(&registry);
    let reg = &registry;
    let result = match cli.command {
        None => compare(
            CompareArgs {
                settings: RunSettings::default(),
                policy: "fifo,las,srtf".into(),
                placements: None,
                class_splits: None,
                out: None,
            },
            reg,
        ),
        Some(Command::Run(a)) => run(a, reg),
        Some(Command::Compare(a)) => compare(a, reg),
        Some(Command::Sweep(a)) => match a.action.clone() {
            Some(act) => crate::sweep_slurm::action(act, reg),
            None => sweep(a, reg),
        },
        Some(Command::Merge(a)) => merge(&a.out),
        Some(Command::Trace(TraceCommand::Stats(a))) => trace_stats(a),
        Some(Command::Bench(a)) if a.gavel => {
            blox_scenario::gavel::bench(&crate::bench::traces_dir(a.traces))
        }
        Some(Command::Bench(a)) => crate::bench::bench(a.repeat, a.quick, a.traces),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            // 2: the input is wrong (flags, files named that do not exist, scenario files,
            // traces); 1: a run that could not finish (stalled, an invalid decision, an output
            // that cannot be written). `--help` says so.
            match e {
                SimError::Io { ref source, .. }
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    ExitCode::from(2)
                }
                SimError::Io { .. } | SimError::Stalled(_) | SimError::InvalidDecision { .. } => {
                    ExitCode::from(1)
                }
                _ => ExitCode::from(2),
            }
        }
    }
}

/// Parse the command line, with `--help` of `run`, `compare` and `sweep` listing the names
/// `registry` adds to the stock ones.
fn parse_with_registered_names(registry: &Registry) -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let lists = [
        ("policy", registry.policy_names()),
        ("placement", registry.placement_names()),
        ("placements", registry.placement_names()),
        ("admission", registry.admission_names()),
    ];
    let mut cmd = Cli::command();
    for sub in ["run", "compare", "sweep"] {
        for (arg, names) in &lists {
            if names.is_empty() {
                continue;
            }
            let extra = format!(" Registered by this program: {}.", names.join(", "));
            cmd = cmd.mut_subcommand(sub, |c| {
                if c.get_arguments().any(|a| a.get_id() == *arg) {
                    c.mut_arg(*arg, |a| {
                        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                        a.help(format!("{help}{extra}"))
                    })
                } else {
                    c
                }
            });
        }
    }
    let matches = cmd.get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The progress display `--progress` asks for.
fn progress_mode(when: &str) -> blox_scenario::progress::ProgressMode {
    use blox_scenario::progress::ProgressMode;
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    match (when, terminal) {
        ("never", _) | ("auto", false) => ProgressMode::Off,
        (_, true) => ProgressMode::Terminal,
        (_, false) => ProgressMode::Lines,
    }
}

/// `run`, under any semantics: one prepared run, its row, its lines and its files.
fn run(a: RunArgs, reg: &Registry) -> Result<(), SimError> {
    let mut settings = a.settings;
    settings.policy = a.policy;
    settings.out = a.out;
    let prepared = settings.prepare(reg)?;
    let observe = Observe::new(progress_mode(&a.progress), true);
    let started = Instant::now();
    let f = prepared
        .run(reg, observe)
        .map_err(|e| explain_stall(e, &prepared))?;
    let elapsed = started.elapsed();
    print!("{}", blox_metrics::comparison_table(&[f.row()]));
    if !f.details.is_empty() {
        print!("\n{}", f.details);
    }
    println!("\n{} | {:.3} s wall", f.footer, elapsed.as_secs_f64());
    for line in &f.more {
        println!("{line}");
    }
    if let Some(w) = f.wrote() {
        println!("{w}");
    }
    Ok(())
}

/// `compare`, under any semantics: every policy (× placement × class split) prepared first, so
/// a bad name fails before any run writes; then all in parallel, one table.
fn compare(a: CompareArgs, reg: &Registry) -> Result<(), SimError> {
    let model = a.settings.model()?;
    let policies = split_specs(&a.policy);
    let placements: Vec<Option<String>> = match &a.placements {
        Some(list) => split_specs(list).into_iter().map(Some).collect(),
        None => vec![None],
    };
    let splits: Vec<Option<String>> = match &a.class_splits {
        None => vec![None],
        Some(list) => {
            if model.engine().is_none() {
                return Err(SimError::Config(format!(
                    "--class-splits goes with --workload synergy-default, not --semantics {}",
                    model.name()
                )));
            }
            let base = a.settings.engine_scenario()?;
            let WorkloadConfig::SynergyDefault { .. } = base.workload else {
                return Err(SimError::Config(
                    "--class-splits goes with --workload synergy-default".into(),
                ));
            };
            list.split('/')
                .map(|x| {
                    x.trim()
                        .parse::<blox_synergy::ClassSplit>()
                        .map(|c| Some(c.label()))
                        .map_err(|e| SimError::Config(format!("--class-splits: {e}")))
                })
                .collect::<Result<_, _>>()?
        }
    };
    let several_placements = placements.len() > 1;
    let mut runs: Vec<(String, Prepared)> = Vec::new();
    let mut root: Option<PathBuf> = a.out.clone();
    for split in &splits {
        for placement in &placements {
            for p in &policies {
                let mut st = a.settings.clone();
                st.policy = Some(p.clone());
                if let Some(pl) = placement {
                    st.placement = Some(
                        pl.parse()
                            .map_err(|e| SimError::Config(format!("--placements: {e}")))?,
                    );
                }
                if let Some(split) = split {
                    st.class_split = Some(split.clone());
                }
                let mut prepared = st.prepare(reg)?;
                if root.is_none() {
                    root = prepared.out().map(PathBuf::from);
                }
                let name = match (&prepared, placement) {
                    (Prepared::Engine(s), _) if s.semantics == Semantics::Synergy => s.run_name(),
                    (_, Some(pl)) if several_placements => format!("{p}+{pl}"),
                    _ => p.clone(),
                };
                prepared.set_out(root.as_ref().map(|d| d.join(dir_name(&name))));
                runs.push((name, prepared));
            }
        }
    }
    if let Some(dir) = &root {
        check_out(dir)?;
    }
    let started = Instant::now();
    let results: Vec<Result<Finished, SimError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .enumerate()
            .map(|(i, (_, p))| {
                // One overload warning for the comparison (every policy sees the same jobs).
                let observe = Observe::new(blox_scenario::progress::ProgressMode::Off, i == 0);
                scope.spawn(move || p.run(reg, observe))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a simulation thread panicked"))
            .collect()
    });
    let mut finished = Vec::new();
    for (r, (_, p)) in results.into_iter().zip(&runs) {
        finished.push(r.map_err(|e| explain_stall(e, p))?);
    }
    let rows: Vec<blox_metrics::ComparisonRow> = finished
        .iter()
        .zip(&runs)
        .map(|(f, (name, _))| {
            let mut row = f.row();
            if several_placements && f.model == Model::Tiresias {
                row.label = name.clone();
            }
            row
        })
        .collect();
    print!("{}", blox_metrics::comparison_table(&rows));
    println!(
        "\n{} | {:.2} s wall",
        shared_context(&finished),
        started.elapsed().as_secs_f64()
    );
    for note in finished.iter().filter_map(|f| f.note.as_ref()) {
        println!("{note}");
    }
    if let Some(dir) = &root {
        let series: Vec<(&str, &[f64])> = rows
            .iter()
            .zip(&finished)
            .map(|(row, f)| (row.label.as_str(), f.metrics.jcts_s.as_slice()))
            .collect();
        write_comparison(dir, &series, &rows)?;
    }
    Ok(())
}

/// The footer of a comparison: the parts of the runs' contexts every run shares (what differs,
/// such as the placement or the class split, is in each row's label).
fn shared_context(finished: &[Finished]) -> String {
    let parts: Vec<Vec<&str>> = finished
        .iter()
        .map(|f| f.context.split(" | ").collect())
        .collect();
    let Some(first) = parts.first() else {
        return String::new();
    };
    let shared: Vec<&str> = first
        .iter()
        .copied()
        .filter(|p| parts.iter().all(|other| other.contains(p)))
        .collect();
    let mut text = shared.join(" | ");
    if shared.len() < first.len() {
        text.push_str(" | the rest as each row says");
    }
    text
}

/// A stall in `blox` semantics with Blox's scattered placement is Blox's own behaviour: say so,
/// and how to run the workload anyway.
fn explain_stall(e: SimError, p: &Prepared) -> SimError {
    let blox_scattered = p.scenario().is_some_and(|s| {
        s.semantics == Semantics::Blox
            && matches!(s.placement.stock(), Some(PlacementConfig::Scattered))
    });
    match e {
        SimError::Stalled(m) if blox_scattered && m.contains("placement can never start") => {
            SimError::Stalled(format!(
            "{m}\n  note: Blox itself stalls here. Its scattered fit takes up to the job's GPU count \
             from each node in turn and succeeds only when the total is exactly the count, so a \
             job such as 12 GPUs on idle 8-GPU nodes (8, then 16) is never placed; and its strict \
             order lets that job block every job behind it. `--semantics exact` (true fits) or \
             `--placement first-fit` runs this workload"
            ))
        }
        other => other,
    }
}

/// Split a comma list of component specs, keeping `key=value` parameters with their component:
/// `tiresias:queues=2,threshold=3600,las` gives `tiresias:queues=2,threshold=3600` and `las`.
fn split_specs(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in s.split(',') {
        match out.last_mut() {
            Some(prev) if part.contains('=') && !part.contains(':') => {
                prev.push(',');
                prev.push_str(part);
            }
            _ => out.push(part.trim().to_string()),
        }
    }
    out
}

fn parse_list<T: std::str::FromStr>(s: &Option<String>, what: &str) -> Result<Vec<T>, SimError>
where
    T::Err: std::fmt::Display,
{
    s.as_deref().map_or(Ok(Vec::new()), |s| {
        split_specs(s)
            .iter()
            .map(|x| {
                x.parse::<T>()
                    .map_err(|e| SimError::Config(format!("--{what}: {e}")))
            })
            .collect()
    })
}

/// The most values one `A..B` range of a sweep may expand to.
const MAX_RANGE_VALUES: u64 = 10_000;

/// `1..9,12,0.5` → 1, 2, …, 9, 12, 0.5.
fn parse_numbers(s: &Option<String>, what: &str) -> Result<Vec<f64>, SimError> {
    let Some(s) = s else { return Ok(Vec::new()) };
    let bad = |x: &str| {
        SimError::Config(format!(
            "--{what}: `{x}` is not a number or an integer range A..B"
        ))
    };
    let mut out = Vec::new();
    for item in s.split(',') {
        let item = item.trim();
        if let Some((a, b)) = item.split_once("..") {
            let a: i64 = a.trim().parse().map_err(|_| bad(item))?;
            let b: i64 = b.trim().parse().map_err(|_| bad(item))?;
            if a > b {
                return Err(SimError::Config(format!(
                    "--{what}: the range `{item}` is reversed (its first value is after its last; \
                     write {b}..{a})"
                )));
            }
            let n = (b as i128 - a as i128 + 1) as u128;
            if n > MAX_RANGE_VALUES as u128 {
                return Err(SimError::Config(format!(
                    "--{what}: the range `{item}` holds {n} values, more than the {MAX_RANGE_VALUES} \
                     a sweep range may hold"
                )));
            }
            out.extend((a..=b).map(|x| x as f64));
        } else {
            let x: f64 = item.parse().map_err(|_| bad(item))?;
            if !x.is_finite() {
                return Err(bad(item));
            }
            out.push(x);
        }
    }
    Ok(out)
}

fn sweep(a: SweepArgs, reg: &Registry) -> Result<(), SimError> {
    use blox_scenario::sweep::{run_one_with, Sweep};
    use rayon::prelude::*;
    let Some(out) = a.out.clone() else {
        return Err(SimError::Config("sweep: --out DIR is required".into()));
    };
    let base_args = RunSettings {
        scenario: a.scenario.clone(),
        workload: a.workload.clone(),
        jobs: a.jobs,
        multi_gpu: a.multi_gpu,
        priorities: a.priorities,
        steady_state: a.steady_state,
        fixed_duration: a.fixed_duration,
        trace: a.trace.clone(),
        trace_format: a.trace_format.clone(),
        skip_bad_lines: a.skip_bad_lines,
        topology: a.topology.clone(),
        throughput: a.throughput,
        throughputs: a.throughputs.clone(),
        blox_trace_jobs: a.blox_trace_jobs,
        round: a.round,
        track: a.track.clone(),
        preemption_cost: a.preemption_cost,
        starvation: a.starvation,
        node_events: a.node_events.clone(),
        checkpoint_interval: a.checkpoint_interval,
        max_sim_time: a.max_sim_time,
        ..RunSettings::default()
    };
    // The engine's runs start from a scenario; a sweep of peers only needs none.
    let engine = a.semantics.is_empty() || a.semantics.iter().any(|m| m.engine().is_some());
    let base = if engine {
        base_args.engine_scenario()?
    } else {
        Scenario::default()
    };
    let seeds = parse_numbers(&a.seed, "seed")?;
    if seeds.iter().any(|s| *s < 0.0 || s.fract() != 0.0) {
        return Err(SimError::Config("--seed takes whole numbers".into()));
    }
    let rates: Vec<f64> = match &a.rate {
        Some(text) => blox_gavel::generated::parse_rates(text)
            .map_err(|e| SimError::Config(format!("--rate {e}")))?
            .into_iter()
            .map(|(rate, _)| rate)
            .collect(),
        None => Vec::new(),
    };
    let sweep = Sweep {
        base,
        settings: base_args,
        rates,
        semantics: a.semantics.clone(),
        clusters: a.cluster.clone(),
        admissions: parse_list(&a.admission, "admission")?,
        policies: parse_list(&a.policy, "policy")?,
        placements: parse_list(&a.placement, "placement")?,
        loads: parse_numbers(&a.load, "load")?,
        seeds: seeds.iter().map(|&s| s as u64).collect(),
        failures: a
            .failures
            .as_deref()
            .map(|l| {
                l.split(';')
                    .map(str::trim)
                    .map(|f| (f != "none").then(|| f.to_owned()))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let all = sweep.runs()?;
    for r in &all {
        let Some(scenario) = &r.scenario else {
            if let Some(st) = &r.settings {
                st.prepare(reg)
                    .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)))?;
            }
            continue;
        };
        scenario.check().map_err(|bad| {
            let flag = match bad.key {
                "workload.load" => "--load",
                "cluster" => "--cluster",
                "failures" => "--failures",
                _ => "",
            };
            if flag.is_empty() {
                SimError::Config(format!("run {} ({}): {bad}", r.index, r.label))
            } else {
                SimError::Config(format!("{flag}: {}", bad.message))
            }
        })?;
        scenario.cluster_spec()?;
        scenario.sim_config()?;
        scenario.failure_spec()?;
        check_names(scenario, reg)
            .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)))?;
    }
    check_out(&out)?;
    if a.slurm.slurm {
        return crate::sweep_slurm::submit(&all, &out, &a.slurm);
    }
    let mine: Vec<_> = all
        .iter()
        .filter(|r| a.shard.map_or(true, |s| s.contains(r.index)))
        .collect();
    std::fs::create_dir_all(&out).map_err(|e| SimError::io(&out, e))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| SimError::Config(format!("--threads: {e}")))?;
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = indicatif::ProgressBar::new(mine.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs, {elapsed} elapsed, ETA {eta} {msg}",
            )
            .expect("a valid template"),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let started = Instant::now();
    let results: Vec<Result<bool, SimError>> = pool.install(|| {
        mine.par_iter()
            .map(|r| {
                let res = run_one_with(r, &out, reg)
                    .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)));
                bar.inc(1);
                res
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut ran = 0;
    let mut skipped = 0;
    let mut failed = Vec::new();
    for r in results {
        match r {
            Ok(true) => ran += 1,
            Ok(false) => skipped += 1,
            Err(e) => failed.push(e),
        }
    }
    // When every run failed there is nothing to merge: the runs' error says why.
    let rows = match blox_scenario::sweep::merge(&out) {
        Ok(rows) => rows,
        Err(e) => return Err(failed.into_iter().next().unwrap_or(e)),
    };
    print_rows(&rows);
    if out.join("results_over_seeds.csv").is_file() {
        println!(
            "\nover seeds: each setting's seed count, mean, min and max average JCT in {}/results_over_seeds.csv",
            out.display()
        );
    }
    println!(
        "\n{} runs in this {}: {ran} ran, {skipped} already done, {} failed; {:.2} s wall on {} threads; results in {}/results.csv",
        mine.len(),
        a.shard.map_or_else(|| "sweep".to_string(), |s| format!("shard {}/{}", s.k, s.n)),
        failed.len(),
        started.elapsed().as_secs_f64(),
        pool.current_num_threads(),
        out.display()
    );
    if let Some(e) = failed.into_iter().next() {
        return Err(e);
    }
    Ok(())
}

fn trace_stats(a: TraceStatsArgs) -> Result<(), SimError> {
    let format: blox_workload::TraceFormat = a
        .trace_format
        .parse()
        .map_err(|e: blox_workload::UnknownFormat| SimError::Config(e.to_string()))?;
    let total = match &a.cluster {
        Some(c) => Some(
            c.parse::<blox_core::ClusterSpec>()
                .map_err(|e| SimError::Config(e.0))?
                .total_gpus(),
        ),
        None => None,
    };
    let inputs: Vec<_> = a.files.iter().map(|p| (p.clone(), format)).collect();
    let opts = blox_workload::ReadOptions::default().with_skip_bad_lines(a.skip_bad_lines);
    let read = blox_workload::read_traces(&inputs, &opts)?;
    blox_scenario::every_line_bad(&read)?;
    let stats = blox_workload::TraceStats::compute(&read.jobs, total);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&stats).expect("serialising to memory")
        );
    } else {
        print!("{stats}");
        if read.bad_line_count > 0 {
            println!("skipped malformed lines: {}", read.bad_line_count);
            for e in &read.bad_lines {
                println!("  {e}");
            }
        }
        for (why, n) in &read.filtered {
            println!("left out ({why}): {n}");
        }
    }
    Ok(())
}

fn merge(out: &std::path::Path) -> Result<(), SimError> {
    let rows = blox_scenario::sweep::merge(out)?;
    print_rows(&rows);
    println!(
        "\n{} runs merged into {}/results.csv and results.json",
        rows.len(),
        out.display()
    );
    Ok(())
}

fn print_rows(rows: &[blox_scenario::sweep::SweepRow]) {
    println!(
        "{:>5} {:<7} {:<16} {:<10} {:<10} {:>6} {:>5} {:>12} {:>12} {:>12}",
        "index",
        "sem.",
        "admission",
        "policy",
        "placement",
        "load",
        "seed",
        "avg JCT (h)",
        "p99 JCT (h)",
        "preemptions"
    );
    for r in rows {
        println!(
            "{:>5} {:<7} {:<16} {:<10} {:<10} {:>6} {:>5} {:>12.2} {:>12.2} {:>12}",
            r.index,
            r.semantics,
            r.admission,
            r.policy,
            r.placement,
            r.load.map_or_else(|| "-".into(), |l| l.to_string()),
            r.seed,
            r.avg_jct_s / 3600.0,
            r.p99_jct_s / 3600.0,
            r.preemptions_total
        );
    }
}

/// A folder name for a component spec: `tiresias:queues=2` becomes `tiresias-queues-2`.
/// A readable folder name for a run: letters, digits and `.` kept, every other run of
/// characters one `-`, none at either end (`FIFO/fair (20,70,10)` is `FIFO-fair-20-70-10`).
fn dir_name(spec: &str) -> String {
    let mut out = String::new();
    for c in spec.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("run");
    }
    out
}

fn write_comparison(
    dir: &std::path::Path,
    series: &[(&str, &[f64])],
    rows: &[blox_metrics::ComparisonRow],
) -> Result<(), SimError> {
    let io = |e: std::io::Error| SimError::io(dir, e);
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut csv = Vec::new();
    blox_metrics::write_comparison_csv(&mut csv, rows).map_err(io)?;
    let mut json = Vec::new();
    blox_metrics::write_comparison_json(&mut json, rows).map_err(io)?;
    let mut svg = Vec::new();
    blox_metrics::plot_jct_cdf(&mut svg, "JCT CDF of the tracked jobs", series)
        .map_err(|e| SimError::Config(format!("CDF plot: {e}")))?;
    blox_scenario::write_all_or_nothing(
        dir,
        &[
            ("compare.csv", csv),
            ("compare.json", json),
            ("jct_cdf.svg", svg),
        ],
    )?;
    println!(
        "wrote {}/{{compare.csv,compare.json,jct_cdf.svg}} and one folder per policy",
        dir.display()
    );
    Ok(())
}

/// For the fuzz targets (`blox-workload/fuzz`, target `cli_args`), not an API: parse
/// `blox-sim run ARGS` and check it as `run` does before any work (each flag's value, the
/// model's settings, the scenario built from them, the component names), without running or
/// writing anything. `Ok(None)` for the peers' runs, which are not engine scenarios.
#[doc(hidden)]
pub fn check_run_args(args: &[String]) -> Result<Option<Scenario>, String> {
    use clap::Parser;
    let argv = ["blox-sim".to_string(), "run".to_string()];
    let cli = Cli::try_parse_from(argv.into_iter().chain(args.iter().cloned()))
        .map_err(|e| e.to_string())?;
    let Some(Command::Run(a)) = cli.command else {
        return Err("not a run".into());
    };
    let mut settings = a.settings;
    settings.policy = a.policy;
    let prepared = settings
        .prepare(&Registry::default())
        .map_err(|e| e.to_string())?;
    Ok(prepared.scenario().cloned())
}
