use crate::{Consolidated, FirstFit, ResourceAware, Scattered, Topology, TopologyAware};
use blox_core::spec_form::{self, field};
use blox_core::{BoxPlacement, ConfigError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Names a placement policy and its options; builds it at run time.
///
/// In files it is tagged by `kind`: `{"kind": "scattered"}`, `{"kind": "consolidated", "wait":
/// true}`, `{"kind": "topology", "backfill": true}`. Options default to `preempt: true`,
/// `backfill: false`, `wait: false`; unknown fields are rejected. On the command line:
/// `scattered` (alias `place`, Blox's name), `first-fit`, `consolidated`, `topology` (alias
/// `topology-aware`), `resource-aware`, with options as `consolidated:wait=true,backfill=true`.
/// (Peer simulators' placements, such as Synergy's `synergy`, are named by their crates.)
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", from = "PlacementConfigDe")]
pub enum PlacementConfig {
    /// [`Scattered`].
    #[default]
    Scattered,
    /// [`FirstFit`].
    FirstFit {
        /// Preempt lower jobs for a job that does not fit.
        preempt: bool,
        /// Walk on past a job that cannot be placed.
        backfill: bool,
    },
    /// [`Consolidated`].
    Consolidated {
        /// Wait rather than spread over more nodes than needed (Tiresias).
        wait: bool,
        /// Preempt lower jobs for a job that does not fit.
        preempt: bool,
        /// Walk on past a job that cannot be placed.
        backfill: bool,
    },
    /// [`TopologyAware`].
    Topology {
        /// Preempt lower jobs for a job that does not fit.
        preempt: bool,
        /// Walk on past a job that cannot be placed.
        backfill: bool,
    },
    /// [`ResourceAware`].
    ResourceAware {
        /// Preempt lower jobs for a job that does not fit.
        preempt: bool,
        /// Walk on past a job that cannot be placed.
        backfill: bool,
    },
}

fn yes() -> bool {
    true
}

/// Deserialisation mirror: struct variants with `deny_unknown_fields` make serde reject unknown
/// fields, which it does not do for unit variants of an internally tagged enum.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum PlacementConfigDe {
    #[serde(alias = "place")]
    Scattered {},
    FirstFit {
        #[serde(default = "yes", deserialize_with = "field::bool")]
        preempt: bool,
        #[serde(default, deserialize_with = "field::bool")]
        backfill: bool,
    },
    Consolidated {
        #[serde(default, deserialize_with = "field::bool")]
        wait: bool,
        #[serde(default = "yes", deserialize_with = "field::bool")]
        preempt: bool,
        #[serde(default, deserialize_with = "field::bool")]
        backfill: bool,
    },
    #[serde(alias = "topology-aware")]
    Topology {
        #[serde(default = "yes", deserialize_with = "field::bool")]
        preempt: bool,
        #[serde(default, deserialize_with = "field::bool")]
        backfill: bool,
    },
    ResourceAware {
        #[serde(default = "yes", deserialize_with = "field::bool")]
        preempt: bool,
        #[serde(default, deserialize_with = "field::bool")]
        backfill: bool,
    },
}

impl From<PlacementConfigDe> for PlacementConfig {
    fn from(d: PlacementConfigDe) -> Self {
        match d {
            PlacementConfigDe::Scattered {} => PlacementConfig::Scattered,
            PlacementConfigDe::FirstFit { preempt, backfill } => {
                PlacementConfig::FirstFit { preempt, backfill }
            }
            PlacementConfigDe::Consolidated {
                wait,
                preempt,
                backfill,
            } => PlacementConfig::Consolidated {
                wait,
                preempt,
                backfill,
            },
            PlacementConfigDe::Topology { preempt, backfill } => {
                PlacementConfig::Topology { preempt, backfill }
            }
            PlacementConfigDe::ResourceAware { preempt, backfill } => {
                PlacementConfig::ResourceAware { preempt, backfill }
            }
        }
    }
}

impl PlacementConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &[
        "scattered",
        "first-fit",
        "consolidated",
        "topology",
        "resource-aware",
    ];

    /// The name used on the command line.
    pub fn as_str(&self) -> &'static str {
        match self {
            PlacementConfig::Scattered => "scattered",
            PlacementConfig::FirstFit { .. } => "first-fit",
            PlacementConfig::Consolidated { .. } => "consolidated",
            PlacementConfig::Topology { .. } => "topology",
            PlacementConfig::ResourceAware { .. } => "resource-aware",
        }
    }

    /// Whether the placement reads a topology ([`PlacementConfig::build_with`]).
    pub fn uses_topology(&self) -> bool {
        matches!(self, PlacementConfig::Topology { .. })
    }

    /// Build the component; a topology-aware placement uses [`Topology::default_for`] the
    /// cluster it runs on.
    pub fn build(&self) -> Result<BoxPlacement, ConfigError> {
        self.build_with(None)
    }

    /// Build the component with this topology for the placements that read one (the others
    /// ignore it). Check it against the cluster first ([`Topology::check_cluster`]): one whose
    /// GPU count differs is replaced by the cluster's default.
    pub fn build_with(&self, topology: Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError> {
        Ok(match *self {
            PlacementConfig::Scattered => Box::new(Scattered::new()),
            PlacementConfig::FirstFit { preempt, backfill } => Box::new(
                FirstFit::default()
                    .with_preemption(preempt)
                    .with_backfill(backfill),
            ),
            PlacementConfig::Consolidated {
                wait,
                preempt,
                backfill,
            } => Box::new(
                Consolidated::default()
                    .with_wait(wait)
                    .with_preemption(preempt)
                    .with_backfill(backfill),
            ),
            PlacementConfig::Topology { preempt, backfill } => Box::new(
                TopologyAware::new(topology)
                    .with_preemption(preempt)
                    .with_backfill(backfill),
            ),
            PlacementConfig::ResourceAware { preempt, backfill } => Box::new(
                ResourceAware::default()
                    .with_preemption(preempt)
                    .with_backfill(backfill),
            ),
        })
    }
}

/// The command-line form `name:key=value,...`, read through the serde form
/// ([`blox_core::spec_form`]): the same names, options and defaults as a file's table.
impl FromStr for PlacementConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        spec_form::read(s, "placement")
    }
}

/// The command-line form: `name`, or `name:key=value,...` for the options that differ from
/// their defaults; it parses back to the same value.
impl fmt::Display for PlacementConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spec_form::write(self, "placement"))
    }
}
