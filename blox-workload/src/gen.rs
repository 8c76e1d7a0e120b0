//! Synthetic workloads: Poisson arrivals with configurable distributions, resampling a real
//! trace at a target load, and the intended form of Blox's bursty "dual load".
//!
//! Every generator draws from named streams of one [`Seed`] ([`Seed::stream`]), so adding a draw
//! to one stream never shifts another, and the same seed always gives the same jobs. (For
//! Blox's own generators, bit-exact with CPython's `random`, use blox-sim's `BloxDefault` and
//! `BloxDualLoad`.)

use crate::WorkloadError;
use blox_core::{JobSpec, Seed, StreamRng, Time};

/// Stream names used by [`PoissonGenerator`].
pub const POISSON_STREAMS: [&str; 3] = [
    "workload.poisson.arrivals",
    "workload.poisson.durations",
    "workload.poisson.gpus",
];

/// A distribution of job durations (service seconds).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum DurationDist {
    /// Always this many seconds.
    Constant(f64),
    /// Uniform on `[lo, hi)` seconds.
    Uniform {
        /// Lower bound, s.
        lo: f64,
        /// Upper bound, s.
        hi: f64,
    },
    /// Log-uniform on `[lo, hi)` seconds (uniform exponent).
    LogUniform {
        /// Lower bound, s.
        lo: f64,
        /// Upper bound, s.
        hi: f64,
    },
    /// Exponential with this mean, in seconds.
    Exponential {
        /// Mean, s.
        mean: f64,
    },
    /// Blox's and Gavel's "Philly-like" mix (Blox `workload/utils.py`, `get_gavel_like_iter`;
    /// BLOX-SEMANTICS §10.3): with probability 0.8 `60·10^U(1.5, 3)` s (32 min – 16.7 h), else
    /// `60·10^U(3, 4)` s (16.7 h – 6.9 days). Mean ≈ 60,400 s. The default.
    #[default]
    PhillyLike,
    /// Uniform over these values (e.g. the durations of a real trace).
    Empirical(Vec<f64>),
}

impl DurationDist {
    /// Checks the parameters: bounds finite, `0 < lo ≤ hi` (or `lo < hi` where needed), a
    /// non-empty list of positive values.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let ok = match self {
            DurationDist::Constant(c) => c.is_finite() && *c > 0.0,
            DurationDist::Uniform { lo, hi } | DurationDist::LogUniform { lo, hi } => {
                lo.is_finite() && hi.is_finite() && *lo > 0.0 && lo <= hi
            }
            DurationDist::Exponential { mean } => mean.is_finite() && *mean > 0.0,
            DurationDist::PhillyLike => true,
            DurationDist::Empirical(v) => {
                !v.is_empty() && v.iter().all(|d| d.is_finite() && *d > 0.0)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(WorkloadError::config(format!(
                "invalid duration distribution {self:?}: durations must be finite and > 0, with lo ≤ hi"
            )))
        }
    }

    /// One draw, in seconds (> 0 for a valid distribution).
    pub fn sample(&self, rng: &mut StreamRng) -> f64 {
        match self {
            DurationDist::Constant(c) => *c,
            DurationDist::Uniform { lo, hi } => lo + (hi - lo) * rng.next_f64(),
            DurationDist::LogUniform { lo, hi } => {
                let (a, b) = (lo.ln(), hi.ln());
                (a + (b - a) * rng.next_f64()).exp()
            }
            DurationDist::Exponential { mean } => -mean * (1.0 - rng.next_f64()).ln(),
            DurationDist::PhillyLike => {
                let (lo, hi) = if rng.next_f64() >= 0.8 {
                    (3.0, 4.0)
                } else {
                    (1.5, 3.0)
                };
                60.0 * 10f64.powf(lo + (hi - lo) * rng.next_f64())
            }
            DurationDist::Empirical(v) => v[rng.below(v.len() as u64) as usize],
        }
    }
}

