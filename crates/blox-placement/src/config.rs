use crate::Scattered;
use blox_core::{BoxPlacement, ComponentSpec, ConfigError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Names a placement policy; builds it at run time.
///
/// In files it is tagged by `kind`: `{"kind": "scattered"}`. Unknown fields are rejected. On the
/// command line: `scattered` (alias `place`, Blox's name).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", from = "PlacementConfigDe")]
pub enum PlacementConfig {
    /// [`Scattered`].
    #[default]
    Scattered,
}

/// Deserialisation mirror: an empty struct variant makes serde reject unknown fields.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum PlacementConfigDe {
    Scattered {},
}

impl From<PlacementConfigDe> for PlacementConfig {
    fn from(d: PlacementConfigDe) -> Self {
        match d {
            PlacementConfigDe::Scattered {} => PlacementConfig::Scattered,
        }
    }
}

impl PlacementConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &["scattered"];

    /// Build the component.
    pub fn build(&self) -> Result<BoxPlacement, ConfigError> {
        Ok(match self {
            PlacementConfig::Scattered => Box::new(Scattered::new()),
        })
    }
}

impl FromStr for PlacementConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let spec = ComponentSpec::parse(s, "placement")?;
        let cfg = match spec.name {
            "scattered" | "place" => PlacementConfig::Scattered,
            other => {
                return Err(ConfigError::new(format!(
                    "unknown placement `{other}` (expected one of: {})",
                    Self::NAMES.join(", ")
                )))
            }
        };
        spec.no_args("placement")?;
        Ok(cfg)
    }
}

impl fmt::Display for PlacementConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementConfig::Scattered => f.write_str("scattered"),
        }
    }
}
