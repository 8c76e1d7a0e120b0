//! Cluster time series from the per-round samples: GPU utilisation, free GPUs, queue length and
//! GPU demand over time, and their time-weighted means.

use blox_core::{add_repeated, RoundSample, RoundStretch, Time};
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
        Self::of_stretches_between(
            samples.iter().map(|s| RoundStretch::single(*s)),
            total_gpus,
            start,
            end,
        )
    }

    /// [`TimelineStats::compute`] over a [`Timeline`](crate::Timeline): from its first round to
    /// its last, stretches of skipped rounds read in O(1) each. The result is exactly (to the
    /// bit) what `compute` gives on the timeline's per-round expansion
    /// ([`Timeline::rounds`](crate::Timeline::rounds)).
    pub fn of_timeline(timeline: &crate::Timeline, total_gpus: u32) -> TimelineStats {
        let first = timeline.stretches().next();
        let last = timeline.stretches().last();
        match (first, last) {
            (Some(a), Some(b)) => Self::of_stretches_between(
                timeline.stretches(),
                total_gpus,
                a.first.time,
                b.last().time,
            ),
            _ => TimelineStats {
                total_gpus,
                ..TimelineStats::default()
            },
        }
    }

    /// [`TimelineStats::compute_between`] over a [`Timeline`](crate::Timeline), in O(entries).
    pub fn of_timeline_between(
        timeline: &crate::Timeline,
        total_gpus: u32,
        start: Time,
        end: Time,
    ) -> TimelineStats {
        Self::of_stretches_between(timeline.stretches(), total_gpus, start, end)
    }

    /// Statistics over `[start, end]` from stretches in time order (a stretch's rounds hold
    /// its first sample's values, one every `step`).
    ///
    /// Every round of a stretch adds the same terms, so a stretch is summed with weights: the
    /// rounds wholly inside the interval at once, the at most three others (cut by `start`, by
    /// `end`, and the last, which holds until the next stretch) one by one. The sums are the
    /// very floating-point sums the per-round expansion computes, term after term
    /// ([`blox_core::add_repeated`]), so the statistics do not depend on how the rounds were stored.
    pub fn of_stretches_between(
        stretches: impl IntoIterator<Item = RoundStretch>,
        total_gpus: u32,
        start: Time,
        end: Time,
    ) -> TimelineStats {
        let mut acc = Sums {
            out: TimelineStats {
                total_gpus,
                start_s: start.as_secs_f64(),
                end_s: end.as_secs_f64(),
                ..TimelineStats::default()
            },
            start: start.as_millis(),
            end: end.as_millis(),
            ..Sums::default()
        };
        let mut it = stretches.into_iter().filter(|s| s.count > 0).peekable();
        while let Some(st) = it.next() {
            let after = it.peek().map_or(end, |n| n.first.time);
            acc.stretch(&st, after.as_millis(), total_gpus);
        }
        acc.finish()
    }
}

/// One stretch's values, the same for each of its rounds.
struct Values {
    util: f64,
    busy: f64,
    free: f64,
    queue: f64,
    demand: f64,
    sample: RoundSample,
}

/// The running sums of [`TimelineStats::of_stretches_between`]: integrals (value ×
/// milliseconds) with the covered length, and plain sums over the samples inside the interval
/// for the fallback mean.
#[derive(Default)]
struct Sums {
    out: TimelineStats,
    start: u64,
    end: u64,
    w_total: u64,
    w: [f64; 5],
    n: u64,
    p: [f64; 5],
}

impl Sums {
    fn stretch(&mut self, st: &RoundStretch, after: u64, total_gpus: u32) {
        let s = st.first;
        let v = Values {
            util: utilisation(&s, total_gpus),
            busy: f64::from(busy_gpus(&s, total_gpus)),
            free: f64::from(s.free_gpus),
            queue: f64::from(s.jobs_in_queue),
            demand: s.gpu_demand as f64,
            sample: s,
        };
        let t0 = s.time.as_millis();
        let q = st.step.as_millis();
        let k = st.count;
        let time = |j: u64| t0 + j * q;
        // Rounds 0..k-1 hold for one step; the last holds until the next stretch.
        if k >= 2 {
            let inner_last = k - 2;
            if q == 0 {
                // Every round at the same time: no length, only the plain sums.
                self.add(&v, 0, self.inside(t0), k - 1);
            } else {
                // Rounds wholly inside [start, end]: from `ja` (the first at or after `start`)
                // to `jb` (the last that ends by `end`); i128 so that "none" is -1.
                let ja: i128 = if self.start <= t0 {
                    0
                } else {
                    i128::from((self.start - t0).div_ceil(q))
                };
                let jb: i128 = if self.end < t0 + q {
                    -1
                } else {
                    i128::from((self.end - t0) / q) - 1
                };
                let hi = jb.min(i128::from(inner_last));
                // The only other inner rounds with any weight or inside the interval: the one
                // cut by `start` (ja - 1) and the one cut by `end` (jb + 1), in round order.
                let mut cut = [ja - 1, jb + 1];
                cut.sort_unstable();
                let cut_at =
                    |j: i128| j >= 0 && j <= i128::from(inner_last) && !(ja..=hi).contains(&j);
                let mut prev = None;
                for j in cut.into_iter().filter(|&j| j < ja) {
                    if cut_at(j) && prev != Some(j) {
                        self.round(&v, time(j as u64), time(j as u64) + q);
                        prev = Some(j);
                    }
                }
                if ja <= hi {
                    self.add(&v, q, true, (hi - ja + 1) as u64);
                }
                for j in cut.into_iter().filter(|&j| j >= ja) {
                    if cut_at(j) && prev != Some(j) {
                        self.round(&v, time(j as u64), time(j as u64) + q);
                        prev = Some(j);
                    }
                }
            }
        }
        let last = time(k - 1);
        self.round(&v, last, after.max(last));
    }

    fn inside(&self, t: u64) -> bool {
        t >= self.start && t <= self.end
    }

    /// One round at `t` holding until `next`.
    fn round(&mut self, v: &Values, t: u64, next: u64) {
        let lo = t.max(self.start);
        let hi = next.min(self.end);
        self.add(v, hi.saturating_sub(lo), self.inside(t), 1);
    }

    /// `times` rounds, each of weight `w` milliseconds and inside the interval or not.
    fn add(&mut self, v: &Values, w: u64, inside: bool, times: u64) {
        if times == 0 {
            return;
        }
        let terms = [v.util, v.busy, v.free, v.queue, v.demand];
        if w > 0 {
            let wf = w as f64;
            self.w_total += w * times;
            for (sum, x) in self.w.iter_mut().zip(terms) {
                *sum = add_repeated(*sum, x * wf, times);
            }
        }
        if inside {
            self.n += times;
            for (sum, x) in self.p.iter_mut().zip(terms) {
                *sum = add_repeated(*sum, x, times);
            }
            let s = &v.sample;
            self.out.max_queue_len = self.out.max_queue_len.max(s.jobs_in_queue);
            self.out.max_gpu_demand = self.out.max_gpu_demand.max(s.gpu_demand);
            self.out.preemptions += u64::from(s.preemptions) * times;
        }
    }

    fn finish(self) -> TimelineStats {
        let mut out = self.out;
        out.n_samples = self.n;
        let (d, sums) = if self.w_total > 0 {
            (self.w_total as f64, self.w)
        } else if self.n > 0 {
            (self.n as f64, self.p)
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
