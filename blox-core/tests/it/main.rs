//! blox-core's tests through its public API, in one binary.

mod architecture;
mod cluster;
mod combinators;
mod decision;
mod float;
mod hetero;
mod rng;
mod spec;
mod time;
