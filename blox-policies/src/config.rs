use crate::gavel::MaxMinSolver;
use crate::tiresias::TIRESIAS_THRESHOLD;
use crate::{Amdahl, Fifo, Gavel, Las, Optimus, Sjf, Srtf, Themis, Tiresias};
use blox_core::spec_form::{self, field};
use blox_core::{BoxScheduling, BoxThroughput, ConfigError, ConstantSpeed, ThroughputTable};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Names a scheduling policy and its parameters; builds it at run time.
///
/// In files it is tagged by `kind`, e.g. `{"kind": "tiresias", "thresholds": [3600, 36000]}`;
/// unknown fields are rejected and parameters left out take their defaults. On the command line:
/// `name` or `name:key=value,...`:
///
/// | name | parameters (default) | builds | the command line's `blox` preset builds |
/// |---|---|---|---|
/// | `fifo` | | [`Fifo`] | [`Fifo`] |
/// | `las` | | [`Las`] (GPU-seconds) | `blox_original::BloxLas` (wall-clock service) |
/// | `srtf` | | [`Srtf`] | `blox_original::BloxSrtf` |
/// | `sjf` | `preemptive` (`true`) | [`Sjf`] | [`Sjf`] |
/// | `tiresias` | `thresholds` (`3600`, `/`-separated on the command line, e.g. `3600/36000`), or `queues` (2) with `threshold` (3600) for thresholds `threshold × 10^i`; `starvation` (off; a multiplier, `0` = off) | [`Tiresias`] | Blox's Tiresias, i.e. `blox_original::BloxLas`; no parameters |
/// | `optimus` | `parallel_fraction` (0.95) | [`Optimus`] with [`Amdahl`] | Blox's Optimus, `blox_original::BloxOptimus`; no parameters |
/// | `gavel` | `solver` (`water-filling` or `lp`); `hetero` (`true`: use the run's throughput table on a cluster of several GPU types; `false`: Gavel's agnostic baseline) | [`Gavel`] | [`Gavel`] |
/// | `themis` | | [`Themis`] | [`Themis`] |
///
/// `Tiresias` and `Optimus` with default parameters are the unit variants
/// [`PolicyConfig::Tiresias`] and [`PolicyConfig::Optimus`]; other parameters use
/// [`PolicyConfig::TiresiasWith`] and [`PolicyConfig::OptimusWith`]. Parsing and deserialising
/// normalise default parameters to the unit variants, so `"tiresias:queues=2"` equals
/// `PolicyConfig::Tiresias`.
///
/// ```
/// use blox_policies::{PolicyConfig, PolicyEnv, TiresiasParams};
///
/// let p: PolicyConfig = "tiresias:queues=3,threshold=1000,starvation=2".parse().unwrap();
/// assert_eq!(p, PolicyConfig::TiresiasWith(TiresiasParams {
///     thresholds: vec![1000.0, 10_000.0],
///     starvation: Some(2.0),
///     gittins: None,
/// }));
/// assert_eq!(p.to_string(), "tiresias:thresholds=1000/10000,starvation=2");
/// assert_eq!(p.to_string().parse::<PolicyConfig>().unwrap(), p);
/// let policy = p.build(&PolicyEnv::new(None)).unwrap();
/// assert_eq!(policy.name(), "tiresias");
/// assert!("tiresias:queue=2".parse::<PolicyConfig>().unwrap_err().to_string()
///     .contains("unknown parameter `queue`"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "PolicyConfigRepr", try_from = "PolicyConfigRepr")]
pub enum PolicyConfig {
    /// [`Fifo`].
    Fifo,
    /// [`Las`].
    Las,
    /// [`Srtf`].
    Srtf,
    /// [`Sjf`].
    Sjf {
        /// See [`Sjf`]; default `true`.
        preemptive: bool,
    },
    /// [`Tiresias::default`] (the `blox` preset: Blox's Tiresias, `blox_original::BloxLas`).
    Tiresias,
    /// [`Tiresias`] with other parameters.
    TiresiasWith(TiresiasParams),
    /// [`Optimus`] with [`Amdahl::default`] (the `blox` preset: Blox's Optimus,
    /// `blox_original::BloxOptimus`).
    Optimus,
    /// [`Optimus`] with other parameters.
    OptimusWith(OptimusParams),
    /// Max-min fairness, [`Gavel`].
    Gavel {
        /// How the allocation is computed; default water-filling.
        solver: MaxMinSolver,
        /// Heterogeneity-aware (default `true`; see [`Gavel::with_hetero`]).
        hetero: bool,
    },
    /// Finish-time fairness, [`Themis`].
    Themis,
}