/// GPUs per job observed in Pollux's Philly-derived `philly.csv` (82,247 jobs; the test
/// `philly_gpu_weights_match_the_trace` recounts them from the file): `(GPUs, jobs)`.
pub const PHILLY_GPU_COUNTS: [(u32, u64); 10] = [
    (1, 76_627),
    (2, 1_818),
    (4, 1_870),
    (8, 1_643),
    (12, 7),
    (16, 199),
    (24, 7),
    (32, 67),
    (64, 6),
    (128, 3),
];

/// A distribution of GPUs per job.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GpuDist {
    /// Always this many GPUs.
    Fixed(u32),
    /// `(GPUs, weight)` pairs; weights need not sum to 1.
    Weighted(Vec<(u32, f64)>),
}

impl Default for GpuDist {
    /// [`GpuDist::philly`].
    fn default() -> Self {
        GpuDist::philly()
    }
}

impl GpuDist {
    /// The Philly GPU-count mix ([`PHILLY_GPU_COUNTS`]): 93.2 % 1-GPU jobs, up to 128 GPUs.
    pub fn philly() -> Self {
        GpuDist::Weighted(
            PHILLY_GPU_COUNTS
                .iter()
                .map(|&(g, n)| (g, n as f64))
                .collect(),
        )
    }

    /// Philly's mix truncated to jobs of at most `max` GPUs (e.g. the cluster size).
    pub fn philly_up_to(max: u32) -> Self {
        GpuDist::Weighted(
            PHILLY_GPU_COUNTS
                .iter()
                .filter(|&&(g, _)| g <= max)
                .map(|&(g, n)| (g, n as f64))
                .collect(),
        )
    }

    /// Checks: GPU counts ≥ 1, weights finite, ≥ 0 and not all 0.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let ok = match self {
            GpuDist::Fixed(g) => *g >= 1,
            GpuDist::Weighted(w) => {
                w.iter().all(|&(g, p)| g >= 1 && p.is_finite() && p >= 0.0)
                    && w.iter().map(|x| x.1).sum::<f64>() > 0.0
            }
        };
        if ok {
            Ok(())
        } else {
            Err(WorkloadError::config(format!(
                "invalid GPU distribution {self:?}: GPU counts must be ≥ 1 and weights ≥ 0, not all 0"
            )))
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut StreamRng) -> u32 {
        match self {
            GpuDist::Fixed(g) => *g,
            GpuDist::Weighted(w) => {
                let total: f64 = w.iter().map(|x| x.1).sum();
                let mut u = rng.next_f64() * total;
                for &(g, p) in w {
                    if u < p {
                        return g;
                    }
                    u -= p;
                }
                // Rounding left `u` just above the last bucket: take the last positive one.
                w.iter().rev().find(|x| x.1 > 0.0).map_or(1, |x| x.0)
            }
        }
    }
}

/// Configuration of [`PoissonGenerator`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PoissonConfig {
    /// Mean arrival rate, jobs per hour (> 0).
    pub jobs_per_hour: f64,
    /// Durations ([`DurationDist::PhillyLike`] by default).
    pub duration: DurationDist,
    /// GPUs per job ([`GpuDist::philly`] by default).
    pub gpus: GpuDist,
}

impl PoissonConfig {
    /// `jobs_per_hour` with the Philly-like defaults.
    pub fn new(jobs_per_hour: f64) -> Self {
        PoissonConfig {
            jobs_per_hour,
            duration: DurationDist::default(),
            gpus: GpuDist::default(),
        }
    }
}

/// Poisson arrivals at `jobs_per_hour` (exponential gaps, first job one gap after 0), with
/// durations and GPU counts drawn independently, each from its own stream
/// ([`POISSON_STREAMS`]). An infinite iterator in arrival order; arrivals are rounded up to the
/// millisecond. `class_id` is left 0 (see [`assign_models`](crate::assign_models)).
#[derive(Clone, Debug)]
pub struct PoissonGenerator {
    cfg: PoissonConfig,
    arrivals: StreamRng,
    durations: StreamRng,
    gpus: StreamRng,
    clock_s: f64,
}

