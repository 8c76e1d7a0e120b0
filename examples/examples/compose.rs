//! Compose a scheduler from parts and simulate it.
//!
//! LAS ordering, Blox's load-based admission at 1.2x the cluster's GPUs and Blox's scattered
//! placement, on 32 nodes of 4 GPUs, fed by Blox's default workload. The whole scheduler is one
//! generic type, `Pipeline<LoadBased, Las, Scattered>`, with no dynamic dispatch.
//!
//! Run with `cargo run -p blox-examples --example compose`.

use blox_admission::LoadBased;
use blox_core::{ClusterSpec, ConstantSpeed, JobId, Pipeline};
use blox_metrics::{JobLog, Summary, Timeline};
use blox_original::BloxDefaultWorkload;
use blox_placement::Scattered;
use blox_policies::Las;
use blox_sim::{RunOutcome, SimConfig, Simulator, TrackWindow};
use std::error::Error;

/// Jobs per hour: busy, but below the ~7.6 jobs/hour at which Blox's workload saturates 128 GPUs.
const LOAD: f64 = 6.0;
/// The jobs whose statistics we report; the run ends when they have all completed.
const TRACK: (u32, u32) = (1000, 2000);

fn simulate() -> Result<(RunOutcome, JobLog, Timeline), Box<dyn Error>> {
    let scheduler = Pipeline::new(LoadBased::new(1.2)?, Las::default(), Scattered::new());
    let cfg = SimConfig::new(blox_sim::Exact::new())
        .with_track(Some(TrackWindow::new(TRACK.0, TRACK.1)?));
    let mut sim = Simulator::new(
        cfg,
        ClusterSpec::uniform(32, 4),
        scheduler,
        ConstantSpeed(1.0),
        (JobLog::default(), Timeline::default()),
    );
    let outcome = sim.run(&mut BloxDefaultWorkload::new(LOAD, 12_000)?)?;
    let (log, timeline) = sim.into_sink();
    Ok((outcome, log, timeline))
}

fn main() -> Result<(), Box<dyn Error>> {
    let window = Some((JobId(TRACK.0), JobId(TRACK.1)));
    let (outcome, log, timeline) = simulate()?;
    let summary = Summary::compute(&log, window);

    println!("load-based:1.2 / las / scattered, load {LOAD} jobs/h, 32x4 GPUs, exact semantics");
    println!(
        "tracked jobs      {}..={} ({} completed)",
        TRACK.0, TRACK.1, summary.n_completed
    );
    println!("avg JCT           {:.0} s", summary.avg_jct_s);
    println!(
        "p50 / p95 JCT     {:.0} s / {:.0} s",
        summary.p50_jct_s, summary.p95_jct_s
    );
    println!("avg responsiveness {:.0} s", summary.avg_responsiveness_s);
    println!(
        "preemptions       {} (tracked jobs: {})",
        outcome.preemptions, summary.preemptions_tracked
    );
    println!(
        "rounds            {} ({} processed), ended at {} s",
        outcome.rounds, outcome.rounds_processed, outcome.end_time
    );

    // Every tracked job was admitted and completed.
    let n_window = u64::from(TRACK.1 - TRACK.0 + 1);
    assert_eq!(summary.n_tracked, n_window);
    assert_eq!(summary.n_completed, n_window);
    // No job finishes faster than its service demand at full speed.
    for id in TRACK.0..=TRACK.1 {
        let r = log.get(JobId(id)).expect("tracked jobs are admitted");
        let jct = r.jct().expect("tracked jobs complete").as_secs_f64();
        assert!(
            jct >= r.work_s,
            "job {id}: JCT {jct} s < duration {} s",
            r.work_s
        );
    }
    assert!(summary.p50_jct_s <= summary.p95_jct_s && summary.p95_jct_s <= summary.max_jct_s);
    // The timeline has one sample per round (skipped rounds kept as stretches, expanded by
    // `rounds`) and never shows more GPUs than exist.
    assert!(!timeline.is_empty());
    assert!(timeline.rounds().all(|s| s.free_gpus <= 128));
    // Determinism: the same inputs give the same run, job for job.
    let (outcome2, log2, _) = simulate()?;
    assert_eq!(outcome, outcome2);
    assert_eq!(summary, Summary::compute(&log2, window));
    assert_eq!(log.records(), log2.records());
    println!("ok: all tracked jobs completed, JCT >= duration, deterministic");
    Ok(())
}
