use crate::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Least attained service: ascending `(priority, attained_service)` (Blox `schedulers/las.py`).
///
/// The engine keeps attained service: wall-clock seconds of running in `blox` semantics (Blox's
/// definition, whatever the GPU count), GPU-seconds in `exact` semantics. Ties: lowest id, so
/// among equals the oldest admitted job goes first. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Las {
    buf: KeyBuf,
}

impl SchedulingPolicy for Las {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, |j| j.attained_service);
    }

    fn name(&self) -> String {
        "las".into()
    }
}
