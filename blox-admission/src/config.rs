use crate::{AcceptAll, LoadBased, Overflow, QueueCap};
use blox_core::spec_form::{self, field};
use blox_core::{BoxAdmission, ConfigError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Names an admission policy and its parameters; builds it at run time.
///
/// In files (JSON/TOML) it is tagged by `kind`: `{"kind": "load-based", "factor": 1.2}`.
/// Unknown fields are rejected. On the command line: `accept-all`, `load-based:1.2` or
/// `load-based:factor=1.2`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    try_from = "AdmissionConfigDe"
)]
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
        #[serde(deserialize_with = "field::f64")]
        factor: f64,
    },
    QueueCap {
        #[serde(deserialize_with = "field::u32")]
        limit: u32,
        #[serde(default)]
        mode: Overflow,
    },
}

impl TryFrom<AdmissionConfigDe> for AdmissionConfig {
    type Error = ConfigError;
    fn try_from(d: AdmissionConfigDe) -> Result<Self, ConfigError> {
        let cfg = match d {
            AdmissionConfigDe::AcceptAll {} => AdmissionConfig::AcceptAll,
            AdmissionConfigDe::LoadBased { factor } => AdmissionConfig::LoadBased { factor },
            AdmissionConfigDe::QueueCap { limit, mode } => {
                AdmissionConfig::QueueCap { limit, mode }
            }
        };
        // The parameters' bounds, checked where the value is read.
        cfg.build()?;
        Ok(cfg)
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
        spec_form::read(s, "admission")
    }
}

impl fmt::Display for AdmissionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spec_form::write(self, "admission"))
    }
}
