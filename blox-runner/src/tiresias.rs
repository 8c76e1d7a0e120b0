//! Tiresias' runs through the engine on Tiresias' model (`blox_tiresias::run`), instantiated over
//! the components and sink the scenario side passes.

use blox_core::{BoxPlacement, BoxScheduling};
use blox_metrics::{JobLog, Timeline};
use blox_sim::{RunOutcome, SimError};
use blox_tiresias::{
    run_on_tiresias_model, run_tiresias_engine, PeerInput, SchemePass, TiresiasClusterSpec,
    TiresiasConfig, TiresiasTime,
};

/// The sink of a Tiresias run: per-job records and the timeline.
pub type TiresiasSink = (JobLog, Timeline);

/// What a Tiresias run gives: its outcome, the model (its per-job counters and rows) and the
/// sink.
pub type TiresiasResult = Result<(RunOutcome, TiresiasTime, TiresiasSink), SimError>;

/// [`run_tiresias_engine`]: Tiresias' own schedule and placement scheme.
pub fn run_peer(cfg: &TiresiasConfig, jobs: &[PeerInput], sink: TiresiasSink) -> TiresiasResult {
    run_tiresias_engine(cfg, jobs, sink)
}

/// [`run_on_tiresias_model`]: an engine policy with one of Tiresias' placement schemes.
pub fn run_engine_policy_on_scheme(
    model: TiresiasTime,
    spec: TiresiasClusterSpec,
    jobs: &[PeerInput],
    policy: BoxScheduling,
    placement: SchemePass,
    sink: TiresiasSink,
) -> TiresiasResult {
    run_on_tiresias_model(model, spec, jobs, policy, placement, sink)
}

/// [`run_on_tiresias_model`]: an engine policy with an engine placement.
pub fn run_engine_policy(
    model: TiresiasTime,
    spec: TiresiasClusterSpec,
    jobs: &[PeerInput],
    policy: BoxScheduling,
    placement: BoxPlacement,
    sink: TiresiasSink,
) -> TiresiasResult {
    run_on_tiresias_model(model, spec, jobs, policy, placement, sink)
}
