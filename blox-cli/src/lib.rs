//! # blox-cli
//!
//! The `blox-sim` command line as a library: argument parsing and the commands `run`,
//! `compare`, `sweep`, `merge`, `trace stats` and `bench`, over [`blox_scenario`] (scenarios,
//! the registry, the peers). A study that builds scenarios in code needs `blox-scenario` only.
//!
//! | piece | what it is |
//! |---|---|
//! | [`main`], [`main_with`] | the whole `blox-sim` program, with or without your components |
//!
//! The scenario API is re-exported here ([`Scenario`], [`Registry`], [`sweep`], …) so programs
//! written against earlier versions keep compiling; new code should depend on `blox-scenario`.

mod bench;
mod cli;
mod par;
mod sweep_slurm;

pub use blox_scenario::{
    gavel, parse_durations, parse_gpus, pollux, preset, progress, registry, sweep,
    write_all_or_nothing, BadSetting, ModelChoice, Named, Registry, RunReport, Scenario,
    ThroughputChoice, WorkloadConfig, WorkloadReport, BLOX_TRACE_JOBS, DEFAULT_GENERATED_JOBS,
    DEFAULT_LOAD, MAX_GENERATED_JOBS, SYNERGY_CLUSTER, SYNERGY_LOAD, SYNERGY_SEED, SYNERGY_TRACK,
};
#[doc(hidden)]
pub use cli::check_run_args;
pub use cli::{main, main_with};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/rust-api.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust-api.md")]
pub struct RustApiDoctests;
