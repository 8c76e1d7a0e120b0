//! Blox's two multi-GPU workloads (BLOX-SEMANTICS, appendix), draw for draw.
//!
//! | workload | Blox path | jobs |
//! |---|---|---|
//! | [`BloxMultiGpuTrace`] (`blox-multigpu-trace`) | `Workload(multigpu=True)` with a Philly `cluster_job_log` | arrivals and durations of `blox-default` at the same load; job `i` takes the GPU count of kept trace entry `i mod N` |
//! | [`BloxSynthetic`] (`blox-synthetic`) | `Workload(cluster_job_log=None)` | one seed-1 stream: inter-arrival, duration, GPU count (1/2/4/8), discarded class draw, per job |
//!
//! Class ids cycle `i mod 5` as in `blox-default` (the appendix says nothing else; only Blox's
//! Optimus table reads the class, and it reads the load, not the class).

use super::blox_default::{
    check_load, cycled_class, discarded_class_draw, gavel_like_duration, interarrival_s,
    BloxDefault, BLOX_SEED,
};
use blox_core::{JobSpec, Time};
use blox_sim::SimError;
use blox_sim::Workload;
use blox_workload::PyRandom;
use std::sync::Arc;

/// Blox's `blox-multigpu-trace` workload: `blox-default`'s arrivals and durations (with
/// `N` = the number of kept trace entries) and the kept entries' GPU counts, cycled.
#[derive(Clone, Debug)]
pub struct BloxMultiGpuTrace {
    r#gen: BloxDefault,
    gpus: Arc<[u32]>,
    load: f64,
    peeked: Option<JobSpec>,
}

impl BloxMultiGpuTrace {
    /// At `load` jobs per hour, with `gpus[k]` the GPU count of kept trace entry `k` in file
    /// order (BLOX-SEMANTICS §12 with the last attempt's GPU count); `seed` is CPython's
    /// `random.seed` (Blox: 1).
    pub fn new(load: f64, gpus: Vec<u32>, seed: u64) -> Result<Self, SimError> {
        if gpus.is_empty() {
            return Err(SimError::Config(
                "the Blox multi-GPU trace workload needs a trace with at least one kept job".into(),
            ));
        }
        if gpus.contains(&0) {
            return Err(SimError::Config(
                "the Blox multi-GPU trace workload got a job with 0 GPUs".into(),
            ));
        }
        let r#gen = BloxDefault::with_seed(load, gpus.len(), seed).map_err(SimError::Config)?;
        Ok(BloxMultiGpuTrace {
            r#gen,
            gpus: gpus.into(),
            load,
            peeked: None,
        })
    }

    fn peek(&mut self) -> &JobSpec {
        let gpus = &self.gpus;
        let r#gen = &mut self.r#gen;
        self.peeked.get_or_insert_with(|| {
            let j = r#gen.next().expect("the Blox generator is infinite");
            // `index mod len` is below `len`, which fits a usize.
            let n = gpus[(j.index % gpus.len() as u64) as usize];
            let mut spec = JobSpec::new(Time::from_secs(j.arrival_s), n, j.duration_s);
            spec.class_id = j.class_id;
            spec
        })
    }
}

impl Workload for BloxMultiGpuTrace {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        while self.peek().arrival <= t {
            out.extend(self.peeked.take());
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(Some(self.peek().arrival))
    }

    fn load(&self) -> Option<f64> {
        Some(self.load)
    }
}

/// The GPU count of Blox's synthetic branch for one `uniform(0, 1)` draw `u`.
fn synthetic_gpus(u: f64) -> u32 {
    if u >= 0.95 {
        8
    } else if u >= 0.80 {
        4
    } else if u >= 0.70 {
        2
    } else {
        1
    }
}

/// Blox's `blox-synthetic` workload: every job from one seed-1 stream, in this order: the
/// inter-arrival time (as `blox-default`), the Gavel-like duration (branch draw, then
/// `uniform`), the GPU count (`uniform(0, 1)`: ≥ 0.95 → 8, ≥ 0.80 → 4, ≥ 0.70 → 2, else 1) and
/// the discarded class draw `randint(0, 8)`. Infinite, in arrival order.
#[derive(Clone, Debug)]
pub struct BloxSynthetic {
    rng: PyRandom,
    load: f64,
    index: u64,
    arrival_s: u64,
    peeked: Option<JobSpec>,
}

impl BloxSynthetic {
    /// At `load` jobs per hour with Blox's seed 1.
    pub fn new(load: f64) -> Result<Self, SimError> {
        Self::with_seed(load, BLOX_SEED)
    }

