//! # blox-synergy
//!
//! Synergy (Mohan et al., OSDI 2022; `msr-fiddle/synergy`, `simulator/`) as its own simulator
//! runs it, after SYNERGY-SEMANTICS.md, one peer in one crate:
//!
//! | piece | what | SYNERGY-SEMANTICS |
//! |---|---|---|
//! | [`Synergy`] | the time model: 300 s rounds ([`SYNERGY_ROUND`]), every job re-decided each round, whole iterations credited at allocation with the placement's host-resource speed-ups, completion at the round end | §2.2, §4, §9.1 |
//! | [`SynergyWorkload`] | Synergy's default generator, bit-exact from the seed: Poisson arrivals, Gavel-style durations, models of Synergy's zoo assigned to hold the class split | §3 |
//! | [`SYNERGY_ZOO`], [`synergy_demand`], [`OverallAssigner`] | Synergy's own 10-model zoo, a job's ideal CPU/memory demand and speed-up capped at one [`ServerSize`], its class-balancing model assignment for a [`ClassSplit`] | §3 |
//! | [`SynergyJct`] | the tracked jobs' mean, p99 and p99.9 JCT in hours, as Synergy prints them | §8 |
//!
//! Synergy's scheduling keys (`SynergyFifo`, `SynergySrtf`, `SynergyLas`, `SynergyFtf`) and its
//! placement mechanisms (`Synergy` with `fair`, `greedy`, `tune`) still live in `blox-policies`
//! and `blox-placement`, where the stock names `ftf` and `synergy` reach them; they move here
//! with the registry that lets a peer crate add names to the stock vocabulary.

mod report;
mod time;
mod workload;
mod zoo;

pub use report::SynergyJct;
pub use time::{Synergy, SYNERGY_ROUND};
pub use workload::{SynergyGenerator, SynergyJob, SynergyWorkload};
pub use zoo::{
    synergy_demand, synergy_model, ClassSplit, OverallAssigner, ServerSize, SynergyDemand,
    SynergyModel, SynergyTask, SYNERGY_ZOO,
};
