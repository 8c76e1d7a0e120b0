//! The workloads a scenario builds from a generator or a job list, instantiated here so that
//! drawing and copying a run's jobs (a million, at scale) is optimised.

use blox_core::{JobSpec, Time};
use blox_sim::workload::{JobList, Workload};

/// A generator's first `n` jobs, drawn as the run reaches them (never built up front).
pub fn stream(
    generator: Box<dyn Iterator<Item = JobSpec> + Send>,
    n: usize,
) -> Box<dyn Workload + Send> {
    Box::new(blox_sim::JobStream::new(generator, n))
}

/// A copy of `jobs` as a workload.
pub fn list(jobs: &[JobSpec]) -> Box<dyn Workload + Send> {
    Box::new(JobList::new(jobs.to_vec()))
}

/// The offered load of the first `n` of a generator's jobs over `total_gpus` GPUs, in one pass
/// without keeping them: the same value as [`crate::progress::offered_fraction`] of their list
/// (GPU-seconds summed in order, over the span from the first arrival to the last).
pub fn offered_fraction_of(
    jobs: Box<dyn Iterator<Item = JobSpec>>,
    n: usize,
    total_gpus: u32,
) -> Option<f64> {
    let mut first: Option<Time> = None;
    let mut last: Option<Time> = None;
    let gpu_seconds: f64 = jobs
        .take(n)
        .map(|j| {
            first = Some(first.map_or(j.arrival, |a| a.min(j.arrival)));
            last = Some(last.map_or(j.arrival, |a| a.max(j.arrival)));
            f64::from(j.n_gpus) * j.work_s
        })
        .sum();
    let span_s = match (first, last) {
        (Some(a), Some(b)) => b.saturating_sub(a).as_secs_f64(),
        _ => 0.0,
    };
    (span_s > 0.0 && total_gpus > 0).then(|| gpu_seconds / span_s / f64::from(total_gpus))
}
