//! Errors of cluster management: bad input (naming the file, line and field) and events that do
//! not fit the cluster.

use std::fmt;
use std::path::PathBuf;

/// What went wrong reading or applying cluster events.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NodeError {
    /// A bad row in a node-event file (or a bad flag value when `file` is `None`).
    Input {
        /// The file, if the input came from one.
        file: Option<PathBuf>,
        /// The 1-based line.
        line: Option<u64>,
        /// The field (column or key) at fault.
        field: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// An event that the cluster cannot apply (a node that does not exist, …).
    Apply(String),
}

impl NodeError {
    /// A bad value of field `field` at `file:line`.
    pub fn at(
        file: Option<PathBuf>,
        line: Option<u64>,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        NodeError::Input {
            file,
            line,
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    /// A bad flag or option value (no file).
    pub fn flag(flag: &str, message: impl Into<String>) -> Self {
        NodeError::at(None, None, Some(flag), message)
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeError::Input {
                file,
                line,
                field,
                message,
            } => {
                if let Some(p) = file {
                    write!(f, "{}", p.display())?;
                    if let Some(l) = line {
                        write!(f, ":{l}")?;
                    }
                    f.write_str(": ")?;
                }
                if let Some(k) = field {
                    write!(f, "field `{k}`: ")?;
                }
                f.write_str(message)
            }
            NodeError::Apply(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for NodeError {}
