//! What Sia's policy reads of a job (SIA-SEMANTICS §5, §6.2–§6.5): goodput estimates per
//! type in float32 (the original passes float32 arrays, §13.2), their projection to types the
//! job has not run on, the per-job replica cap, the normalised goodput matrix, the restart
//! factor and the fairness power with its 2-decimal rounding.

use blox_pollux::goodput::{GradParams, PerfParams};

use crate::cluster::{Config, SiaCluster};
use crate::job::SiaJob;
use crate::model::restart_penalty;

/// The matrix entry of a configuration a job cannot use (`ZERO_ALLOC_GAIN`).
pub const ZERO_ALLOC_GAIN: f32 = 1e-4;

/// Utilities above this are clipped (`sia_goodput_clip_val`).
pub const GOODPUT_CLIP: f32 = 3000.0;

/// A job's goodput model on one type, evaluated in float32 as the original does.
#[derive(Debug, Clone, Copy)]
pub struct GoodputF32 {
    perf: [f32; 7],
    sqr: f32,
    var: f32,
    init_batch: f32,
    /// Largest total batch (the workload's `batch_size`, §5.1).
    pub max_batch: f32,
    /// Smallest per-GPU batch.
    pub min_local: f32,
    /// Largest per-GPU batch (model-wide, §5.1).
    pub max_local: f32,
}

const TINY: f32 = 1e-8;

impl GoodputF32 {
    /// The model of fitted parameters `perf` and gradient statistics `grad`, with the batch
    /// limits of §5.1.
    pub fn new(
        perf: PerfParams,
        grad: GradParams,
        init_batch: u64,
        max_batch: u64,
        local_range: (u64, u64),
    ) -> GoodputF32 {
        GoodputF32 {
            perf: perf.0.map(|v| v as f32),
            sqr: grad.sqr as f32,
            var: grad.var as f32,
            init_batch: init_batch as f32,
            max_batch: max_batch as f32,
            min_local: local_range.0 as f32,
            max_local: local_range.1 as f32,
        }
    }

    fn step_time(&self, nodes: f32, replicas: f32, atomic: f32, accum: f32) -> f32 {
        let p = &self.perf;
        let a = p[0] + p[1] * atomic;
        let (alpha, beta) = if nodes > 1.0 {
            (p[2], p[3])
        } else if replicas > 1.0 {
            (p[4], p[5])
        } else {
            (TINY, TINY)
        };
        let n = alpha + beta * (replicas - 2.0).max(TINY);
        let g = p[6];
        let optim = ((a.powf(g) + n.powf(g)).ln() / g).exp();
        accum * a + optim
    }

    fn evaluate(&self, nodes: f32, replicas: f32, atomic: f32, accum: f32) -> f32 {
        let batch = replicas * atomic * (accum + 1.0);
        let thr = batch / self.step_time(nodes, replicas, atomic, accum);
        let scale = batch / self.init_batch;
        let denom = self.var / scale + self.sqr;
        let gain = if denom > 0.0 {
            (self.var + self.sqr) / denom
        } else {
            1.0
        };
        thr * (gain / scale)
    }

    /// The raw goodput (samples/s × efficiency) of the best of 50 geometric batch candidates
    /// for `nodes` × `replicas` (Pollux's optimiser, §5.1), 0 if no candidate fits the
    /// per-GPU range; the first maximum wins.
    pub fn best(&self, nodes: u32, replicas: u32) -> f32 {
        const EPS: f32 = 1e-8;
        let (n, r) = (nodes as f32, replicas as f32);
        let lo = self.init_batch.max(self.min_local * r);
        let hi = self.max_batch;
        let (l0, l1) = (lo.log10(), hi.log10());
        let step = (l1 - l0) / 49.0;
        let mut best = f32::NEG_INFINITY;
        for i in 0..50 {
            let m = if i == 0 {
                lo
            } else if i == 49 {
                hi
            } else {
                10f32.powf(i as f32 * step + l0)
            };
            let local = m / r;
            let mut accum = ((local / self.max_local - EPS).ceil() - 1.0).max(0.0);
            if replicas == 1 && local > self.init_batch + EPS {
                accum = accum.max(1.0);
            }
            let atomic = (local / (accum + 1.0) - EPS).ceil().max(0.0);
            let g = if atomic >= self.min_local && atomic <= self.max_local {
                self.evaluate(n, r, atomic, accum)
            } else {
                0.0
            };
            if g > best {
                best = g;
            }
        }
        best.max(0.0)
    }
}

/// The job's goodput model on type `t`, if it has run there (a fitted model) and has gradient
/// statistics (§5.1).
pub fn goodput_fn(job: &SiaJob, cluster: &SiaCluster, t: usize) -> Option<GoodputF32> {
    let perf = job.perf_params[t]?;
    let grad = job.grad_params?;
    let app = &job.app.per_type[t];
    Some(GoodputF32::new(
        perf,
        grad,
        app.init_batch_size,
        job.target_batch_size,
        job.app.model_wide_local_range(t, &cluster.types[t].name),
    ))
}

