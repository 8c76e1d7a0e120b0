use crate::order::{order_by_key, KeyBuf};
use blox_core::{Ctx, Job, Schedule, SchedulingPolicy, Semantics};

/// Shortest remaining time first, with oracle knowledge of each job's service demand.
///
/// Key, ascending after the starvation class:
/// - `blox` semantics: `work − attained_service` (Blox `schedulers/srtf.py`: iteration time ×
///   total iterations − attained wall-clock service), exactly as Blox computes it;
/// - `exact` semantics: the remaining work, `work − executed`, in seconds at full speed.
///
/// Ties: lowest id. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Srtf {
    buf: KeyBuf,
}

pub(crate) fn srtf_key(semantics: Semantics) -> fn(&Job) -> f64 {
    match semantics {
        Semantics::Blox => |j| j.spec.work_s - j.attained_service,
        Semantics::Exact | Semantics::Synergy => |j| j.spec.work_s - j.executed,
    }
}

impl SchedulingPolicy for Srtf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_key(ctx, &mut self.buf, out, srtf_key(ctx.semantics));
    }

    fn name(&self) -> String {
        "srtf".into()
    }
}
