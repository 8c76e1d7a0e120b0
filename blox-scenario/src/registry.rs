//! The open component registry: components named on the command line, in scenario files, in
//! `compare` and in `sweep`, beyond the stock ones.
//!
//! Stock components (every name the component crates' config types know, such as `fifo`,
//! `consolidated` or `load-based`) are parsed into those types. Any other name is kept as a
//! [`Named::Registered`] spec and built, when the run starts, by the builder a user crate
//! registered under that name:
//!
//! ```
//! use blox_scenario::{Registry, Scenario};
//! use blox_policies::Srtf;
//!
//! let registry = Registry::default()
//!     .policy("my-srtf", |_spec, _env| Ok(Box::new(Srtf::default())));
//! let scenario: Scenario = toml::from_str(
//!     r#"
//!     cluster = "4x4"
//!     policy = { kind = "my-srtf" }
//!     workload = { kind = "poisson", load = 4.0, jobs = 20 }
//!     "#,
//! )
//! .unwrap();
//! let report = scenario.run_with(&registry).unwrap();
//! assert_eq!(report.metrics.label, "my-srtf");
//! // Without the registration the name is an error that lists what is known.
//! let e = scenario.run().unwrap_err().to_string();
//! assert!(e.contains("unknown policy `my-srtf`"), "{e}");
//! ```
//!
//! A registered name must not shadow a stock one (stock names always mean the stock component):
//! [`Registry::check`] refuses it, and the programs check before anything else. The names the
//! peer crates add (Synergy's `ftf` and `synergy`; [`crate::peer_components`]) are stock names
//! too, held as [`Named::Peer`].
//! Builders get the parsed `name:key=value` spec ([`ComponentSpec`]), so a component can take
//! parameters, and must reject the ones it does not know.

