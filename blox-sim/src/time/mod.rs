//! Time models: how a run advances time, credits progress and decides when to schedule.

pub mod tiresias;
