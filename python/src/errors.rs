//! Rust errors as the Python exceptions of `bloxsim._errors`.

use crate::api::SimError;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// An instance of `bloxsim._errors.<class>` with message `msg` and the given attributes, as a
/// `PyErr` (a `RuntimeError` if the Python package cannot be imported).
pub(crate) fn new_error(
    py: Python<'_>,
    class: &str,
    msg: &str,
    attrs: &[(&str, Option<Py<PyAny>>)],
) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("bloxsim._errors")?.getattr(class)?;
        let e = cls.call1((msg,))?;
        for (k, v) in attrs {
            if let Some(v) = v {
                e.setattr(*k, v)?;
            }
        }
        Ok(PyErr::from_value(e))
    })();
    made.unwrap_or_else(|_| PyRuntimeError::new_err(msg.to_string()))
}

/// The Python exception for a simulator error: `ConfigError` (a bad setting or input file;
/// `InputError` when it names a file), `StalledError`, `InvalidDecisionError` or
/// `BloxIOError`.
pub(crate) fn sim_error(py: Python<'_>, e: &SimError) -> PyErr {
    sim_error_with(py, e, &e.to_string())
}

/// [`sim_error`] with the message `msg` (e.g. the error's, its flags written as keywords).
pub(crate) fn sim_error_with(py: Python<'_>, e: &SimError, msg: &str) -> PyErr {
    let class = match e {
        SimError::Input { .. } => "InputError",
        SimError::Config(_) => "ConfigError",
        SimError::InvalidDecision { .. } => "InvalidDecisionError",
        SimError::Stalled(_) => "StalledError",
        SimError::Io { .. } => "BloxIOError",
        _ => "SimulationError",
    };
    new_error(py, class, msg, &[])
}

/// A configuration error with a message.
pub(crate) fn config_error(py: Python<'_>, msg: &str) -> PyErr {
    new_error(py, "ConfigError", msg, &[])
}
