//! Integration tests of blox-placement: one binary, one module per area.

mod props;
mod scenarios;
mod topology;
mod types;

mod support;

pub(crate) use support::*;
mod config;
mod throughput;
mod unit_topology;
