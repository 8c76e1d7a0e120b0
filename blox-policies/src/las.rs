use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Least attained service: ascending `(priority, attained GPU-seconds)` (Nuyens & Wierman 2008;
/// Blox `schedulers/las.py` with service weighed by GPUs).
///
/// The key is [`Job::attained_gpu_s`](blox_core::Job::attained_gpu_s), so a job on many GPUs ages
/// faster. Blox's own version (wall-clock seconds, whatever the GPU count) is `blox_original::BloxLas`. Ties:
/// lowest id, so among equals the oldest admitted job goes first. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Las {
    buf: KeyBuf,
}

impl SchedulingPolicy for Las {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, |j| j.attained_gpu_s);
    }

    fn name(&self) -> String {
        "las".into()
    }
}
