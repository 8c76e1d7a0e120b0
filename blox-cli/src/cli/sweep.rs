//! `blox-sim sweep` and `merge`: the cross product of settings, resumable, shardable, on this
//! machine or (`--slurm`, `sweep_slurm`) on a cluster.

use super::*;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct SweepArgs {
    /// `sweep status DIR`: the runs of a sweep submitted with --slurm.
    #[command(subcommand)]
    pub(super) action: Option<crate::sweep_slurm::SweepAction>,
    /// The flags of `run` this struct does not declare, for every run ([`with_run_flags`]).
    #[arg(skip)]
    pub(super) every_run: Option<Box<RunSettings>>,
    /// Scenario file (TOML or JSON) every run starts from.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Semantics to try, e.g. `blox,exact`: `blox`, `exact`, `synergy`, or a peer's
    /// `tiresias`, `gavel`, `pollux`, `sia` (a peer's runs cross --cluster, --policy,
    /// --placement, --rate and --seed; it refuses the other lists).
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
    /// Round length in seconds [default: 300; each peer semantics' own under it, as `run
    /// --help` lists].
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

/// The most values one `A..B` range of a sweep may expand to.
const MAX_RANGE_VALUES: u64 = 10_000;

/// `1..9,12,0.5` → 1, 2, …, 9, 12, 0.5.
pub(super) fn parse_numbers(s: &Option<String>, what: &str) -> Result<Vec<f64>, SimError> {
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

/// The heading under which `sweep --help` lists the flags of `run` it takes for every run.
const EVERY_RUN: &str = "Every run (the other flags of `run`, one value for all runs)";

/// `sweep` with every flag of `run` (a field of [`RunSettings`]) that it does not declare
/// itself, for every run: a flag added to `run` is a sweep flag too, with no second list.
pub(super) fn with_run_flags(sweep: clap::Command) -> clap::Command {
    let run = RunSettings::augment_args(clap::Command::new("run"));
    let mut sweep = sweep;
    for arg in run.get_arguments() {
        let taken = sweep.get_arguments().any(|a| {
            a.get_id() == arg.get_id() || (a.get_long().is_some() && a.get_long() == arg.get_long())
        });
        if !taken {
            sweep = sweep.arg(arg.clone().help_heading(EVERY_RUN));
        }
    }
    sweep
}

/// The settings given by the flags [`with_run_flags`] added, read as `run` reads them.
pub(super) fn every_run(m: &clap::ArgMatches) -> Result<Option<Box<RunSettings>>, clap::Error> {
    use clap::parser::ValueSource;
    let own = SweepArgs::augment_args(clap::Command::new("sweep"));
    let run = RunSettings::augment_args(clap::Command::new("run").no_binary_name(true));
    let mut tokens: Vec<std::ffi::OsString> = Vec::new();
    for arg in run.get_arguments() {
        let id = arg.get_id().as_str();
        let declared = own.get_arguments().any(|a| {
            a.get_id() == arg.get_id() || (a.get_long().is_some() && a.get_long() == arg.get_long())
        });
        if declared || m.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        let flag = std::ffi::OsString::from(format!("--{long}"));
        if arg.get_action().takes_values() {
            for v in m.get_raw(id).into_iter().flatten() {
                tokens.push(flag.clone());
                tokens.push(v.to_owned());
            }
        } else {
            tokens.push(flag);
        }
    }
    if tokens.is_empty() {
        return Ok(None);
    }
    let parsed = run.try_get_matches_from(tokens)?;
    <RunSettings as clap::FromArgMatches>::from_arg_matches(&parsed).map(|s| Some(Box::new(s)))
}

/// `base` with every setting `every` gives (a field that is not at its default) in its place.
fn overlay(base: RunSettings, every: Option<&RunSettings>) -> Result<RunSettings, SimError> {
    let Some(every) = every else {
        return Ok(base);
    };
    let json = |s: &RunSettings| {
        s.to_json()
            .map_err(|e| SimError::Config(format!("sweep settings: {e}")))
    };
    let (mut b, e, d) = (json(&base)?, json(every)?, json(&RunSettings::default())?);
    if let (Some(b), Some(e), Some(d)) = (b.as_object_mut(), e.as_object(), d.as_object()) {
        for (k, v) in e {
            if d.get(k) != Some(v) {
                b.insert(k.clone(), v.clone());
            }
        }
    }
    RunSettings::from_json(b).map_err(|e| SimError::Config(format!("sweep settings: {e}")))
}

pub(super) fn sweep(a: SweepArgs, reg: &Registry) -> Result<(), SimError> {
    use blox_scenario::sweep::{run_one_with, Sweep};
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
    let base_args = overlay(base_args, a.every_run.as_deref())?;
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
    let threads = match a.threads.unwrap_or(0) {
        0 => crate::par::all_cores(),
        n => n,
    };
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
    let results: Vec<Result<bool, SimError>> = crate::par::par_map(&mine, threads, |r| {
        let res = run_one_with(r, &out, reg)
            .map_err(|e| SimError::Config(format!("run {} ({}): {e}", r.index, r.label)));
        bar.inc(1);
        res
    })
    .map_err(|e| SimError::Config(format!("--threads: {e}")))?;
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
        threads,
        out.display()
    );
    if let Some(e) = failed.into_iter().next() {
        return Err(e);
    }
    Ok(())
}

pub(super) fn merge(out: &std::path::Path) -> Result<(), SimError> {
    let rows = blox_scenario::sweep::merge(out)?;
    print_rows(&rows);
    println!(
        "\n{} runs merged into {}/results.csv and results.json",
        rows.len(),
        out.display()
    );
    Ok(())
}

pub(super) fn print_rows(rows: &[blox_scenario::sweep::SweepRow]) {
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
