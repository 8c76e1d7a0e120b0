//! Tiresias' placement schemes and cluster spec, as its authors' simulator has them
//! (SymbioticLab/Tiresias @ 959f9b0; rules in TIRESIAS-SEMANTICS.md §§2.2, 7), for the
//! `tiresias` time model of `blox-sim` (`--semantics tiresias`).
//!
//! | piece | what |
//! |---|---|
//! | [`TiresiasClusterSpec`] | switches × nodes × GPUs, CPUs and memory per node: Tiresias' spec CSV or `NODESxGPUS` |
//! | [`PeerScheme`] | `yarn`, `count`, `random`, `balance` |
//! | [`RunSet`] | a [`PlacementPolicy`](blox_core::PlacementPolicy) that runs exactly the scheduled jobs (the 2D-LAS schedules through the engine) |
//! | [`PeerFifo`], [`PeerReplace`] | `fifo`'s head-of-line pass and the single-list schedules' re-placement from an emptied cluster, as placements for the engine |
//! | [`PeerCluster`] | the free GPUs, CPUs and (leaking) memory of every node, and the schemes' fits |
//!
//! These are not [`PlacementPolicy`](blox_core::PlacementPolicy) implementations: Tiresias
//! re-places every runnable job from an emptied cluster on each pass and keeps memory across
//! passes, which the exact engine's incremental placements do not model.

mod cluster;
mod passes;
mod run_set;
mod spec;

pub use cluster::{NodeTake, PeerCluster, PeerScheme, Placement};
pub use passes::{PeerFifo, PeerReplace};
pub use run_set::RunSet;
pub use spec::{
    ClusterSpecError, TiresiasClusterSpec, CLUSTER_SPEC_COLUMNS, DEFAULT_CPUS_PER_NODE,
    DEFAULT_MEM_PER_NODE,
};
