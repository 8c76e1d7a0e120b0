//! # blox-sim
//!
//! The thin, deterministic, fast simulation engine: it runs any
//! [`Scheduler`](blox_core::Scheduler) built from Blox components against a modelled GPU cluster
//! and a workload. Scenarios, sweeps and the `blox-sim` program live in `blox-cli`.
//!
//! | piece | what it is |
//! |---|---|
//! | [`Simulator`] | the engine: generic over scheduler, throughput model, metric sink and time model (see [`engine`]) |
//! | [`TimeModel`] | what differs between time semantics, as a type; the engine's own model is [`Exact`] (true finish times; decisions each round or also on events, [`Decide`]), see [`time`] |
//! | [`Driver`] | the round protocol (admit → schedule → place → validate → apply), written once, used by the simulator and by `blox-cluster`'s server through a [`Host`] |
//! | [`Workload`] | where jobs come from: [`JobList`] (e.g. from [`read_canonical_csv`]), [`JobStream`] (a generator's jobs drawn as the run reaches them, never built up front), or any generator |
//!
//! The peer simulators' time models implement [`TimeModel`] in their own crates
//! (`blox-original`'s `Blox`, `blox-synergy`, `blox-tiresias`, `blox-pollux`); Gavel keeps a
//! clock of its own (`blox-gavel`). This crate names none of them.
//!
//! ## Compose and run a scheduler
//!
//! ```
//! use blox_admission::LoadBased;
//! use blox_core::{ClusterSpec, ConstantSpeed, JobSpec, Pipeline, Time};
//! use blox_metrics::{JobLog, Summary};
//! use blox_placement::Scattered;
//! use blox_policies::Las;
//! use blox_sim::{Exact, JobList, SimConfig, Simulator};
//!
//! // LAS with load-based admission at 1.2x and the scattered placement, on 2 nodes x 4 GPUs.
//! let scheduler = Pipeline::new(LoadBased::new(1.2).unwrap(), Las::default(), Scattered::new());
//! let cfg = SimConfig::new(Exact::new());
//! let mut sim = Simulator::new(cfg, ClusterSpec::uniform(2, 4), scheduler, ConstantSpeed(1.0), JobLog::default());
//! let jobs: Vec<JobSpec> = (0..20)
//!     .map(|i| JobSpec::new(Time::from_secs(i * 600), 1 + (i as u32 % 4), 3600.0))
//!     .collect();
//! let outcome = sim.run(&mut JobList::new(jobs)).unwrap();
//! let summary = Summary::compute(sim.sink(), None);
//! assert_eq!(summary.n_completed, 20);
//! assert!(summary.avg_jct_s >= 3600.0 && outcome.end_time.as_secs() > 0);
//! ```

pub mod driver;
pub mod engine;
mod error;
pub mod time;
pub mod workload;

pub use driver::{Applied, DecisionError, Driver, Host};
pub use engine::{RunOutcome, SimConfig, Simulator, TrackWindow, BLOX_STARVATION};
pub use error::{InputLocation, SimError};
pub use time::{Decide, Exact, TimeModel};
pub use workload::{read_canonical_csv, JobList, JobStream, Workload};
