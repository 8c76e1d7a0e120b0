//! Integration tests of blox-synergy: Synergy's time model with its placement mechanisms and
//! scheduling keys, against SYNERGY-SEMANTICS.md.

mod config;
mod placement;
mod report;
mod synergy;
mod workload;
mod zoo;