    /// At `load` jobs per hour with CPython's `random.seed(seed)`.
    pub fn with_seed(load: f64, seed: u64) -> Result<Self, SimError> {
        check_load(load).map_err(SimError::Config)?;
        Ok(BloxSynthetic {
            rng: PyRandom::new(seed),
            load,
            index: 0,
            arrival_s: 0,
            peeked: None,
        })
    }

    fn draw(&mut self) -> JobSpec {
        let rng = &mut self.rng;
        self.arrival_s = self
            .arrival_s
            .saturating_add(interarrival_s(rng, self.load));
        let duration = gavel_like_duration(rng);
        let gpus = synthetic_gpus(rng.uniform(0.0, 1.0));
        discarded_class_draw(rng);
        let mut spec = JobSpec::new(Time::from_secs(self.arrival_s), gpus, duration);
        spec.class_id = cycled_class(self.index);
        self.index += 1;
        spec
    }

    fn peek(&mut self) -> &JobSpec {
        if self.peeked.is_none() {
            let j = self.draw();
            self.peeked = Some(j);
        }
        self.peeked.as_ref().expect("just drawn")
    }
}

impl Workload for BloxSynthetic {
    fn arrivals_until(&mut self, t: Time, out: &mut Vec<JobSpec>) -> Result<(), SimError> {
        while self.peek().arrival <= t {
            out.extend(self.peeked.take());
        }
        Ok(())
    }

    fn next_arrival(&mut self) -> Result<Option<Time>, SimError> {
        Ok(Some(self.peek().arrival))
    }

    fn load(&self) -> Option<f64> {
        Some(self.load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::BloxDefaultWorkload;

    fn take(w: &mut dyn Workload, n: usize) -> Vec<JobSpec> {
        let mut out = Vec::new();
        let mut t = Time::ZERO;
        while out.len() < n {
            t = w.next_arrival().unwrap().unwrap();
            w.arrivals_until(t, &mut out).unwrap();
        }
        let _ = t;
        out.truncate(n);
        out
    }

    /// Check values computed with CPython 3.11's own `random` following the appendix's draw
    /// order (seed 1, load 4): (arrival s, duration, GPUs) of jobs 0–4 and 2999, and the GPU
    /// counts of the first 3,000 jobs.
    #[test]
    fn synthetic_matches_cpython_check_values() {
        let mut w = BloxSynthetic::new(4.0).unwrap();
        let jobs = take(&mut w, 3000);
        let expect: [(u64, f64, u32); 5] = [
            (130, 348_277.861_680_361_9, 1),
            (1419, 7_040.023_119_463_524, 1),
            (1445, 162_524.305_276_749_48, 2),
            (2517, 30_261.524_358_488_397, 1),
            (4603, 2_071.667_447_145_228_4, 1),
        ];
        for (j, e) in jobs.iter().zip(expect) {
            assert_eq!((j.arrival.as_secs(), j.work_s, j.n_gpus), e);
        }
        let last = &jobs[2999];
        assert_eq!(
            (last.arrival.as_secs(), last.work_s, last.n_gpus),
            (2_717_645, 3_178.699_347_696_538, 4)
        );
        let count = |g| jobs.iter().filter(|j| j.n_gpus == g).count();
        assert_eq!(
            [count(1), count(2), count(4), count(8)],
            [2111, 299, 443, 147]
        );
    }

    #[test]
    fn multigpu_trace_keeps_blox_default_arrivals_and_durations() {
        let gpus = vec![1, 4, 2, 8, 1];
        let mut m = BloxMultiGpuTrace::new(2.0, gpus.clone(), 1).unwrap();
        let mut d = BloxDefaultWorkload::new(2.0, gpus.len()).unwrap();
        let a = take(&mut m, 23);
        let b = take(&mut d, 23);
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(
                (x.arrival, x.work_s, x.class_id),
                (y.arrival, y.work_s, y.class_id)
            );
            assert_eq!(x.n_gpus, gpus[i % gpus.len()]);
        }
        assert!(BloxMultiGpuTrace::new(2.0, vec![], 1).is_err());
        assert!(BloxMultiGpuTrace::new(2.0, vec![0], 1).is_err());
        assert!(BloxSynthetic::new(-1.0).is_err());
    }

    #[test]
    fn synthetic_gpu_thresholds() {
        assert_eq!(
            [0.0, 0.6999, 0.7, 0.7999, 0.8, 0.9499, 0.95, 1.0].map(synthetic_gpus),
            [1, 1, 2, 2, 4, 4, 8, 8]
        );
    }
}
