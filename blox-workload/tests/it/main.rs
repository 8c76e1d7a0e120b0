//! Integration tests of blox-workload: every reader on the real files of the repository's
//! `traces/` folder (`$BLOX_TRACES` overrides it), their checksums, error paths, hand-written
//! Philly and Helios samples, generators and property tests.

mod bounds;
mod checksums;
mod errors;
mod fuzz_seeds;
mod generators;
mod props;
mod real_traces;
mod samples;

use blox_workload::{read_trace, ReadOptions, TraceFormat, TraceRead};
use std::path::PathBuf;

/// The repository's `traces/` folder, or `$BLOX_TRACES` if set.
pub fn traces_dir() -> PathBuf {
    match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    }
}

/// A file of the trace folder, which must exist (a missing file fails the test, naming it).
pub fn trace(rel: &str) -> PathBuf {
    let p = traces_dir().join(rel);
    assert!(
        p.is_file(),
        "trace file {} is missing (BLOX_TRACES={:?})",
        p.display(),
        std::env::var_os("BLOX_TRACES")
    );
    p
}

/// Reads `rel` with default options (no skipping), panicking with the error's message.
pub fn read(rel: &str, format: TraceFormat) -> TraceRead {
    let p = trace(rel);
    read_trace(&p, format, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}
mod error;
mod read;
mod read_datetime;
mod read_gavel;
mod stats;
mod zoo;
