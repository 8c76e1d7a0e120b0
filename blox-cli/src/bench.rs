//! `blox-sim bench`: the headline speed figures (README configuration, Figure 6 sweep, the
//! full ITP trace, a million synthetic jobs).

use blox_policies::PolicyConfig;
use blox_scenario::{RunReport, Scenario, Semantics, WorkloadConfig, BLOX_TRACE_JOBS};
use blox_sim::SimError;
use std::path::PathBuf;
use std::time::Instant;

/// Run the benchmark figures and print them.
pub(crate) fn bench(repeat: u32, quick: bool, traces: Option<PathBuf>) -> Result<(), SimError> {
    let s = Scenario {
        semantics: Semantics::Blox,
        workload: WorkloadConfig::BloxDefault {
            load: 1.0,
            trace_jobs: BLOX_TRACE_JOBS,
        },
        policy: PolicyConfig::Las.into(),
        track: Some("3000..4000".into()),
        ..Scenario::default()
    };
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let r = s.run()?;
        times.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("at least one run");
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Blox README configuration: LAS, load 1, jobs 3000..4000, blox semantics, 32x4 GPUs");
    println!(
        "  rounds: {} ({} processed, the rest idle and skipped); avg JCT {:.3} s",
        r.outcome.rounds, r.outcome.rounds_processed, r.summary.avg_jct_s
    );
    println!(
        "  wall time over {} runs: median {:.4} s, min {:.4} s, max {:.4} s ({} cores available; one run uses one)",
        times.len(),
        median,
        times[0],
        times[times.len() - 1],
        cores
    );
    println!("  target: < 0.2 s; Blox itself needs about 150 s of CPU");
    if quick {
        return Ok(());
    }
    bench_fig6()?;
    bench_itp(traces)?;
    bench_scale()?;
    Ok(())
}

/// Blox's Figure 6 sweep: FIFO, LAS, Optimus x loads 1..9, jobs 3000..4000, blox semantics.
fn bench_fig6() -> Result<(), SimError> {
    use rayon::prelude::*;
    let mut runs = Vec::new();
    for policy in [PolicyConfig::Fifo, PolicyConfig::Las, PolicyConfig::Optimus] {
        for load in 1..=9 {
            runs.push(Scenario {
                semantics: Semantics::Blox,
                workload: WorkloadConfig::BloxDefault {
                    load: f64::from(load),
                    trace_jobs: BLOX_TRACE_JOBS,
                },
                policy: policy.clone().into(),
                track: Some("3000..4000".into()),
                ..Scenario::default()
            });
        }
    }
    let t = Instant::now();
    let results: Vec<Result<RunReport, SimError>> = runs.par_iter().map(Scenario::run).collect();
    let rounds: u64 = results
        .into_iter()
        .map(|r| r.map(|r| r.outcome.rounds))
        .sum::<Result<u64, _>>()?;
    println!("\nBlox's Figure 6 sweep: FIFO, LAS, Optimus x loads 1..9, jobs 3000..4000, blox semantics (27 runs)");
    println!(
        "  {:.2} s wall on {} threads for {} simulated rounds; target: < 10 s",
        t.elapsed().as_secs_f64(),
        rayon::current_num_threads(),
        rounds
    );
    Ok(())
}

/// The full ITP trace on 2,048 GPUs, exact semantics, consolidated placement.
/// The traces folder: `--traces`, else `$BLOX_TRACES`, else the repository's `traces` (relative
/// to the working directory: run from the repository root).
pub(crate) fn traces_dir(traces: Option<PathBuf>) -> PathBuf {
    traces
        .or_else(|| std::env::var_os("BLOX_TRACES").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("traces"))
}

