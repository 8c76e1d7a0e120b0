//! A scheduling policy in its own crate, written against `blox-core` alone: shortest remaining
//! *service* first (remaining work × GPUs, the SRSF of the Tiresias paper), starved jobs first,
//! ties by the lowest id.
//!
//! ```
//! use blox_core::SchedulingPolicy;
//! assert_eq!(my_blox_policy::Srsf::default().name(), "srsf");
//! ```

use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Shortest remaining service first: ascending `(starvation class, remaining work × GPUs, id)`.
#[derive(Clone, Debug, Default)]
pub struct Srsf {
    buf: KeyBuf,
}

impl SchedulingPolicy for Srsf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        // The core's sort: starvation class, then the key (floats compared totally), then id.
        order_by_key(ctx, &mut self.buf, out, |j| {
            j.remaining_work() * f64::from(j.n_gpus())
        });
    }

    fn name(&self) -> String {
        "srsf".into()
    }
}
