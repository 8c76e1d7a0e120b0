//! Criterion benchmarks of the placement (being built).
fn main() {}
