//! Blox's workloads (BLOX-SEMANTICS §3 and appendix): the default generator on a bit-exact
//! CPython `random` ([`BloxDefaultWorkload`]), the two bursty generators, and the multi-GPU
//! trace and synthetic workloads.

mod blox_default;
mod blox_multigpu;

pub use blox_default::{
    blox_durations, blox_durations_seeded, BloxDefault, BloxDualLoad, BloxDualLoadSmallLarge,
    BloxJob,
};
pub use blox_multigpu::{BloxMultiGpuTrace, BloxSynthetic};

use blox_core::{JobSpec, Time};
use blox_sim::{SimError, Workload};

/// Blox's default workload as a [`Workload`]: [`BloxDefault`] jobs with 1 GPU, service equal to
/// the drawn duration, class `i mod 5`.
#[derive(Clone, Debug)]
pub struct BloxDefaultWorkload {
    r#gen: BloxDefault,
    load: f64,
    peeked: Option<JobSpec>,
}

impl BloxDefaultWorkload {
    /// At `load` jobs per hour, with durations repeating after `trace_jobs` jobs (Blox's N; 12,000
    /// in the reference runs).
    pub fn new(load: f64, trace_jobs: usize) -> Result<Self, SimError> {
        Self::with_seed(load, trace_jobs, 1)
    }

    /// As [`BloxDefaultWorkload::new`] with CPython's `random.seed(seed)` instead of Blox's 1.
    pub fn with_seed(load: f64, trace_jobs: usize, seed: u64) -> Result<Self, SimError> {
        let r#gen = BloxDefault::with_seed(load, trace_jobs, seed).map_err(SimError::Config)?;
        Ok(BloxDefaultWorkload {
            r#gen,
            load,
            peeked: None,
        })
    }

    fn peek(&mut self) -> &JobSpec {
        self.peeked.get_or_insert_with(|| {
            let j = self.r#gen.next().expect("the Blox generator is infinite");
            let mut spec = JobSpec::new(Time::from_secs(j.arrival_s), 1, j.duration_s);
            spec.class_id = j.class_id;
            spec
        })
    }
}

impl Workload for BloxDefaultWorkload {
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