use crate::peer_components::{self, PeerSyntax};
use blox_admission::AdmissionConfig;
use blox_core::{BoxAdmission, BoxPlacement, BoxScheduling, ComponentSpec, ConfigError};
use blox_placement::{PlacementConfig, Topology};
use blox_policies::{PolicyConfig, PolicyEnv};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Builds a scheduling policy from its spec and the run's environment.
pub type PolicyBuilder =
    dyn Fn(&ComponentSpec<'_>, &PolicyEnv) -> Result<BoxScheduling, ConfigError> + Send + Sync;
/// Builds a placement policy from its spec and the run's topology.
pub type PlacementBuilder = dyn Fn(&ComponentSpec<'_>, Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError>
    + Send
    + Sync;
/// Builds an admission policy from its spec.
pub type AdmissionBuilder =
    dyn Fn(&ComponentSpec<'_>) -> Result<BoxAdmission, ConfigError> + Send + Sync;

/// User components by name, for every role. Cheap to clone (builders are shared).
#[derive(Clone, Default)]
pub struct Registry {
    policies: BTreeMap<String, Arc<PolicyBuilder>>,
    placements: BTreeMap<String, Arc<PlacementBuilder>>,
    admissions: BTreeMap<String, Arc<AdmissionBuilder>>,
    /// Registrations under a stock name (which always means the stock component): refused by
    /// [`Registry::check`], never silently ignored.
    shadowing: Vec<String>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("policies", &self.policies.keys().collect::<Vec<_>>())
            .field("placements", &self.placements.keys().collect::<Vec<_>>())
            .field("admissions", &self.admissions.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Registry {
    /// Register a scheduling policy under `name` (replacing an earlier registration).
    pub fn policy(
        mut self,
        name: impl Into<String>,
        build: impl Fn(&ComponentSpec<'_>, &PolicyEnv) -> Result<BoxScheduling, ConfigError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let name = name.into();
        self.note_shadowing::<PolicyConfig>("policy", &name);
        self.policies.insert(name, Arc::new(build));
        self
    }

    /// Register a placement policy under `name`.
    pub fn placement(
        mut self,
        name: impl Into<String>,
        build: impl Fn(&ComponentSpec<'_>, Option<Arc<Topology>>) -> Result<BoxPlacement, ConfigError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let name = name.into();
        self.note_shadowing::<PlacementConfig>("placement", &name);
        self.placements.insert(name, Arc::new(build));
        self
    }

    /// Register an admission policy under `name`.
    pub fn admission(
        mut self,
        name: impl Into<String>,
        build: impl Fn(&ComponentSpec<'_>) -> Result<BoxAdmission, ConfigError> + Send + Sync + 'static,
    ) -> Self {
        let name = name.into();
        self.note_shadowing::<AdmissionConfig>("admission policy", &name);
        self.admissions.insert(name, Arc::new(build));
        self
    }

    fn note_shadowing<C: StockConfig>(&mut self, role: &str, name: &str) {
        let bare = name.split(':').next().unwrap_or(name).trim();
        if is_stock::<C>(bare) || C::from_str(bare).is_ok() || peer::<C>(bare).is_some() {
            self.shadowing.push(format!(
                "{role} `{name}` is a stock name (it always means the stock component): register \
                 yours under another name"
            ));
        }
    }

    /// Whether every registration is usable: a registration under a stock name would never be
    /// built (stock names always mean the stock component), so it is an error here. The
    /// programs (`blox_cli::main_with`, `blox_cluster::main_with`) check this before anything
    /// else.
    ///
    /// ```
    /// use blox_scenario::Registry;
    /// let r = Registry::default().policy("las", |_, _| Ok(Box::new(blox_policies::Fifo::default())));
    /// assert!(r.check().unwrap_err().to_string().contains("policy `las` is a stock name"));
    /// assert!(Registry::default().check().is_ok());
    /// ```
    ///
    /// # Errors
    ///
    /// The first registration under a stock name.
    pub fn check(&self) -> Result<(), ConfigError> {
        match self.shadowing.first() {
            Some(e) => Err(ConfigError::new(e.clone())),
            None => Ok(()),
        }
    }

    /// Registered placement names, sorted.
    pub fn placement_names(&self) -> Vec<&str> {
        self.placements.keys().map(String::as_str).collect()
    }

    /// Registered admission policy names, sorted.
    pub fn admission_names(&self) -> Vec<&str> {
        self.admissions.keys().map(String::as_str).collect()
    }

    /// Registered policy names, sorted.
    pub fn policy_names(&self) -> Vec<&str> {
        self.policies.keys().map(String::as_str).collect()
    }

    /// Build a scheduling policy, stock or registered.
    pub fn build_policy(
        &self,
        c: &Named<PolicyConfig>,
        env: &PolicyEnv,
    ) -> Result<BoxScheduling, ConfigError> {
        match c {
            Named::Stock(c) => c.build(env),
            Named::Peer(s) => {
                let spec = ComponentSpec::parse(s, "policy")?;
                let p = peer_components::find(&peer_components::all().policies, spec.name);
                match p {
                    Some(p) => (p.build)(s, env),
                    None => Err(unknown_peer::<PolicyConfig>("policy", spec.name)),
                }
            }
            Named::Registered(s) => {
                let spec = ComponentSpec::parse(s, "policy")?;
                let b = lookup(
                    &self.policies,
                    spec.name,
                    "policy",
                    &stock_names::<PolicyConfig>(),
                )?;
                b(&spec, env)
            }
        }
    }

    /// Build a placement policy, stock or registered.
    pub fn build_placement(
        &self,
        c: &Named<PlacementConfig>,
        topology: Option<Arc<Topology>>,
    ) -> Result<BoxPlacement, ConfigError> {
        match c {
            Named::Stock(c) => c.build_with(topology),
            Named::Peer(s) => {
                let spec = ComponentSpec::parse(s, "placement")?;
                let p = peer_components::find(&peer_components::all().placements, spec.name);
                match p {
                    Some(p) => (p.build)(s, topology),
                    None => Err(unknown_peer::<PlacementConfig>("placement", spec.name)),
                }
            }
            Named::Registered(s) => {
                let spec = ComponentSpec::parse(s, "placement")?;
                let b = lookup(
                    &self.placements,
                    spec.name,
                    "placement",
                    &stock_names::<PlacementConfig>(),
                )?;
                b(&spec, topology)
            }
        }
    }

    /// Build an admission policy, stock or registered.
    pub fn build_admission(&self, c: &Named<AdmissionConfig>) -> Result<BoxAdmission, ConfigError> {
        match c {
            Named::Stock(c) => c.build(),
            // No peer adds an admission policy.
            Named::Peer(s) | Named::Registered(s) => {
                let spec = ComponentSpec::parse(s, "admission")?;
                let b = lookup(
                    &self.admissions,
                    spec.name,
                    "admission policy",
                    AdmissionConfig::NAMES,
                )?;
                b(&spec)
            }
        }
    }
}

fn lookup<'r, B: ?Sized>(
    map: &'r BTreeMap<String, Arc<B>>,
    name: &str,
    role: &str,
    stock: &[&str],
) -> Result<&'r Arc<B>, ConfigError> {
    map.get(name).ok_or_else(|| {
        let mut known: Vec<&str> = stock.to_vec();
        known.extend(map.keys().map(String::as_str));
        let hint = peer_components::semantics_hint(role, name)
            .or_else(|| crate::did_you_mean(name, &known).map(|k| format!("; did you mean `{k}`?")))
            .unwrap_or_default();
        ConfigError::new(format!(
            "unknown {role} `{name}` (expected one of: {}){hint}",
            known.join(", ")
        ))
    })
}

/// A [`Named::Peer`] made by hand with a name no peer has.
fn unknown_peer<C: StockConfig>(role: &str, name: &str) -> ConfigError {
    ConfigError::new(format!(
        "unknown {role} `{name}` (expected one of: {})",
        stock_names::<C>().join(", ")
    ))
}

/// A stock component configuration type of one role (policy, placement or admission).
pub trait StockConfig:
    FromStr<Err = ConfigError> + fmt::Display + Serialize + DeserializeOwned + Clone
{
    /// Every stock name of the role (without aliases), from its serde form.
    fn names() -> Vec<&'static str> {
        blox_core::spec_form::kinds::<Self>()
    }

    /// The names the peer crates add to the role ([`crate::peer_components`]).
    fn peers() -> Vec<PeerSyntax> {
        Vec::new()
    }
}

/// The stock names of the role and then the peers', for help and error texts.
fn stock_names<C: StockConfig>() -> Vec<&'static str> {
    let mut names = C::names();
    names.extend(C::peers().iter().map(|p| p.name));
    names
}

/// The peer component of the role named `name`.
fn peer<C: StockConfig>(name: &str) -> Option<PeerSyntax> {
    C::peers().into_iter().find(|p| p.name == name)
}

impl StockConfig for PolicyConfig {
    fn peers() -> Vec<PeerSyntax> {
        let all = &peer_components::all().policies;
        all.iter().map(|p| p.syntax).collect()
    }
}
impl StockConfig for PlacementConfig {
    fn peers() -> Vec<PeerSyntax> {
        let all = &peer_components::all().placements;
        all.iter().map(|p| p.syntax).collect()
    }
}
impl StockConfig for AdmissionConfig {}

/// A component named by the user: a stock configuration, or the `name:key=value` spec of a
/// component that a [`Registry`] builds.
///
/// Parsing (`FromStr`, or a scenario file's `{ kind = "...", ... }` table) gives `Stock` for a
/// stock name and `Registered` for any other; whether a registered name exists is checked when
/// the run is built, so one scenario file serves every program that registers the name.
#[derive(Clone, Debug, PartialEq)]
pub enum Named<C> {
    /// A stock component.
    Stock(C),
    /// A stock name a peer crate adds ([`crate::peer_components`]), as its canonical
    /// `name:key=value` spec.
    Peer(String),
    /// Any other component, as its `name:key=value` spec.
    Registered(String),
}

impl<C> Named<C> {
    /// The stock configuration, if this is one.
    pub fn stock(&self) -> Option<&C> {
        match self {
            Named::Stock(c) => Some(c),
            Named::Peer(_) | Named::Registered(_) => None,
        }
    }

    /// Whether a [`Registry`] builds it (a name that is neither stock nor a peer's).
    pub fn is_registered(&self) -> bool {
        matches!(self, Named::Registered(_))
    }
}

impl<C> From<C> for Named<C> {
    fn from(c: C) -> Self {
        Named::Stock(c)
    }
}

impl<C: PartialEq> PartialEq<C> for Named<C> {
    fn eq(&self, other: &C) -> bool {
        self.stock() == Some(other)
    }
}

/// Whether `name` is a stock component of the role.
fn is_stock<C: StockConfig>(name: &str) -> bool {
    C::names().contains(&name)
}

impl<C: StockConfig> FromStr for Named<C> {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let spec = ComponentSpec::parse(s, "component")?;
        if is_stock::<C>(spec.name) {
            return C::from_str(s).map(Named::Stock);
        }
        // Stock names are case-insensitive (`LAS` is `las`).
        let lower = spec.name.to_ascii_lowercase();
        let renamed = |name: &str| {
            let mut named = spec.clone();
            named.name = name;
            registered(&named)
        };
        if lower != spec.name && is_stock::<C>(&lower) {
            return C::from_str(&renamed(&lower)?).map(Named::Stock);
        }
        // Stock aliases (`place`, `topology-aware`) are not in the name lists.
        if let Ok(c) = C::from_str(s) {
            return Ok(Named::Stock(c));
        }
        // The peers' names, case-insensitive too.
        if let Some(p) = peer::<C>(spec.name).or_else(|| peer::<C>(&lower)) {
            return p.canonical(&renamed(p.name)?).map(Named::Peer);
        }
        registered(&spec).map(Named::Registered)
    }
}

/// The canonical `name[:value | :key=value,...]` text of a registered component's spec: the
/// form its scenario-file table (`{ kind = NAME, key = "value" }`) reads back to, so a spec
/// survives being saved and read again. A parameter named `kind` or `value`, an empty name or
/// a name given twice has no table form and is refused.
fn registered(spec: &ComponentSpec<'_>) -> Result<String, ConfigError> {
    let mut out = spec.name.to_string();
    if let Some(v) = spec.value {
        out.push(':');
        out.push_str(v);
    }
    for (i, (k, v)) in spec.params.iter().enumerate() {
        let name = spec.name;
        if k.is_empty() || *k == "kind" || *k == "value" {
            return Err(ConfigError::new(format!(
                "component `{name}`: `{k}` cannot name a parameter"
            )));
        }
        if spec.params[..i].iter().any(|(seen, _)| seen == k) {
            return Err(ConfigError::new(format!(
                "component `{name}`: parameter `{k}` is given twice"
            )));
        }
        out.push(if i == 0 { ':' } else { ',' });
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    }
    Ok(out)
}

impl<C: fmt::Display> fmt::Display for Named<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Named::Stock(c) => c.fmt(f),
            Named::Peer(s) | Named::Registered(s) => f.write_str(s),
        }
    }
}

