//! Fuzz the Gavel TSV reader (with a one-entry throughput table): it must never panic, and every
//! job it returns is one the engine can replay.
#![no_main]

use blox_workload::{parse_gavel, GavelThroughputs, ReadOptions, MAX_TRACE_SECONDS};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let mut table = GavelThroughputs::new();
    table.insert("v100", "A", 1, 1.0);
    for skip in [false, true] {
        let opts = ReadOptions::default().with_skip_bad_lines(skip);
        if let Ok(r) = parse_gavel(data, Path::new("fuzz"), &table, &opts) {
            for j in &r.jobs {
                assert!(j.n_gpus >= 1 && j.work_s.is_finite() && j.work_s > 0.0);
                assert!(j.work_s <= MAX_TRACE_SECONDS);
                assert!(j.arrival.as_secs_f64() <= MAX_TRACE_SECONDS);
                assert!(j
                    .deadline
                    .is_none_or(|d| d.as_secs_f64() <= MAX_TRACE_SECONDS));
            }
        }
    }
});
