use super::SynergyOrder;
use blox_core::{Ctx, Schedule, SchedulingPolicy};

/// Synergy's LAS (`las_synergy_new.py`): ascending `(−priority, attained service × GPUs,
/// arrival)`, where attained service is wall-clock seconds of rounds the job was allocated:
/// that is [`blox_core::Job::attained_gpu_s`], which every time model credits in GPU-seconds.
///
/// Unlike FIFO, SRTF and FTF, it lists only the *pre-admitted* jobs: in sorted order, each job
/// whose GPU demand fits the GPUs not yet claimed by earlier listed jobs (all of the cluster's
/// GPUs are free at the start of a Synergy round). Under Synergy-Tune (`tune`) that set is
/// stably re-sorted by GPU demand, largest first. Ties: the previous round's order. Cost per
/// round: O(n log n).
#[derive(Clone, Debug, Default)]
pub struct SynergyLas {
    tune: bool,
    order: SynergyOrder,
    all: Schedule,
}

impl SynergyLas {
    /// LAS for a mechanism: `tune = true` under Synergy-Tune.
    pub fn new(tune: bool) -> Self {
        SynergyLas {
            tune,
            ..SynergyLas::default()
        }
    }
}

impl SchedulingPolicy for SynergyLas {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        self.all.clear();
        // Attained GPU-seconds, whatever time model credits them.
        self.order
            .sort(ctx, true, |j| j.attained_gpu_s, &mut self.all);
        let mut free = u64::from(ctx.cluster.total_gpus());
        for a in self.all.iter() {
            let n = u64::from(a.n_gpus);
            if n > 0 && free >= n {
                out.push(a.job, a.n_gpus);
                free -= n;
            }
        }
        if self.tune {
            out.entries.sort_by_key(|a| std::cmp::Reverse(a.n_gpus));
        }
    }

    fn name(&self) -> String {
        if self.tune {
            "synergy-las:tune=true".into()
        } else {
            "synergy-las".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{job, order};
    use super::*;
    use blox_core::JobTable;

    #[test]
    fn least_attained_gpu_time_pre_admitted_and_tune_resort() {
        let mut t = JobTable::new();
        // On 4 GPUs. Attained GPU-seconds (wall-clock × GPUs): 0: 600·2, 1: 900·1, 2: 0·4,
        // 3: 300·1.
        for (id, served, gpus) in [(0, 1200.0, 2), (1, 900.0, 1), (2, 0.0, 4), (3, 300.0, 1)] {
            let mut j = job(id, u64::from(id), 10, 1.0, 0, gpus);
            j.attained_gpu_s = served;
            t.push(j);
        }
        // Sorted: 2 (4 GPUs, fills the cluster), 3, 1, 0: only job 2 fits.
        assert_eq!(order(&mut SynergyLas::new(false), &t, 300), vec![2]);
        t.get_mut(blox_core::JobId(2)).unwrap().attained_gpu_s = 5000.0;
        // Now 3 (1), 1 (1), 0 (2) fit in 4 GPUs; 2 does not. Tune re-sorts by GPUs, largest
        // first, stably.
        assert_eq!(order(&mut SynergyLas::new(false), &t, 600), vec![3, 1, 0]);
        assert_eq!(order(&mut SynergyLas::new(true), &t, 600), vec![0, 3, 1]);
    }
}
