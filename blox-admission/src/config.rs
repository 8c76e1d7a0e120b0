use crate::{AcceptAll, LoadBased, Overflow, QueueCap};
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
    /// [`QueueCap`].
    QueueCap {
        /// Most jobs waiting in the table.
        limit: u32,
        /// What happens to the others.
        #[serde(default)]
        mode: Overflow,
    },
}

/// Deserialisation mirror: empty struct variants make serde reject unknown fields.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum AdmissionConfigDe {
    AcceptAll {},
    LoadBased {
        factor: f64,
    },
    QueueCap {
        limit: u32,
        #[serde(default)]
        mode: Overflow,
    },
}

impl From<AdmissionConfigDe> for AdmissionConfig {
    fn from(d: AdmissionConfigDe) -> Self {
        match d {
            AdmissionConfigDe::AcceptAll {} => AdmissionConfig::AcceptAll,
            AdmissionConfigDe::LoadBased { factor } => AdmissionConfig::LoadBased { factor },
            AdmissionConfigDe::QueueCap { limit, mode } => {
                AdmissionConfig::QueueCap { limit, mode }
            }
        }
    }
}

impl AdmissionConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &[
        "accept-all",
        "load-based:FACTOR",
        "queue-cap:limit=N[,mode=hold|reject]",
    ];

    /// Build the component.
    pub fn build(&self) -> Result<BoxAdmission, ConfigError> {
        Ok(match *self {
            AdmissionConfig::AcceptAll => Box::new(AcceptAll),
            AdmissionConfig::LoadBased { factor } => Box::new(LoadBased::new(factor)?),
            AdmissionConfig::QueueCap { limit, mode } => Box::new(QueueCap::new(limit, mode)?),
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
            "queue-cap" => {
                let mut limit = None;
                let mut mode = Overflow::Hold;
                if let Some(v) = spec.value {
                    limit = Some(v);
                }
                for &(k, v) in &spec.params {
                    match k {
                        "limit" => limit = Some(v),
                        "mode" => {
                            mode = match v {
                                "hold" => Overflow::Hold,
                                "reject" => Overflow::Reject,
                                _ => {
                                    return Err(ConfigError::new(format!(
                                        "queue-cap admission: mode `{v}` (expected hold or reject)"
                                    )))
                                }
                            }
                        }
                        _ => {
                            return Err(ConfigError::new(format!(
                            "queue-cap admission: unknown parameter `{k}` (expected limit, mode)"
                        )))
                        }
                    }
                }
                let raw = limit.ok_or_else(|| {
                    ConfigError::new(
                        "queue-cap admission needs a limit, e.g. `queue-cap:limit=100`",
                    )
                })?;
                let limit: u32 = raw.parse().map_err(|_| {
                    ConfigError::new(format!(
                        "queue-cap admission: limit `{raw}` is not a whole number"
                    ))
                })?;
                QueueCap::new(limit, mode)?;
                Ok(AdmissionConfig::QueueCap { limit, mode })
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
            AdmissionConfig::QueueCap { limit, mode } => {
                let mode = match mode {
                    Overflow::Hold => "hold",
                    Overflow::Reject => "reject",
                };
                write!(f, "queue-cap:limit={limit},mode={mode}")
            }
        }
    }
}
