use blox_core::{Cluster, ConfigError, GpuId, Job, ThroughputModel};
use serde::{Deserialize, Serialize};

/// How fast a job runs on a given number of GPUs, relative to its requested count: the estimate
/// an allocating policy such as [`crate::Optimus`] plans with.
///
/// Implementors should also implement [`ThroughputModel`] with the same numbers, so the engine
/// runs jobs as fast as the policy expected.
pub trait Speedup {
    /// Speed of `job` on `k ≥ 1` GPUs relative to its requested count: `1.0` at
    /// `k = job.n_gpus()`. Must be finite and positive, and non-decreasing in `k`.
    fn relative_speed(&self, job: &Job, k: u32) -> f64;
}

impl<T: Speedup + ?Sized> Speedup for &T {
    fn relative_speed(&self, job: &Job, k: u32) -> f64 {
        (**self).relative_speed(job, k)
    }
}

impl<T: Speedup + ?Sized> Speedup for Box<T> {
    fn relative_speed(&self, job: &Job, k: u32) -> f64 {
        (**self).relative_speed(job, k)
    }
}

/// Amdahl's law: a fraction `p` of each step parallelises perfectly over GPUs and the rest does
/// not, so the speed-up over one GPU is `S(k) = 1 / ((1 − p) + p / k)`, sublinear for `p < 1`.
///
/// As a [`Speedup`] and a [`ThroughputModel`] it gives a job's speed relative to its request:
/// `S(k) / S(n_gpus)`, so a rigid job on its request runs at exactly 1.0 (the engine's
/// convention) and an elastic one runs faster on more GPUs, with diminishing returns.
///
/// The default `p = 0.95` is an assumption, not a measurement: it gives `S(2) ≈ 1.90`,
/// `S(4) ≈ 3.48`, `S(8) ≈ 5.93`, the shape of data-parallel scaling curves with communication
/// overhead. Use a measured curve (implement [`Speedup`]) when one is known.
///
/// ```
/// use blox_core::{Job, JobId, JobSpec, Time};
/// use blox_policies::{Amdahl, Speedup};
///
/// let amdahl = Amdahl::new(0.9).unwrap();
/// let job = Job::new(JobId(0), JobSpec::new(Time::ZERO, 2, 100.0), Time::ZERO);
/// assert_eq!(amdahl.relative_speed(&job, 2), 1.0);
/// assert!(amdahl.relative_speed(&job, 4) > 1.0 && amdahl.relative_speed(&job, 4) < 2.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Amdahl {
    /// The parallel fraction `p`, in `[0, 1]`.
    pub parallel_fraction: f64,
}

impl Default for Amdahl {
    fn default() -> Self {
        Amdahl {
            parallel_fraction: 0.95,
        }
    }
}

impl Amdahl {
    /// Amdahl's law with parallel fraction `p` in `[0, 1]`.
    pub fn new(p: f64) -> Result<Self, ConfigError> {
        if !(0.0..=1.0).contains(&p) {
            return Err(ConfigError::new(format!(
                "the parallel fraction must be in [0, 1], not {p}"
            )));
        }
        Ok(Amdahl {
            parallel_fraction: p,
        })
    }

    /// Speed-up on `k` GPUs over one GPU (`k = 0` counts as one).
    pub fn speedup(&self, k: u32) -> f64 {
        let p = self.parallel_fraction;
        1.0 / ((1.0 - p) + p / f64::from(k.max(1)))
    }
}

impl Speedup for Amdahl {
    fn relative_speed(&self, job: &Job, k: u32) -> f64 {
        self.speedup(k) / self.speedup(job.n_gpus())
    }
}

impl ThroughputModel for Amdahl {
    fn speed(&self, job: &Job, gpus: &[GpuId], _: &Cluster) -> f64 {
        self.relative_speed(job, gpus.len() as u32)
    }

    fn name(&self) -> String {
        format!("amdahl({})", self.parallel_fraction)
    }
}
