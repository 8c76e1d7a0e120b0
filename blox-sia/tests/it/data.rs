//! The Sia artifact's data for the tests that need it: the folder `BLOX_SIA_DATA` names (CI
//! points it at `../shared/traces/sia`). The data has no licence and is never in the
//! repository; without it those tests say by name that they did not run.

use std::path::PathBuf;

/// The data folder, or `None` after printing that `test` did not run. `test.sh` prints the
/// list of these tests beside the summary when the variable is unset, so the skip is visible
/// even though `cargo test` captures this line.
pub(crate) fn sia_data(test: &str) -> Option<PathBuf> {
    match std::env::var_os("BLOX_SIA_DATA") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            assert!(
                d.join("traces").is_dir() && d.join("test-vector-logs").is_dir(),
                "BLOX_SIA_DATA={} has no traces/ and test-vector-logs/ (see docs/data.md)",
                d.display()
            );
            Some(d)
        }
        _ => {
            eprintln!("{test}: NOT RUN (BLOX_SIA_DATA is unset; see docs/data.md)");
            None
        }
    }
}
