//! blox-policies' tests through its public API, in one binary: each policy's examples and
//! property tests (proptest strategies over job tables, `testing`) and the configurations.

mod config;
mod fifo;
mod gavel;
mod optimus;
mod sjf;
mod speedup;
mod testing;
mod themis;
mod tiresias;