impl PoissonGenerator {
    /// Checks `cfg` and seeds the streams.
    pub fn new(cfg: PoissonConfig, seed: Seed) -> Result<Self, WorkloadError> {
        check_rate(cfg.jobs_per_hour)?;
        cfg.duration.validate()?;
        cfg.gpus.validate()?;
        Ok(PoissonGenerator {
            cfg,
            arrivals: seed.stream(POISSON_STREAMS[0]),
            durations: seed.stream(POISSON_STREAMS[1]),
            gpus: seed.stream(POISSON_STREAMS[2]),
            clock_s: 0.0,
        })
    }
}

impl Iterator for PoissonGenerator {
    type Item = JobSpec;
    fn next(&mut self) -> Option<JobSpec> {
        self.clock_s += exp_gap_s(&mut self.arrivals, self.cfg.jobs_per_hour);
        let arrival = Time::from_secs_f64_ceil(self.clock_s).unwrap_or(Time::MAX);
        let d = self.cfg.duration.sample(&mut self.durations);
        let g = self.cfg.gpus.sample(&mut self.gpus);
        Some(JobSpec::new(arrival, g, d))
    }
}

fn check_rate(jobs_per_hour: f64) -> Result<(), WorkloadError> {
    if jobs_per_hour.is_finite() && jobs_per_hour > 0.0 {
        Ok(())
    } else {
        Err(WorkloadError::config(format!(
            "arrival rate must be a finite number of jobs per hour > 0, got {jobs_per_hour}"
        )))
    }
}

/// One exponential gap in seconds at `jobs_per_hour`.
fn exp_gap_s(rng: &mut StreamRng, jobs_per_hour: f64) -> f64 {
    -(1.0 - rng.next_f64()).ln() / jobs_per_hour * 3600.0
}

/// The load [`resample`] aims at.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum LoadTarget {
    /// Arrival rate in jobs per hour.
    JobsPerHour(f64),
    /// Offered load in GPUs: arrivals at `target / mean(n_gpus × work_s)` jobs per second, so
    /// that the expected GPU-seconds offered per second equal `target`.
    Gpus(f64),
}

/// Resamples a real trace at a target load: `n_jobs` jobs drawn uniformly with replacement from
/// `trace` (stream `workload.resample.pick`), keeping GPUs, duration, model and the other
/// fields, with fresh Poisson arrivals at the rate implied by `target` (stream
/// `workload.resample.arrivals`). A deadline keeps its slack (deadline − arrival).
pub fn resample(
    trace: &[JobSpec],
    target: LoadTarget,
    n_jobs: usize,
    seed: Seed,
) -> Result<Vec<JobSpec>, WorkloadError> {
    if trace.is_empty() {
        return Err(WorkloadError::config("cannot resample an empty trace"));
    }
    let jobs_per_hour = match target {
        LoadTarget::JobsPerHour(r) => r,
        LoadTarget::Gpus(g) => {
            if !(g.is_finite() && g > 0.0) {
                return Err(WorkloadError::config(format!(
                    "target load must be a finite number of GPUs > 0, got {g}"
                )));
            }
            let mean = trace
                .iter()
                .map(|j| f64::from(j.n_gpus) * j.work_s)
                .sum::<f64>()
                / trace.len() as f64;
            g / mean * 3600.0
        }
    };
    check_rate(jobs_per_hour)?;
    let mut pick = seed.stream("workload.resample.pick");
    let mut arr = seed.stream("workload.resample.arrivals");
    let mut clock_s = 0.0;
    let mut out = Vec::with_capacity(n_jobs);
    for _ in 0..n_jobs {
        clock_s += exp_gap_s(&mut arr, jobs_per_hour);
        let src = &trace[pick.below(trace.len() as u64) as usize];
        let mut j = src.clone();
        j.arrival = Time::from_secs_f64_ceil(clock_s).unwrap_or(Time::MAX);
        j.deadline = src
            .deadline
            .map(|d| Time(j.arrival.0.saturating_add(d.saturating_sub(src.arrival).0)));
        out.push(j);
    }
    Ok(out)
}

