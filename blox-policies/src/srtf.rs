use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Shortest remaining time first, with oracle knowledge of each job's service demand.
///
/// Key, ascending after the starvation class: the remaining work, `work − executed`, in seconds
/// at full speed. Blox's own version is `blox_original::BloxSrtf`. Ties: lowest id. Cost per round:
/// O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Srtf {
    buf: KeyBuf,
}

impl SchedulingPolicy for Srtf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, |j| j.spec.work_s - j.executed);
    }

    fn name(&self) -> String {
        "srtf".into()
    }
}
