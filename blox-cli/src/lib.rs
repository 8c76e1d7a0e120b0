//! # blox-cli
//!
//! The `blox-sim` command line as a library: scenarios (a whole run as data, TOML/JSON or
//! flags), `run`, `compare`, `sweep`, `merge`, `trace stats` and `bench`, over the engine in
//! `blox-sim` and the stock components.
//!
//! | piece | what it is |
//! |---|---|
//! | [`Scenario`] | a whole run as data, run through the boxed path, writing `jobs.csv`, `summary.json`, `timeline.csv` |
//! | [`sweep`] | the cross product of settings, run in parallel, resumable, shardable, merged into one table |
//! | [`Registry`] | your own components by name, usable everywhere a stock name is |
//! | [`progress`] | progress on standard error, `--max-sim-time`, the overload warning, all from outside the engine |
//! | [`gavel`] | `--semantics gavel`: the command-line side of `blox-gavel` (policy names, `jobs.csv`/`summary.json`, `compare`, `bench --gavel`) |
//!
//! Each peer simulator lives in a crate of its own (`blox-gavel`, `blox-tiresias`,
//! `blox-synergy`, `blox-pollux`); this crate maps `--semantics NAME` onto it.
//! | [`main`], [`main_with`] | the whole `blox-sim` program, with or without your components |

mod bench;
mod cli;
pub mod gavel;
pub mod pollux;
pub mod preset;
pub mod progress;
pub mod registry;
mod scenario;
pub mod sweep;
mod tiresias;

pub use cli::{main, main_with};
pub use registry::{Named, Registry};
pub use scenario::{
    parse_durations, parse_gpus, write_all_or_nothing, BadSetting, ModelChoice, RunReport,
    Scenario, ThroughputChoice, WorkloadConfig, WorkloadReport, BLOX_TRACE_JOBS,
    DEFAULT_GENERATED_JOBS, DEFAULT_LOAD, MAX_GENERATED_JOBS, SYNERGY_CLUSTER, SYNERGY_LOAD,
    SYNERGY_SEED, SYNERGY_TRACK,
};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
