//! Sia's simulator (`blox_sia::SiaSim`) instantiated over each policy it runs.

use blox_core::BoxScheduling;
use blox_sia::{
    EnginePolicy, GavelBaseline, HeteroPolicy, PolluxUnaware, SiaCluster, SiaJob, SiaOutcome,
    SiaPolicy, SiaSim, SiaSummary, SimError,
};

/// The policy of a Sia run.
// One value a run, moved once into the simulator: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum SiaPolicies {
    /// Sia's own.
    Sia(SiaPolicy),
    /// Gavel's baseline as Sia's artifact runs it.
    Gavel(GavelBaseline),
    /// Pollux without heterogeneity awareness.
    Pollux(PolluxUnaware),
    /// An engine policy's order, one GPU type per job.
    Engine(EnginePolicy<BoxScheduling>),
}

/// One run of `jobs` under `policy` on `cluster`, a round every `interval` s, to completion or
/// `bound`: the metrics and each job's outcome.
pub fn run(
    cluster: &SiaCluster,
    jobs: Vec<SiaJob>,
    policy: SiaPolicies,
    interval: i64,
    bound: i64,
) -> Result<(SiaSummary, Vec<SiaOutcome>), SimError> {
    match policy {
        SiaPolicies::Sia(p) => simulate(cluster, jobs, p, interval, bound),
        SiaPolicies::Gavel(p) => simulate(cluster, jobs, p, interval, bound),
        SiaPolicies::Pollux(p) => simulate(cluster, jobs, p, interval, bound),
        SiaPolicies::Engine(p) => simulate(cluster, jobs, p, interval, bound),
    }
}

fn simulate<P: HeteroPolicy>(
    cluster: &SiaCluster,
    jobs: Vec<SiaJob>,
    policy: P,
    interval: i64,
    bound: i64,
) -> Result<(SiaSummary, Vec<SiaOutcome>), SimError> {
    let mut sim = SiaSim::new(cluster.clone(), jobs, policy, interval);
    sim.run(bound)?;
    Ok((sim.summary(), sim.outcomes()))
}
