//! The same scheduler, composed statically and chosen at run time, gives the same run.
//!
//! `Pipeline<AcceptAll, BloxLas, BloxScattered>` (Blox's own LAS and Place) is monomorphised: no dynamic dispatch. The runtime form,
//! `Pipeline<BoxAdmission, BoxScheduling, BoxPlacement>` (alias `BoxPipeline`), is what the
//! configuration enums build from names such as `las` in a scenario file. Both drive the same
//! engine code, so their job-by-job output must be byte-identical; so must a `Scenario` that
//! names the same parts.
//!
//! Run with `cargo run -p blox-examples --example static_vs_boxed`.

use blox_admission::{AcceptAll, AdmissionConfig};
use blox_cli::{preset, Registry, Scenario, WorkloadConfig};
use blox_core::{BoxPipeline, ClusterSpec, ConstantSpeed, JobId, Pipeline, Scheduler};
use blox_metrics::{write_jobs_csv, JobLog, Summary};
use blox_original::{BloxDefaultWorkload, BloxLas, BloxScattered};
use blox_placement::PlacementConfig;
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_scenario::Semantics;
use blox_sim::{SimConfig, Simulator, TrackWindow};
use std::error::Error;

const LOAD: f64 = 7.0;
const TRACK: (u32, u32) = (100, 300);
const SEMANTICS: Semantics = Semantics::Blox;

/// Run any scheduler on the shared scenario; return its `jobs.csv` text and summary.
fn run(scheduler: impl Scheduler) -> Result<(String, Summary), Box<dyn Error>> {
    let cfg = SimConfig::new(blox_original::Blox::new())
        .with_track(Some(TrackWindow::new(TRACK.0, TRACK.1)?));
    let mut sim = Simulator::new(
        cfg,
        ClusterSpec::uniform(32, 4),
        scheduler,
        ConstantSpeed(1.0),
        // Record GPU types as the program's runs do, so the files compare byte for byte.
        JobLog::with_cluster(&blox_core::Cluster::new(ClusterSpec::uniform(32, 4))),
    );
    sim.run(&mut BloxDefaultWorkload::new(LOAD, 12_000)?)?;
    let window = Some((JobId(TRACK.0), JobId(TRACK.1)));
    let mut csv = Vec::new();
    write_jobs_csv(&mut csv, sim.sink(), window)?;
    Ok((
        String::from_utf8(csv)?,
        Summary::compute(sim.sink(), window),
    ))
}

fn main() -> Result<(), Box<dyn Error>> {
    // 1. Static: the type names every part.
    let fixed: Pipeline<AcceptAll, BloxLas, BloxScattered> =
        Pipeline::new(AcceptAll, BloxLas::default(), BloxScattered::new());
    let name = fixed.name();
    let (static_csv, static_summary) = run(fixed)?;

    // 2. Boxed: parts chosen at run time from names, as a configuration file would give them.
    let admission: AdmissionConfig = "accept-all".parse()?;
    let policy: PolicyConfig = "las".parse()?;
    let placement: PlacementConfig = "scattered".parse()?;
    // Names become components through the semantics' preset (Blox's own LAS and Place here).
    let env = PolicyEnv::new(Some(LOAD));
    let reg = Registry::default();
    let boxed: BoxPipeline = Pipeline::new(
        admission.build()?,
        preset::build_policy(SEMANTICS, &reg, &policy.clone().into(), &env)?,
        preset::build_placement(SEMANTICS, &reg, &placement.clone().into(), None)?,
    );
    let boxed_name = boxed.name();
    let (boxed_csv, boxed_summary) = run(boxed)?;

    // 3. A whole scenario as data, run by `Scenario::run` (the path the command line takes).
    let scenario = Scenario {
        semantics: SEMANTICS,
        workload: WorkloadConfig::BloxDefault {
            load: LOAD,
            trace_jobs: 12_000,
        },
        cluster: "32x4".into(),
        admission: admission.into(),
        policy: policy.into(),
        placement: placement.into(),
        track: Some(format!("{}..{}", TRACK.0, TRACK.1).into()),
        ..Scenario::default()
    };
    let report = scenario.run()?;
    let scenario_csv = String::from_utf8(report.jobs_csv())?;

    println!(
        "static  {name:<28} avg JCT {:.1} s",
        static_summary.avg_jct_s
    );
    println!(
        "boxed   {boxed_name:<28} avg JCT {:.1} s",
        boxed_summary.avg_jct_s
    );
    println!(
        "scenario `{}`: avg JCT {:.1} s",
        scenario.label(),
        report.summary.avg_jct_s
    );
    println!(
        "jobs.csv: {} rows, {} bytes; first tracked row:",
        static_csv.lines().count() - 1,
        static_csv.len()
    );
    println!(
        "  {}",
        static_csv.lines().nth(1 + TRACK.0 as usize).unwrap_or("")
    );

    assert_eq!(name, boxed_name);
    assert_eq!(
        static_csv, boxed_csv,
        "static and boxed dispatch must give identical runs"
    );
    assert_eq!(
        static_csv, scenario_csv,
        "a scenario naming the same parts must give the same run"
    );
    assert_eq!(static_summary, boxed_summary);
    assert_eq!(static_summary, report.summary);
    assert_eq!(static_summary.n_completed, u64::from(TRACK.1 - TRACK.0 + 1));
    println!("ok: static, boxed and scenario runs are byte-identical");
    Ok(())
}
