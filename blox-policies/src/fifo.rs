use blox_core::order::{order_by_row, order_rows, KeyBuf};
use blox_core::{Ctx, JobRow, Schedule, SchedulingPolicy};

/// First in, first out: ascending `(priority, arrival)` (Blox `schedulers/fifo.py`).
///
/// `priority` is the starvation class the engine keeps (Blox's `job_priority`). Ties: lowest id.
/// Cost per round: O(n log n) in active jobs; O(n) when they arrived in id order (the usual
/// case), and only the jobs from the first one that does not run on what it asked for when its
/// placement skips settled entries ([`SchedulingPolicy::schedule_unsettled`]).
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    buf: KeyBuf,
}

impl SchedulingPolicy for Fifo {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        order_by_row(ctx, &mut self.buf, out, key);
    }

    fn schedule_unsettled(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let jobs = ctx.jobs;
        if !jobs.in_arrival_order() {
            return self.schedule(ctx, out);
        }
        // Id order is FIFO's order: the settled prefix leads it, and the rest follows in id
        // order.
        order_rows(
            jobs.rows_from(jobs.settled_prefix()),
            &mut self.buf,
            out,
            key,
        );
    }

    fn name(&self) -> String {
        "fifo".into()
    }

    fn reads_progress(&self) -> bool {
        false
    }
}

/// FIFO's key: the arrival.
#[inline]
fn key(r: &JobRow) -> f64 {
    r.arrival.as_millis() as f64
}
