//! Synergy's components by name: `ftf` (a scheduling policy) and `synergy` (the placement
//! mechanisms), in the same three forms as the stock components (`name:key=value` on the
//! command line, a `{ kind = ... }` table in scenario files, and back). `blox-scenario` adds
//! them to the stock names, so they work under every semantics, in any case on the command line.
//!
//! [`semantics_policy`] is the other half: which of Synergy's own scheduling keys a stock
//! policy name builds under `--semantics synergy`.

use crate::placement::{SynergyMode, SynergyPlacement};
use crate::policies::{SynergyFifo, SynergyFtf, SynergyLas, SynergySrtf};
use blox_core::spec_form;
use blox_core::{BoxPlacement, BoxScheduling, ConfigError};
use blox_placement::Topology;
use blox_policies::PolicyEnv;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Synergy's scheduling policy names: `ftf`, Synergy's finish-time fairness key
/// ([`SynergyFtf`] in its GPU-proportional form; under `synergy` semantics
/// [`semantics_policy`] tells it the mechanism). In files: `{"kind": "ftf"}`.
///
/// ```
/// use blox_synergy::SynergyPolicyConfig;
/// let p: SynergyPolicyConfig = "ftf".parse().unwrap();
/// assert_eq!(p.to_string(), "ftf");
/// assert!("ftf:x=1".parse::<SynergyPolicyConfig>().unwrap_err().to_string()
///     .contains("takes no parameters"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SynergyPolicyConfig {
    /// [`SynergyFtf`], GPU-proportional.
    Ftf {},
}

impl SynergyPolicyConfig {
    /// The names, after the stock ones in help texts and errors.
    pub const NAMES: &'static [&'static str] = &["ftf"];

    /// Build the policy.
    pub fn build(&self, _env: &PolicyEnv) -> Result<BoxScheduling, ConfigError> {
        match self {
            SynergyPolicyConfig::Ftf {} => Ok(Box::new(SynergyFtf::new(true))),
        }
    }
}

impl FromStr for SynergyPolicyConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        spec_form::read(s, "policy")
    }
}

impl fmt::Display for SynergyPolicyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spec_form::write(self, "policy"))
    }
}

/// Synergy's placement names: `synergy` (`synergy:mode=fair|greedy|tune`, default `tune`),
/// Synergy's mechanisms ([`SynergyPlacement`]). In files: `{"kind": "synergy", "mode":
/// "fair"}`; unknown fields are rejected.
///
/// ```
/// use blox_synergy::{SynergyMode, SynergyPlacementConfig};
/// let c: SynergyPlacementConfig = "synergy:mode=proportional".parse().unwrap();
/// assert_eq!(c.mode(), SynergyMode::Fair);
/// assert_eq!(c.to_string(), "synergy:mode=fair");
/// assert_eq!("synergy:mode=tune".parse::<SynergyPlacementConfig>().unwrap().to_string(), "synergy");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SynergyPlacementConfig {
    /// [`SynergyPlacement`].
    Synergy {
        /// The mechanism (its aliases, e.g. `proportional`, in files too).
        #[serde(default, deserialize_with = "spec_form::field::from_str")]
        mode: SynergyMode,
    },
}

impl Default for SynergyPlacementConfig {
    fn default() -> Self {
        SynergyPlacementConfig::Synergy {
            mode: SynergyMode::default(),
        }
    }
}

impl SynergyPlacementConfig {
    /// The names, after the stock ones in help texts and errors.
    pub const NAMES: &'static [&'static str] = &["synergy"];

    /// The mechanism.
    pub fn mode(&self) -> SynergyMode {
        match *self {
            SynergyPlacementConfig::Synergy { mode } => mode,
        }
    }

    /// Build the placement (it reads no topology).
    pub fn build(&self, _topology: Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError> {
        Ok(Box::new(SynergyPlacement::new(self.mode())))
    }
}

impl FromStr for SynergyPlacementConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        spec_form::read(s, "placement")
    }
}

/// The command-line form, with the mode when it is not the default.
impl fmt::Display for SynergyPlacementConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spec_form::write(self, "placement"))
    }
}

/// The policy a stock policy name builds under `--semantics synergy`: `fifo`, `srtf`, `las`
/// and `ftf` are Synergy's own keys, told the mechanism `mode` of the run's `synergy`
/// placement (`None` for another placement): SRTF and FTF divide by the speed-up unless it
/// is GPU-proportional (or there is no Synergy mechanism), LAS re-sorts by GPU count under Tune.
/// `None` for any other name (it is built as usual). `name` is the policy's canonical form, so
/// a policy with parameters is never one of these.
pub fn semantics_policy(name: &str, mode: Option<SynergyMode>) -> Option<BoxScheduling> {
    let fair = mode.map_or(true, |m| m == SynergyMode::Fair);
    let tune = mode == Some(SynergyMode::Tune);
    Some(match name {
        "fifo" => Box::new(SynergyFifo::default()),
        "srtf" => Box::new(SynergySrtf::new(fair)),
        "las" => Box::new(SynergyLas::new(tune)),
        "ftf" => Box::new(SynergyFtf::new(fair)),
        _ => return None,
    })
}
