//! [`Model`]: every semantics a run can have, the engine's or a peer simulator's, and which
//! settings each one takes ([`Setting`]). A setting a model does not take is refused, never
//! ignored; the refusal is generated from this data and names the semantics that take it.

use crate::Semantics;
use std::fmt;
use std::str::FromStr;

/// A semantics: the engine's exact model, or one peer simulator's model, job by job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Model {
    /// True finish times, decisions each round or also on events (the engine's own model).
    #[default]
    Exact,
    /// Blox's simulator (`blox-original`).
    Blox,
    /// Synergy's simulator (`blox-synergy`).
    Synergy,
    /// The Tiresias authors' simulator (`blox-tiresias`).
    Tiresias,
    /// Gavel's trace simulator (`blox-gavel`).
    Gavel,
    /// The Pollux artifact's simulator (`blox-pollux`).
    Pollux,
    /// The Sia artifact's simulator (`blox-sia`).
    Sia,
}

impl From<Semantics> for Model {
    fn from(s: Semantics) -> Self {
        match s {
            Semantics::Exact => Model::Exact,
            Semantics::Blox => Model::Blox,
            Semantics::Synergy => Model::Synergy,
        }
    }
}

impl serde::Serialize for Model {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Model {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A setting of a run: a flag of `run`/`compare`, a key of a scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // Each variant is the flag `Setting::flag` names.
pub enum Setting {
    Scenario,
    Workload,
    BloxTrace,
    ClassSplit,
    NodeCpus,
    NodeMem,
    Jobs,
    Durations,
    Gpus,
    Resample,
    Load,
    BloxTraceJobs,
    Trace,
    TraceFormat,
    SkipBadLines,
    Cluster,
    ClusterSpec,
    Throughputs,
    ReferenceGpuType,
    Round,
    Admission,
    Placement,
    Topology,
    Throughput,
    Track,
    Seed,
    PreemptionCost,
    Starvation,
    NodeEvents,
    Failures,
    Autoscale,
    CheckpointInterval,
    MaxSimTime,
    Decide,
    PolluxTraces,
    SiaTraces,
    Interference,
    NoInterferenceAvoidance,
    Generations,
    Lambda,
    Rate,
    MultiGpu,
    Priorities,
    SteadyState,
    FixedDuration,
}

use Setting as S;

impl Setting {
    /// Every setting, in `--help` order.
    pub const ALL: [Setting; 45] = [
        S::Scenario,
        S::Workload,
        S::BloxTrace,
        S::ClassSplit,
        S::NodeCpus,
        S::NodeMem,
        S::Jobs,
        S::Durations,
        S::Gpus,
        S::Resample,
        S::Load,
        S::BloxTraceJobs,
        S::Trace,
        S::TraceFormat,
        S::SkipBadLines,
        S::Cluster,
        S::ClusterSpec,
        S::Throughputs,
        S::ReferenceGpuType,
        S::Round,
        S::Admission,
        S::Placement,
        S::Topology,
        S::Throughput,
        S::Track,
        S::Seed,
        S::PreemptionCost,
        S::Starvation,
        S::NodeEvents,
        S::Failures,
        S::Autoscale,
        S::CheckpointInterval,
        S::MaxSimTime,
        S::Decide,
        S::PolluxTraces,
        S::SiaTraces,
        S::Interference,
        S::NoInterferenceAvoidance,
        S::Generations,
        S::Lambda,
        S::Rate,
        S::MultiGpu,
        S::Priorities,
        S::SteadyState,
        S::FixedDuration,
    ];

