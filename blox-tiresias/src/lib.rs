//! # blox-tiresias
//!
//! The Tiresias authors' simulator (Gu et al., NSDI 2019; SymbioticLab/Tiresias @ 959f9b0,
//! `simulator/`), reproduced job by job after TIRESIAS-SEMANTICS.md, one peer in one crate:
//!
//! | module | what |
//! |---|---|
//! | [`time`] | [`TiresiasTime`], the `tiresias` time model: integer seconds, decisions at arrivals, completions and the predicted 2D-LAS queue jumps, Tiresias' `job.csv` rows; driven by any scheduler |
//! | [`policy`] | Tiresias' schedules by its own names (`fifo`, `sjf`, `shortest`, `shortest-gpu`, `dlas`, `dlas-gpu`, `dlas-gpu-gittins`), its 2D-LAS queues and Gittins index |
//! | [`placement`] | Tiresias' placement schemes (`yarn` with its memory leak, `count`, `random`, `balance`) and its cluster spec |
//! | [`run`] | the compositions on the engine: Tiresias' own schedules and schemes ([`run_tiresias_engine`]), any engine policy and placement on Tiresias' clock ([`run_on_tiresias_model`], [`SchemePass`]) |
//!
//! The crate's tests (`tests/it`) hold Tiresias' self-contained event loops, written as the
//! original runs them: the oracle the engine path and the specification's test vectors are
//! checked against.
//!
//! The stock `blox_policies::Tiresias` policy is a different thing: a continuous 2D-LAS for the
//! round-based engine, available under every semantics.

pub mod placement;
pub mod policy;
pub mod run;
pub mod time;

pub use placement::{PeerScheme, TiresiasClusterSpec};
pub use policy::{PeerPolicy, PeerSchedule};
pub use run::{
    peer_model, run_on_tiresias_model, run_tiresias_engine, PeerInput, PeerRun, PeerStop,
    SchemePass, TiresiasConfig, TIRESIAS_JOB_CSV_HEADER,
};
pub use time::{PeerRow, TiresiasJobState, TiresiasTime};
