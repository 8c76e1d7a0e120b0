//! The fuzz targets' committed seeds (`fuzz/seeds/TARGET/`) replayed on the stable toolchain:
//! every reader takes them without panicking, and what it returns holds the targets' checks.
//! CI also fuzzes from these seeds (`fuzz/run.sh`); an input that once crashed a reader belongs
//! here too.

use blox_workload::{
    parse_gavel, parse_trace, GavelThroughputs, ReadOptions, TraceFormat, TraceRead,
    MAX_TRACE_SECONDS,
};
use std::path::Path;

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

fn check(name: &str, r: &TraceRead) {
    for j in &r.jobs {
        assert!(j.n_gpus >= 1, "{name}: {j:?}");
        assert!(j.work_s.is_finite() && j.work_s > 0.0 && j.work_s <= MAX_TRACE_SECONDS);
        assert!(
            j.arrival.as_secs_f64() <= MAX_TRACE_SECONDS,
            "{name}: {j:?}"
        );
    }
}

#[test]
fn every_reader_takes_its_seeds() {
    let mut accepted = 0;
    for (target, format) in [
        ("canonical", TraceFormat::Canonical),
        ("itp", TraceFormat::Itp),
        ("tiresias", TraceFormat::Tiresias),
        ("pollux", TraceFormat::Pollux),
        ("alibaba2023", TraceFormat::Alibaba2023),
        ("helios", TraceFormat::Helios),
        ("philly", TraceFormat::Philly),
    ] {
        for (name, bytes) in seeds(target) {
            for skip in [false, true] {
                let opts = ReadOptions::default().with_skip_bad_lines(skip);
                if let Ok(r) = parse_trace(&bytes, Path::new(&name), format, &opts) {
                    check(&name, &r);
                    accepted += usize::from(!r.jobs.is_empty());
                }
            }
        }
    }
    let mut table = GavelThroughputs::new();
    table.insert("v100", "A", 1, 1.0);
    for (name, bytes) in seeds("gavel") {
        let opts = ReadOptions::default().with_skip_bad_lines(true);
        let r = parse_gavel(&bytes, Path::new(&name), &table, &opts).unwrap();
        check(&name, &r);
        accepted += usize::from(!r.jobs.is_empty());
    }
    // The seeds are real inputs of their formats, not noise: most of them give jobs.
    assert!(accepted >= 20, "only {accepted} seed reads gave jobs");
}
