//! Fuzz the Gavel TSV reader (with a one-entry throughput table): it must never panic.
#![no_main]

use blox_workload::{parse_gavel, GavelThroughputs, ReadOptions};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let mut table = GavelThroughputs::new();
    table.insert("v100", "A", 1, 1.0);
    for skip in [false, true] {
        let opts = ReadOptions::default().with_skip_bad_lines(skip);
        let _ = parse_gavel(data, Path::new("fuzz"), &table, &opts);
    }
});