fn bench_itp(traces: Option<PathBuf>) -> Result<(), SimError> {
    let explicit = traces.is_some() || std::env::var_os("BLOX_TRACES").is_some();
    let dir = traces_dir(traces).join("itp/raw");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .collect(),
        // A folder the user named must hold the trace.
        Err(e) if explicit => {
            return Err(SimError::Config(format!(
                "ITP trace: cannot read {}: {e}",
                dir.display()
            )))
        }
        Err(_) => {
            println!(
                "\nITP trace: skipped ({} not found; run from the repository root, or pass \
                 --traces DIR)",
                dir.display()
            );
            return Ok(());
        }
    };
    files.sort();
    println!("\nFull ITP trace ({} files) on 256x8 = 2,048 GPUs, exact semantics, consolidated placement", files.len());
    for policy in ["fifo", "las", "tiresias"] {
        let s = Scenario {
            workload: WorkloadConfig::Trace {
                paths: files.clone(),
                format: "itp".into(),
                skip_bad_lines: false,
            },
            cluster: "256x8".into(),
            policy: policy.parse()?,
            placement: "consolidated".parse()?,
            ..Scenario::default()
        };
        let t = Instant::now();
        let r = s.run()?;
        println!(
            "  {policy:<9} {:>7} jobs, {:>6} rounds: {:.3} s wall (reading the trace included); target: < 1 s",
            r.summary.n_tracked,
            r.outcome.rounds,
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Synthetic scale: 1,000,000 jobs on 16,384 GPUs, and the cost of doubling the job count.
fn bench_scale() -> Result<(), SimError> {
    let run = |jobs: u32| -> Result<(f64, RunReport), SimError> {
        let s = Scenario {
            workload: WorkloadConfig::BloxDefault {
                load: 800.0,
                trace_jobs: BLOX_TRACE_JOBS,
            },
            cluster: "4096x4".into(),
            track: Some(format!("0..{}", jobs - 1)),
            ..Scenario::default()
        };
        let t = Instant::now();
        let r = s.run()?;
        Ok((t.elapsed().as_secs_f64(), r))
    };
    println!(
        "\nScale: Blox's generator at 800 jobs/h on 4096x4 = 16,384 GPUs, FIFO, exact semantics"
    );
    let (t1, _) = run(250_000)?;
    let (t2, _) = run(500_000)?;
    println!(
        "  250,000 jobs: {t1:.2} s; 500,000 jobs: {t2:.2} s; ratio {:.2} (target: <= 2.2)",
        t2 / t1
    );
    // The engine alone (no per-job records kept), then the full path with records and statistics.
    let engine_only = || -> Result<(f64, Option<u64>), SimError> {
        reset_peak_rss();
        let base = current_rss_bytes();
        let cfg = blox_sim::SimConfig::new(blox_sim::Exact::new())
            .with_track(Some(blox_sim::TrackWindow::new(0, 999_999)?));
        let scheduler = blox_core::Pipeline::new(
            blox_admission::AcceptAll,
            blox_policies::Fifo::default(),
            blox_placement::Scattered::new(),
        );
        let mut sim = blox_sim::Simulator::new(
            cfg,
            blox_core::ClusterSpec::uniform(4096, 4),
            scheduler,
            blox_core::ConstantSpeed(1.0),
            (),
        );
        let t = Instant::now();
        sim.run(&mut blox_original::BloxDefaultWorkload::new(
            800.0,
            BLOX_TRACE_JOBS,
        )?)?;
        let secs = t.elapsed().as_secs_f64();
        Ok((
            secs,
            peak_rss_bytes().zip(base).map(|(p, b)| p.saturating_sub(b)),
        ))
    };
    let (t_engine, engine_bytes) = engine_only()?;
    reset_peak_rss();
    let base = current_rss_bytes();
    let (t3, r) = run(1_000_000)?;
    let full_bytes = peak_rss_bytes().zip(base).map(|(p, b)| p.saturating_sub(b));
    let per_job = |b: Option<u64>| {
        b.map_or_else(
            || "not measured".to_string(),
            |b| format!("{:.0} B/job", b as f64 / 1e6),
        )
    };
    println!(
        "  1,000,000 jobs, engine only: {t_engine:.2} s wall, peak memory {}; targets: < 30 s, < 300 B/job",
        per_job(engine_bytes)
    );
    println!(
        "  1,000,000 jobs with per-job records, statistics and plots data: {t3:.2} s, {} rounds, peak memory {}",
        r.outcome.rounds,
        per_job(full_bytes)
    );
    Ok(())
}

/// Reset the peak-RSS counter (Linux: `5` to /proc/self/clear_refs); ignored elsewhere.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Current resident memory (Linux), in bytes.
fn current_rss_bytes() -> Option<u64> {
    proc_status_kb("VmRSS:").map(|kb| kb * 1024)
}

fn proc_status_kb(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident memory of this process (Linux), in bytes.
fn peak_rss_bytes() -> Option<u64> {
    proc_status_kb("VmHWM:").map(|kb| kb * 1024)
}
