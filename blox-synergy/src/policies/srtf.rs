use super::{remaining_duration, SynergyOrder};
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Synergy's SRTF (`srtf_synergy_new.py`): ascending `(−priority, remaining duration,
/// arrival)`, all jobs listed.
///
/// Remaining duration = iteration time × remaining iterations, divided by the job's speed-up
/// unless the mechanism is GPU-proportional (`fair`). Synergy sorts *before* it resets
/// speed-ups, so the speed-up is the one the job's last allocation left: 1 for a job Tune fell
/// back to the fair share. Ties: the previous round's order. Cost per round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct SynergySrtf {
    fair: bool,
    order: SynergyOrder,
}

impl SynergySrtf {
    /// SRTF for a mechanism: `fair = true` for GPU-proportional (`SRTF+fair`), else the key
    /// divides by the speed-up.
    pub fn new(fair: bool) -> Self {
        SynergySrtf {
            fair,
            order: SynergyOrder::default(),
        }
    }
}

impl SchedulingPolicy for SynergySrtf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let fair = self.fair;
        self.order
            .sort(ctx, true, |j| remaining_duration(j, fair), out);
    }

    fn name(&self) -> String {
        if self.fair {
            "synergy-srtf:fair=true".into()
        } else {
            "synergy-srtf".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{job, order};
    use super::*;
    use blox_core::JobTable;

    #[test]
    fn remaining_time_with_and_without_speedup() {
        let mut t = JobTable::new();
        // Remaining: 0: 100 s, 1: 60 s, 2: 80 s at fair share; job 1 fell back (speed-up 1),
        // the others run at 2x, so with speed-ups: 0: 50 s, 1: 60 s, 2: 40 s.
        t.push(job(0, 0, 100, 1.0, 0, 1));
        let mut j1 = job(1, 1, 100, 1.0, 40, 1);
        j1.speedup = 1.0;
        t.push(j1);
        t.push(job(2, 2, 160, 0.5, 0, 1));
        assert_eq!(order(&mut SynergySrtf::new(true), &t, 300), vec![1, 2, 0]);
        assert_eq!(order(&mut SynergySrtf::new(false), &t, 300), vec![2, 0, 1]);
    }
}
