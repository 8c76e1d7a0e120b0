//! blox-sia's integration tests: those named `sia_data_*` read the Sia artifact's data from
//! `BLOX_SIA_DATA` and say by name that they did not run without it.

#[cfg(feature = "cbc")]
mod cbc;
mod cluster;
mod data;
mod engine;
mod model;
mod policy;
mod pollux;
mod replay;
mod synthetic;
mod vectors;
mod workload;