    /// The command-line flag.
    pub fn flag(self) -> &'static str {
        match self {
            S::Scenario => "--scenario",
            S::Workload => "--workload",
            S::BloxTrace => "--blox-trace",
            S::ClassSplit => "--class-split",
            S::NodeCpus => "--node-cpus",
            S::NodeMem => "--node-mem",
            S::Jobs => "--jobs",
            S::Durations => "--durations",
            S::Gpus => "--gpus",
            S::Resample => "--resample",
            S::Load => "--load",
            S::BloxTraceJobs => "--blox-trace-jobs",
            S::Trace => "--trace",
            S::TraceFormat => "--trace-format",
            S::SkipBadLines => "--skip-bad-lines",
            S::Cluster => "--cluster",
            S::ClusterSpec => "--cluster-spec",
            S::Throughputs => "--throughputs",
            S::ReferenceGpuType => "--reference-gpu-type",
            S::Round => "--round",
            S::Admission => "--admission",
            S::Placement => "--placement",
            S::Topology => "--topology",
            S::Throughput => "--throughput",
            S::Track => "--track",
            S::Seed => "--seed",
            S::PreemptionCost => "--preemption-cost",
            S::Starvation => "--starvation",
            S::NodeEvents => "--node-events",
            S::Failures => "--failures",
            S::Autoscale => "--autoscale",
            S::CheckpointInterval => "--checkpoint-interval",
            S::MaxSimTime => "--max-sim-time",
            S::Decide => "--decide",
            S::PolluxTraces => "--pollux-traces",
            S::SiaTraces => "--sia-traces",
            S::Interference => "--interference",
            S::NoInterferenceAvoidance => "--no-interference-avoidance",
            S::Generations => "--generations",
            S::Lambda => "--lambda",
            S::Rate => "--rate",
            S::MultiGpu => "--multi-gpu",
            S::Priorities => "--priorities",
            S::SteadyState => "--steady-state",
            S::FixedDuration => "--fixed-duration",
        }
    }
}

/// What the engine's models take: everything but the peers' own settings.
const ENGINE: &[Setting] = &[
    S::Scenario,
    S::Workload,
    S::BloxTrace,
    S::ClassSplit,
    S::NodeCpus,
    S::NodeMem,
    S::Jobs,
    S::Durations,
    S::Gpus,
    S::Resample,
    S::Load,
    S::BloxTraceJobs,
    S::Trace,
    S::TraceFormat,
    S::SkipBadLines,
    S::Cluster,
    S::Throughputs,
    S::ReferenceGpuType,
    S::Round,
    S::Admission,
    S::Placement,
    S::Topology,
    S::Throughput,
    S::Track,
    S::Seed,
    S::PreemptionCost,
    S::Starvation,
    S::NodeEvents,
    S::Failures,
    S::Autoscale,
    S::CheckpointInterval,
    S::MaxSimTime,
    S::Decide,
];

/// Pollux's preset runs the engine's scenario on the Pollux job model (a pollux trace, its
/// interval, its policies), plus its own knobs.
const POLLUX: &[Setting] = &[
    S::Scenario,
    S::Trace,
    S::TraceFormat,
    S::SkipBadLines,
    S::Cluster,
    S::Round,
    S::Admission,
    S::Placement,
    S::Topology,
    S::Throughput,
    S::Track,
    S::Seed,
    S::PreemptionCost,
    S::Starvation,
    S::MaxSimTime,
    S::PolluxTraces,
    S::Interference,
    S::NoInterferenceAvoidance,
    S::Generations,
];

/// Gavel's simulator: a Gavel trace, its throughput table, a typed cluster, its round and
/// seed (and `--policy`, `--out`); or its generated-jobs mode (`--workload gavel-generated`
/// and its generator's settings, a window `--track`, static mode's `--jobs`), which the
/// gavel glue checks against the trace mode.
const GAVEL: &[Setting] = &[
    S::Trace,
    S::TraceFormat,
    S::Throughputs,
    S::Cluster,
    S::Round,
    S::Seed,
    S::Workload,
    S::Jobs,
    S::Track,
    S::Lambda,
    S::Rate,
    S::MultiGpu,
    S::Priorities,
    S::SteadyState,
    S::FixedDuration,
];

/// Tiresias' simulator: event-driven integer seconds, no rounds, no admission, no speed model,
/// no starvation promotion (and `--policy`, `--placement`, `--out`).
const TIRESIAS: &[Setting] = &[
    S::Trace,
    S::TraceFormat,
    S::SkipBadLines,
    S::Cluster,
    S::ClusterSpec,
    S::Placement,
];

/// Sia's simulator: a Sia workload, its typed cluster and its interval (and `--policy`,
/// `--out`).
const SIA: &[Setting] = &[
    S::Trace,
    S::TraceFormat,
    S::Cluster,
    S::Round,
    S::Seed,
    S::SiaTraces,
];

impl Model {
    /// Every semantics, in `--help` order.
    pub const ALL: [Model; 7] = [
        Model::Exact,
        Model::Blox,
        Model::Synergy,
        Model::Tiresias,
        Model::Gavel,
        Model::Pollux,
        Model::Sia,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Model::Exact => "exact",
            Model::Blox => "blox",
            Model::Synergy => "synergy",
            Model::Tiresias => "tiresias",
            Model::Gavel => "gavel",
            Model::Pollux => "pollux",
            Model::Sia => "sia",
        }
    }

