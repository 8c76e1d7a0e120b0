//! Integration tests of blox-sim: one binary, one module per area.

mod errors;
mod exact;
mod idle;
mod lazy;
mod nodes;
mod placement;
mod policies;
mod stream;

mod support;

pub(crate) use support::*;

impl Preset for blox_sim::Exact {
    fn preset(policy: &str) -> (blox_core::BoxScheduling, blox_core::BoxPlacement) {
        stock(policy)
    }
}
