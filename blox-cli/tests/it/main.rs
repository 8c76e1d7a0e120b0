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

/// A fresh scratch folder under the system's temporary folder, removed when the test that made
/// it is done; kept (and named on stderr) when the test fails, to look into.
pub(crate) struct Scratch(std::path::PathBuf);

impl Scratch {
    /// `$TMP/NAME`, emptied first (a failed earlier run may have left it).
    pub(crate) fn new(name: &str) -> Scratch {
        let s = Scratch::absent(name);
        std::fs::create_dir_all(&s.0).unwrap();
        s
    }

    /// `$TMP/NAME` not created (removed if a failed earlier run left it): for commands that
    /// must create their output folder themselves.
    pub(crate) fn absent(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&d);
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for inspection: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

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
