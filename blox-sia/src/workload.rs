//! Sia's workloads (`workloads/{philly,saturn,newtrace,scale/*}/workload-N.csv`, §8): header
//! `name,time,application,num_replicas,batch_size`, arrival times integers (philly), `x.0`
//! (saturn) or 6-decimal floats (newtrace).

use std::path::{Path, PathBuf};

use blox_pollux::TraceError;

/// One job of a Sia workload.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SiaWorkloadJob {
    /// The job's name, e.g. `cifar10-0` (the run table's `source_id`).
    pub name: String,
    /// Arrival, seconds from the start (may carry a fraction).
    pub time: f64,
    /// The model it trains.
    pub application: String,
    /// The TunedJobs GPU count (Gavel's fixed count).
    pub num_replicas: u32,
    /// The TunedJobs total batch: Gavel's fixed batch, and the max batch of Sia's goodput
    /// estimates (§5.1).
    pub batch_size: u64,
    /// The 1-based line in the file.
    pub line: usize,
}

/// Read a Sia workload file.
pub fn read_sia_workload(path: &Path) -> Result<Vec<SiaWorkloadJob>, TraceError> {
    let text = std::fs::read_to_string(path).map_err(|e| TraceError {
        path: path.to_path_buf(),
        line: 0,
        message: format!("cannot read: {e}"),
    })?;
    parse_sia_workload(path, &text)
}

/// Parse Sia workload text (`path` names it in errors).
pub fn parse_sia_workload(path: &Path, text: &str) -> Result<Vec<SiaWorkloadJob>, TraceError> {
    let err = |line: usize, message: String| TraceError {
        path: PathBuf::from(path),
        line,
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hl, header)) = lines.next() else {
        return Err(err(0, "empty file (expected a header line)".into()));
    };
    let header: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            err(
                hl,
                format!("missing column `{name}` (Sia's header is name,time,application,num_replicas,batch_size)"),
            )
        })
    };
    let (cn, ct, ca, cr, cb) = (
        col("name")?,
        col("time")?,
        col("application")?,
        col("num_replicas")?,
        col("batch_size")?,
    );
    // Sia's optional job categories (SIA-SEMANTICS §4.5): only `adaptive` (the default, and
    // every shipped workload) is built; `rigid` and `scale-gpus` are refused, not run as
    // adaptive jobs.
    let category = header.iter().position(|h| *h == "category");
    let mut names = std::collections::HashSet::new();
    let mut out: Vec<SiaWorkloadJob> = Vec::new();
    for (line, l) in lines {
        let fields: Vec<&str> = l.split(',').map(str::trim).collect();
        let field = |c: usize, name: &str| {
            fields
                .get(c)
                .copied()
                .ok_or_else(|| err(line, format!("missing field `{name}`")))
        };
        let int = |c: usize, name: &str| -> Result<u64, TraceError> {
            let s = field(c, name)?;
            s.parse::<u64>()
                .ok()
                .or_else(|| {
                    s.parse::<f64>()
                        .ok()
                        .filter(|v| v.fract() == 0.0 && *v >= 1.0 && *v < 9.0e15)
                        .map(|v| v as u64)
                })
                .filter(|&v| v >= 1)
                .ok_or_else(|| {
                    err(
                        line,
                        format!("field `{name}`: `{s}` is not a positive integer"),
                    )
                })
        };
        let name = field(cn, "name")?;
        if name.is_empty() {
            return Err(err(line, "field `name` is empty".into()));
        }
        if let Some(c) = category {
            let cat = fields.get(c).copied().unwrap_or("");
            if !(cat.is_empty() || cat == "adaptive") {
                return Err(err(
                    line,
                    format!(
                        "field `category`: `{cat}` is not supported (Sia's `rigid` and \
                         `scale-gpus` jobs are not built; `adaptive`, the default, is)"
                    ),
                ));
            }
        }
        if !names.insert(name) {
            return Err(err(
                line,
                format!("field `name`: `{name}` repeats an earlier job"),
            ));
        }
        let ts = field(ct, "time")?;
        let time = ts
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t >= 0.0 && *t < 1.0e12)
            .ok_or_else(|| {
                err(
                    line,
                    format!("field `time`: `{ts}` is not a time in seconds (0 to 1e12)"),
                )
            })?;
        let application = field(ca, "application")?;
        if application.is_empty() {
            return Err(err(line, "field `application` is empty".into()));
        }
        let num_replicas = int(cr, "num_replicas")?;
        if num_replicas > 4096 {
            return Err(err(
                line,
                format!("field `num_replicas`: {num_replicas} is above 4096"),
            ));
        }
        out.push(SiaWorkloadJob {
            name: name.to_string(),
            time,
            application: application.to_string(),
            num_replicas: num_replicas as u32,
            batch_size: int(cb, "batch_size")?,
            line,
        });
    }
    Ok(out)
}
