//! Integration tests of the real-cluster mode (one test binary, as in every crate).

mod api;
mod common;
mod executor;
mod hostile;
mod hygiene;
mod local_e2e;
mod local_exec;
mod local_nodes;
mod lock;
mod logsink;
mod model;
mod nodes;
mod progress;
mod sim_vs_real;
mod slurm_e2e;
mod slurm_nodes;
mod slurm_outage;
