//! How much does admission control help LAS under overload? (Blox, EuroSys'24, Figure 12.)
//!
//! LAS with Blox's load-based admission at thresholds 1.0, 1.2, 1.4 and 1.5 (times the cluster's
//! GPUs), and with accept-all, at 8 jobs/hour (above the ~7.6 jobs/hour that saturate 32x4 GPUs)
//! in Blox's round semantics. One generic function runs every variant: each admission policy is a
//! different type, and each `Pipeline` is monomorphised.
//!
//! The runs are independent. Accept-all under overload is the slowest (its job table keeps
//! growing), so it runs on a thread of its own while the four thresholds run in turn on the main
//! thread; a simulator is `Send` when its parts are.
//!
//! Run with `cargo run -p blox-examples --example admission_study`.

use blox_admission::{AcceptAll, LoadBased};
use blox_core::{AdmissionPolicy, ClusterSpec, ConstantSpeed, JobId, Pipeline, Scheduler};
use blox_metrics::{JobLog, Summary};
use blox_original::BloxDefaultWorkload;
use blox_placement::Scattered;
use blox_policies::Las;
use blox_sim::{RunOutcome, SimConfig, Simulator, TrackWindow};
use std::error::Error;

/// Blox's Figure 12 load, jobs per hour.
const LOAD: f64 = 8.0;
/// A small tracked window keeps the study fast; Blox tracks 3000..4000.
const TRACK: (u32, u32) = (100, 300);

type Row = (String, RunOutcome, Summary);

/// One run of LAS behind `admission`.
fn run(admission: impl AdmissionPolicy) -> Result<Row, Box<dyn Error + Send + Sync>> {
    let scheduler = Pipeline::new(admission, Las::default(), Scattered::new());
    let name = scheduler.name();
    let cfg = SimConfig::new(blox_original::Blox::new())
        .with_track(Some(TrackWindow::new(TRACK.0, TRACK.1)?));
    let mut sim = Simulator::new(
        cfg,
        ClusterSpec::uniform(32, 4),
        scheduler,
        ConstantSpeed(1.0),
        JobLog::default(),
    );
    let outcome = sim.run(&mut BloxDefaultWorkload::new(LOAD, 12_000)?)?;
    let summary = Summary::compute(sim.sink(), Some((JobId(TRACK.0), JobId(TRACK.1))));
    Ok((name, outcome, summary))
}

fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let rows = std::thread::scope(|s| {
        let accept_all = s.spawn(|| run(AcceptAll));
        let mut rows = Vec::new();
        for factor in [1.0, 1.2, 1.4, 1.5] {
            rows.push(run(LoadBased::new(factor)?)?);
        }
        rows.push(accept_all.join().expect("the accept-all run panicked")?);
        Ok::<_, Box<dyn Error + Send + Sync>>(rows)
    })?;

    println!(
        "LAS, load {LOAD} jobs/h, 32x4 GPUs, blox semantics, jobs {}..={}",
        TRACK.0, TRACK.1
    );
    println!(
        "{:<34} {:>10} {:>10} {:>10} {:>9} {:>8}",
        "scheduler", "avg JCT s", "p95 JCT s", "avg resp s", "preempt.", "rounds"
    );
    for (name, outcome, s) in &rows {
        println!(
            "{name:<34} {:>10.0} {:>10.0} {:>10.0} {:>9} {:>8}",
            s.avg_jct_s, s.p95_jct_s, s.avg_responsiveness_s, outcome.preemptions, outcome.rounds
        );
    }

    let n_window = u64::from(TRACK.1 - TRACK.0 + 1);
    for (name, _, s) in &rows {
        assert_eq!(
            s.n_tracked, n_window,
            "{name}: every tracked job is admitted"
        );
        assert_eq!(
            s.n_completed, n_window,
            "{name}: every tracked job completes"
        );
        assert!(s.avg_jct_s > 0.0);
    }
    // The threshold matters, in Figure 12's direction: the more LAS may admit, the more it
    // preempts and the longer the tracked jobs take (JCT counts the time held by admission).
    for pair in rows.windows(2) {
        let ((a, ra, sa), (b, rb, sb)) = (&pair[0], &pair[1]);
        assert!(
            sa.avg_jct_s < sb.avg_jct_s,
            "{a} should beat {b} on average JCT"
        );
        assert!(
            ra.preemptions < rb.preemptions,
            "{a} should preempt less than {b}"
        );
    }
    println!("ok: all tracked jobs completed; average JCT and preemptions grow with the threshold");
    Ok(())
}
