//! Integration tests of blox-original: Blox's rules job by job (BLOX-SEMANTICS), the engine
//! under Blox's model beside the exact one, and Blox's `Place` (hand-made worlds, random
//! snapshots, and a differential test against the stock scattered placement).

mod blox_rules;
mod models;
mod nodes;
mod place;
mod place_reference;

#[path = "../../../blox-placement/tests/it/support.rs"]
mod place_support;
#[path = "../../../blox-sim/tests/it/support.rs"]
mod support;

pub(crate) use place_support::*;
pub(crate) use support::*;

use blox_original::Blox;
use blox_sim::{Exact, SimConfig};

impl Preset for Exact {
    fn preset(policy: &str) -> (blox_core::BoxScheduling, blox_core::BoxPlacement) {
        stock(policy)
    }
}

impl Preset for Blox {
    fn preset(policy: &str) -> (blox_core::BoxScheduling, blox_core::BoxPlacement) {
        let env = blox_policies::PolicyEnv::new(None);
        let policy: blox_policies::PolicyConfig = policy.parse().unwrap();
        (
            blox_original::preset::policy(&policy, &env).unwrap(),
            blox_original::preset::scattered(),
        )
    }
}

pub(crate) fn blox() -> SimConfig<Blox> {
    SimConfig::new(Blox::new())
}
