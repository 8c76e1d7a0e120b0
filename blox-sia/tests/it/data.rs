//! The Sia artifact's data for the tests that need it: the folder `BLOX_SIA_DATA` names (CI
//! points it at `../shared/traces/sia`). The data has no licence and is never in the
//! repository; without it those tests say by name that they did not run.

use std::path::PathBuf;

/// The data folder (with `traces/`), or `None` after printing that `test` did not run.
/// `test.sh` lists these tests after the Rust tests when the variable is unset, so the skip is
/// visible even though `cargo test` captures this line. A variable naming a folder without
/// `traces/` fails the test.
pub(crate) fn sia_data(test: &str) -> Option<PathBuf> {
    match std::env::var_os("BLOX_SIA_DATA") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            assert!(
                d.join("traces").join("cifar10").is_dir(),
                "BLOX_SIA_DATA={} has no traces/cifar10/ (see docs/data.md)",
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

/// [`sia_data`] for the tests that also read the original's logs (`test-vector-logs/`, made
/// by the project from the unmodified original, not part of the fetched data).
pub(crate) fn sia_logs(test: &str) -> Option<PathBuf> {
    let d = sia_data(test)?;
    if d.join("test-vector-logs").is_dir() {
        Some(d)
    } else {
        eprintln!(
            "{test}: NOT RUN ({} has no test-vector-logs/; see docs/data.md)",
            d.display()
        );
        None
    }
}