/// Configuration of [`DualLoad`]; `DualLoadConfig::new(load)` gives Blox's parameters.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DualLoadConfig {
    /// Base (long-job) arrival rate, jobs per hour.
    pub load: f64,
    /// The short stream's rate is `short_factor × load` (Blox: 4).
    pub short_factor: f64,
    /// Base job durations, whole seconds, inclusive (Blox: 36,000 – 86,400).
    pub long_s: (u64, u64),
    /// Short job durations, whole seconds, inclusive (Blox: 600 – 3,600).
    pub short_s: (u64, u64),
    /// A burst window opens at every multiple of this (Blox: 14,400 s).
    pub burst_period_s: u64,
    /// A window lasts until the next multiple of this strictly after its start (Blox: 21,600 s).
    pub burst_end_multiple_s: u64,
}

impl DualLoadConfig {
    /// Blox's Fig. 15 parameters at base load `load` jobs per hour.
    pub fn new(load: f64) -> Self {
        DualLoadConfig {
            load,
            short_factor: 4.0,
            long_s: (36_000, 86_400),
            short_s: (600, 3_600),
            burst_period_s: 14_400,
            burst_end_multiple_s: 21_600,
        }
    }
}

/// The **intended** form of Blox's bursty "dual load" (`simulator_dual_load.py`,
/// BLOX-SEMANTICS §11.2; Blox's own code is broken and floods past-dated jobs): long base jobs
/// at `load` plus a short-job Poisson stream at `short_factor × load` that is active from every
/// multiple of `burst_period_s` until the next multiple of `burst_end_multiple_s` after it.
///
/// This is a workload-agnostic iterator of [`JobSpec`]s on named streams
/// (`workload.dual.base`, `workload.dual.short`), not Blox's draw-for-draw generator (that is
/// blox-sim's `BloxDualLoad`, on CPython's `random`). Same reading of "active" as there: the
/// short stream runs on its own clock that advances only inside windows (a Poisson process
/// restricted to the windows). Arrivals are whole seconds (gaps rounded up, as Blox);
/// durations are uniform whole seconds; base job `b` has class `b mod 5`, short job `s` class
/// `s mod 5`. Merged by arrival; base first on ties. 1 GPU per job, as in Blox.
#[derive(Clone, Debug)]
pub struct DualLoad {
    cfg: DualLoadConfig,
    base: StreamRng,
    short: StreamRng,
    base_clock_s: u64,
    short_active_s: u64,
    windows: WindowCursor,
    next_base: JobSpec,
    next_short: JobSpec,
    n_base: u32,
    n_short: u32,
}

impl DualLoad {
    /// Checks `cfg` and seeds the streams.
    pub fn new(cfg: DualLoadConfig, seed: Seed) -> Result<Self, WorkloadError> {
        check_rate(cfg.load)?;
        check_rate(cfg.load * cfg.short_factor)?;
        for (lo, hi) in [cfg.long_s, cfg.short_s] {
            if lo == 0 || lo > hi {
                return Err(WorkloadError::config(format!(
                    "dual load: duration range ({lo}, {hi}) must satisfy 0 < lo ≤ hi"
                )));
            }
        }
        if cfg.burst_period_s == 0 || cfg.burst_end_multiple_s == 0 {
            return Err(WorkloadError::config(
                "dual load: burst period and window multiple must be > 0 s",
            ));
        }
        let windows = WindowCursor::new(cfg.burst_period_s, cfg.burst_end_multiple_s);
        let mut g = DualLoad {
            base: seed.stream("workload.dual.base"),
            short: seed.stream("workload.dual.short"),
            base_clock_s: 0,
            short_active_s: 0,
            windows,
            next_base: JobSpec::new(Time::ZERO, 1, 1.0),
            next_short: JobSpec::new(Time::ZERO, 1, 1.0),
            n_base: 0,
            n_short: 0,
            cfg,
        };
        g.next_base = g.gen_base();
        g.next_short = g.gen_short();
        Ok(g)
    }

