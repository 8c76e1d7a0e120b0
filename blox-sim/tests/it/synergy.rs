//! Synergy's time model end to end: generator + Synergy policies + Synergy placement.

use blox_admission::AcceptAll;
use blox_core::{ClusterSpec, NodeSpec, Pipeline, SchedulingPolicy};
use blox_metrics::{JobLog, SynergyJct};
use blox_placement::{Synergy, SynergyMode};
use blox_policies::{SynergyFifo, SynergyFtf, SynergyLas, SynergySrtf};
use blox_sim::time::synergy::{SynergyConfig, SynergySim};
use blox_sim::workload::SynergyWorkload;
use blox_sim::TrackWindow;
use blox_workload::{ClassSplit, ServerSize};

/// Synergy's default cluster: 16 servers x 8 GPUs, 24 CPUs, 500 GB.
pub(crate) fn synergy_cluster() -> ClusterSpec {
    let mut n = NodeSpec::with_gpus(8);
    n.cpus = 24;
    n.mem_gb = 500.0;
    ClusterSpec { nodes: vec![n; 16] }
}

pub(crate) fn run_synergy(
    policy: Box<dyn SchedulingPolicy + Send>,
    mode: SynergyMode,
    load: f64,
    split: ClassSplit,
    track: (u32, u32),
) -> (SynergyJct, JobLog) {
    let scheduler = Pipeline::new(AcceptAll, policy, Synergy::new(mode));
    let cfg =
        SynergyConfig::default().with_track(Some(TrackWindow::new(track.0, track.1).unwrap()));
    let mut sim = SynergySim::new(cfg, synergy_cluster(), scheduler, JobLog::default());
    let mut w = SynergyWorkload::new(load, split, ServerSize::SYNERGY_DEFAULT, 42).unwrap();
    sim.run(&mut w).unwrap();
    let log = sim.into_sink();
    let jcts = log.jcts_s(Some((track.0.into(), track.1.into())));
    assert_eq!(jcts.len() as u32, track.1 - track.0 + 1);
    (SynergyJct::of(&jcts), log)
}

#[test]
fn fifo_tune_default_run() {
    let (s, _) = run_synergy(
        Box::new(SynergyFifo::default()),
        SynergyMode::Tune,
        9.0,
        ClassSplit::DEFAULT,
        (4000, 4999),
    );
    print!("FIFO+tune:\n{}", s.synergy_lines());
    let (f, _) = run_synergy(
        Box::new(SynergyFifo::default()),
        SynergyMode::Fair,
        9.0,
        ClassSplit::DEFAULT,
        (4000, 4999),
    );
    print!("FIFO+fair:\n{}", f.synergy_lines());
    let (g, _) = run_synergy(
        Box::new(SynergyFifo::default()),
        SynergyMode::Greedy,
        9.0,
        ClassSplit::DEFAULT,
        (4000, 4999),
    );
    print!("FIFO greedy:\n{}", g.synergy_lines());
    let _ = (
        SynergySrtf::new(false),
        SynergyLas::new(true),
        SynergyFtf::new(false),
    );
}
