//! Blox's own scheduling policies, where Blox's code differs from the definitions: the `blox`
//! preset's `las`, `tiresias`, `srtf` and `optimus`.

use blox_core::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Job, Schedule, SchedulingPolicy};

/// Blox's LAS exactly (`schedulers/las.py`): ascending `(priority, attained wall-clock seconds)`,
/// whatever the GPU count; the `blox` preset's `las` and `tiresias` (Blox's Tiresias is exactly
/// this order).
///
/// The key is [`Job::attained_wall_s`](blox_core::Job::attained_wall_s). Ties: lowest id. Cost
/// per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct BloxLas {
    buf: KeyBuf,
}

impl SchedulingPolicy for BloxLas {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, |j| j.attained_wall_s);
    }

    fn name(&self) -> String {
        "las".into()
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
pub fn blox_srtf_key(j: &Job) -> f64 {
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
