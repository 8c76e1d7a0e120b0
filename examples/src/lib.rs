//! # blox-examples
//!
//! Small programs a researcher copies: each composes a scheduler from Blox components, runs it
//! in the simulator and ends with assertions on the results, so CI catches any change of
//! behaviour. Run one with `cargo run -p blox-examples --example NAME` (add `--release` for
//! speed; every example also finishes within seconds in a debug build).
//!
//! | example | what it shows |
//! |---|---|
//! | `compose` | the README example: `Pipeline::new(LoadBased, Las, Scattered)` simulated on Blox's default workload; summary statistics; determinism |
//! | `custom_policy` | a new scheduling policy written against `blox-core` alone (smallest GPU demand first), compared with FIFO on an inline trace |
//! | `admission_study` | LAS behind load-based admission at 1.0, 1.2, 1.4, 1.5 and accept-all at load 8 (Blox, EuroSys'24, Fig. 12) |
//! | `static_vs_boxed` | the same scheduler composed statically, boxed from configuration names, and run as a `Scenario`: byte-identical `jobs.csv` |
//!
//! The examples are self-contained, so this library is empty.
