//! Synergy's default workload generator (OSDI 2022), bit-exact from its seed.
//!
//! Source: `msr-fiddle/synergy` `simulator/jobs/workload.py`, `helpers/utils.py`,
//! `helpers/parse_philly_trace_full.py`, `jobs/model_zoo.py`, `runner.py`, as summarised in
//! SYNERGY-SEMANTICS §2.3 and §9.6. In the default single-GPU run:
//!
//! - **Durations** come from a *parse stream*: a CPython `random` seeded with the seed (42) in a
//!   fresh process, which is what produced the shipped job-list pickle. Job *k* draws one
//!   `random()` (≥ 0.8 picks the long branch) and one `uniform(lo, hi)` for the exponent:
//!   duration = `60 × 10^U(3, 4)` s (long) or `60 × 10^U(1.5, 3)` s; iterations =
//!   `int(duration / iteration time)` of its model. The Philly log contributes only the number
//!   of jobs that pass its duration filter, which is larger than any run uses, so it is not read.
//! - **Arrivals and classes** come from a *simulation stream*: another CPython `random` seeded
//!   with the seed before the run. At each job's generation (job 0 at t = 0, job *k* when job
//!   *k − 1* arrives) it draws the inter-arrival `ceil((−ln(1 − random()) / λ) · 60 · 60)` s,
//!   then `randint(0, 9)`, which Synergy draws and ignores so the stream stays aligned across
//!   assignment modes.
//! - **Models**: [`OverallAssigner`] (class furthest below its target share, round-robin inside
//!   the class); ideal CPU and memory demands and speed-up from [`synergy_demand`]; 1 GPU.

use crate::zoo::{synergy_demand, ClassSplit, OverallAssigner, ServerSize};
use blox_core::{JobSpec, Time};
use blox_sim::SimError;
use blox_sim::Workload;
use blox_workload::PyRandom;

/// One generated job, before it becomes a [`JobSpec`]: what Synergy's `Job` object holds.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SynergyJob {
    /// Job id (generation order, 0, 1, …).
    pub id: u64,
    /// Arrival, whole seconds.
    pub arrival_s: u64,
    /// The drawn duration in seconds at 1 s per iteration (before conversion).
    pub duration_s: f64,
    /// Model name.
    pub model: &'static str,
    /// Model (class) id in Synergy's zoo.
    pub class_id: u32,
    /// Total iterations: `int(duration / iteration time)`.
    pub iterations: u64,
    /// Seconds per iteration at the GPU-proportional share.
    pub iter_time_s: f64,
    /// Ideal CPU cores.
    pub cpus: f64,
    /// Ideal memory, GB.
    pub mem_gb: f64,
    /// Speed-up at the ideal demand.
    pub speedup: f64,
}

impl SynergyJob {
    /// The canonical job record: 1 GPU, service `iterations × iteration time` (the fair-share
    /// run time), and the iteration count, iteration time, CPU/memory demand and speed-up that
    /// Synergy's mechanisms and time model read.
    pub fn to_spec(&self) -> JobSpec {
        let mut spec = JobSpec::new(
            Time::from_secs(self.arrival_s),
            1,
            self.iterations as f64 * self.iter_time_s,
        );
        spec.class_id = self.class_id;
        spec.model = Some(self.model.into());
        spec.source_id = Some(self.id.to_string().into());
        spec.cpus = Some(self.cpus);
        spec.mem_gb = Some(self.mem_gb);
        spec.iterations = Some(self.iterations);
        spec.iter_time_s = Some(self.iter_time_s);
        spec.ideal_speedup = Some(self.speedup);
        spec
    }
}

/// Synergy's default generator as an iterator of [`SynergyJob`]s (infinite).
#[derive(Clone, Debug)]
pub struct SynergyGenerator {
    parse: PyRandom,
    sim: PyRandom,
    jobs_per_hour: f64,
    assigner: OverallAssigner,
    server: ServerSize,
    last_arrival_s: u64,
    next_id: u64,
}

impl SynergyGenerator {
    /// At `jobs_per_hour` (λ), with this class split, on servers of this size, both streams
    /// seeded with `seed` (Synergy's `--seed`, 42 by default).
    pub fn new(
        jobs_per_hour: f64,
        split: ClassSplit,
        server: ServerSize,
        seed: u64,
    ) -> Result<Self, String> {
        if !(jobs_per_hour.is_finite() && jobs_per_hour > 0.0) {
            return Err(format!(
                "synergy workload: load {jobs_per_hour} jobs/hour is not a positive number"
            ));
        }
        Ok(SynergyGenerator {
            parse: PyRandom::new(seed),
            sim: PyRandom::new(seed),
            jobs_per_hour,
            assigner: OverallAssigner::new(split),
            server,
            last_arrival_s: 0,
            next_id: 0,
        })
    }

    /// `get_gavel_like_iter`: the duration at 1 s per iteration, from the parse stream.
    fn duration(&mut self) -> f64 {
        let exponent = if self.parse.random() >= 0.8 {
            self.parse.uniform(3.0, 4.0)
        } else {
            self.parse.uniform(1.5, 3.0)
        };
        60.0 * 10f64.powf(exponent)
    }

    /// `poisson_next_arrival_time`: whole seconds, from the simulation stream.
    fn inter_arrival(&mut self) -> u64 {
        let hours = -(1.0 - self.sim.random()).ln() / self.jobs_per_hour;
        // The drawn value is finite and non-negative, far below 2^63 s.
        (hours * 60.0 * 60.0).ceil() as u64
    }
}

impl Iterator for SynergyGenerator {
    type Item = SynergyJob;

    fn next(&mut self) -> Option<SynergyJob> {
        let id = self.next_id;
        self.next_id += 1;
        let duration_s = self.duration();
        let arrival_s = self.last_arrival_s + self.inter_arrival();
        self.last_arrival_s = arrival_s;
        // Drawn and ignored, as Synergy does (`ModelZoo.get_job_class`).
        let _ = self.sim.randint(0, 9);
        let model = self.assigner.next_model();
        let demand = synergy_demand(model, 1, self.server);
        // `int(duration / iter_time)`: truncation toward zero of a positive finite value.
        let iterations = (duration_s / model.iter_time_s) as u64;
        Some(SynergyJob {
            id,
            arrival_s,
            duration_s,
            model: model.name,
            class_id: model.id,
            iterations,
            iter_time_s: model.iter_time_s,
            cpus: demand.cpus,
            mem_gb: demand.mem_gb,
            speedup: demand.speedup,
        })
    }
}

/// Synergy's default workload as a [`Workload`] for the engine.
#[derive(Clone, Debug)]
pub struct SynergyWorkload {
    r#gen: SynergyGenerator,
    load: f64,
    peeked: Option<JobSpec>,
}

impl SynergyWorkload {
    /// See [`SynergyGenerator::new`].
    pub fn new(
        jobs_per_hour: f64,
        split: ClassSplit,
        server: ServerSize,
        seed: u64,
    ) -> Result<Self, SimError> {
        let r#gen =
            SynergyGenerator::new(jobs_per_hour, split, server, seed).map_err(SimError::Config)?;
        Ok(SynergyWorkload {
            r#gen,
            load: jobs_per_hour,
            peeked: None,
        })
    }

    fn peek(&mut self) -> &JobSpec {
        let g = &mut self.r#gen;
        self.peeked.get_or_insert_with(|| {
            g.next()
                .expect("the Synergy generator is infinite")
                .to_spec()
        })
    }
}

impl Workload for SynergyWorkload {
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
