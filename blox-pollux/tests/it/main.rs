//! Integration tests of blox-pollux on the artifact's data in the shared trace folder
//! (`$BLOX_TRACES/pollux`, else `../../shared/traces/pollux` from the crate directory).

mod baselines;
mod model;

use std::path::{Path, PathBuf};

/// The Pollux data folder, or `None` (with a note) when the shared traces are absent.
pub fn pollux_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("BLOX_TRACES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces"),
    };
    let p = base.join("pollux");
    if p.is_dir() {
        Some(p)
    } else {
        assert!(
            std::env::var_os("BLOX_TRACES").is_none(),
            "BLOX_TRACES is set but {} is missing",
            p.display()
        );
        eprintln!(
            "note: {} does not exist: skipping Pollux data tests",
            p.display()
        );
        None
    }
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
