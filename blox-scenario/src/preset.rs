//! Presets: which component each stock name builds under each semantics.
//!
//! Components never know the semantics (no component crate names it). A semantics instead comes
//! with a preset: the components its own simulator runs, by the names users already type. The
//! `exact` preset is the stock one (each configuration's own `build`); the `blox` preset swaps in
//! Blox's own versions where Blox's code differs from the definitions:
//!
//! | name | `blox` preset builds |
//! |---|---|
//! | `las` | `BloxLas` (attained wall-clock seconds, whatever the GPU count) |
//! | `tiresias` | `BloxLas` (Blox's Tiresias is exactly its LAS); no parameters |
//! | `srtf` | `BloxSrtf` (work − attained wall-clock service) |
//! | `optimus` | `BloxOptimus` (SRTF order, per-load speed-up); no parameters |
//! | `scattered` | `BloxScattered` (Blox's Place, overshoot and failed-preemption quirks) |
//!
//! (The types and the mapping live in `blox-original`, [`blox_original::preset`].)
//! | every other name | the stock component |
//!
//! Registered (user) components are built by their registry's builder under every semantics.

use crate::registry::{Named, Registry};
use crate::Semantics;
use blox_core::{BoxPlacement, BoxScheduling, BoxThroughput, ConfigError};
use blox_placement::{PlacementConfig, Topology};
use blox_policies::{PolicyConfig, PolicyEnv};
use std::sync::Arc;

/// Build the scheduling policy `c` names under `semantics`.
pub fn build_policy(
    semantics: Semantics,
    registry: &Registry,
    c: &Named<PolicyConfig>,
    env: &PolicyEnv,
) -> Result<BoxScheduling, ConfigError> {
    match (semantics, c.stock()) {
        (Semantics::Blox, Some(p)) => blox_original::preset::policy(p, env),
        _ => registry.build_policy(c, env),
    }
}

/// Build the placement `c` names under `semantics`.
pub fn build_placement(
    semantics: Semantics,
    registry: &Registry,
    c: &Named<PlacementConfig>,
    topology: Option<Arc<Topology>>,
) -> Result<BoxPlacement, ConfigError> {
    match (semantics, c.stock()) {
        (Semantics::Blox, Some(PlacementConfig::Scattered)) => {
            Ok(blox_original::preset::scattered())
        }
        _ => registry.build_placement(c, topology),
    }
}

/// The constant progress factor the policy implies under `semantics`: Blox's Optimus speed-up
/// in the `blox` preset, 1.0 otherwise (where [`policy_throughput`] gives the full model).
pub fn speed_factor(
    semantics: Semantics,
    p: &PolicyConfig,
    env: &PolicyEnv,
) -> Result<f64, ConfigError> {
    match (semantics, p) {
        (Semantics::Blox, p) => blox_original::preset::speed_factor(p, env),
        _ => Ok(1.0),
    }
}

/// The throughput model the policy implies under `semantics` (`--throughput policy`).
pub fn policy_throughput(
    semantics: Semantics,
    p: &PolicyConfig,
    env: &PolicyEnv,
) -> Result<BoxThroughput, ConfigError> {
    match (semantics, p) {
        (Semantics::Blox, PolicyConfig::Optimus | PolicyConfig::OptimusWith(_)) => {
            blox_original::preset::throughput(p, env)
        }
        _ => p.throughput_model(env),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blox_preset_builds_bloxs_own_components() {
        let reg = Registry::default();
        let blox = PolicyEnv::new(Some(3.0));
        let pol = |s: &str, sem| {
            let c: Named<PolicyConfig> = s.parse().unwrap();
            build_policy(sem, &reg, &c, &blox)
        };
        assert_eq!(pol("tiresias", Semantics::Blox).unwrap().name(), "las");
        assert_eq!(
            pol("tiresias", Semantics::Exact).unwrap().name(),
            "tiresias"
        );
        assert_eq!(pol("optimus", Semantics::Blox).unwrap().name(), "optimus");
        let Err(e) = pol("tiresias:queues=3", Semantics::Blox) else {
            panic!("parameters in blox semantics")
        };
        assert!(e.to_string().contains("no parameters"), "{e}");
        assert!(pol("tiresias:queues=3", Semantics::Exact).is_ok());
        let no_load = PolicyEnv::new(None);
        let c: Named<PolicyConfig> = "optimus".parse().unwrap();
        assert!(build_policy(Semantics::Blox, &reg, &c, &no_load).is_err());
        assert_eq!(
            speed_factor(Semantics::Blox, &PolicyConfig::Optimus, &blox).unwrap(),
            1.4
        );
        assert_eq!(
            speed_factor(Semantics::Exact, &PolicyConfig::Optimus, &blox).unwrap(),
            1.0
        );
        assert_eq!(
            policy_throughput(Semantics::Blox, &PolicyConfig::Optimus, &blox)
                .unwrap()
                .name(),
            "constant(1.4)"
        );
        assert_eq!(
            policy_throughput(Semantics::Exact, &PolicyConfig::Optimus, &blox)
                .unwrap()
                .name(),
            "amdahl(0.95)"
        );
    }
}