/// Parameters of [`Tiresias`].
#[derive(Clone, Debug, PartialEq)]
pub struct TiresiasParams {
    /// Queue thresholds in GPU-seconds, increasing (`K − 1` for `K` queues). Default `[3600]`.
    pub thresholds: Vec<f64>,
    /// Starvation multiplier; `None` (the default) disables promotion.
    pub starvation: Option<f64>,
    /// Gittins-index variant: order jobs within a queue by their Gittins index with this
    /// quantum Δ in GPU-seconds (Tiresias-G); `None` (the default) keeps FIFO within a queue.
    pub gittins: Option<f64>,
}

impl Default for TiresiasParams {
    fn default() -> Self {
        TiresiasParams {
            thresholds: vec![TIRESIAS_THRESHOLD],
            starvation: None,
            gittins: None,
        }
    }
}

/// Parameters of [`Optimus`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimusParams {
    /// The [`Amdahl`] parallel fraction; default 0.95.
    pub parallel_fraction: f64,
}

impl Default for OptimusParams {
    fn default() -> Self {
        OptimusParams {
            parallel_fraction: Amdahl::default().parallel_fraction,
        }
    }
}

/// The serde form, in files and (through [`blox_core::spec_form`]) on the command line: struct
/// variants, so serde rejects unknown fields (it does not for unit variants of an internally
/// tagged enum), with every parameter optional.
#[derive(Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum PolicyConfigRepr {
    Fifo {},
    Las {},
    Srtf {},
    Sjf {
        #[serde(
            default = "yes",
            skip_serializing_if = "is_true",
            deserialize_with = "field::bool"
        )]
        preemptive: bool,
    },
    Tiresias {
        /// Default `[3600]`; or `queues`/`threshold`, not both.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "field::opt_f64_list"
        )]
        thresholds: Option<Vec<f64>>,
        /// `queues` queues (default 2) with thresholds `threshold × 10^i`.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "field::opt_u32"
        )]
        queues: Option<u32>,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "field::opt_f64"
        )]
        threshold: Option<f64>,
        /// `0` is off, as leaving it out.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "field::opt_f64"
        )]
        starvation: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gittins: Option<Gittins>,
    },
    Optimus {
        #[serde(
            default = "default_p",
            skip_serializing_if = "is_default_p",
            deserialize_with = "field::f64"
        )]
        parallel_fraction: f64,
    },
    /// `gavel-style` says what it is: an adaptation to this engine, not Gavel's simulator
    /// (that is `--semantics gavel`, `blox-gavel`).
    #[serde(alias = "gavel-style")]
    Gavel {
        #[serde(default, skip_serializing_if = "is_default_solver")]
        solver: MaxMinSolver,
        #[serde(
            default = "yes",
            skip_serializing_if = "is_true",
            deserialize_with = "field::bool"
        )]
        hetero: bool,
    },
    #[serde(alias = "ftf-greedy")]
    Themis {},
}

/// Tiresias-G's `gittins`: a quantum in GPU-seconds, or `true` for the first threshold.
#[derive(Clone, Copy)]
enum Gittins {
    Flag(bool),
    Quantum(f64),
}

impl Serialize for Gittins {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Gittins::Flag(b) => s.serialize_bool(b),
            Gittins::Quantum(d) => s.serialize_f64(d),
        }
    }
}

