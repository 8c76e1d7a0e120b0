//! Integration tests of blox-cli: scenarios, the command line, and runs checked end to end.

mod bounds;
mod clear_errors;
mod cli;
mod cli_docs;
mod determinism;
mod doc_commands;
mod errors;
mod gavel;
mod gavel_generated;
mod gavel_vectors;
mod golden;
mod hetero;
mod idle;
mod long_runs;
mod nodes;
mod oracle;
mod outputs;
mod peers;
mod pollux;
mod sweep_slurm;
mod synergy;
mod tiresias_cli;
mod traces;

#[allow(unused_imports)]
use blox_admission::{AcceptAll, AdmissionConfig};
#[allow(unused_imports)]
use blox_core::{ClusterSpec, ConstantSpeed, JobId, JobSpec, Pipeline, Time};
#[allow(unused_imports)]
use blox_metrics::{JobLog, JobRecord, Timeline};
#[allow(unused_imports)]
use blox_original::Blox;
#[allow(unused_imports)]
use blox_placement::{PlacementConfig, Scattered};
#[allow(unused_imports)]
use blox_policies::{PolicyConfig, PolicyEnv};
use blox_scenario::Semantics;
#[allow(unused_imports)]
use blox_sim::{Exact, JobList, RunOutcome, SimConfig, Simulator, TimeModel, TrackWindow};
