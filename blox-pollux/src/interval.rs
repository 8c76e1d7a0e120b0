//! Job models that credit progress interval by interval, for peer time models that keep a
//! per-job state of their own (Pollux's artifact: measured step times, epochs, batch sizes,
//! restart delays).
//!
//! The Pollux time model ([`Pollux`](crate::Pollux)) is generic over an
//! [`IntervalModel`] and calls it at its hooks; the model ([`PolluxShared`](crate::PolluxShared))
//! shares its state with this crate's scheduling components, so that a
//! policy sees what the job model knows (fitted throughput, epochs, restarts) without the engine
//! knowing any of it.

use blox_core::{GpuId, JobId, JobSpec, Time};

/// A per-job model advanced one decision interval at a time. Every method but
/// [`IntervalModel::advance`] has a default that does nothing, so a model implements what it
/// needs.
pub trait IntervalModel {
    /// The run starts with decision interval `interval` (a model resets its state here). An
    /// error message rejects the configuration.
    fn begin(&mut self, interval: Time) -> Result<(), String> {
        let _ = interval;
        Ok(())
    }

    /// Job `id` (ids ascend from 0) was admitted at decision time `now`.
    fn admitted(&mut self, id: JobId, spec: &JobSpec, now: Time) {
        let _ = (id, spec, now);
    }

    /// Job `id` is being stopped at `now`.
    fn stopped(&mut self, id: JobId, now: Time) {
        let _ = (id, now);
    }

    /// Job `id` was started at `now` on `gpus`. An error message fails the run.
    fn started(&mut self, id: JobId, gpus: &[GpuId], now: Time) -> Result<(), String> {
        let _ = (id, gpus, now);
        Ok(())
    }

    /// Credit every admitted job for the interval ending at `now` and push `(job, completion
    /// time)` for each job that finished in it, in the model's order. An error message (e.g. a
    /// configuration outside the model's measurements) is kept by the model and reported by the
    /// caller after the run.
    fn advance(&mut self, now: Time, completed: &mut Vec<(JobId, Time)>);

    /// GPU-seconds job `id` has held so far, restart delays included, if the model tracks it.
    fn attained_gpu_seconds(&self, id: JobId) -> Option<f64> {
        let _ = id;
        None
    }

    /// The first error the model met, if any (the run's results are then not valid).
    fn error(&self) -> Option<String> {
        None
    }
}

impl<T: IntervalModel + ?Sized> IntervalModel for Box<T> {
    fn begin(&mut self, interval: Time) -> Result<(), String> {
        (**self).begin(interval)
    }
    fn admitted(&mut self, id: JobId, spec: &JobSpec, now: Time) {
        (**self).admitted(id, spec, now)
    }
    fn stopped(&mut self, id: JobId, now: Time) {
        (**self).stopped(id, now)
    }
    fn started(&mut self, id: JobId, gpus: &[GpuId], now: Time) -> Result<(), String> {
        (**self).started(id, gpus, now)
    }
    fn advance(&mut self, now: Time, completed: &mut Vec<(JobId, Time)>) {
        (**self).advance(now, completed)
    }
    fn attained_gpu_seconds(&self, id: JobId) -> Option<f64> {
        (**self).attained_gpu_seconds(id)
    }
    fn error(&self) -> Option<String> {
        (**self).error()
    }
}