    fn gen_base(&mut self) -> JobSpec {
        let gap = exp_gap_s(&mut self.base, self.cfg.load).ceil() as u64;
        self.base_clock_s = self.base_clock_s.saturating_add(gap);
        let d = uniform_int(&mut self.base, self.cfg.long_s);
        let mut j = JobSpec::new(
            Time::from_secs(self.base_clock_s.min(u64::MAX / 1000)),
            1,
            d,
        );
        j.class_id = self.n_base % 5;
        self.n_base = self.n_base.wrapping_add(1);
        j
    }

    fn gen_short(&mut self) -> JobSpec {
        let rate = self.cfg.load * self.cfg.short_factor;
        let gap = exp_gap_s(&mut self.short, rate).ceil() as u64;
        self.short_active_s = self.short_active_s.saturating_add(gap);
        let wall = self.windows.wall_clock(self.short_active_s);
        let d = uniform_int(&mut self.short, self.cfg.short_s);
        let mut j = JobSpec::new(Time::from_secs(wall.min(u64::MAX / 1000)), 1, d);
        j.class_id = self.n_short % 5;
        self.n_short = self.n_short.wrapping_add(1);
        j
    }
}

impl Iterator for DualLoad {
    type Item = JobSpec;
    fn next(&mut self) -> Option<JobSpec> {
        Some(if self.next_base.arrival <= self.next_short.arrival {
            let n = self.gen_base();
            std::mem::replace(&mut self.next_base, n)
        } else {
            let n = self.gen_short();
            std::mem::replace(&mut self.next_short, n)
        })
    }
}

fn uniform_int(rng: &mut StreamRng, (lo, hi): (u64, u64)) -> f64 {
    (lo + rng.below(hi - lo + 1)) as f64
}

/// Maps the short stream's active-clock seconds to wall-clock seconds, walking the merged
/// windows `[k·P, next multiple of W after k·P)` forward (queries must not decrease).
#[derive(Clone, Debug)]
struct WindowCursor {
    period: u64,
    multiple: u64,
    /// Current merged window `[start, end)`.
    start: u64,
    end: u64,
    /// Active seconds before `start`.
    before: u64,
}

impl WindowCursor {
    fn new(period: u64, multiple: u64) -> Self {
        let mut c = WindowCursor {
            period,
            multiple,
            start: 0,
            end: 0,
            before: 0,
        };
        c.end = c.merged_end(0);
        c
    }

    /// The next multiple of `multiple` strictly after `s`.
    fn window_end(&self, s: u64) -> u64 {
        (s / self.multiple)
            .saturating_add(1)
            .saturating_mul(self.multiple)
    }

    /// End of the merged window starting at `s` (a multiple of `period`).
    fn merged_end(&self, s: u64) -> u64 {
        let mut e = self.window_end(s);
        let mut ns = s.saturating_add(self.period);
        while ns < e {
            e = e.max(self.window_end(ns));
            ns = ns.saturating_add(self.period);
        }
        e
    }

    fn wall_clock(&mut self, active: u64) -> u64 {
        while active >= self.before.saturating_add(self.end - self.start) {
            if self.end == u64::MAX {
                return u64::MAX;
            }
            self.before += self.end - self.start;
            // The next window opens at the first multiple of `period` at or after `end`.
            let s = self.end.div_ceil(self.period).saturating_mul(self.period);
            self.start = s;
            self.end = self.merged_end(s);
        }
        self.start + (active - self.before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_cursor_follows_blox_windows() {
        let mut c = WindowCursor::new(14_400, 21_600);
        assert_eq!(c.wall_clock(0), 0);
        assert_eq!(c.wall_clock(21_599), 21_599);
        assert_eq!(c.wall_clock(21_600), 28_800);
        assert_eq!(c.wall_clock(35_999), 43_199);
        assert_eq!(c.wall_clock(36_000), 43_200);
        assert_eq!(c.wall_clock(36_000 + 21_600), 43_200 + 28_800);
    }

    #[test]
    fn philly_like_durations_have_blox_mean() {
        let mut r = Seed(3).stream("d");
        let n = 200_000;
        let mean = (0..n)
            .map(|_| DurationDist::PhillyLike.sample(&mut r))
            .sum::<f64>()
            / n as f64;
        assert!((mean - 60_400.0).abs() < 1_500.0, "{mean}");
    }
}
