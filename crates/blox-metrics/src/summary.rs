use crate::JobLog;
use blox_core::JobId;
use serde::Serialize;

/// Statistics over the tracked jobs of a run.
///
/// Tracked jobs are those whose id lies in the window given to [`Summary::compute`] (all admitted
/// jobs without one). Averages are plain means over the tracked jobs that completed (JCT) or made
/// progress (responsiveness), in seconds. Percentiles use the nearest-rank method.
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
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Summary {
    /// Compute the statistics over admitted jobs whose id is in `window` (inclusive), or over
    /// all admitted jobs.
    pub fn compute(log: &JobLog, window: Option<(JobId, JobId)>) -> Summary {
        let tracked: Vec<_> = log
            .admitted()
            .filter(|r| window.map_or(true, |(a, b)| r.id.is_some_and(|id| id >= a && id <= b)))
            .collect();
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
        Summary {
            n_tracked: tracked.len() as u64,
            n_completed: jcts.len() as u64,
            avg_jct_s,
            p50_jct_s: nearest_rank(&jcts, 50.0),
            p95_jct_s: nearest_rank(&jcts, 95.0),
            p99_jct_s: nearest_rank(&jcts, 99.0),
            max_jct_s: jcts.last().copied().unwrap_or(0.0),
            avg_responsiveness_s: mean(&resp),
            avg_queueing_s: mean(&queueing),
            preemptions_tracked: tracked.iter().map(|r| u64::from(r.preemptions)).sum(),
            makespan_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let xs: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&xs, 50.0), 50.0);
        assert_eq!(nearest_rank(&xs, 99.0), 99.0);
        assert_eq!(nearest_rank(&[7.0], 99.0), 7.0);
        assert_eq!(nearest_rank(&[], 50.0), 0.0);
    }
}
