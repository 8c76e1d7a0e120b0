//! Errors of a simulation run.

use std::fmt;
use std::path::PathBuf;

/// Where a bad input value was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputLocation {
    /// The file (or a description such as `<generator>`).
    pub file: PathBuf,
    /// 1-based line number, when the input is line-oriented.
    pub line: Option<u64>,
    /// The field, when one is to blame.
    pub field: Option<String>,
}

impl fmt::Display for InputLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        Ok(())
    }
}

/// Everything that can stop a run. Every variant says what was wrong and where.
#[derive(Debug)]
#[non_exhaustive]
pub enum SimError {
    /// Bad input data (trace, scenario): names the file, line and field.
    Input {
        /// Where.
        at: InputLocation,
        /// What.
        message: String,
    },
    /// A bad configuration value (unknown policy, impossible cluster, …).
    Config(String),
    /// A component returned an invalid decision.
    InvalidDecision {
        /// The component that decided (admission, policy or placement, with its name).
        component: String,
        /// The round's time, in seconds.
        time_s: String,
        /// What was wrong.
        message: String,
    },
    /// The run cannot make progress (e.g. a job that can never be placed).
    Stalled(String),
    /// The run passed a bound set on it (`--max-sim-time`) before it finished: the input was
    /// valid, the run could not finish within it.
    Unfinished(String),
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

impl SimError {
    /// An input error at `file:line`, field `field`.
    pub fn input(
        file: impl Into<PathBuf>,
        line: Option<u64>,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        SimError::Input {
            at: InputLocation {
                file: file.into(),
                line,
                field: field.map(str::to_string),
            },
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SimError::Io {
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Input { at, message } => write!(f, "{at}: {message}"),
            SimError::Config(m) => f.write_str(m),
            SimError::InvalidDecision {
                component,
                time_s,
                message,
            } => {
                write!(
                    f,
                    "invalid decision from {component} at t={time_s} s: {message}"
                )
            }
            SimError::Stalled(m) => write!(f, "the run cannot make progress: {m}"),
            SimError::Unfinished(m) => f.write_str(m),
            SimError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for SimError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<blox_core::ConfigError> for SimError {
    fn from(e: blox_core::ConfigError) -> Self {
        SimError::Config(e.0)
    }
}

impl From<blox_workload::WorkloadError> for SimError {
    fn from(e: blox_workload::WorkloadError) -> Self {
        match e.io {
            Some(source) => SimError::Io {
                path: e.file,
                source,
            },
            None => SimError::Input {
                at: InputLocation {
                    file: e.file,
                    line: e.line,
                    field: e.field,
                },
                message: e.message,
            },
        }
    }
}
