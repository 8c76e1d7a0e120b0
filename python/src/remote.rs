//! One sweep run as a small task for any executor (`bloxsim.sweep(..., executor=...)`): the
//! Python side ships `plan_sweep`'s JSON of a run to a worker process, which runs it here, and
//! merges the rows (or the output folder) in the parent.

use crate::api::{merge, run_one_with, SimError, SweepRun};
use crate::components::{guarded, ErrorSlot, Failure, PyRegs};
use crate::errors::{config_error, sim_error};
use crate::runs::sweep_row;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Arc;

/// Run one sweep run (`plan_sweep`'s JSON). With `out`, into `OUT/runs/LABEL/` as `blox-sim
/// sweep` writes it (skipped when its `run.json` is there; `run.json` last, atomically) and
/// return `None`; without, in memory, and return its row of the results table as JSON (the
/// same row a local sweep computes). The GIL is released while the simulation runs.
#[pyfunction]
#[pyo3(signature = (run, out = None, registry = None))]
pub(crate) fn sweep_task(
    py: Python<'_>,
    run: &str,
    out: Option<PathBuf>,
    registry: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<String>> {
    let run: SweepRun =
        serde_json::from_str(run).map_err(|e| config_error(py, &format!("sweep run: {e}")))?;
    let regs = PyRegs::from_dict(registry)?;
    let slot = Arc::new(ErrorSlot::default());
    let reg = if regs.is_empty() {
        crate::api::Registry::default()
    } else {
        let seed = run.scenario.as_ref().map_or(0, |s| s.seed);
        regs.registry(py, seed, &slot)
    };
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).map_err(|e| sim_error(py, &SimError::io(dir, e)))?;
    }
    let r = py.detach(|| {
        guarded(&slot, || match &out {
            Some(dir) => run_one_with(&run, dir, &reg).map(|_| None),
            None => crate::runs::engine_scenario(&run)
                .and_then(|s| s.run_with(&reg))
                .map(|rep| Some(sweep_row(&run, &rep))),
        })
    });
    match r {
        Ok(None) => Ok(None),
        Ok(Some(row)) => serde_json::to_string(&row)
            .map(Some)
            .map_err(|e| config_error(py, &e.to_string())),
        Err(Failure::Run(e)) => Err(sim_error(py, &e)),
        Err(Failure::Python(p)) => Err(p.into_pyerr(py)),
    }
}

/// Merge the finished runs of a sweep folder into `results.csv`/`results.json` (as `blox-sim
/// merge`) and return every row as JSON.
#[pyfunction]
pub(crate) fn merge_sweep(py: Python<'_>, out: PathBuf) -> PyResult<String> {
    let rows = py.detach(|| merge(&out)).map_err(|e| sim_error(py, &e))?;
    serde_json::to_string(&rows).map_err(|e| config_error(py, &e.to_string()))
}
