//! # blox-original
//!
//! Blox's own simulator (Agarwal et al., EuroSys 2024; the artifact at `0ab0cff`), reproduced
//! job by job after BLOX-SEMANTICS.md, one peer in one crate: `--semantics blox`.
//!
//! | piece | what | BLOX-SEMANTICS |
//! |---|---|---|
//! | [`Blox`] | the time model: progress credited once per round, one round late; completion at a round boundary; attained service in wall-clock seconds; no preemption cost | §2, §4 |
//! | [`BloxDefaultWorkload`], [`BloxDualLoad`], [`BloxMultiGpuTrace`], [`BloxSynthetic`] | Blox's generators, bit-exact on CPython's `random` | §3, appendix |
//! | [`BloxLas`], [`BloxSrtf`], [`BloxOptimus`] | Blox's LAS (wall-clock service), SRTF (work − attained wall-clock service) and Optimus (SRTF order, per-load speed-up) | §5 |
//! | [`BloxScattered`] | Blox's `Place`: overshoot and failed-preemption quirks | §6 |
//! | [`preset`] | which of these a stock name builds under `blox` semantics | — |
//!
//! The stock components (`blox_policies::Las`, `blox_placement::Scattered`, …) follow the
//! definitions; these follow Blox's code where it differs.
//!
//! ```
//! use blox_admission::LoadBased;
//! use blox_core::{ClusterSpec, ConstantSpeed, Pipeline};
//! use blox_metrics::{JobLog, Summary};
//! use blox_original::{Blox, BloxDefaultWorkload, BloxLas, BloxScattered};
//! use blox_sim::{SimConfig, Simulator, TrackWindow};
//!
//! // Blox's LAS with its load-based admission at 1.2x and its placement, on 32 nodes x 4 GPUs.
//! let scheduler = Pipeline::new(LoadBased::new(1.2).unwrap(), BloxLas::default(), BloxScattered::new());
//! let cfg = SimConfig::new(Blox::new()).with_track(Some(TrackWindow::new(100, 150).unwrap()));
//! let mut sim = Simulator::new(cfg, ClusterSpec::uniform(32, 4), scheduler, ConstantSpeed(1.0), JobLog::default());
//! let outcome = sim.run(&mut BloxDefaultWorkload::new(4.0, 12_000).unwrap()).unwrap();
//! let summary = Summary::compute(sim.sink(), Some((100.into(), 150.into())));
//! assert!(summary.avg_jct_s > 0.0 && outcome.end_time.as_secs() > 0);
//! ```

mod optimus;
mod placement;
mod policy;
pub mod preset;
mod time;
pub mod workload;

pub use optimus::{BloxOptimus, BLOX_OPTIMUS_SPEEDUP};
pub use placement::BloxScattered;
pub use policy::{blox_srtf_key, BloxLas, BloxSrtf};
pub use time::Blox;
pub use workload::{
    blox_durations, blox_durations_seeded, BloxDefault, BloxDefaultWorkload, BloxDualLoad,
    BloxDualLoadSmallLarge, BloxJob, BloxMultiGpuTrace, BloxSynthetic,
};
