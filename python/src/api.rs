//! Every item of the blox Rust API this binding uses, imported here and nowhere else.
//!
//! The other modules name these items through `crate::api`, so a change of the Rust crates'
//! layout (for instance `blox-cli` split into a library crate) is a change of this file only.
//!
//! What the binding takes from where:
//!
//! - `blox_scenario`: [`Scenario`] (a whole run as data, parsed and checked by the same code as the
//!   CLI's scenario files), [`RunReport`] (and its `jobs.csv`/`timeline.csv`/`summary.json`
//!   writers), the [`Registry`] of user components, [`RunSettings`] (every setting of a run,
//!   the CLI's flags, with its `clap` arguments) prepared into a [`Prepared`] run of any
//!   semantics and run ([`PeerRun`]) into the one report type [`Finished`], the sweep expansion
//!   ([`Sweep`], [`run_one_with`], [`merge`]) and the presets that build stock components under
//!   each semantics ([`preset`], for recorded runs).
//! - `blox_core`: the component traits and what they see and return.
//! - `blox_sim`, `blox_metrics`, `blox_workload`: errors, the engine (recorded runs only),
//!   sinks and writers, trace readers.

pub(crate) use blox_scenario::pollux::PolluxOptions;
pub(crate) use blox_scenario::preset;
pub(crate) use blox_scenario::sweep::{merge, run_one_with, Sweep, SweepRow, SweepRun};
pub(crate) use blox_scenario::{
    did_you_mean, Finished, Model, ModelChoice, Observe, PeerRun, Prepared, Registry, RunReport,
    RunSettings, Scenario, Semantics, WorkloadConfig,
};

pub(crate) use blox_core::{
    AdmissionPolicy, Admissions, BoxAdmission, BoxPlacement, BoxScheduling, Cluster,
    ClusterParseError, ClusterSpec, ComponentSpec, ConfigError, Ctx, Decisions, Event, GpuId,
    GpuTypeId, Job, JobId, JobSpec, JobTable, MetricSink, NodeId, Pipeline, PlacementPolicy,
    QueuedJob, Schedule, SchedulingPolicy, Seed, Time, ValidationScratch, PRIORITY_NORMAL,
};

pub(crate) use blox_metrics::{plot_jct_cdf, write_comparison_csv, write_comparison_json};
pub(crate) use blox_metrics::{write_all_or_nothing, ComparisonRow, JobLog, Timeline};

pub(crate) use blox_pollux::{Applications, PolluxPolicyConfig};

pub(crate) use blox_sim::{SimError, Simulator};

pub(crate) use blox_workload::{read_traces, ReadOptions, TraceFormat, UnknownFormat};
