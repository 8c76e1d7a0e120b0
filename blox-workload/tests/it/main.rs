//! Integration tests of blox-workload: every reader on the real files of the shared trace
//! folder (`$BLOX_TRACES`), error paths, hand-written Philly and Helios samples, generators and
//! property tests.

mod bounds;
mod checksums;
mod errors;
mod fuzz_seeds;
mod generators;
mod props;
mod real_traces;
mod samples;

use blox_workload::{read_trace, ReadOptions, TraceFormat, TraceRead};
use std::path::{Path, PathBuf};

/// The shared trace folder: `$BLOX_TRACES` if set, else `../../shared/traces` from the crate
/// directory. `None` (with a printed note) only when the variable is unset and the fallback is
/// absent.
pub fn traces_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("BLOX_TRACES") {
        return Some(PathBuf::from(d));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "note: BLOX_TRACES is unset and {} does not exist: skipping real-trace tests",
            p.display()
        );
        None
    }
}

/// A file of the trace folder, which must exist when the folder is known (a missing file
/// fails the test, also when `BLOX_TRACES` points at the wrong place).
pub fn trace(rel: &str) -> Option<PathBuf> {
    let p = traces_dir()?.join(rel);
    assert!(
        p.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        p.display(),
        std::env::var_os("BLOX_TRACES")
    );
    Some(p)
}

/// Reads `rel` with default options (no skipping), panicking with the error's message.
pub fn read(rel: &str, format: TraceFormat) -> Option<TraceRead> {
    let p = trace(rel)?;
    Some(read_trace(&p, format, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}
