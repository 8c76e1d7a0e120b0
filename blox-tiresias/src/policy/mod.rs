//! Tiresias' own schedulers, as its authors' simulator runs them (SymbioticLab/Tiresias @
//! 959f9b0, `simulator/`; rules in TIRESIAS-SEMANTICS.md), for the `tiresias` time model of
//! `blox-sim` (`--semantics tiresias`).
//!
//! These are not [`SchedulingPolicy`](blox_core::SchedulingPolicy) implementations: Tiresias
//! fuses its event loop, its queues and its placement calls, and reproducing its job-by-job
//! results needs its own integer-second state ([`PeerJob`]). The pieces are:
//!
//! | piece | what |
//! |---|---|
//! | [`PeerSchedule`], [`PeerPolicy`] | the seven schedules by Tiresias' names (`fifo`, `sjf` = fewest GPUs first, `shortest`, `shortest-gpu`, `dlas`, `dlas-gpu`, `dlas-gpu-gittins`) with `thresholds=`, `distribution=`, `delta=` |
//! | [`Mlfq`] | the 2D-LAS queues: demotion, the back-filling pass, running-first reordering, the mis-computed jump prediction |
//! | [`PeerDlasPolicy`] | the 2D-LAS schedules as a [`SchedulingPolicy`](blox_core::SchedulingPolicy) for the engine under the `tiresias` time model |
//! | [`PeerListOrder`] | the runnable-list order of `fifo`, `sjf`, `shortest`, `shortest-gpu` for the engine |
//! | [`GittinsTable`] | the Gittins index over a fixed job-size sample, with Python 2 arithmetic |
//!
//! The stock `blox_policies::Tiresias` policy is a different thing: a continuous
//! 2D-LAS for the round-based engine (`docs/peers.md`, "Tiresias, faithfully").

mod dlas_policy;
mod gittins;
mod job;
mod list_policy;
mod mlfq;
mod schedule;

pub use dlas_policy::PeerDlasPolicy;
pub use gittins::{
    py2_round, GittinsError, GittinsTable, TIRESIAS_GITTINS_DELTA, TIRESIAS_GITTINS_SAMPLE,
};
pub use job::{PeerJob, PeerStatus};
pub use list_policy::PeerListOrder;
pub use mlfq::Mlfq;
pub use schedule::{PeerPolicy, PeerSchedule, TIRESIAS_QUEUE_LIMITS};
