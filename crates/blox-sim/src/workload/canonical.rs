//! The canonical job CSV: `job_id,arrival_s,n_gpus,duration_s` plus an optional `model`.

use crate::SimError;
use blox_core::{JobSpec, Time};
use std::path::Path;
use std::sync::Arc;

const REQUIRED: [&str; 4] = ["job_id", "arrival_s", "n_gpus", "duration_s"];

/// Read a canonical job CSV from a file. See [`parse_canonical_csv`] for the format.
pub fn read_canonical_csv(path: &Path) -> Result<Vec<JobSpec>, SimError> {
    let bytes = std::fs::read(path).map_err(|e| SimError::io(path, e))?;
    parse_canonical_csv(&bytes, path)
}

/// Parse a canonical job CSV. `origin` names the input in error messages.
///
/// The first row is a header naming the columns, in any order:
///
/// | column | meaning |
/// |---|---|
/// | `job_id` | the job's name in your data (any text; kept as `source_id`) |
/// | `arrival_s` | submission time, seconds from the start (≥ 0; fractions allowed, kept to the ms) |
/// | `n_gpus` | GPUs requested (a whole number ≥ 1) |
/// | `duration_s` | run time on `n_gpus` GPUs at full speed, seconds (> 0) |
/// | `model` (optional) | model name, e.g. `resnet50` |
///
/// Other columns are ignored. Blank lines are skipped; CRLF line ends are accepted. Jobs may
/// come in any order: the workload replays them by arrival, keeping file order among equal
/// arrivals. Any bad value is an error naming the file, line and field.
pub fn parse_canonical_csv(bytes: &[u8], origin: &Path) -> Result<Vec<JobSpec>, SimError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes);
    let headers = rdr
        .headers()
        .map_err(|e| SimError::input(origin, Some(1), None, format!("unreadable header: {e}")))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.trim() == name);
    let mut idx = [0usize; 4];
    for (slot, name) in idx.iter_mut().zip(REQUIRED) {
        *slot = col(name).ok_or_else(|| {
            SimError::input(
                origin,
                Some(1),
                Some(name),
                format!(
                    "missing column `{name}` in the header (a canonical job CSV needs {})",
                    REQUIRED.join(",")
                ),
            )
        })?;
    }
    let model_col = col("model");
    let mut jobs = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let line = rdr.position().line() + 1;
        match rdr.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                return Err(SimError::input(
                    origin,
                    Some(line),
                    None,
                    format!("unreadable row: {e}"),
                ))
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let field = |i: usize, name: &str| -> Result<&str, SimError> {
            record
                .get(i)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .ok_or_else(|| SimError::input(origin, Some(line), Some(name), "missing value"))
        };
        let bad = |name: &str, v: &str, what: &str| {
            SimError::input(
                origin,
                Some(line),
                Some(name),
                format!("`{v}` is not {what}"),
            )
        };
        let id = field(idx[0], "job_id")?;
        let arrival_raw = field(idx[1], "arrival_s")?;
        let arrival = arrival_raw
            .parse::<f64>()
            .ok()
            .and_then(Time::from_secs_f64_ceil)
            .ok_or_else(|| bad("arrival_s", arrival_raw, "a time in seconds ≥ 0"))?;
        let gpus_raw = field(idx[2], "n_gpus")?;
        let n_gpus = gpus_raw
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| bad("n_gpus", gpus_raw, "a whole number of GPUs ≥ 1"))?;
        let dur_raw = field(idx[3], "duration_s")?;
        let work_s = dur_raw
            .parse::<f64>()
            .ok()
            .filter(|d| d.is_finite() && *d > 0.0)
            .ok_or_else(|| bad("duration_s", dur_raw, "a duration in seconds > 0"))?;
        let mut spec = JobSpec::new(arrival, n_gpus, work_s);
        spec.source_id = Some(Arc::from(id));
        if let Some(m) = model_col.and_then(|c| record.get(c)).map(str::trim) {
            if !m.is_empty() {
                spec.model = Some(Arc::from(m));
            }
        }
        jobs.push(spec);
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<JobSpec>, String> {
        parse_canonical_csv(s.as_bytes(), Path::new("jobs.csv")).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_columns_in_any_order_with_crlf() {
        let jobs = parse("n_gpus,job_id,duration_s,arrival_s,model\r\n2,a,100.5,10,resnet50\r\n\r\n1,b,7,0.25,\r\n").unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].n_gpus, 2);
        assert_eq!(jobs[0].arrival, Time::from_secs(10));
        assert_eq!(jobs[0].work_s, 100.5);
        assert_eq!(jobs[0].model.as_deref(), Some("resnet50"));
        assert_eq!(jobs[1].arrival, Time(250));
        assert_eq!(jobs[1].model, None);
        assert_eq!(jobs[1].source_id.as_deref(), Some("b"));
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,0,1,10\nb,5,zero,10\n").unwrap_err();
        assert_eq!(
            e,
            "jobs.csv:3: field `n_gpus`: `zero` is not a whole number of GPUs ≥ 1"
        );
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,-3,1,10\n").unwrap_err();
        assert!(e.starts_with("jobs.csv:2: field `arrival_s`"), "{e}");
        let e = parse("job_id,arrival_s,n_gpus\na,0,1\n").unwrap_err();
        assert!(
            e.starts_with("jobs.csv:1: field `duration_s`: missing column"),
            "{e}"
        );
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,0,1\n").unwrap_err();
        assert_eq!(e, "jobs.csv:2: field `duration_s`: missing value");
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,0,1,NaN\n").unwrap_err();
        assert!(e.contains("field `duration_s`"), "{e}");
    }
}
