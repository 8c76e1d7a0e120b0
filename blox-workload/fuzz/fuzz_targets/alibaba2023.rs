//! Fuzz the `alibaba2023` reader (gzip included: inputs starting with 1f 8b are inflated): it must
//! never panic, with or without skipping bad lines.
#![no_main]

use blox_workload::{parse_trace, ReadOptions, TraceFormat, MAX_TRACE_SECONDS};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    for skip in [false, true] {
        let opts = ReadOptions::default().with_skip_bad_lines(skip);
        if let Ok(r) = parse_trace(data, Path::new("fuzz"), TraceFormat::Alibaba2023, &opts) {
            for j in &r.jobs {
                assert!(j.n_gpus >= 1 && j.work_s.is_finite() && j.work_s > 0.0);
                // Every time is one the engine can replay (see MAX_TRACE_SECONDS).
                assert!(j.work_s <= MAX_TRACE_SECONDS);
                assert!(j.arrival.as_secs_f64() <= MAX_TRACE_SECONDS);
            }
        }
    }
});
