//! `blox-sim run` and `compare`: one prepared run, or a list of them, under any semantics.

use super::*;

#[derive(Args)]
pub(super) struct RunArgs {
    #[command(flatten)]
    pub(super) settings: RunSettings,
    /// Scheduling policy: fifo, las, srtf, sjf, tiresias, optimus, gavel (Gavel-style max-min,
    /// alias gavel-style), themis (greedy finish-time fairness, alias ftf-greedy); parameters as
    /// `name:key=value,...`, e.g. `tiresias:queues=2,threshold=3600`. In blox semantics
    /// tiresias and optimus are Blox's versions. With --semantics gavel: Gavel's own fifo,
    /// fifo_perf, max_min_fairness, max_min_fairness_perf, finish_time_fairness_perf,
    /// max_sum_throughput_perf, min_total_duration, min_total_duration_perf,
    /// finish_time_fairness, isolated, and the space-sharing fifo_packed,
    /// max_min_fairness_packed, finish_time_fairness_packed, min_total_duration_packed
    /// (`-` or `_`), or any engine policy on Gavel's clock
    /// (`engine:fifo` is the engine's FIFO)
    /// [default: fifo]. With --semantics tiresias: Tiresias' fifo, sjf, shortest,
    /// shortest-gpu, dlas, dlas-gpu, dlas-gpu-gittins, or any engine policy (Tiresias' name
    /// wins; `engine:fifo`, `engine:sjf` name the engine's).
    #[arg(long, value_name = "POLICY")]
    pub(super) policy: Option<String>,
    /// Write jobs.csv, summary.json, timeline.csv, fairness.csv, jct_cdf.csv and timeline.svg
    /// into this folder.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Progress on standard error (simulated time, tracked jobs done): auto (when it is a
    /// terminal), always, never [default: auto].
    #[arg(long, value_name = "WHEN", value_parser = ["auto", "always", "never"], default_value = "auto")]
    pub(super) progress: String,
}

#[derive(Args)]
pub(super) struct CompareArgs {
    #[command(flatten)]
    pub(super) settings: RunSettings,
    /// Policies to compare, comma-separated (parameters stay with their policy:
    /// `tiresias:queues=2,threshold=3600,las`).
    #[arg(long, value_name = "P1,P2,...", default_value = "fifo,las,srtf")]
    pub(super) policy: String,
    /// Placements to compare as well (each policy runs with each), comma-separated, e.g.
    /// `synergy:mode=fair,synergy:mode=tune` [default: --placement].
    #[arg(long, value_name = "PL1,PL2,...")]
    pub(super) placements: Option<String>,
    /// Class splits of synergy-default to compare as well, separated by `/`, e.g.
    /// `20,70,10/33,33,33/50,0,50` (Synergy's Figure 9) [default: --class-split].
    #[arg(long, value_name = "I,L,S/I,L,S/...")]
    pub(super) class_splits: Option<String>,
    /// Write compare.csv, compare.json and jct_cdf.svg into DIR, and each policy's outputs into
    /// DIR/POLICY/.
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
}

/// The progress display `--progress` asks for.
pub(super) fn progress_mode(when: &str) -> blox_scenario::progress::ProgressMode {
    use blox_scenario::progress::ProgressMode;
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    match (when, terminal) {
        ("never", _) | ("auto", false) => ProgressMode::Off,
        (_, true) => ProgressMode::Terminal,
        (_, false) => ProgressMode::Lines,
    }
}

/// `run`, under any semantics: one prepared run, its row, its lines and its files.
pub(super) fn run(a: RunArgs, reg: &Registry) -> Result<(), SimError> {
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
pub(super) fn compare(a: CompareArgs, reg: &Registry) -> Result<(), SimError> {
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
    let mut rows: Vec<blox_metrics::ComparisonRow> = finished.iter().map(|f| f.row()).collect();
    // A label several rows share (a policy run with several placements, whose label names the
    // policy only) gives way to the run's name (`fifo+yarn`), so every row says what it is.
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    for (row, (name, _)) in rows.iter_mut().zip(&runs) {
        if labels.iter().filter(|l| **l == row.label).count() > 1 {
            row.label = name.clone();
        }
    }
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

pub(super) fn write_comparison(
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
