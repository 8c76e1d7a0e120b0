//! # blox-cluster
//!
//! Real-cluster mode: the same [`blox_core::Scheduler`] that drives a simulation launches and
//! preempts real jobs. The scheduler keeps every decision (admission, order, placement,
//! preemption); an [`Executor`] only carries them out. [`main_with`] runs the `blox-cluster`
//! program with a user's component registry, so a registered policy runs in real mode by name.
//!
//! | part | what it is |
//! |---|---|
//! | [`RoundLoop`] | the round loop over an executor, mirroring `blox-sim`'s engine (`exact` semantics, wall-clock time); attained service from reported progress; a lease (`--min-run`, one round by default) before a launch may be preempted |
//! | [`LocalExecutor`] | the `local` backend: one process per rank, one process group per launch, SIGTERM then SIGKILL; every process of a launch (also one that left its group with `setsid`) ends with it; logs capped ([`JobLogs`], [`log_sink`]), a log that cannot be written fails the job |
//! | [`SlurmExecutor`] | the `slurm` backend: one Slurm job per launch pinned with typed GRES, `scancel --signal` then `scancel` |
//! | [`Store`] | all job state in SQLite (bundled), so a restarted server loses no job |
//! | [`StateLock`] | one server per state folder: a `flock` held for the server's life, the holder's pid in `STATE/server.lock` |
//! | [`Api`] | the HTTP API on loopback (elsewhere only with `--allow-remote`), bearer token from a 0600 file checked before any body is read, validated requests, paged job list; a thread per connection up to a cap, each request read against a deadline and size limits ([`HttpLimits`]), so no client holds up another |
//! | [`request`] | a minimal HTTP/1.1 client for the command-line clients |
//! | [`Submission`] | what a user submits (command, GPUs, iterations, model, CPU and memory needs), checked against stated bounds ([`Submission::check`]) before it is stored |
//!
//! Outputs are the simulator's: `jobs.csv`, `timeline.csv` and `summary.json`, written by
//! `blox-metrics` from the same [`blox_core::Event`]s, so a real run and a simulated run of the
//! same jobs compare side by side.
//!
//! ```
//! use blox_cluster::{parse_nodes, Submission};
//!
//! let inv = parse_nodes("2x2", 8, 32.0).unwrap();
//! assert_eq!(inv.total_gpus(), 4);
//! let err = Submission::from_json(br#"{"command": "train.py", "n_gpus": 9}"#, 4).unwrap_err();
//! assert_eq!(err.field, "n_gpus");
//! ```

mod api;
mod cli;
mod client;
mod executor;
mod http;
mod local;
mod lock;
mod logsink;
mod metrics_tail;
mod model;
mod nodes;
mod server;
mod slurm;
mod store;
mod token;

pub use api::{check_listen, job_json, Api, ApiServer};
pub use cli::{main, main_with};
pub use client::{request, HttpResponse};
pub use executor::{
    BoxExecutor, ExecError, ExecEvent, Executor, ExitStatus, Inventory, Launch, NodeInfo, NodeSlice,
};
#[doc(hidden)]
pub use http::fuzzing as http_fuzzing;
pub use http::HttpLimits;
pub use local::{job_dir, JobLogs, LocalConfig, LocalExecutor};
pub use lock::StateLock;
pub use logsink::{log_sink, MIN_LOG_LIMIT, SINK_FAILED};
pub use model::{
    FieldError, JobState, LiveRecord, RunRecord, Submission, MAX_COMMAND_BYTES, MAX_CPUS,
    MAX_ITERATIONS, MAX_MEM_GB, MAX_SECONDS, MAX_TEXT_BYTES,
};
pub use nodes::{job_env, parse_nodes};
pub use server::{stop_flag, LoopConfig, RoundLoop, RunCounters};
pub use slurm::{ended_status, parse_nodes_text, SlurmConfig, SlurmExecutor, SlurmNode};
pub use store::{unix_ms, JobRow, Store, StoredEvent};
pub use token::{load_or_create as load_or_create_token, read as read_token};

use std::fmt;
use std::path::Path;

/// Errors of the real-cluster mode; each message names the file, field or component at fault.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClusterError {
    /// Bad configuration (a flag, a token file).
    Config(String),
    /// A file could not be read or written.
    Io(String),
    /// The state database failed or holds something unreadable.
    State(String),
    /// The executor failed.
    Exec(String),
    /// A component returned an invalid decision.
    Decision(String),
    /// A client request failed.
    Client(String),
}

impl ClusterError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, e: impl fmt::Display) -> Self {
        ClusterError::Io(format!("{}: {e}", path.display()))
    }
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Config(m) => write!(f, "configuration: {m}"),
            ClusterError::Io(m) => write!(f, "{m}"),
            ClusterError::State(m) => write!(f, "state database: {m}"),
            ClusterError::Exec(m) => write!(f, "executor: {m}"),
            ClusterError::Decision(m) => write!(f, "invalid decision: {m}"),
            ClusterError::Client(m) => write!(f, "request: {m}"),
        }
    }
}

impl std::error::Error for ClusterError {}
