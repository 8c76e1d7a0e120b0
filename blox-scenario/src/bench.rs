//! `blox-sim bench`'s engine-only scale figure (not a stable API). It lives here, not in
//! `blox-cli`, because the engine's generic code is compiled and optimised in the crate that
//! instantiates it: `blox-cli` is built at `-O1` (its own code is argument parsing and
//! orchestration), this crate at `-O3` with the engine's other instances.

use crate::{ModelChoice, Scenario, WorkloadConfig};
use blox_sim::{RunOutcome, SimError};

/// Run `s`, a Poisson scenario in exact semantics, through the engine alone: FIFO, accept-all
/// and scattered placement as concrete types, no metric sink, `jobs` jobs streamed from the
/// generator.
pub fn engine_only(s: &Scenario, jobs: usize) -> Result<RunOutcome, SimError> {
    let cluster = s.cluster_spec()?;
    let WorkloadConfig::Poisson {
        load,
        durations,
        gpus,
        ..
    } = &s.workload
    else {
        return Err(SimError::Config(
            "the engine-only benchmark runs a Poisson workload".into(),
        ));
    };
    let mut cfg = blox_workload::PoissonConfig::new(*load);
    cfg.duration = crate::parse_durations(durations)?;
    cfg.gpus = crate::parse_gpus(gpus, cluster.total_gpus())?;
    let r#gen = blox_workload::PoissonGenerator::new(cfg, blox_core::Seed(s.seed))?;
    let scheduler = blox_core::Pipeline::new(
        blox_admission::AcceptAll,
        blox_policies::Fifo::default(),
        blox_placement::Scattered::new(),
    );
    let ModelChoice::Exact(model) = s.sim_config()?.model else {
        return Err(SimError::Config(
            "the engine-only benchmark runs in exact semantics".into(),
        ));
    };
    let cfg = s.sim_config()?.with_model(model);
    let mut sim = blox_sim::Simulator::new(cfg, cluster, scheduler, s.throughput()?, ());
    sim.run(&mut blox_sim::JobStream::new(r#gen, jobs))
}
