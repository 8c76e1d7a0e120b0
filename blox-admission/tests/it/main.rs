//! blox-admission's tests through its public API, in one binary.

mod config;
mod load_based;
mod queue_cap;
