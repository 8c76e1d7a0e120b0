use blox_core::order::{order_by_row, KeyBuf};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// First in, first out: ascending `(priority, arrival)` (Blox `schedulers/fifo.py`).
///
/// `priority` is the starvation class the engine keeps (Blox's `job_priority`). Ties: lowest id.
/// Cost per round: O(n log n) in active jobs.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    buf: KeyBuf,
}

impl SchedulingPolicy for Fifo {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_row(ctx, &mut self.buf, out, |r| r.arrival.as_millis() as f64);
    }

    fn name(&self) -> String {
        "fifo".into()
    }

    fn reads_progress(&self) -> bool {
        false
    }
}
