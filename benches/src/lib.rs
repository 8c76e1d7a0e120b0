//! # blox-benches
//!
//! Criterion benchmarks of the Blox toolkit (unpublished). Run them all with
//! `cargo bench -p blox-benches` (a few minutes on 2 cores), one file with
//! `cargo bench -p blox-benches --bench engine`, or a quick check with `-- --quick`.
//!
//! | bench | what it measures |
//! |---|---|
//! | `engine` | whole simulator runs: Blox's README configuration (throughput in simulated rounds), LAS at load 8 under heavy preemption, and static vs boxed dispatch |
//! | `components` | one round of `Fifo`/`Las`/`Srtf` `schedule` at 100 to 10,000 active jobs, and of `Scattered` `place` on 64 to 4,096 GPUs |
//!
//! The benchmarks live in `benches/`; this library is empty.
