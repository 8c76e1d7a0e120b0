//! Time models other than the engine's built-in `blox` and `exact` semantics.
//!
//! | model | what differs |
//! |---|---|
//! | [`synergy`] | Synergy's simulator (OSDI 2022): 300 s rounds, every lease ends each round and everything is re-decided, progress credited in whole iterations at allocation, completion at the round end |

pub mod synergy;
