//! # blox-pollux
//!
//! Pollux (Qiao et al., OSDI 2021) for the Blox toolkit, following the authors' simulator
//! (`petuum/adaptdl`, `osdi21-artifact`, `simulator/`) as `POLLUX-SEMANTICS.md` describes it:
//!
//! - **Job model** ([`PolluxJob`], [`Application`]): step time per placement from the measured
//!   traces (rotation-normalised lookup, interpolation in per-GPU batch, the 3-D interpolation
//!   for five or more nodes), statistical efficiency from the gradient noise scale, progress in
//!   init-batch steps with epoch boundaries, completion after the last epoch, batch-size limits
//!   and re-tuning, a 30 s restart on every allocation change.
//! - **Agent** ([`goodput`]): the 7-parameter throughput model fitted online by scipy's
//!   L-BFGS-B (a port that follows scipy's iterates) as the artifact fits it, and the
//!   goodput-maximising batch size.
//! - **Policies** ([`RoundPolicy`]): the artifact's [`Tiresias`] and [`Optimus`] baselines and
//!   the Pollux genetic search ([`PolluxPolicy`]).
//! - **Reference loop** ([`PolluxSim`]): the artifact's interval loop, self-contained.
//! - **Engine components** ([`PolluxShared`], [`PolluxScheduling`], [`PolluxPlacement`]): the
//!   job model as the engine's `IntervalModel` (for `blox_sim::Pollux`, `--semantics pollux`)
//!   and the policies as a scheduling policy and a placement sharing it.
//!
//! Everything is deterministic: maps are ordered, ties go to the lowest job or node index, and
//! the genetic search draws from one named stream of the run's seed per round.

// The numeric kernels (fit, triangulation, genetic operators) index several arrays in step.
#![allow(clippy::needless_range_loop)]

mod baselines;
mod bound;
mod delaunay;
mod engine;
pub mod goodput;
mod interval;
mod job;
mod lbfgsb;
mod lbfgsb3;
mod lifted;
mod policy;
mod sim;
mod time;
mod trace;
mod workload;

use std::collections::BTreeMap;

pub use baselines::{Optimus, Tiresias, TIRESIAS_THRESHOLD};
pub use engine::{PolluxPlacement, PolluxScheduling, PolluxShared, SharedConfig};
pub use interval::IntervalModel;
pub use job::{ModelError, PolluxJob, RESTART_DELAY};
pub use policy::{PolluxPolicy, PolluxPolicyConfig};
pub use sim::{
    build_jobs, interference_of, placement_of, JobOutcome, JobSetup, PolluxSim, SimConfig,
};
pub use time::Pollux;
pub use trace::{overrides, Application, StepTime, TraceError, TypedLoad, APPLICATION_NAMES};
pub use workload::{parse_workload, read_workload, Applications, WorkloadJob};

/// Allocations: job index (workload order) → the node id of each replica.
pub type Allocations = BTreeMap<usize, Vec<u32>>;

/// What a policy sees at a round boundary.
#[derive(Debug)]
#[non_exhaustive]
pub struct RoundInput<'a> {
    /// The boundary's time, seconds.
    pub now: i64,
    /// Rounds decided before this one.
    pub round: u64,
    /// Active jobs (arrived, not complete) with their indices, in workload order.
    pub jobs: Vec<(usize, &'a PolluxJob)>,
    /// Current allocations of the active jobs.
    pub prev: &'a Allocations,
    /// Nodes in the cluster.
    pub nodes: u32,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// The run's seed.
    pub seed: blox_core::Seed,
}

/// A scheduling policy of the Pollux artifact: at each boundary, the new allocation of every
/// active job (absent = none).
pub trait RoundPolicy {
    /// The policy's name.
    fn name(&self) -> &str;
    /// Decide the allocations for the next interval.
    fn optimize(&mut self, input: &RoundInput<'_>) -> Result<Allocations, ModelError>;
}

impl<T: RoundPolicy + ?Sized> RoundPolicy for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn optimize(&mut self, input: &RoundInput<'_>) -> Result<Allocations, ModelError> {
        (**self).optimize(input)
    }
}
