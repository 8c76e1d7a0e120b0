//! The canonical job CSV, read by `blox-workload`'s reader (this module keeps the names blox-sim
//! has always had).

use crate::SimError;
use blox_core::JobSpec;
use blox_workload::{ReadOptions, TraceFormat};
use std::path::Path;

/// Read a canonical job CSV from a file. See [`parse_canonical_csv`] for the format.
pub fn read_canonical_csv(path: &Path) -> Result<Vec<JobSpec>, SimError> {
    Ok(blox_workload::read_trace(path, TraceFormat::Canonical, &ReadOptions::default())?.jobs)
}

/// Parse a canonical job CSV. `origin` names the input in error messages.
///
/// The first row is a header naming the columns, in any order: `job_id` (any text, kept as
/// `source_id`), `arrival_s` (seconds ≥ 0, kept to the ms), `n_gpus` (≥ 1), `duration_s` (run
/// time on `n_gpus` GPUs at full speed, > 0) and optionally `model`. Other columns are ignored;
/// blank lines are skipped; CRLF is accepted; gzipped input is read transparently. Any bad value
/// is an error naming the file, line and field.
pub fn parse_canonical_csv(bytes: &[u8], origin: &Path) -> Result<Vec<JobSpec>, SimError> {
    Ok(blox_workload::parse_trace(
        bytes,
        origin,
        TraceFormat::Canonical,
        &ReadOptions::default(),
    )?
    .jobs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::Time;

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
        assert_eq!(jobs[1].source_id.as_deref(), Some("b"));
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,0,1,10\nb,5,zero,10\n").unwrap_err();
        assert!(e.starts_with("jobs.csv:3: field `n_gpus`"), "{e}");
        let e = parse("job_id,arrival_s,n_gpus\na,0,1\n").unwrap_err();
        assert!(e.starts_with("jobs.csv:1: field `duration_s`"), "{e}");
        let e = parse("job_id,arrival_s,n_gpus,duration_s\na,0,1,NaN\n").unwrap_err();
        assert!(e.contains("field `duration_s`"), "{e}");
    }
}
