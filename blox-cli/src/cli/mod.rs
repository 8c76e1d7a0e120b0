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

mod run;
mod sweep;
use run::{compare, run, CompareArgs, RunArgs};
use sweep::{merge, sweep, SweepArgs};

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
        passed --max-sim-time, a component made an invalid decision, an output could not be \
        written); 141 standard output was closed early (a reader such as `head` stopped)."
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
    /// How many times to run the README configuration; with `--gavel`, each run of the
    /// per-policy table (its best CPU time is kept).
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = repeat)]
    repeat: u32,
    /// Only the README configuration (skip the sweep, trace and scale figures).
    #[arg(long, conflicts_with = "gavel")]
    quick: bool,
    /// Only the Gavel figures: the 80 seed-0 runs of Gavel's physical-cluster traces in
    /// `--semantics gavel`, then every Gavel policy on each trace and two clusters against the
    /// CPU time Gavel's own simulator took (recorded, not measured) (needs the traces folder).
    #[arg(long)]
    gavel: bool,
    /// Only the Pollux figures: the Pollux policy on the artifact's workload 6 (seed 1, three
    /// runs, CPU time of each), then all 40 runs of workloads 1-8 x seeds 1-5 on every core
    /// (wall and CPU time); `--semantics pollux --cluster 16x4 --round 60 --policy pollux`
    /// (about 4 minutes on 2 cores; needs the traces folder).
    #[arg(long, conflicts_with_all = ["gavel", "quick", "repeat"])]
    pollux: bool,
    /// Folder of the traces, for the ITP, Gavel and Pollux figures [default: $BLOX_TRACES, else
    /// traces].
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
    quiet_on_closed_stdout();
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
            blox_scenario::gavel::bench(&crate::bench::traces_dir(a.traces), a.repeat)
        }
        Some(Command::Bench(a)) if a.pollux => crate::bench::bench_pollux(a.traces),
        Some(Command::Bench(a)) => crate::bench::bench(a.repeat, a.quick, a.traces),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            // 2: the input is wrong (flags, files named that do not exist, scenario files,
            // traces); 1: a run that could not finish (stalled, passed --max-sim-time, an
            // invalid decision, an output that cannot be written). `--help` says so.
            match e {
                SimError::Io { ref source, .. }
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    ExitCode::from(2)
                }
                SimError::Io { .. }
                | SimError::Stalled(_)
                | SimError::Unfinished(_)
                | SimError::InvalidDecision { .. } => ExitCode::from(1),
                _ => ExitCode::from(2),
            }
        }
    }
}

/// A reader that stops early (`blox-sim compare | head -3`) closes standard output; printing then
/// fails, and `println!` would panic. End quietly instead, with the status a shell gives a
/// program killed by SIGPIPE (128 + 13), as other command-line tools do; every other panic is
/// reported as usual.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.contains("failed printing to stdout") && text.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
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
    cmd = cmd.mut_subcommand("sweep", sweep::with_run_flags);
    let matches = cmd.get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let (Some(Command::Sweep(a)), Some(("sweep", m))) = (&mut cli.command, matches.subcommand())
    {
        a.every_run = sweep::every_run(m).unwrap_or_else(|e| e.exit());
    }
    cli
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

/// For the fuzz targets (`blox-workload/fuzz`, target `cli_args`), not an API: parse
/// `blox-sim run ARGS` and check it as `run` does before any work (each flag's value, the
/// model's settings, the scenario built from them, the component names), without running or
/// writing anything. `Ok(None)` for the peers' runs, which are not engine scenarios.
#[doc(hidden)]
pub fn check_run_args(args: &[String]) -> Result<Option<Scenario>, String> {
    let prepared = prepare_run(args).map_err(|e| e.to_string())?;
    Ok(prepared.scenario().cloned())
}

/// The run a `blox-sim run` command line (`args`, after `run`) prepares with the stock
/// components, without running it.
pub(crate) fn prepare_run(args: &[String]) -> Result<Prepared, SimError> {
    use clap::Parser;
    let argv = ["blox-sim".to_string(), "run".to_string()];
    let cli = Cli::try_parse_from(argv.into_iter().chain(args.iter().cloned()))
        .map_err(|e| SimError::Config(e.to_string()))?;
    let Some(Command::Run(a)) = cli.command else {
        return Err(SimError::Config("not a run".into()));
    };
    let mut settings = a.settings;
    settings.policy = a.policy;
    settings.prepare(&Registry::default())
}
