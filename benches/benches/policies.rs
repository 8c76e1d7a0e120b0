//! Criterion benchmarks of the policies (being built).
fn main() {}
