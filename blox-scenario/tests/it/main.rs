//! Integration tests of blox-scenario, in one test binary (one link of the engine's stack).

mod model;
mod peer_components;
mod registry;
mod settings_from;
mod sim_config;
