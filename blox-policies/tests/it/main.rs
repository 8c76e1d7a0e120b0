//! blox-policies' tests through its public API, in one binary: each policy's examples and
//! property tests (proptest strategies over job tables, `testing`) and the configurations.

mod config;
mod fifo;
// Most of these solve the LP; without the `lp` feature, `config`'s tests check the refusals.
#[cfg(feature = "lp")]
mod gavel;
mod optimus;
mod sjf;
mod speedup;
mod testing;
mod themis;
mod tiresias;
