//! The error every reader and generator returns.

use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong while reading a trace or configuring a generator.
///
/// Input errors name the file, the 1-based line and the field to blame when they are known, and
/// display as `FILE:LINE: field `NAME`: message` (parts that are unknown are left out). I/O
/// errors display as `FILE: <io error>`.
#[derive(Debug)]
#[non_exhaustive]
pub struct WorkloadError {
    /// The file (or a description such as `<generator>`).
    pub file: PathBuf,
    /// 1-based line number, when the input is line-oriented (JSON inputs give the line on which
    /// the offending record starts).
    pub line: Option<u64>,
    /// The field (column) to blame, when one is.
    pub field: Option<String>,
    /// What was wrong.
    pub message: String,
    /// The underlying I/O error, for failures to open or read the file.
    pub io: Option<std::io::Error>,
}

impl WorkloadError {
    /// A bad-input error at `file:line`, field `field`.
    pub fn input(
        file: impl Into<PathBuf>,
        line: Option<u64>,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        WorkloadError {
            file: file.into(),
            line,
            field: field.map(str::to_owned),
            message: escape_controls(message.into()),
            io: None,
        }
    }

    /// An I/O failure on `file`.
    pub fn io(file: impl Into<PathBuf>, source: std::io::Error) -> Self {
        WorkloadError {
            file: file.into(),
            line: None,
            field: None,
            message: source.to_string(),
            io: Some(source),
        }
    }

    /// A bad generator or option value (not tied to a file); the file shows as `<config>`.
    pub fn config(message: impl Into<String>) -> Self {
        Self::input("<config>", None, None, message)
    }

    /// Whether this is an I/O failure rather than bad content.
    pub fn is_io(&self) -> bool {
        self.io.is_some()
    }

    /// Shorthand used by the readers.
    pub(crate) fn at(origin: &Path, line: u64, field: &str, message: impl Into<String>) -> Self {
        Self::input(origin, Some(line), Some(field), message)
    }
}

/// Trace text echoed in a message may hold control bytes (an ANSI escape, a NUL): they are
/// escaped, so that an error cannot drive the terminal.
fn escape_controls(message: String) -> String {
    if !message
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return message;
    }
    message
        .chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            c if c.is_control() => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for WorkloadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.io
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
