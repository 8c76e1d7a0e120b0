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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{log_of, preempt};

    #[test]
    fn summary_by_hand() {
        // (arrival, work, first start, completion), seconds.
        let mut log = log_of(&[
            (0, 100.0, Some(0), Some(100)),    // JCT 100, queue 0, ρ 1
            (10, 100.0, Some(100), Some(300)), // JCT 290, queue 90, ρ 2.9
            (20, 40.0, Some(300), Some(400)),  // JCT 380, queue 280, ρ 9.5
            (30, 10.0, Some(50), None),        // running at the end: queue 20
            (500, 10.0, None, None),           // never started
        ]);
        preempt(&mut log, 1);
        preempt(&mut log, 1);
        preempt(&mut log, 3);
        let s = Summary::compute(&log, None);
        assert_eq!((s.n_tracked, s.n_completed), (5, 3));
        assert_eq!(s.avg_jct_s, (100.0 + 290.0 + 380.0) / 3.0);
        // Three JCTs: p50 is rank 2, p95 and p99 rank 3.
        assert_eq!(
            (s.p50_jct_s, s.p95_jct_s, s.p99_jct_s),
            (290.0, 380.0, 380.0)
        );
        assert_eq!(s.max_jct_s, 380.0);
        // Queueing delays 0, 90, 280, 20: mean 97.5; sorted 0, 20, 90, 280: p50 rank 2.
        assert_eq!(s.avg_queueing_s, 97.5);
        assert_eq!(
            (s.p50_queueing_s, s.p95_queueing_s, s.max_queueing_s),
            (20.0, 280.0, 280.0)
        );
        // Responsiveness equals queueing here (first progress = first start).
        assert_eq!(s.avg_responsiveness_s, 97.5);
        assert_eq!(
            (s.p50_responsiveness_s, s.p99_responsiveness_s),
            (20.0, 280.0)
        );
        assert_eq!(s.preemptions_tracked, 3);
        // First tracked arrival 0, last completion 400.
        assert_eq!(s.makespan_s, 400.0);
        assert_eq!(s.n_rho, 3);
        assert_eq!(s.worst_rho, 9.5);
        assert_eq!(s.avg_rho, (1.0 + 2.9 + 9.5) / 3.0);
        assert_eq!(s.frac_rho_above_1, 2.0 / 3.0);
        let sum: f64 = 1.0 + 2.9 + 9.5;
        let sq: f64 = 1.0 + 2.9 * 2.9 + 9.5 * 9.5;
        assert_eq!(s.jain_rho, sum * sum / (3.0 * sq));

        // Window 1..=2: JCTs 290 and 380, makespan 400 − 10.
        let w = Summary::compute(&log, Some((JobId(1), JobId(2))));
        assert_eq!((w.n_tracked, w.avg_jct_s, w.makespan_s), (2, 335.0, 390.0));
        assert_eq!(w.preemptions_tracked, 2);
    }

    #[test]
    fn empty_log_gives_zeros() {
        let s = Summary::compute(&JobLog::default(), None);
        assert_eq!(
            (
                s.n_tracked,
                s.avg_jct_s,
                s.makespan_s,
                s.worst_rho,
                s.jain_rho
            ),
            (0, 0.0, 0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn custom_isolated_time() {
        let log = log_of(&[(0, 100.0, Some(0), Some(100))]);
        let s = Summary::compute_with(&log, None, |r| Some(r.work_s / 4.0));
        assert_eq!(s.worst_rho, 4.0);
    }
}
