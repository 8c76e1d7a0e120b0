use super::{ideal_duration, remaining_duration, SynergyOrder};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Synergy's FTF (`ftf_synergy_new.py`, Themis-style finish-time fairness): ascending
/// `(−priority, ρ, arrival)` with ρ = `(now − arrival + remaining duration) / ideal duration`,
/// all jobs listed.
///
/// The remaining duration is [`super::SynergySrtf`]'s (divided by the last speed-up unless
/// `fair`); the ideal duration is iteration time × total iterations at the fair share. Ties:
/// the previous round's order. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct SynergyFtf {
    fair: bool,
    order: SynergyOrder,
}

impl SynergyFtf {
    /// FTF for a mechanism: `fair = true` for GPU-proportional.
    pub fn new(fair: bool) -> Self {
        SynergyFtf {
            fair,
            order: SynergyOrder::default(),
        }
    }
}

impl SchedulingPolicy for SynergyFtf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let fair = self.fair;
        let now = ctx.now.as_secs_f64();
        self.order.sort(
            ctx,
            true,
            |j| {
                (now - j.spec.arrival.as_secs_f64() + remaining_duration(j, fair))
                    / ideal_duration(j)
            },
            out,
        );
    }

    fn name(&self) -> String {
        if self.fair {
            "synergy-ftf:fair=true".into()
        } else {
            "synergy-ftf".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{job, order};
    use super::*;
    use blox_core::JobTable;

    #[test]
    fn worst_finish_time_fairness_first() {
        let mut t = JobTable::new();
        // At t = 1000 s, fair share: 0: (1000 + 100) / 100 = 11; 1: (900 + 1000) / 1000 = 1.9;
        // 2: (500 + 0) / 50 = 10.
        t.push(job(0, 0, 100, 1.0, 0, 1));
        t.push(job(1, 100, 1000, 1.0, 0, 1));
        t.push(job(2, 500, 50, 1.0, 50, 1));
        assert_eq!(order(&mut SynergyFtf::new(true), &t, 1000), vec![1, 2, 0]);
    }
}
