use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Job, Schedule, SchedulingPolicy};

/// Shortest remaining time first, with oracle knowledge of each job's service demand.
///
/// Key, ascending after the starvation class: the remaining work, `work − executed`, in seconds
/// at full speed. [`BloxSrtf`] is Blox's own version. Ties: lowest id. Cost per round:
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

/// Blox's SRTF exactly (`schedulers/srtf.py`): remaining = iteration time × total iterations −
/// attained wall-clock service, `work − attained_wall_s`, exactly as Blox computes it (so a job
/// that progresses faster than one second of work per second keeps a key that overstates its
/// remaining time); the `blox` preset's `srtf`.
///
/// Ties: lowest id. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct BloxSrtf {
    buf: KeyBuf,
}

/// Blox's remaining-time key (see [`BloxSrtf`]).
pub(crate) fn blox_srtf_key(j: &Job) -> f64 {
    j.spec.work_s - j.attained_wall_s
}

impl SchedulingPolicy for BloxSrtf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, blox_srtf_key);
    }

    fn name(&self) -> String {
        "srtf".into()
    }
}
