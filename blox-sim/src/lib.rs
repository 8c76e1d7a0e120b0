//! # blox-sim
//!
//! The thin, deterministic, fast simulation engine: it runs any
//! [`Scheduler`](blox_core::Scheduler) built from Blox components against a modelled GPU cluster
//! and a workload. Scenarios, sweeps and the `blox-sim` program live in `blox-cli`.
//!
//! | piece | what it is |
//! |---|---|
//! | [`Simulator`] | the engine: generic over scheduler, throughput model, metric sink and time model (see [`engine`]) |
//! | [`TimeModel`] | what differs between time semantics, as a type: [`Blox`] (Blox's simulator exactly), [`Exact`] (true finish times; decisions each round or also on events, [`Decide`]); see [`time`] |
//! | [`Driver`] | the round protocol (admit → schedule → place → validate → apply), written once, used by the simulator and by `blox-cluster`'s server through a [`Host`] |
//! | [`Workload`] | where jobs come from: [`BloxDefaultWorkload`] (Blox's generator on a bit-exact CPython `random`), [`JobList`] (e.g. from [`read_canonical_csv`]), [`JobStream`] (a generator's jobs drawn as the run reaches them, never built up front) |
//! | [`time::gavel`] | Gavel's (OSDI 2020) trace simulator's clock, self-contained (f64 seconds, rounds ending at their slowest micro-task), driving Gavel's mechanism through [`time::gavel::GavelRounds`]; `blox-sim run --semantics gavel` |
//! | [`time::Synergy`] | Synergy's time model (OSDI 2022), a third [`TimeModel`]: 300 s rounds, every job re-decided each round, whole iterations credited at allocation with the placement's host-resource speed-ups, completion at the round end; its generator is [`workload::SynergyWorkload`] |
//! | [`TiresiasTime`] | the `tiresias` time model: the Tiresias authors' clock job by job (integer seconds, decisions at arrivals, completions and predicted queue jumps), driven by any scheduler; `blox-cli` composes it with Tiresias' own schedules and placements or with any engine policy (`blox_cli::tiresias_peer`) |
//!
//! ## Compose and run a scheduler
//!
//! ```
//! use blox_admission::LoadBased;
//! use blox_core::{ClusterSpec, ConstantSpeed, Pipeline};
//! use blox_metrics::{JobLog, Summary};
//! use blox_placement::Scattered;
//! use blox_policies::Las;
//! use blox_sim::{Blox, BloxDefaultWorkload, SimConfig, Simulator, TrackWindow};
//!
//! // LAS with Blox's load-based admission at 1.2x, Blox's placement, on 32 nodes x 4 GPUs.
//! let scheduler = Pipeline::new(LoadBased::new(1.2).unwrap(), Las::default(), Scattered::new());
//! let cfg = SimConfig::new(Blox::new()).with_track(Some(TrackWindow::new(100, 150).unwrap()));
//! let mut sim = Simulator::new(cfg, ClusterSpec::uniform(32, 4), scheduler, ConstantSpeed(1.0), JobLog::default());
//! let outcome = sim.run(&mut BloxDefaultWorkload::new(4.0, 12_000).unwrap()).unwrap();
//! let summary = Summary::compute(sim.sink(), Some((100.into(), 150.into())));
//! assert_eq!(summary.n_completed, 51);
//! assert!(summary.avg_jct_s > 0.0 && outcome.end_time.as_secs() > 0);
//! ```

pub mod driver;
pub mod engine;
mod error;
pub mod time;
pub mod workload;

pub use driver::{Applied, DecisionError, Driver, Host};
pub use engine::{RunOutcome, SimConfig, Simulator, TrackWindow, BLOX_STARVATION};
pub use error::{InputLocation, SimError};
pub use time::tiresias::TiresiasTime;
pub use time::{Blox, Decide, Exact, Pollux, TimeModel};
pub use workload::{read_canonical_csv, BloxDefaultWorkload, JobList, JobStream, Workload};
