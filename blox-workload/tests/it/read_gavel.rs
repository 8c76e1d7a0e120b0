//! Tests of `read::gavel` (the library's `src/read/gavel.rs`) through the public API.

use blox_workload::*;
use std::path::Path;

#[test]
fn co_located_entries_are_kept_beside_the_isolated_rates() {
    let json = br#"{"k80": {"('A3C', 1)": {"null": 2.5,
        "('CycleGAN', 1)": [1.25, 0.5], "('LM (batch size 5)', 2)": [0.0, 0.0]}}}"#;
    let t = GavelThroughputs::from_json(json, Path::new("t.json")).unwrap();
    assert_eq!(t.isolated("k80", "A3C", 1), Some(2.5));
    let c = t.colocated();
    assert_eq!(c.len(), 2);
    assert_eq!(c.get("k80", "A3C", 1, "CycleGAN", 1), Some([1.25, 0.5]));
    assert_eq!(c.get("k80", "CycleGAN", 1, "A3C", 1), None);
    assert_eq!(
        c.get("k80", "A3C", 1, "LM (batch size 5)", 2),
        Some([0.0, 0.0])
    );
}
