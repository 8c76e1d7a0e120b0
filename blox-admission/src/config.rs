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

#[cfg(test)]
mod tests {
    use super::*;

    /// Files and the command line are one form (`blox_core::spec_form`), and a value's text
    /// reads back as the same value.
    #[test]
    fn one_form_for_files_and_the_command_line() {
        assert_eq!(
            spec_form::kinds::<AdmissionConfig>(),
            ["accept-all", "load-based", "queue-cap"]
        );
        for (text, shown) in [
            ("accept-all", "accept-all"),
            ("load-based:1.2", "load-based:1.2"),
            ("load-based:factor=1.2", "load-based:1.2"),
            ("queue-cap:100", "queue-cap:limit=100,mode=hold"),
            (
                "queue-cap:limit=5,mode=reject",
                "queue-cap:limit=5,mode=reject",
            ),
        ] {
            let c: AdmissionConfig = text.parse().unwrap();
            assert_eq!(c.to_string(), shown);
            assert_eq!(shown.parse::<AdmissionConfig>().unwrap(), c);
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<AdmissionConfig>(&json).unwrap(), c);
        }
        let e = |s: &str| s.parse::<AdmissionConfig>().unwrap_err().to_string();
        assert_eq!(
            e("queue-cap:mode=hold"),
            "admission `queue-cap`: parameter `limit` is required"
        );
        assert_eq!(
            e("queue-cap:limit=5,mode=drop"),
            "admission `queue-cap`, parameter `mode`: `drop` is not one of: hold, reject"
        );
        assert_eq!(
            e("load-based:x"),
            "admission `load-based`, parameter `factor`: `x` is not a finite number"
        );
        // Bounds are checked when a file is read too, not first when the run is built.
        let bad = serde_json::from_str::<AdmissionConfig>(r#"{"kind":"queue-cap","limit":0}"#);
        assert!(bad.is_err());
    }
}
