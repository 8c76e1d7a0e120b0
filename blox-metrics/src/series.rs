//! Cluster time series from the per-round samples: GPU utilisation, free GPUs, queue length and
//! GPU demand over time, and their time-weighted means.

use blox_core::{RoundSample, Time};
use serde::Serialize;

/// GPUs in use in a sample: GPUs in service − free GPUs (0 if the sample reports more free
/// GPUs). GPUs in service are the sample's `available_gpus` when the run manages its cluster,
/// else `total_gpus`.
pub fn busy_gpus(sample: &RoundSample, total_gpus: u32) -> u32 {
    sample
        .available_gpus
        .unwrap_or(total_gpus)
        .saturating_sub(sample.free_gpus)
}

/// Fraction of the GPUs in service that are in use in a sample, in `[0, 1]`; 0 when none is in
/// service. Without cluster management every GPU of the cluster is in service.
pub fn utilisation(sample: &RoundSample, total_gpus: u32) -> f64 {
    let avail = sample.available_gpus.unwrap_or(total_gpus);
    if avail == 0 {
        0.0
    } else {
        f64::from(busy_gpus(sample, total_gpus)) / f64::from(avail)
    }
}

/// Time-weighted summary of a run's [`Timeline`](crate::Timeline).
///
/// The samples are read as a step function: each sample's values hold from its time until the
/// next sample's (the last one's until the end of the interval). Means are integrals of that
/// function over the interval divided by its length, so long idle stretches the engine skipped
/// weigh as much as the time they lasted. When the interval has no length (one sample, or all
/// at one time) the means are plain means of the samples in it. Maxima and the preemption count
/// are over the samples whose time lies in the interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TimelineStats {
    /// GPUs in the cluster (the caller's figure).
    pub total_gpus: u32,
    /// Samples whose time lies in the interval.
    pub n_samples: u64,
    /// Start of the interval, seconds.
    pub start_s: f64,
    /// End of the interval, seconds.
    pub end_s: f64,
    /// Time-weighted mean fraction of GPUs in use, in `[0, 1]`.
    pub mean_utilisation: f64,
    /// Time-weighted mean of GPUs in use.
    pub mean_busy_gpus: f64,
    /// Time-weighted mean of free GPUs.
    pub mean_free_gpus: f64,
    /// Time-weighted mean of jobs waiting (admitted, not running).
    pub mean_queue_len: f64,
    /// Most jobs waiting in one sample.
    pub max_queue_len: u32,
    /// Time-weighted mean GPU demand (Σ requested GPUs of active jobs).
    pub mean_gpu_demand: f64,
    /// Largest GPU demand in one sample.
    pub max_gpu_demand: u64,
    /// Preemptions summed over the samples.
    pub preemptions: u64,
}

impl TimelineStats {
    /// Statistics over the whole timeline, from the first sample's time to the last's (so the
    /// last sample has no weight unless it is the only one). `total_gpus` is the cluster's
    /// size, e.g. `ClusterSpec::total_gpus()`.
    pub fn compute(samples: &[RoundSample], total_gpus: u32) -> TimelineStats {
        match (samples.first(), samples.last()) {
            (Some(a), Some(b)) => Self::compute_between(samples, total_gpus, a.time, b.time),
            _ => TimelineStats {
                total_gpus,
                ..TimelineStats::default()
            },
        }
    }

