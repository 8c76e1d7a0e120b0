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
//! | [`SynergyFifo`], [`SynergySrtf`], [`SynergyLas`], [`SynergyFtf`] | Synergy's scheduling keys: arrival; remaining iterations × iteration time (÷ last speed-up unless GPU-proportional); attained service × GPUs over the pre-admitted set (re-sorted by GPUs under Tune); Themis-style finish-time fairness; one persistent, stably sorted list ([`SynergyOrder`], ties keep last round's order); O(n log n) per round | §4 |
//! | [`SynergyPlacement`] | Synergy's mechanisms exactly ([`SynergyMode`]: GPU-proportional, Greedy, Tune with fair-share fallback and peer adjustment); stops and re-places every job each round; CPUs, memory and speed-up per job in [`Decisions::host`](blox_core::Decisions::host); O(s·G) per round | §3 |
//! | [`SynergyPolicyConfig`], [`SynergyPlacementConfig`], [`semantics_policy`] | the names `ftf` and `synergy:mode=fair\|greedy\|tune` (added to the stock names by `blox-scenario`, so they work under every semantics), and which of Synergy's keys `fifo`, `srtf`, `las` and `ftf` build under `--semantics synergy` | §4 |
//! | [`SynergyJct`] | the tracked jobs' mean, p99 and p99.9 JCT in hours, as Synergy prints them | §8 |

mod config;
mod placement;
mod policies;
mod report;
mod time;
mod workload;
mod zoo;

pub use config::{semantics_policy, SynergyPlacementConfig, SynergyPolicyConfig};
pub use placement::{SynergyMode, SynergyPlacement};
pub use policies::{
    SynergyFifo, SynergyFtf, SynergyLas, SynergyOrder, SynergySrtf, SYNERGY_STARVATION_S,
};
pub use report::SynergyJct;
pub use time::{Synergy, SYNERGY_ROUND};
pub use workload::{SynergyGenerator, SynergyJob, SynergyWorkload};
pub use zoo::{
    synergy_demand, synergy_model, ClassSplit, OverallAssigner, ServerSize, SynergyDemand,
    SynergyModel, SynergyTask, SYNERGY_ZOO,
};
