//! # blox-sia
//!
//! Sia (Jayaram Subramanya et al., SOSP 2023) for the Blox toolkit, following the authors'
//! simulator (`siasosp23/artifacts` @ `aaf7a0d`, `sia-simulator/`) as `SIA-SEMANTICS.md`
//! describes it. Sia's simulator is a fork of Pollux's, so this crate builds on
//! [`blox_pollux`]: its trace lookup, gradient-noise efficiency, 7-parameter throughput fit and
//! goodput optimiser are used through that crate's public API; what is Sia's own lives here:
//!
//! - [`SiaCluster`]: the heterogeneous cluster (GPU types in order, §1.1) and the policy's
//!   configurations (§6.1);
//! - [`SiaApp`]: one set of measurements per GPU type, the per-model constants (calibration
//!   slowdowns, restart delays, the policy's name-based restart penalties) and the throughput
//!   ratios between types (§2, §3);
//! - [`SiaJob`]: the job model (§4): per-type profiles and fits (scipy's L-BFGS-B, `tol = 1e-5`),
//!   the placement-specific batch limits and memory correction, restarts and migrations;
//! - [`agent`]: the goodput estimates the policy reads (§5), in float32 as the original, with
//!   the projection to types a job has not run on, and the goodput matrix, restart factor and
//!   fairness power of §6.3–§6.5;
//! - [`SiaPolicy`]: the Sia policy (§6): utilities, the integer program ([`ilp`], an exact
//!   dynamic program with a documented tie rule) and placement;
//! - [`PolluxUnaware`]: the heterogeneity-unaware Pollux baseline (§7.2): blox-pollux's
//!   genetic search on virtual 4-GPU nodes, merged profiles, repair to one type;
//! - [`EnginePolicy`]: any engine policy (`blox_core::SchedulingPolicy`) under Sia's model:
//!   an engine job table of the active jobs, each round filled from the policy's order, one
//!   GPU type per job;
//! - [`SiaSim`]: the round loop (§1.2) and the metrics of §9;
//! - [`read_sia_workload`]: Sia's workload CSVs (§8).
//!
//! The artifact's data has no licence: nothing of it is in this repository (see
//! `docs/data.md` for the fetch step). Everything here is deterministic (the Pollux
//! baseline for a given seed).

// The numeric kernels (simplex tableaux, the dynamic program) index several arrays in step.
#![allow(clippy::needless_range_loop)]

pub mod agent;
mod any_policy;
mod cluster;
mod gavel;
pub mod ilp;
#[cfg(feature = "cbc")]
mod ilp_cbc;
mod job;
mod model;
mod policy;
mod pollux_unaware;
mod sim;
mod workload;

pub use any_policy::EnginePolicy;
pub use cluster::{ClusterError, Config, GpuType, SiaCluster, KNOWN_TYPES};
pub use gavel::GavelBaseline;
pub use ilp::IlpSolver;
pub use job::SiaJob;
pub use model::{
    max_local_override, restart_delay, restart_penalty, slowdown, SiaApp, SiaApps, SIA_FIT,
    SIA_FTOL,
};
pub use policy::{place, placement_tuple, Decision, SiaParams, SiaPolicy};
pub use pollux_unaware::{
    fix_physical_nodes, keep_one_type, replica_cap, PolluxUnaware, VirtualNodes, KEEP_ORDER,
};
pub use sim::{build_jobs, HeteroPolicy, SiaOutcome, SiaSim, SiaSummary, SimError};
pub use workload::{parse_sia_workload, read_sia_workload, SiaWorkloadJob};