impl<'de> Deserialize<'de> for Gittins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Gittins;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantum in GPU-seconds, or true/on or false/off")
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Gittins, E> {
                Ok(Gittins::Flag(b))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Gittins, E> {
                Ok(Gittins::Quantum(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Gittins, E> {
                Ok(Gittins::Quantum(v as f64))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Gittins, E> {
                Ok(Gittins::Quantum(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Gittins, E> {
                match v.trim() {
                    "true" | "on" => Ok(Gittins::Flag(true)),
                    "false" | "off" => Ok(Gittins::Flag(false)),
                    t => blox_core::parse_f64("gittins", t)
                        .map(Gittins::Quantum)
                        .map_err(|_| {
                            E::custom(format!(
                                "`{v}` is not a quantum in GPU-seconds, or true or false"
                            ))
                        }),
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn default_p() -> f64 {
    OptimusParams::default().parallel_fraction
}
fn is_default_p(p: &f64) -> bool {
    *p == default_p()
}
fn is_default_solver(s: &MaxMinSolver) -> bool {
    *s == MaxMinSolver::default()
}

/// Tiresias' thresholds from the form's `thresholds`, or `queues` and `threshold`.
fn tiresias_thresholds(
    thresholds: Option<Vec<f64>>,
    queues: Option<u32>,
    threshold: Option<f64>,
) -> Result<Vec<f64>, ConfigError> {
    if let Some(t) = thresholds {
        if queues.is_some() || threshold.is_some() {
            return Err(ConfigError::new(
                "policy `tiresias`: give either `thresholds` or `queues`/`threshold`, not both",
            ));
        }
        return Ok(t);
    }
    let queues = queues.unwrap_or(2);
    if !(1..=16).contains(&queues) {
        return Err(ConfigError::new(format!(
            "policy `tiresias`: `queues` is {queues}; it must be from 1 to 16"
        )));
    }
    let first = threshold.unwrap_or(TIRESIAS_THRESHOLD);
    Ok((0..queues - 1)
        .map(|i| first * 10f64.powi(i as i32))
        .collect())
}

impl TryFrom<PolicyConfigRepr> for PolicyConfig {
    type Error = ConfigError;
    fn try_from(r: PolicyConfigRepr) -> Result<Self, ConfigError> {
        let cfg = match r {
            PolicyConfigRepr::Fifo {} => PolicyConfig::Fifo,
            PolicyConfigRepr::Las {} => PolicyConfig::Las,
            PolicyConfigRepr::Srtf {} => PolicyConfig::Srtf,
            PolicyConfigRepr::Sjf { preemptive } => PolicyConfig::Sjf { preemptive },
            PolicyConfigRepr::Tiresias {
                thresholds,
                queues,
                threshold,
                starvation,
                gittins,
            } => {
                let thresholds = tiresias_thresholds(thresholds, queues, threshold)?;
                let gittins = match gittins {
                    None | Some(Gittins::Flag(false)) => None,
                    Some(Gittins::Flag(true)) => {
                        Some(thresholds.first().copied().unwrap_or(TIRESIAS_THRESHOLD))
                    }
                    Some(Gittins::Quantum(d)) => Some(d),
                };
                PolicyConfig::tiresias(TiresiasParams {
                    thresholds,
                    starvation: starvation.filter(|&k| k != 0.0),
                    gittins,
                })
            }
            PolicyConfigRepr::Optimus { parallel_fraction } => {
                PolicyConfig::optimus(OptimusParams { parallel_fraction })
            }
            PolicyConfigRepr::Gavel { solver, hetero } => PolicyConfig::Gavel { solver, hetero },
            PolicyConfigRepr::Themis {} => PolicyConfig::Themis,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

impl From<PolicyConfig> for PolicyConfigRepr {
    fn from(c: PolicyConfig) -> Self {
        match c {
            PolicyConfig::Fifo => PolicyConfigRepr::Fifo {},
            PolicyConfig::Las => PolicyConfigRepr::Las {},
            PolicyConfig::Srtf => PolicyConfigRepr::Srtf {},
            PolicyConfig::Sjf { preemptive } => PolicyConfigRepr::Sjf { preemptive },
            PolicyConfig::Tiresias => PolicyConfig::TiresiasWith(TiresiasParams::default()).into(),
            PolicyConfig::TiresiasWith(p) => PolicyConfigRepr::Tiresias {
                thresholds: (p.thresholds != TiresiasParams::default().thresholds)
                    .then_some(p.thresholds),
                queues: None,
                threshold: None,
                starvation: p.starvation,
                gittins: p.gittins.map(Gittins::Quantum),
            },
            PolicyConfig::Optimus => PolicyConfig::OptimusWith(OptimusParams::default()).into(),
            PolicyConfig::OptimusWith(p) => PolicyConfigRepr::Optimus {
                parallel_fraction: p.parallel_fraction,
            },
            PolicyConfig::Gavel { solver, hetero } => PolicyConfigRepr::Gavel { solver, hetero },
            PolicyConfig::Themis => PolicyConfigRepr::Themis {},
        }
    }
}

/// What a policy may need to know about the run it is built for (never its time model: a policy
/// reads the unit-stable facts it means from each job).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PolicyEnv {
    /// The synthetic workload's load in jobs per hour, when the workload has one.
    pub load: Option<f64>,
    /// Per-model, per-GPU-type throughputs, for heterogeneity-aware policies ([`Gavel`]).
    pub throughputs: Option<Arc<ThroughputTable>>,
    /// The GPU type jobs' work is measured on (default
    /// [`crate::DEFAULT_REFERENCE_TYPE`], `v100`).
    pub reference_gpu_type: String,
}

impl PolicyEnv {
    /// An environment without a throughput table.
    pub fn new(load: Option<f64>) -> Self {
        PolicyEnv {
            load,
            throughputs: None,
            reference_gpu_type: crate::DEFAULT_REFERENCE_TYPE.to_owned(),
        }
    }

    /// The same environment with a throughput table whose rates are relative to `reference`.
    pub fn with_throughputs(
        mut self,
        table: Arc<ThroughputTable>,
        reference: impl Into<String>,
    ) -> Self {
        self.throughputs = Some(table);
        self.reference_gpu_type = reference.into();
        self
    }
}

impl PolicyConfig {
    /// The accepted names, for help texts and errors.
    pub const NAMES: &'static [&'static str] = &[
        "fifo", "las", "srtf", "sjf", "tiresias", "optimus", "gavel", "themis",
    ];

    /// Tiresias with these parameters, normalised ([`PolicyConfig::Tiresias`] for the defaults).
    pub fn tiresias(p: TiresiasParams) -> Self {
        if p == TiresiasParams::default() {
            PolicyConfig::Tiresias
        } else {
            PolicyConfig::TiresiasWith(p)
        }
    }

    /// Optimus with these parameters, normalised ([`PolicyConfig::Optimus`] for the defaults).
    pub fn optimus(p: OptimusParams) -> Self {
        if p == OptimusParams::default() {
            PolicyConfig::Optimus
        } else {
            PolicyConfig::OptimusWith(p)
        }
    }

    /// The policy's name on the command line (without parameters).
    pub fn as_str(&self) -> &'static str {
        match self {
            PolicyConfig::Fifo => "fifo",
            PolicyConfig::Las => "las",
            PolicyConfig::Srtf => "srtf",
            PolicyConfig::Sjf { .. } => "sjf",
            PolicyConfig::Tiresias | PolicyConfig::TiresiasWith(_) => "tiresias",
            PolicyConfig::Optimus | PolicyConfig::OptimusWith(_) => "optimus",
            PolicyConfig::Gavel { .. } => "gavel",
            PolicyConfig::Themis => "themis",
        }
    }

    /// Check the parameters without building anything.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            PolicyConfig::TiresiasWith(p) => {
                let t = Tiresias::new(p.thresholds.clone(), p.starvation)?;
                if let Some(delta) = p.gittins {
                    t.with_gittins(delta)?;
                }
            }
            PolicyConfig::OptimusWith(p) => {
                Amdahl::new(p.parallel_fraction)
                    .map_err(|e| ConfigError::new(format!("optimus: {e}")))?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Build the policy for a run. (Blox's own versions of `las`, `srtf`, `tiresias` and
    /// `optimus` are types of their own, e.g. `blox_original::BloxLas`, which the command line's `blox`
    /// preset builds instead.)
    pub fn build(&self, env: &PolicyEnv) -> Result<BoxScheduling, ConfigError> {
        Ok(match self {
            PolicyConfig::Fifo => Box::new(Fifo::default()),
            PolicyConfig::Las => Box::new(Las::default()),
            PolicyConfig::Srtf => Box::new(Srtf::default()),
            PolicyConfig::Sjf { preemptive } => Box::new(Sjf::new(*preemptive)),
            PolicyConfig::Tiresias => Box::new(Tiresias::default()),
            PolicyConfig::TiresiasWith(p) => {
                let t = Tiresias::new(p.thresholds.clone(), p.starvation)?;
                Box::new(match p.gittins {
                    Some(delta) => t.with_gittins(delta)?,
                    None => t,
                })
            }
            PolicyConfig::Optimus => Box::new(Optimus::with_model(Amdahl::default())),
            PolicyConfig::OptimusWith(p) => Box::new(Optimus::with_model(self.amdahl(p)?)),
            PolicyConfig::Gavel { solver, hetero } => {
                self.validate()?;
                let g = Gavel::new(*solver).with_hetero(*hetero);
                Box::new(match &env.throughputs {
                    Some(t) => g.with_throughputs(Arc::clone(t), env.reference_gpu_type.clone()),
                    None => g,
                })
            }
            PolicyConfig::Themis => Box::new(Themis::default()),
        })
    }

    /// The throughput model the policy implies: the [`Amdahl`] model [`Optimus`] plans with (so
    /// elastic jobs run as fast as it expects), and a constant 1.0 for every other policy.
    pub fn throughput_model(&self, _env: &PolicyEnv) -> Result<BoxThroughput, ConfigError> {
        Ok(match self {
            PolicyConfig::Optimus => Box::new(Amdahl::default()),
            PolicyConfig::OptimusWith(p) => Box::new(self.amdahl(p)?),
            _ => Box::new(ConstantSpeed(1.0)),
        })
    }

    fn amdahl(&self, p: &OptimusParams) -> Result<Amdahl, ConfigError> {
        Amdahl::new(p.parallel_fraction).map_err(|e| ConfigError::new(format!("optimus: {e}")))
    }
}

/// The command-line form `name:key=value,...`, read through the serde form
/// ([`blox_core::spec_form`]): the same names, parameters and defaults as a file's table.
impl FromStr for PolicyConfig {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        spec_form::read(s, "policy")
    }
}

/// The command-line form: `name`, or `name:key=value,...` for the parameters that differ from
/// their defaults; it parses back to the same value.
impl fmt::Display for PolicyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spec_form::write(self, "policy"))
    }
}
