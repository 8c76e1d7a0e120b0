use crate::{AcceptAll, LoadBased};
use blox_core::{parse_f64, BoxAdmission, ComponentSpec, ConfigError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Names an admission policy and its parameters; builds it at run time.
///
/// In files (JSON/TOML) it is tagged by `kind`: `{"kind": "load-based", "factor": 1.2}`.
/// Unknown fields are rejected. On the command line: `accept-all`, `load-based:1.2` or
/// `load-based:factor=1.2`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", from = "AdmissionConfigDe")]
pub enum AdmissionConfig {
    /// [`AcceptAll`].
    #[default]
    AcceptAll,
    /// [`LoadBased`] with this factor.
    LoadBased {
        /// Threshold as a multiple of the cluster's GPUs.
        factor: f64,
    },
}

/// Deserialisation mirror: empty struct variants make serde reject unknown fields.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum AdmissionConfigDe {
    AcceptAll {},
    LoadBased { factor: f64 },
}

impl From<AdmissionConfigDe> for AdmissionConfig {
    fn from(d: AdmissionConfigDe) -> Self {
        match d {
            AdmissionConfigDe::AcceptAll {} => AdmissionConfig::AcceptAll,
            AdmissionConfigDe::LoadBased { factor } => AdmissionConfig::LoadBased { factor },
        }
    }
}

impl AdmissionConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &["accept-all", "load-based:FACTOR"];

    /// Build the component.
    pub fn build(&self) -> Result<BoxAdmission, ConfigError> {
        Ok(match *self {
            AdmissionConfig::AcceptAll => Box::new(AcceptAll),
            AdmissionConfig::LoadBased { factor } => Box::new(LoadBased::new(factor)?),
        })
    }
}

impl FromStr for AdmissionConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let spec = ComponentSpec::parse(s, "admission")?;
        match spec.name {
            "accept-all" => {
                spec.no_args("admission")?;
                Ok(AdmissionConfig::AcceptAll)
            }
            "load-based" => {
                let raw = match (spec.value, spec.params.as_slice()) {
                    (Some(v), []) => v,
                    (None, [("factor", v)]) => v,
                    _ => {
                        return Err(ConfigError::new(format!(
                            "admission `{s}`: load-based takes one factor, e.g. `load-based:1.2`"
                        )))
                    }
                };
                let factor = parse_f64("load-based admission factor", raw)?;
                LoadBased::new(factor)?;
                Ok(AdmissionConfig::LoadBased { factor })
            }
            other => Err(ConfigError::new(format!(
                "unknown admission policy `{other}` (expected one of: {})",
                Self::NAMES.join(", ")
            ))),
        }
    }
}

impl fmt::Display for AdmissionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdmissionConfig::AcceptAll => f.write_str("accept-all"),
            AdmissionConfig::LoadBased { factor } => write!(f, "load-based:{factor}"),
        }
    }
}
