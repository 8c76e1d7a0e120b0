//! Components a peer crate adds to the stock names (a peer is a crate: its components live in
//! it, not in the generic role crates).
//!
//! A peer component is named like a stock one: its name is known to every program (no
//! registration), is case-insensitive on the command line, is checked and normalised when it
//! is parsed (so a bad one is an error naming the flag or the file's line, and every output
//! labels it by its canonical form), may not be registered by a user ([`crate::Registry::check`]),
//! follows the stock names in error texts, and is built under every semantics. It is a
//! [`Named::Peer`](crate::Named::Peer) holding its canonical spec.
//!
//! A peer gives, per component, a configuration type in the stock components' one form (a
//! `kind`-tagged serde enum, read and written as `name:key=value` by
//! [`blox_core::spec_form`]) and its builder; [`all`] is the one place peers are wired in.

use blox_core::{BoxPlacement, BoxScheduling, ConfigError};
use blox_placement::Topology;
use blox_policies::PolicyEnv;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Display;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

/// Builds a peer's scheduling policy from its canonical spec.
pub type PeerPolicyBuild =
    dyn Fn(&str, &PolicyEnv) -> Result<BoxScheduling, ConfigError> + Send + Sync;
/// Builds a peer's placement from its canonical spec.
pub type PeerPlacementBuild =
    dyn Fn(&str, Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError> + Send + Sync;

/// How a peer component is written: its name, its `name:key=value` form and its table.
#[derive(Clone, Copy)]
pub struct PeerSyntax {
    /// Its name (lower case).
    pub name: &'static str,
    canonical: fn(&str) -> Result<String, ConfigError>,
    from_table: fn(serde_json::Value) -> Result<String, serde_json::Error>,
    to_table: fn(&str) -> Result<serde_json::Value, ConfigError>,
}

impl PeerSyntax {
    fn of<T>(name: &'static str) -> Self
    where
        T: FromStr<Err = ConfigError> + Display + Serialize + DeserializeOwned,
    {
        PeerSyntax {
            name,
            canonical: canonical::<T>,
            from_table: from_table::<T>,
            to_table: to_table::<T>,
        }
    }

    /// Check `spec` (its name in lower case) and write it in its canonical form.
    pub fn canonical(&self, spec: &str) -> Result<String, ConfigError> {
        (self.canonical)(spec)
    }

    /// A scenario file's table as the canonical spec.
    pub fn from_table(&self, table: serde_json::Value) -> Result<String, serde_json::Error> {
        (self.from_table)(table)
    }

    /// The scenario file's table of a canonical spec.
    pub fn to_table(&self, spec: &str) -> Result<serde_json::Value, ConfigError> {
        (self.to_table)(spec)
    }
}

/// One component a peer adds to a role's names: how it is written, and its builder.
pub struct PeerComponent<B: ?Sized> {
    /// How it is written.
    pub syntax: PeerSyntax,
    /// Its builder.
    pub build: Box<B>,
}

fn canonical<T: FromStr<Err = ConfigError> + Display>(s: &str) -> Result<String, ConfigError> {
    s.parse::<T>().map(|t| t.to_string())
}

fn from_table<T: DeserializeOwned + Display>(
    v: serde_json::Value,
) -> Result<String, serde_json::Error> {
    serde_json::from_value::<T>(v).map(|t| t.to_string())
}

fn to_table<T: FromStr<Err = ConfigError> + Serialize>(
    s: &str,
) -> Result<serde_json::Value, ConfigError> {
    serde_json::to_value(s.parse::<T>()?).map_err(|e| ConfigError::new(e.to_string()))
}

/// Every peer's components, by role.
#[derive(Default)]
pub struct PeerComponents {
    /// Scheduling policies.
    pub policies: Vec<PeerComponent<PeerPolicyBuild>>,
    /// Placements.
    pub placements: Vec<PeerComponent<PeerPlacementBuild>>,
}

impl PeerComponents {
    /// Add the scheduling policies configured by `T` (its kinds, [`blox_core::spec_form`]) and
    /// built by `build`.
    pub fn policies<T>(
        mut self,
        build: fn(&T, &PolicyEnv) -> Result<BoxScheduling, ConfigError>,
    ) -> Self
    where
        T: FromStr<Err = ConfigError> + Display + Serialize + DeserializeOwned + 'static,
    {
        for name in blox_core::spec_form::kinds::<T>() {
            self.policies.push(PeerComponent {
                syntax: PeerSyntax::of::<T>(name),
                build: Box::new(move |s: &str, env: &PolicyEnv| build(&s.parse::<T>()?, env)),
            });
        }
        self
    }

    /// Add the placements configured by `T` (its kinds, [`blox_core::spec_form`]) and built by
    /// `build`.
    pub fn placements<T>(
        mut self,
        build: fn(&T, Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError>,
    ) -> Self
    where
        T: FromStr<Err = ConfigError> + Display + Serialize + DeserializeOwned + 'static,
    {
        for name in blox_core::spec_form::kinds::<T>() {
            self.placements.push(PeerComponent {
                syntax: PeerSyntax::of::<T>(name),
                build: Box::new(move |s: &str, topology: Option<Arc<Topology>>| {
                    build(&s.parse::<T>()?, topology)
                }),
            });
        }
        self
    }
}

/// Every peer's components: the one place a peer crate adds names.
pub fn all() -> &'static PeerComponents {
    static ALL: OnceLock<PeerComponents> = OnceLock::new();
    ALL.get_or_init(|| {
        use blox_synergy::{SynergyPlacementConfig as SynergyPl, SynergyPolicyConfig as SynergyPo};
        PeerComponents::default()
            .policies(SynergyPo::build)
            .placements(SynergyPl::build)
    })
}

/// The component of `list` named `name`.
pub(crate) fn find<'a, B: ?Sized>(
    list: &'a [PeerComponent<B>],
    name: &str,
) -> Option<&'a PeerComponent<B>> {
    list.iter().find(|p| p.syntax.name == name)
}

/// A peer simulator's own component name used where only the engine's are taken: which
/// `--semantics` takes it.
pub(crate) fn semantics_hint(role: &str, name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase().replace('-', "_");
    #[cfg(not(any(feature = "gavel", feature = "tiresias")))]
    let _ = &lower;
    #[cfg(feature = "gavel")]
    let gavel = blox_gavel::GavelPolicyKind::ALL
        .iter()
        .any(|k| k.as_str().replace('-', "_") == lower);
    #[cfg(not(feature = "gavel"))]
    let gavel = false;
    #[cfg(feature = "tiresias")]
    let (tiresias_schedule, tiresias_scheme) = (
        blox_tiresias::PeerSchedule::ALL
            .iter()
            .any(|k| k.name().replace('-', "_") == lower),
        blox_tiresias::PeerScheme::ALL
            .iter()
            .any(|k| k.name() == lower),
    );
    #[cfg(not(feature = "tiresias"))]
    let (tiresias_schedule, tiresias_scheme) = (false, false);
    let semantics = match role {
        "policy" if gavel => "gavel",
        "policy" if tiresias_schedule => "tiresias",
        "placement" if tiresias_scheme => "tiresias",
        _ => return None,
    };
    Some(format!(
        "; `{name}` is a {role} of --semantics {semantics} (its simulator's own), add \
         --semantics {semantics}"
    ))
}
