use super::SynergyOrder;
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Synergy's FIFO (`fifo_synergy_new.py`): ascending arrival time, all jobs listed (so a job
/// Greedy skips does not block later ones). No starvation priority in the key.
///
/// Ties: the previous round's order (Synergy's in-place stable sort). Cost per round:
/// O(n log n).
#[derive(Clone, Debug, Default)]
pub struct SynergyFifo {
    order: SynergyOrder,
}

impl SchedulingPolicy for SynergyFifo {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        self.order
            .sort(ctx, false, |j| j.spec.arrival.as_secs_f64(), out);
    }

    fn name(&self) -> String {
        "synergy-fifo".into()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{job, order};
    use super::*;
    use blox_core::JobTable;

    #[test]
    fn arrival_order() {
        let mut t = JobTable::new();
        t.push(job(0, 50, 10, 1.0, 0, 1));
        t.push(job(1, 10, 10, 1.0, 0, 1));
        t.push(job(2, 30, 10, 1.0, 0, 1));
        assert_eq!(order(&mut SynergyFifo::default(), &t, 300), vec![1, 2, 0]);
    }
}
