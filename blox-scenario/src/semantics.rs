//! [`Semantics`]: the name of a run's time model, as scenarios and the command line spell it.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The name of a run's time model, as scenarios and the command line spell it (`--semantics`).
///
/// It is chosen once, at the top (the CLI), which then runs the engine with the matching time
/// model type and the semantics' preset of components. Components never see it: `blox_core::Ctx` does not
/// carry it, and jobs expose unit-stable facts (`Job::attained_gpu_s`,
/// `Job::attained_wall_s`) instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Semantics {
    /// Blox's round semantics exactly: progress credited once per round, one round late;
    /// completion at a round boundary; attained service in wall-clock seconds; no preemption
    /// cost. Reproduces Blox's numbers job by job.
    Blox,
    /// Decisions each round, but a job finishes at its true finish time and frees its GPUs at
    /// once; attained service in GPU-seconds; preemption costs what the run says.
    #[default]
    Exact,
    /// Synergy's simulator (OSDI 2022): 300 s rounds, every job re-decided each round, progress
    /// credited in whole iterations at allocation, completion at the round end, attained service
    /// in GPU-seconds. Runs in `blox_synergy::Synergy`; components treat it as `Exact`.
    Synergy,
}

impl Semantics {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Semantics::Blox => "blox",
            Semantics::Exact => "exact",
            Semantics::Synergy => "synergy",
        }
    }
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Semantics {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "blox" => Ok(Semantics::Blox),
            "exact" => Ok(Semantics::Exact),
            "synergy" => Ok(Semantics::Synergy),
            _ => Err(format!(
                "unknown semantics `{s}` (expected `blox`, `exact` or `synergy`)"
            )),
        }
    }
}
