//! `blox-sim bench`'s engine-only scale figure (not a stable API): the scenario's settings
//! here, the run itself in `blox-runner` with the engine's other instances (the engine's generic
//! code is compiled and optimised in the crate that instantiates it); and the thread clock the
//! Gavel and Pollux figures read.

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
    let ModelChoice::Exact(model) = s.sim_config()?.model else {
        return Err(SimError::Config(
            "the engine-only benchmark runs in exact semantics".into(),
        ));
    };
    let cfg = s.sim_config()?.with_model(model);
    blox_runner::engine_only(cfg, cluster, r#gen, s.throughput()?, jobs)
}

/// This thread's CPU time in seconds (user + system, `CLOCK_THREAD_CPUTIME_ID` on Unix,
/// `GetThreadTimes` on Windows); `None` where there is no such clock.
pub fn thread_cpu_s() -> Option<f64> {
    cpu_time::ThreadTime::try_now()
        .ok()
        .map(|t| t.as_duration().as_secs_f64())
}
