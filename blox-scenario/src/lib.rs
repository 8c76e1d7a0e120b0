//! # blox-scenario
//!
//! A whole simulation as data, and the API to run it, shared by the `blox-sim` command line
//! (`blox-cli`), the Python package and real-cluster mode: a study crate depends on this one
//! (and the engine), not on the command line.
//!
//! | piece | what it is |
//! |---|---|
//! | [`Scenario`] | a whole run as data (TOML/JSON or built in code), run through the boxed path, writing `jobs.csv`, `summary.json`, `timeline.csv` |
//! | [`Registry`] | your own components by name, usable everywhere a stock name is |
//! | [`preset`] | which component a stock name builds under each semantics |
//! | [`sweep`] | the cross product of settings, resumable, shardable, merged into one table |
//! | [`progress`] | progress on standard error, `--max-sim-time`, the overload warning, all from outside the engine |
//! | [`gavel`] ([`gavel_generated`]: Gavel's generated-jobs mode), [`tiresias`], [`pollux`], [`sia`] | the scenario side of the peers whose loops are their own (`blox-gavel`, `blox-tiresias`, `blox-pollux`, `blox-sia`): their runs, reports and files |
//! | [`RunSettings`], [`Prepared`], [`Finished`] | every setting of a run under any semantics, checked once; the one enum of models every command runs through ([`PeerRun`]); the one report type |
//! | [`Model`], [`Setting`] | every semantics, engine's or peer's, matched in one place, and the settings each takes (refused, never ignored, otherwise) |
//! | [`Semantics`] | the engine semantics' names (`blox`, `exact`, `synergy`), as scenario files hold them |
//!
//! Each peer simulator lives in a crate of its own (`blox-gavel`, `blox-tiresias`,
//! `blox-synergy`, `blox-pollux`, `blox-sia`); this crate maps a semantics name onto it.
//!
//! Every loop over a run's events or jobs (the engine and the peers' simulations, the progress
//! sink, workload streams, statistics and output files) is instantiated in `blox-runner`, behind
//! non-generic functions this crate calls, so that this crate needs no optimisation (the
//! release profile builds it at `-O0`). [`progress`] and [`ModelChoice`] are `blox-runner`'s,
//! re-exported here.

#[doc(hidden)]
pub mod bench;
#[cfg(feature = "gavel")]
pub mod gavel;
#[cfg(feature = "gavel")]
pub mod gavel_generated;
mod model;
mod parsed;
mod peer;
pub mod peer_components;
#[cfg(feature = "pollux")]
pub mod pollux;
pub mod preset;
pub use blox_runner::progress;
pub mod registry;
mod scenario;
mod semantics;
mod settings;
#[cfg(feature = "sia")]
pub mod sia;
pub mod sweep;
#[cfg(feature = "tiresias")]
pub mod tiresias;

pub use blox_runner::ModelChoice;
pub use model::{did_you_mean, Model, Setting};
pub use parsed::{FromText, Parsed};
pub use peer::{check_names, check_out, Finished, Observe, PeerRun, Prepared};
pub use registry::{Named, Registry};
pub use scenario::{
    every_line_bad, parse_durations, parse_gpus, peer_semantics_hint, write_all_or_nothing,
    write_atomically, BadSetting, RunReport, Scenario, ThroughputChoice, WorkloadConfig,
    WorkloadReport, BLOX_TRACE_JOBS, DEFAULT_GENERATED_JOBS, DEFAULT_LOAD, MAX_GENERATED_JOBS,
    POLLUX_CLUSTER, POLLUX_INTERVAL_S, SYNERGY_CLUSTER, SYNERGY_LOAD, SYNERGY_SEED, SYNERGY_TRACK,
};
pub use scenario::{MAX_ROUND_SECONDS, MIN_LOAD};
pub use semantics::Semantics;
pub use settings::{values, RunSettings};