    /// Statistics over `[start, end]` (e.g. the tracked jobs' first arrival to last
    /// completion). `samples` must be in time order, as [`Timeline`](crate::Timeline) records
    /// them. Time before the first sample is not covered and does not count.
    pub fn compute_between(
        samples: &[RoundSample],
        total_gpus: u32,
        start: Time,
        end: Time,
    ) -> TimelineStats {
        let mut out = TimelineStats {
            total_gpus,
            start_s: start.as_secs_f64(),
            end_s: end.as_secs_f64(),
            ..TimelineStats::default()
        };
        // Integrals (value × milliseconds) and the covered length, then a plain-mean fallback.
        let (mut w_total, mut util, mut busy, mut free, mut queue, mut demand) =
            (0u64, 0.0, 0.0, 0.0, 0.0, 0.0);
        let (mut n, mut p_util, mut p_busy, mut p_free, mut p_queue, mut p_demand) =
            (0u64, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, s) in samples.iter().enumerate() {
            let next = samples.get(i + 1).map_or(end, |n| n.time);
            let lo = s.time.max(start);
            let hi = next.min(end);
            let w = hi.as_millis().saturating_sub(lo.as_millis());
            let b = f64::from(busy_gpus(s, total_gpus));
            let u = utilisation(s, total_gpus);
            if w > 0 {
                let wf = w as f64;
                w_total += w;
                util += u * wf;
                busy += b * wf;
                free += f64::from(s.free_gpus) * wf;
                queue += f64::from(s.jobs_in_queue) * wf;
                demand += s.gpu_demand as f64 * wf;
            }
            if s.time >= start && s.time <= end {
                n += 1;
                p_util += u;
                p_busy += b;
                p_free += f64::from(s.free_gpus);
                p_queue += f64::from(s.jobs_in_queue);
                p_demand += s.gpu_demand as f64;
                out.max_queue_len = out.max_queue_len.max(s.jobs_in_queue);
                out.max_gpu_demand = out.max_gpu_demand.max(s.gpu_demand);
                out.preemptions += u64::from(s.preemptions);
            }
        }
        out.n_samples = n;
        let (d, sums) = if w_total > 0 {
            (w_total as f64, [util, busy, free, queue, demand])
        } else if n > 0 {
            (n as f64, [p_util, p_busy, p_free, p_queue, p_demand])
        } else {
            (1.0, [0.0; 5])
        };
        out.mean_utilisation = sums[0] / d;
        out.mean_busy_gpus = sums[1] / d;
        out.mean_free_gpus = sums[2] / d;
        out.mean_queue_len = sums[3] / d;
        out.mean_gpu_demand = sums[4] / d;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: u64, queue: u32, free: u32, demand: u64, preempt: u32) -> RoundSample {
        RoundSample::new(Time::from_secs(t), queue, 0, 0, free, demand, preempt)
    }

    #[test]
    fn time_weighted_by_hand() {
        // 10 GPUs. 0–100 s: 2 free (80 %), 100–400 s: 7 free (30 %), sample at 400 s: 0 free.
        let s = [
            sample(0, 4, 2, 12, 1),
            sample(100, 0, 7, 3, 0),
            sample(400, 9, 0, 30, 2),
        ];
        let t = TimelineStats::compute(&s, 10);
        assert_eq!(t.n_samples, 3);
        assert_eq!((t.start_s, t.end_s), (0.0, 400.0));
        // (0.8·100 + 0.3·300) / 400 = 170/400.
        assert_eq!(
            t.mean_utilisation,
            (0.8 * 100_000.0 + 0.3 * 300_000.0) / 400_000.0
        );
        assert_eq!(
            t.mean_busy_gpus,
            (8.0 * 100_000.0 + 3.0 * 300_000.0) / 400_000.0
        );
        assert_eq!(
            t.mean_free_gpus,
            (2.0 * 100_000.0 + 7.0 * 300_000.0) / 400_000.0
        );
        assert_eq!(t.mean_queue_len, 1.0);
        assert_eq!(
            t.mean_gpu_demand,
            (12.0 * 100_000.0 + 3.0 * 300_000.0) / 400_000.0
        );
        assert_eq!(
            (t.max_queue_len, t.max_gpu_demand, t.preemptions),
            (9, 30, 3)
        );

        // 50–200 s: 50 s at 80 % and 100 s at 30 %; only the 100 s sample lies inside.
        let w = TimelineStats::compute_between(&s, 10, Time::from_secs(50), Time::from_secs(200));
        assert_eq!(
            w.mean_utilisation,
            (0.8 * 50_000.0 + 0.3 * 100_000.0) / 150_000.0
        );
        assert_eq!((w.n_samples, w.max_queue_len, w.preemptions), (1, 0, 0));

        // Past the last sample, its values hold: 400–500 s fully busy.
        let e = TimelineStats::compute_between(&s, 10, Time::from_secs(400), Time::from_secs(500));
        assert_eq!(e.mean_utilisation, 1.0);
    }

    #[test]
    fn degenerate_timelines() {
        assert_eq!(TimelineStats::compute(&[], 8).mean_utilisation, 0.0);
        assert_eq!(TimelineStats::compute(&[], 8).total_gpus, 8);
        // One sample: plain mean. 8 GPUs, 2 free: 75 %.
        let one = TimelineStats::compute(&[sample(5, 1, 2, 6, 0)], 8);
        assert_eq!(
            (one.mean_utilisation, one.mean_queue_len, one.n_samples),
            (0.75, 1.0, 1)
        );
        // More free GPUs than the cluster has (a wrong total): no negative utilisation.
        assert_eq!(utilisation(&sample(0, 0, 9, 0, 0), 8), 0.0);
        assert_eq!(utilisation(&sample(0, 0, 0, 0, 0), 0), 0.0);
    }
}