impl<C: StockConfig> Serialize for Named<C> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Named::Stock(c) => c.serialize(s),
            Named::Peer(spec) => {
                let name = ComponentSpec::parse(spec, "component")
                    .map_err(serde::ser::Error::custom)?
                    .name;
                let p = peer::<C>(name)
                    .ok_or_else(|| serde::ser::Error::custom(format!("unknown `{name}`")))?;
                p.to_table(spec)
                    .map_err(serde::ser::Error::custom)?
                    .serialize(s)
            }
            Named::Registered(spec) => {
                // The same table form as stock components: `{ kind = NAME, key = "value" }`.
                let parsed =
                    ComponentSpec::parse(spec, "component").map_err(serde::ser::Error::custom)?;
                let mut m = BTreeMap::new();
                m.insert("kind".to_string(), parsed.name.to_string());
                if let Some(v) = parsed.value {
                    m.insert("value".to_string(), v.to_string());
                }
                for (k, v) in &parsed.params {
                    m.insert((*k).to_string(), (*v).to_string());
                }
                m.serialize(s)
            }
        }
    }
}

impl<'de, C: StockConfig> Deserialize<'de> for Named<C> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Named::from_table(v).map_err(serde::de::Error::custom)
    }
}

impl<C: StockConfig> Named<C> {
    /// A component's scenario-file table, read. Not generic over the deserializer (only the
    /// read of the table into a `serde_json::Value` is): compiled once per role, not once per
    /// role and file format (a sixth of the scenario crate's deserialisation code).
    fn from_table(v: serde_json::Value) -> Result<Self, String> {
        let kind = match &v {
            serde_json::Value::Object(m) => m.get("kind").and_then(|k| k.as_str()),
            _ => None,
        };
        let Some(kind) = kind else {
            return Err("expected a table with a `kind` naming the component".to_string());
        };
        if is_stock::<C>(kind) {
            return C::deserialize(v)
                .map(Named::Stock)
                .map_err(|e| e.to_string());
        }
        if let Some(p) = peer::<C>(kind) {
            return p.from_table(v).map(Named::Peer).map_err(|e| e.to_string());
        }
        // A registered component: its parameters in the command-line form.
        let mut spec = kind.to_string();
        let mut params = Vec::new();
        let mut positional = None;
        if let serde_json::Value::Object(m) = &v {
            for (k, val) in m {
                if k == "kind" {
                    continue;
                }
                let text = match val {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Array(a) => a
                        .iter()
                        .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                        .collect::<Vec<_>>()
                        .join("/"),
                    other => other.to_string(),
                };
                if text.contains(',') || text.contains('=') {
                    return Err(format!(
                        "component `{kind}`: parameter `{k}` may not contain `,` or `=`"
                    ));
                }
                if k == "value" {
                    positional = Some(text);
                } else {
                    params.push(format!("{k}={text}"));
                }
            }
        }
        if let Some(v) = positional {
            if !params.is_empty() {
                return Err(format!(
                    "component `{kind}`: `value` cannot be combined with other parameters"
                ));
            }
            spec.push(':');
            spec.push_str(&v);
        } else if !params.is_empty() {
            spec.push(':');
            spec.push_str(&params.join(","));
        }
        // As the command line reads it: `kind = " las"` or `"LAS"` is the stock `las`, and a
        // registered spec is kept in its canonical form.
        spec.parse().map_err(|e: ConfigError| e.to_string())
    }
}