    /// The engine semantics this model runs as, when the engine's `Driver` runs it with a
    /// scenario's components (`exact`, `blox`, `synergy`); `None` for the peers with runs of
    /// their own.
    pub fn engine(self) -> Option<Semantics> {
        match self {
            Model::Exact => Some(Semantics::Exact),
            Model::Blox => Some(Semantics::Blox),
            Model::Synergy => Some(Semantics::Synergy),
            Model::Tiresias | Model::Gavel | Model::Pollux | Model::Sia => None,
        }
    }

    /// The settings it takes.
    pub fn settings(self) -> &'static [Setting] {
        match self {
            Model::Exact | Model::Blox | Model::Synergy => ENGINE,
            Model::Tiresias => TIRESIAS,
            Model::Gavel => GAVEL,
            Model::Pollux => POLLUX,
            Model::Sia => SIA,
        }
    }

    /// Whether it takes `s`.
    pub fn takes(self, s: Setting) -> bool {
        self.settings().contains(&s)
    }

    /// Refuse the settings of `given` this model does not take: one error naming them, what
    /// the model does take, and which semantics take each of them.
    pub fn check(self, given: &[Setting]) -> Result<(), String> {
        let refused: Vec<Setting> = given.iter().copied().filter(|s| !self.takes(*s)).collect();
        let Some(first) = refused.first() else {
            return Ok(());
        };
        let flags: Vec<&str> = refused.iter().map(|s| s.flag()).collect();
        let takes: Vec<&str> = self.settings().iter().map(|s| s.flag()).collect();
        let others: Vec<&str> = Model::ALL
            .iter()
            .filter(|m| m.takes(*first))
            .map(|m| m.name())
            .collect();
        let elsewhere = if others.is_empty() {
            String::new()
        } else {
            format!(
                "; {} is taken by --semantics {}",
                first.flag(),
                others.join(", ")
            )
        };
        Err(format!(
            "{} {} no meaning under --semantics {} (it takes {}){elsewhere}",
            flags.join(", "),
            if flags.len() == 1 { "has" } else { "have" },
            self.name(),
            takes.join(", "),
        ))
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Model {
    type Err = String;

    /// A name, case-insensitive; an unknown one lists the known ones and suggests the closest.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim().to_ascii_lowercase();
        if let Some(m) = Model::ALL.iter().find(|m| m.name() == t) {
            return Ok(*m);
        }
        let names: Vec<&str> = Model::ALL.iter().map(|m| m.name()).collect();
        let hint = crate::did_you_mean(&t, &names)
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        Err(format!(
            "unknown semantics `{s}` (known: {}){hint}",
            names.join(", ")
        ))
    }
}

/// The known name closest to `name` by edit distance, when it is close enough to be a typo.
pub fn did_you_mean<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != *cb))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }
    let name = name.to_ascii_lowercase();
    known
        .iter()
        .map(|k| (distance(&name, &k.to_ascii_lowercase()), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}