/// The per-type replica cap of §6.2 with `--share_max_replicas`: the largest over types of
/// `min(max(2 × largest profiled replica count, 1), 64, max batch // min local)`.
pub fn max_replicas(job: &SiaJob, cluster: &SiaCluster) -> u32 {
    (0..cluster.types.len())
        .map(|t| {
            let app = &job.app.per_type[t];
            let by_batch = job.target_batch_size / app.min_local_bsz.max(1);
            u64::from((2 * job.max_profiled_replicas(t)).max(1))
                .min(64)
                .min(by_batch) as u32
        })
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The raw goodput estimate of configuration `c` for `job`: its own model on the type, else
/// the projection from the first type (in type order) that has one (§5.2), else `None`
/// (blind). `Some(0)` for a configuration none of whose batch candidates fits.
pub fn estimate(job: &SiaJob, cluster: &SiaCluster, c: &Config) -> Option<f32> {
    if let Some(f) = goodput_fn(job, cluster, c.gpu_type) {
        return Some(f.best(c.nodes, c.gpus));
    }
    let s = (0..cluster.types.len()).find(|&s| goodput_fn(job, cluster, s).is_some())?;
    let f = goodput_fn(job, cluster, s)?;
    let gpn = cluster.types[s].gpus_per_node;
    let nodes = c.gpus.div_ceil(gpn);
    let ratio = job.app.ratio(c.gpu_type, s) as f32;
    Some(f.best(nodes, c.gpus) * ratio)
}

/// One row of the normalised goodput matrix G (§6.3), over `configs`.
pub fn goodput_row(job: &SiaJob, cluster: &SiaCluster, configs: &[Config]) -> Vec<f32> {
    let cap = max_replicas(job, cluster);
    let mut row = vec![ZERO_ALLOC_GAIN; configs.len()];
    let mut blind = vec![false; cluster.types.len()];
    for (t, b) in blind.iter_mut().enumerate() {
        let probe = Config {
            gpu_type: t,
            nodes: 1,
            gpus: 1,
        };
        *b = estimate(job, cluster, &probe).is_none();
    }
    for (i, c) in configs.iter().enumerate() {
        if blind[c.gpu_type] || c.gpus > cap {
            continue;
        }
        if let Some(g) = estimate(job, cluster, c) {
            row[i] = g;
        }
    }
    let m = configs
        .iter()
        .zip(&row)
        .filter(|&(c, &g)| !blind[c.gpu_type] && g > ZERO_ALLOC_GAIN)
        .map(|(_, &g)| g)
        .fold(f32::INFINITY, f32::min);
    let m = if m.is_finite() { m } else { 1.0 };
    let inv = 1.0 / m;
    for g in &mut row {
        *g *= inv;
    }
    for (i, c) in configs.iter().enumerate() {
        if blind[c.gpu_type] && c.gpus == 1 {
            row[i] = 1.0;
        }
    }
    for g in &mut row {
        if *g <= ZERO_ALLOC_GAIN {
            *g = ZERO_ALLOC_GAIN;
        }
    }
    row
}

/// The restart factor of §6.4: `max(age − restarts·S, 0) / (age + S)` with `S` the penalty
/// by job name, 1 while `age < S`.
pub fn restart_factor(job_name: &str, age: f64, num_restarts: u32) -> f64 {
    let s = restart_penalty(job_name);
    if age < s {
        return 1.0;
    }
    (age - f64::from(num_restarts) * s).max(0.0) / (age + s)
}

/// `A = round(G^p, 2)` element-wise in float32 (round half to even at 2 decimals, as numpy),
/// entries above 3000 clipped to 3000 (§6.5).
pub fn utility(g: f32, p: f32) -> f32 {
    let a = ((g.powf(p) * 100.0).round_ties_even()) / 100.0;
    if a > GOODPUT_CLIP || a.is_nan() {
        GOODPUT_CLIP
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utility_rounds_and_clips_like_numpy() {
        assert_eq!(utility(1.0, -0.5), 1.0);
        assert_eq!(utility(ZERO_ALLOC_GAIN, -0.5), 100.0);
        assert_eq!(utility(0.0, -0.5), GOODPUT_CLIP);
        // 6.90^-0.5 = 0.3807 → 0.38; 9.21^-0.5 = 0.3295 → 0.33 (§11.3, t = 120).
        assert_eq!(utility(6.90, -0.5), 0.38);
        assert_eq!(utility(9.21 * 0.75, -0.5), 0.38);
        assert_eq!(utility(2.27 * 0.75, -0.5), 0.77);
    }

    #[test]
    fn restart_factor_matches_the_check_values() {
        // §11.3: cifar10-0 (S = 30), arrival 30, restarts before each decision.
        assert_eq!(restart_factor("cifar10-0", 30.0, 0), 0.5);
        assert_eq!(restart_factor("cifar10-0", 90.0, 0), 0.75);
        assert_eq!(restart_factor("cifar10-0", 150.0, 1), 120.0 / 180.0);
        assert_eq!(restart_factor("cifar10-0", 210.0, 1), 0.75);
        assert_eq!(restart_factor("cifar10-0", 270.0, 1), 0.8);
        assert_eq!(restart_factor("cifar10-0", 330.0, 2), 0.75);
        assert_eq!(restart_factor("cifar10-0", 390.0, 2), 330.0 / 420.0);
        // Younger than the penalty: no penalty; more restarts than age allows: 0.
        assert_eq!(restart_factor("bert-1", 100.0, 3), 1.0);
        assert_eq!(restart_factor("bert-1", 200.0, 3), 0.0);
    }
}
