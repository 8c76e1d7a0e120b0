//! Integration tests of blox-pollux on the artifact's data in the repository's trace folder
//! (`traces/pollux`, or `$BLOX_TRACES/pollux` when that variable is set).

mod baselines;
mod model;

use std::path::{Path, PathBuf};

/// The Pollux data folder; panics naming the path if it is missing.
pub fn pollux_dir() -> PathBuf {
    let base = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../traces")),
    };
    let p = base.join("pollux");
    assert!(
        p.is_dir(),
        "trace folder {} is missing (BLOX_TRACES={:?})",
        p.display(),
        std::env::var_os("BLOX_TRACES")
    );
    p
}

/// The published per-job JCTs of `results-<dir>/<run>/summary.json` for `workload`.
pub fn published(dir: &Path, run: &str, workload: u32) -> Vec<(String, i64)> {
    let path = dir.join(run).join("summary.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let jcts = v["jcts"][format!("workload-{workload}")]
        .as_object()
        .expect("jcts");
    let mut out: Vec<(String, i64)> = jcts
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap().round() as i64))
        .collect();
    out.sort();
    out
}
