//! `bloxsim._native`: the Rust side of the `bloxsim` Python package (pyo3).
//!
//! The Python package (`python/bloxsim/`) is the public API; this module gives it
//! scenarios run by the Rust simulator exactly as the `blox-sim` command line runs them, and
//! lets Python objects act as scheduling, placement and admission components.
//!
//! | module | what |
//! |---|---|
//! | `api` | every import of the blox Rust crates (the one place to change if they move) |
//! | `context` | what a Python component sees (`Context`, `Job`, `Queue`) |
//! | `components` | Python objects as `blox_core` components, registered in a `Registry` |
//! | `settings` | keyword arguments as `RunSettings` (the CLI's flags), runs under every semantics |
//! | `runs` | the engine's report, sweep with progress, recorded runs, trace reading |
//! | `remote` | one sweep run as a task for any executor, and the merge after |
//! | `errors` | Rust errors as `bloxsim` exceptions |

mod api;
mod components;
mod context;
mod errors;
mod remote;
mod runs;
mod settings;

use pyo3::prelude::*;

/// The Rust side of `bloxsim`: use the `bloxsim` package, not this module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A Python component's exception stops a run by unwinding through the engine
    // (`components`); built with `panic = "abort"` (the workspace's `release` profile), it would
    // end the Python process instead. The build succeeds (`cargo build --release --workspace`);
    // the import says what to do.
    if cfg!(panic = "abort") {
        return Err(pyo3::exceptions::PyImportError::new_err(
            "bloxsim._native was built with panic = \"abort\" (cargo's `--release` profile in this \
             workspace); bloxsim needs unwinding: build it with the `python-release` profile, \
             pyproject.toml's default (`pip install ./python`, or MATURIN_PEP517_ARGS=\"--profile \
             python-release\")",
        ));
    }
    m.add_class::<context::Context>()?;
    m.add_class::<context::JobView>()?;
    m.add_class::<context::Queue>()?;
    m.add_class::<runs::Report>()?;
    m.add_class::<runs::SweepHandle>()?;
    m.add_class::<settings::PeerReport>()?;
    m.add_function(wrap_pyfunction!(settings::run_settings, m)?)?;
    m.add_function(wrap_pyfunction!(settings::run_settings_many, m)?)?;
    m.add_function(wrap_pyfunction!(settings::settings_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(settings::settings_json, m)?)?;
    m.add_function(wrap_pyfunction!(settings::write_comparison_of, m)?)?;
    m.add_function(wrap_pyfunction!(runs::check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(runs::component, m)?)?;
    m.add_function(wrap_pyfunction!(runs::scenario_from_file, m)?)?;
    m.add_function(wrap_pyfunction!(runs::plan_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(runs::start_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(remote::sweep_task, m)?)?;
    m.add_function(wrap_pyfunction!(remote::merge_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(runs::record, m)?)?;
    m.add_function(wrap_pyfunction!(runs::read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(runs::stock_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(runs::validate_decisions, m)?)?;
    m.add_function(wrap_pyfunction!(runs::parse_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(context::make_context, m)?)?;
    m.add("JOB_COLUMNS", context::JOB_COLUMNS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
