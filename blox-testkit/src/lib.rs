//! # blox-testkit
//!
//! Property-test a scheduler component's invariants in a few lines: proptest strategies for
//! clusters, workloads and live states; checkers that any policy author can call; and a
//! [`RecordingSink`] that captures a run's events for them.
//!
//! | piece | what it gives |
//! |---|---|
//! | [`strategy::cluster_spec`], [`strategy::jobs`], [`strategy::snapshot`] | proptest strategies |
//! | [`check_schedule`], [`check_permutation`] | a schedule lists active jobs once (and all of them) |
//! | [`check_placement`] | decisions valid: no GPU twice, none busy or missing, rigid sizes kept |
//! | [`check_conservation`] | every arrival ends completed, rejected or queued; no GPU held twice |
//! | [`check_time_monotone`] | event times never go back |
//! | [`check_starvation_free`] | no job waits longer than a bound in a row |
//! | [`check_work_conserving`] | no round ends with a free GPU a waiting job could use |
//! | [`check_deterministic`] | two runs record the same events |
//! | [`run_recorded`] | run any scheduler on jobs and get its recording |
//!
//! ```
//! use blox_core::Pipeline;
//! use blox_admission::AcceptAll;
//! use blox_placement::Scattered;
//! use blox_policies::Las;
//! use blox_testkit::{check_conservation, check_placement, run_recorded, strategy};
//! use proptest::prelude::*;
//!
//! proptest!(ProptestConfig::with_cases(16), |(snap in strategy::snapshot(12))| {
//!     // A placement never double-books a GPU, whatever the state.
//!     let mut out = blox_core::Decisions::default();
//!     blox_core::PlacementPolicy::place(&mut Scattered::new(), &snap.ctx(), &snap.id_order(), &mut out);
//!     prop_assert!(check_placement(&snap.ctx(), &out).is_ok());
//! });
//!
//! let jobs = vec![blox_core::JobSpec::new(blox_core::Time::ZERO, 1, 600.0)];
//! let scheduler = Pipeline::new(AcceptAll, Las::default(), Scattered::new());
//! let (_, rec) = run_recorded(scheduler, 1, 4, blox_sim::Exact::new(), jobs).unwrap();
//! check_conservation(&rec, true).unwrap();
//! ```

mod check;
mod record;
pub mod strategy;

/// The engine's time model and the trait [`run_recorded`] takes, re-exported so a component crate's tests need no
/// direct dependency on the engine.
pub use blox_sim::{Exact, TimeModel};
pub use check::{
    check_conservation, check_deterministic, check_permutation, check_placement, check_schedule,
    check_starvation_free, check_time_monotone, check_work_conserving, Violation,
};
pub use record::{Recorded, RecordingSink};

use blox_core::{ClusterSpec, ConstantSpeed, JobSpec, Scheduler};
use blox_sim::{JobList, RunOutcome, SimConfig, SimError, Simulator};

/// Run `scheduler` on `jobs` over `nodes × gpus_per_node` GPUs until every job has finished, and
/// return the engine's outcome and the recorded events, under time model `model` (e.g.
/// `blox_sim::Exact::new()`).
pub fn run_recorded<S: Scheduler, Tm: TimeModel>(
    scheduler: S,
    nodes: u32,
    gpus_per_node: u32,
    model: Tm,
    jobs: Vec<JobSpec>,
) -> Result<(RunOutcome, RecordingSink), SimError> {
    let mut sim = Simulator::new(
        SimConfig::new(model),
        ClusterSpec::uniform(nodes, gpus_per_node),
        scheduler,
        ConstantSpeed(1.0),
        RecordingSink::default(),
    );
    let outcome = sim.run(&mut JobList::new(jobs))?;
    Ok((outcome, sim.into_sink()))
}
