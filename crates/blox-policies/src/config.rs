use crate::{BloxOptimus, Fifo, Las, Srtf};
use blox_core::{BoxScheduling, ComponentSpec, ConfigError, Semantics};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Names a scheduling policy and its parameters; builds it at run time.
///
/// In files it is tagged by `kind`: `{"kind": "las"}`. Unknown fields are rejected. On the
/// command line: `fifo`, `las`, `srtf`, `optimus`, `tiresias`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", from = "PolicyConfigDe")]
pub enum PolicyConfig {
    /// [`Fifo`].
    Fifo,
    /// [`Las`].
    Las,
    /// [`Srtf`].
    Srtf,
    /// Blox's Optimus ([`BloxOptimus`]); `blox` semantics only for now.
    Optimus,
    /// Blox's Tiresias, which is exactly LAS in Blox's code; `blox` semantics only for now.
    Tiresias,
}

/// Deserialisation mirror: empty struct variants make serde reject unknown fields, which it does
/// not do for unit variants of an internally tagged enum.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum PolicyConfigDe {
    Fifo {},
    Las {},
    Srtf {},
    Optimus {},
    Tiresias {},
}

impl From<PolicyConfigDe> for PolicyConfig {
    fn from(d: PolicyConfigDe) -> Self {
        match d {
            PolicyConfigDe::Fifo {} => PolicyConfig::Fifo,
            PolicyConfigDe::Las {} => PolicyConfig::Las,
            PolicyConfigDe::Srtf {} => PolicyConfig::Srtf,
            PolicyConfigDe::Optimus {} => PolicyConfig::Optimus,
            PolicyConfigDe::Tiresias {} => PolicyConfig::Tiresias,
        }
    }
}

/// What a policy may need to know about the run it is built for.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct PolicyEnv {
    /// The run's time semantics.
    pub semantics: Semantics,
    /// The synthetic workload's load in jobs per hour, when the workload has one.
    pub load: Option<f64>,
}

impl PolicyEnv {
    /// An environment.
    pub fn new(semantics: Semantics, load: Option<f64>) -> Self {
        PolicyEnv { semantics, load }
    }
}

impl PolicyConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &["fifo", "las", "srtf", "optimus", "tiresias"];

    /// The name used on the command line.
    pub fn as_str(&self) -> &'static str {
        match self {
            PolicyConfig::Fifo => "fifo",
            PolicyConfig::Las => "las",
            PolicyConfig::Srtf => "srtf",
            PolicyConfig::Optimus => "optimus",
            PolicyConfig::Tiresias => "tiresias",
        }
    }

    /// Build the policy for a run.
    pub fn build(&self, env: &PolicyEnv) -> Result<BoxScheduling, ConfigError> {
        Ok(match self {
            PolicyConfig::Fifo => Box::new(Fifo::default()),
            PolicyConfig::Las => Box::new(Las::default()),
            PolicyConfig::Srtf => Box::new(Srtf::default()),
            PolicyConfig::Optimus => Box::new(self.blox_optimus(env)?),
            PolicyConfig::Tiresias => {
                self.blox_only(env)?;
                Box::new(Las::default())
            }
        })
    }

    /// The constant progress factor the policy implies in `blox` semantics (Blox's Optimus
    /// speed-up; 1.0 for every other policy).
    pub fn speed_factor(&self, env: &PolicyEnv) -> Result<f64, ConfigError> {
        match self {
            PolicyConfig::Optimus => Ok(self.blox_optimus(env)?.factor()),
            _ => Ok(1.0),
        }
    }

    fn blox_only(&self, env: &PolicyEnv) -> Result<(), ConfigError> {
        if env.semantics != Semantics::Blox {
            return Err(ConfigError::new(format!(
                "policy `{}` is available in `blox` semantics only for now (as Blox implements \
                 it); run with --semantics blox",
                self.as_str()
            )));
        }
        Ok(())
    }

    fn blox_optimus(&self, env: &PolicyEnv) -> Result<BloxOptimus, ConfigError> {
        self.blox_only(env)?;
        let load = env.load.ok_or_else(|| {
            ConfigError::new(
                "Blox's Optimus needs the workload's load (its speed-up table is keyed by load); \
                 use the blox-default workload with --load",
            )
        })?;
        BloxOptimus::new(load)
    }
}

impl FromStr for PolicyConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let spec = ComponentSpec::parse(s, "policy")?;
        let cfg = match spec.name {
            "fifo" => PolicyConfig::Fifo,
            "las" => PolicyConfig::Las,
            "srtf" => PolicyConfig::Srtf,
            "optimus" => PolicyConfig::Optimus,
            "tiresias" => PolicyConfig::Tiresias,
            other => {
                return Err(ConfigError::new(format!(
                    "unknown policy `{other}` (expected one of: {})",
                    Self::NAMES.join(", ")
                )))
            }
        };
        spec.no_args("policy")?;
        Ok(cfg)
    }
}

impl fmt::Display for PolicyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_use_a_kind_tag_and_reject_unknown_fields() {
        let p: PolicyConfig = serde_json::from_str(r#"{"kind": "las"}"#).unwrap();
        assert_eq!(p, PolicyConfig::Las);
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"kind":"las"}"#);
        let e = serde_json::from_str::<PolicyConfig>(r#"{"kind": "las", "x": 1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `x`"), "{e}");
        assert!(serde_json::from_str::<PolicyConfig>(r#"{"kind": "gavel2"}"#).is_err());
    }
}
