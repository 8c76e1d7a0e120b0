//! Gavel's round loop (`blox_gavel::clock`) over an engine policy, instantiated over the boxed
//! policy the scenario side builds. (Gavel's own policies' runs are not generic: they are
//! compiled in `blox-gavel`.)

use blox_core::{BoxScheduling, ThroughputTable};
use blox_gavel::clock::{GavelError, GavelOutcome};
use blox_gavel::run_gavel_engine;
use blox_workload::GavelTraceJob;

/// [`run_gavel_engine`] over a boxed engine policy.
pub fn run_engine_policy(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    cluster: &[(String, u32)],
    policy: BoxScheduling,
    round_s: f64,
    seed: u64,
) -> Result<GavelOutcome, GavelError> {
    run_gavel_engine(jobs, table, cluster, policy, round_s, seed)
}
