//! Pollux workloads (`workloads*/workload-N.csv`) and the applications they name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::trace::{Application, Csv, TraceError};

/// One row of a workload: `name,time,application,num_replicas,batch_size`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WorkloadJob {
    /// The job's name, e.g. `cifar10-0`.
    pub name: String,
    /// Arrival in seconds from the start.
    pub time: i64,
    /// The application's name.
    pub application: String,
    /// The tuned GPU count (used by the baselines).
    pub num_replicas: u32,
    /// The tuned total batch size (used by the baselines, and for ncf under Pollux).
    pub batch_size: u64,
    /// The 1-based line in the workload file (for error messages).
    pub line: usize,
}

/// Read a workload file.
pub fn read_workload(path: &Path) -> Result<Vec<WorkloadJob>, TraceError> {
    let csv = Csv::read(path)?;
    parse(csv)
}

/// Parse workload text (`path` names it in errors).
pub fn parse_workload(path: &Path, text: &str) -> Result<Vec<WorkloadJob>, TraceError> {
    parse(Csv::parse(path, text)?)
}

fn parse(csv: Csv) -> Result<Vec<WorkloadJob>, TraceError> {
    let (cn, ct, ca, cr, cb) = (
        csv.col("name")?,
        csv.col("time")?,
        csv.col("application")?,
        csv.col("num_replicas")?,
        csv.col("batch_size")?,
    );
    let mut out = Vec::with_capacity(csv.rows.len());
    for (line, row) in &csv.rows {
        let time = csv.u64(*line, row, ct, "time")?;
        let num_replicas = csv.u64(*line, row, cr, "num_replicas")?;
        let batch_size = csv.u64(*line, row, cb, "batch_size")?;
        if num_replicas == 0 || num_replicas > u64::from(u32::MAX) {
            return Err(TraceError {
                path: csv.path.clone(),
                line: *line,
                message: format!("field `num_replicas`: {num_replicas} must be at least 1"),
            });
        }
        out.push(WorkloadJob {
            name: csv.field(*line, row, cn, "name")?.to_string(),
            time: time as i64,
            application: csv.field(*line, row, ca, "application")?.to_string(),
            num_replicas: num_replicas as u32,
            batch_size,
            line: *line,
        });
    }
    Ok(out)
}

/// The applications of a trace directory (`traces/` next to `workloads/`), loaded on demand.
#[derive(Debug, Default)]
pub struct Applications {
    dir: PathBuf,
    apps: BTreeMap<String, Arc<Application>>,
}

impl Applications {
    /// Applications read from `dir/<name>/`.
    pub fn new(dir: impl Into<PathBuf>) -> Applications {
        Applications {
            dir: dir.into(),
            apps: BTreeMap::new(),
        }
    }

    /// The trace directory a workload file implies: `<workload>/../../traces`.
    pub fn beside_workload(workload: &Path) -> PathBuf {
        workload
            .parent()
            .and_then(Path::parent)
            .map(|p| p.join("traces"))
            .unwrap_or_else(|| PathBuf::from("traces"))
    }

    /// The application `name`, loading it the first time.
    pub fn get(&mut self, name: &str) -> Result<Arc<Application>, TraceError> {
        if let Some(a) = self.apps.get(name) {
            return Ok(a.clone());
        }
        let dir = self.dir.join(name);
        if name.is_empty() || name.contains(['/', '\\']) || !dir.is_dir() {
            return Err(TraceError {
                path: dir,
                line: 0,
                message: format!("unknown application `{name}` (no such trace directory)"),
            });
        }
        let app = Arc::new(Application::load(&dir)?);
        self.apps.insert(name.to_string(), app.clone());
        Ok(app)
    }
}
