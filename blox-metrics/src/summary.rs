use crate::fairness::Fairness;
use crate::stats::{mean, nearest_rank, Distribution};
use crate::{JobLog, JobRecord};
use blox_core::JobId;
use serde::Serialize;

/// Statistics over the tracked jobs of a run.
///
/// Tracked jobs are those whose id lies in the window given to [`Summary::compute`] (all admitted
/// jobs without one). Averages are plain means over the tracked jobs that completed (JCT),
/// made progress (responsiveness) or started (queueing delay), in seconds. Percentiles use the
/// nearest-rank method ([`crate::nearest_rank`]: the value at rank `⌈p/100 · n⌉`, never
/// interpolated). Statistics of an empty set are 0.
///
/// Fields are serialised in declaration order; new ones are added at the end.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Tracked jobs (admitted, in the window).
    pub n_tracked: u64,
    /// Tracked jobs that completed.
    pub n_completed: u64,
    /// Mean job completion time (completion − arrival), seconds.
    pub avg_jct_s: f64,
    /// Median JCT, seconds.
    pub p50_jct_s: f64,
    /// 95th-percentile JCT, seconds.
    pub p95_jct_s: f64,
    /// 99th-percentile JCT, seconds.
    pub p99_jct_s: f64,
    /// Largest JCT, seconds.
    pub max_jct_s: f64,
    /// Mean responsiveness (first progress − arrival), seconds.
    pub avg_responsiveness_s: f64,
    /// Mean time from arrival to first start, seconds.
    pub avg_queueing_s: f64,
    /// Preemptions of tracked jobs.
    pub preemptions_tracked: u64,
    /// Last tracked completion − first tracked arrival, seconds.
    pub makespan_s: f64,
    /// Median queueing delay (arrival → first start), seconds.
    pub p50_queueing_s: f64,
    /// 95th-percentile queueing delay, seconds.
    pub p95_queueing_s: f64,
    /// 99th-percentile queueing delay, seconds.
    pub p99_queueing_s: f64,
    /// Largest queueing delay, seconds.
    pub max_queueing_s: f64,
    /// Median responsiveness, seconds.
    pub p50_responsiveness_s: f64,
    /// 99th-percentile responsiveness, seconds.
    pub p99_responsiveness_s: f64,
    /// Tracked jobs with a finish-time fairness ρ (see [`Fairness`]).
    pub n_rho: u64,
    /// Mean ρ = shared JCT ÷ isolated JCT.
    pub avg_rho: f64,
    /// Largest ρ.
    pub worst_rho: f64,
    /// Fraction of jobs with ρ > 1.
    pub frac_rho_above_1: f64,
    /// Jain's fairness index of ρ.
    pub jain_rho: f64,
}

impl Summary {
    /// Compute the statistics over admitted jobs whose id is in `window` (inclusive), or over
    /// all admitted jobs. Finish-time fairness takes each job's isolated JCT to be its service
    /// demand `work_s` ([`Fairness::by_work`]).
    pub fn compute(log: &JobLog, window: Option<(JobId, JobId)>) -> Summary {
        Self::compute_with(log, window, |r| Some(r.work_s))
    }

    /// [`Summary::compute`] with the isolated JCT (seconds) of each job given by `isolated`, as
    /// in [`Fairness::compute`].
    pub fn compute_with(
        log: &JobLog,
        window: Option<(JobId, JobId)>,
        isolated: impl FnMut(&JobRecord) -> Option<f64>,
    ) -> Summary {
        let tracked: Vec<&JobRecord> = log.tracked(window).collect();
        let mut jcts: Vec<f64> = tracked
            .iter()
            .filter_map(|r| r.jct())
            .map(|t| t.as_secs_f64())
            .collect();
        let resp: Vec<f64> = tracked
            .iter()
            .filter_map(|r| r.responsiveness())
            .map(|t| t.as_secs_f64())
            .collect();
        let queueing: Vec<f64> = tracked
            .iter()
            .filter_map(|r| {
                r.first_start
                    .map(|s| s.saturating_sub(r.arrival).as_secs_f64())
            })
            .collect();
        // The mean is taken in id order, as Blox sums its JCT dictionary.
        let avg_jct_s = mean(&jcts);
        jcts.sort_by(f64::total_cmp);
        let first_arrival = tracked.iter().map(|r| r.arrival).min();
        let last_completion = tracked.iter().filter_map(|r| r.completion).max();
        let makespan_s = match (first_arrival, last_completion) {
            (Some(a), Some(c)) => c.saturating_sub(a).as_secs_f64(),
            _ => 0.0,
        };
        let q = Distribution::of(&queueing);
        let rd = Distribution::of(&resp);
        let rho = Fairness::compute(log, window, isolated).stats();
        Summary {
            n_tracked: tracked.len() as u64,
            n_completed: jcts.len() as u64,
            avg_jct_s,
            p50_jct_s: nearest_rank(&jcts, 50.0),
            p95_jct_s: nearest_rank(&jcts, 95.0),
            p99_jct_s: nearest_rank(&jcts, 99.0),
            max_jct_s: jcts.last().copied().unwrap_or(0.0),
            avg_responsiveness_s: mean(&resp),
            avg_queueing_s: q.mean,
            preemptions_tracked: tracked.iter().map(|r| u64::from(r.preemptions)).sum(),
            makespan_s,
            p50_queueing_s: q.p50,
            p95_queueing_s: q.p95,
            p99_queueing_s: q.p99,
            max_queueing_s: q.max,
            p50_responsiveness_s: rd.p50,
            p99_responsiveness_s: rd.p99,
            n_rho: rho.n,
            avg_rho: rho.mean_rho,
            worst_rho: rho.worst_rho,
            frac_rho_above_1: rho.frac_rho_above_1,
            jain_rho: rho.jain_rho,
        }
    }
}
