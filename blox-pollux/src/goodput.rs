//! The Pollux agent's model of a job: a 7-parameter throughput model fitted online, statistical
//! efficiency from the gradient noise scale, and the goodput-maximising batch size
//! (POLLUX-SEMANTICS §5; the artifact's `goodput.py`).

use crate::lbfgsb;

/// The throughput model's parameters, in the artifact's order: compute `α_c + β_c · atomic`;
/// inter-node network `α_n + β_n · (replicas − 2)`; intra-node network `α_r + β_r · (replicas −
/// 2)`; overlap exponent `γ ∈ [1, 10]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfParams(pub [f64; 7]);

/// Gradient statistics `(sqr, var)`: squared gradient norm and gradient variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradParams {
    /// Squared norm of the true gradient.
    pub sqr: f64,
    /// Variance of the per-sample gradient.
    pub var: f64,
}

const TINY: f64 = 1e-8;

impl PerfParams {
    /// Predicted compute time of one micro-step at per-GPU batch `atomic`.
    pub fn accum_time(&self, atomic: f64) -> f64 {
        self.0[0] + self.0[1] * atomic
    }

    /// Predicted network time of one synchronisation.
    pub fn network_time(&self, nodes: u32, replicas: u32) -> f64 {
        let p = &self.0;
        let (alpha, beta) = if nodes > 1 {
            (p[2], p[3])
        } else if replicas > 1 {
            (p[4], p[5])
        } else {
            (TINY, TINY)
        };
        alpha + beta * (f64::from(replicas) - 2.0).max(TINY)
    }

    /// Predicted time of one optimizer step with `accum` extra accumulation micro-steps.
    pub fn step_time(&self, nodes: u32, replicas: u32, atomic: f64, accum: u32) -> f64 {
        let a = self.accum_time(atomic);
        let n = self.network_time(nodes, replicas);
        let g = self.0[6];
        let optim = ((a.powf(g) + n.powf(g)).ln() / g).exp();
        f64::from(accum) * a + optim
    }
}

/// Statistical efficiency of total batch `batch` relative to `init_batch`: `gain / scale`.
pub fn efficiency(grad: GradParams, init_batch: f64, batch: f64) -> f64 {
    let scale = batch / init_batch;
    let denom = grad.var / scale + grad.sqr;
    let gain = if denom > 0.0 {
        (grad.var + grad.sqr) / denom
    } else {
        1.0
    };
    gain / scale
}

/// Goodput of one job as its agent models it.
#[derive(Debug, Clone, Copy)]
pub struct GoodputFunction {
    /// The fitted throughput model.
    pub perf: PerfParams,
    /// The gradient statistics last observed.
    pub grad: GradParams,
    /// The application's initial batch size.
    pub init_batch: u64,
}

/// The batch-size limits an agent optimises within.
#[derive(Debug, Clone, Copy)]
pub struct BatchLimits {
    /// Largest total batch.
    pub max_batch: u64,
    /// Smallest per-GPU batch.
    pub min_local: u64,
    /// Largest per-GPU batch.
    pub max_local: u64,
}

impl GoodputFunction {
    /// Goodput (samples per second times efficiency) of a configuration.
    pub fn evaluate(&self, nodes: u32, replicas: u32, atomic: u64, accum: u32) -> f64 {
        let batch = f64::from(replicas) * atomic as f64 * f64::from(accum + 1);
        let thr = batch / self.perf.step_time(nodes, replicas, atomic as f64, accum);
        thr * efficiency(self.grad, self.init_batch as f64, batch)
    }

    /// The best `(goodput, atomic, accum)` for an allocation: 50 totals spaced geometrically from
    /// `max(init, min_local · replicas)` to `max_batch`, split into micro-batches, candidates with
    /// a per-GPU batch outside the limits scoring 0; the first maximum wins.
    pub fn optimize(&self, nodes: u32, replicas: u32, lim: BatchLimits) -> (f64, u64, u32) {
        const EPS: f64 = 1e-8;
        let r = f64::from(replicas);
        let lo = (self.init_batch as f64).max(lim.min_local as f64 * r);
        let hi = lim.max_batch as f64;
        let (l0, l1) = (lo.log10(), hi.log10());
        let step = (l1 - l0) / 49.0;
        let mut best = (f64::NEG_INFINITY, 0u64, 0u32);
        for i in 0..50 {
            let m = if i == 0 {
                lo
            } else if i == 49 {
                hi
            } else {
                10f64.powf(i as f64 * step + l0)
            };
            let local = m / r;
            let mut accum = ((local / lim.max_local as f64 - EPS).ceil() - 1.0).max(0.0);
            if replicas == 1 && local > self.init_batch as f64 + EPS {
                accum = accum.max(1.0);
            }
            let accum = accum as u32;
            let atomic = (local / f64::from(accum + 1) - EPS).ceil().max(0.0) as u64;
            let g = if atomic >= lim.min_local && atomic <= lim.max_local {
                self.evaluate(nodes, replicas, atomic, accum)
            } else {
                0.0
            };
            if g > best.0 {
                best = (g, atomic, accum);
            }
        }
        best
    }
}

/// One observation of a job's profile: `(nodes, replicas, atomic) → (step, sync)`.
pub type Observation = ((u32, u32, u64), (f64, f64));

/// Fit the throughput model to a profile (§5.1): RMSE of log compute time plus RMSE of log step
/// time plus the two regularisers, by a bounded quasi-Newton minimiser, with the artifact's
/// pinning rules and optimistic prior.
pub fn fit_perf_params(profile: &[Observation]) -> PerfParams {
    let mut x0 = [0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001];
    let mut lower = [TINY; 7];
    lower[6] = 1.0;
    let mut upper = [f64::INFINITY; 7];
    upper[6] = 10.0;
    let data: Vec<Point> = profile
        .iter()
        .map(|&((n, r, b), (st, sy))| Point {
            nodes: n,
            replicas: r,
            atomic: b as f64,
            log_compute: (st - sy).ln(),
            log_step: st.ln(),
        })
        .collect();
    let first = profile.first().map(|o| o.0 .2);
    if profile.iter().all(|o| Some(o.0 .2) == first) {
        let mean = profile.iter().map(|o| o.1 .0 - o.1 .1).sum::<f64>() / profile.len() as f64;
        x0[0] = mean / 2.0;
        lower[0] = x0[0];
        upper[0] = x0[0];
    }
    let multi_node = profile.iter().any(|o| o.0 .0 > 1);
    let pin = |i: usize, x0: &mut [f64; 7], lo: &mut [f64; 7], up: &mut [f64; 7]| {
        x0[i] = lo[i];
        up[i] = lo[i];
    };
    if !multi_node {
        pin(2, &mut x0, &mut lower, &mut upper);
        pin(3, &mut x0, &mut lower, &mut upper);
    }
    if !profile.iter().any(|o| o.0 .0 == 1 && o.0 .1 > 1) {
        pin(4, &mut x0, &mut lower, &mut upper);
        pin(5, &mut x0, &mut lower, &mut upper);
    }
    if !profile.iter().any(|o| o.0 .1 > 2) {
        pin(3, &mut x0, &mut lower, &mut upper);
        pin(5, &mut x0, &mut lower, &mut upper);
    }
    // The compute error is a root-mean-square: it has a kink where the compute line fits
    // exactly, which stalls a quasi-Newton search in the other parameters. So after a full
    // search, hold the compute parameters, search the (smooth) rest, and search all again.
    let mut p = lbfgsb::minimize(|x, g| objective(x, &data, g), x0, lower, upper);
    for _ in 0..2 {
        let (mut lo, mut up) = (lower, upper);
        lo[..2].copy_from_slice(&p[..2]);
        up[..2].copy_from_slice(&p[..2]);
        p = lbfgsb::minimize(|x, g| objective(x, &data, g), p, lo, up);
        p = lbfgsb::minimize(|x, g| objective(x, &data, g), p, lower, upper);
    }
    if !multi_node {
        p[2] = p[2].max(p[4] * 1.1);
        p[3] = p[3].max(p[5] * 1.1);
    }
    PerfParams(p)
}

struct Point {
    nodes: u32,
    replicas: u32,
    atomic: f64,
    log_compute: f64,
    log_step: f64,
}

/// The fit's objective and its gradient.
fn objective(x: &[f64; 7], data: &[Point], grad: &mut [f64; 7]) -> f64 {
    let n = data.len() as f64;
    let gamma = x[6];
    let (mut s1, mut s2) = (0.0, 0.0);
    let mut g1 = [0.0; 7];
    let mut g2 = [0.0; 7];
    for d in data {
        let a = x[0] + x[1] * d.atomic;
        let (ia, ib) = if d.nodes > 1 {
            (Some(2), Some(3))
        } else if d.replicas > 1 {
            (Some(4), Some(5))
        } else {
            (None, None)
        };
        let retro = (f64::from(d.replicas) - 2.0).max(TINY);
        let net = ia.map_or(TINY, |i| x[i]) + ib.map_or(TINY, |i| x[i]) * retro;
        let e1 = a.ln() - d.log_compute;
        s1 += e1 * e1;
        // d e1 / d(α_c, β_c)
        g1[0] += e1 / a;
        g1[1] += e1 * d.atomic / a;
        let ag = a.powf(gamma);
        let ng = net.powf(gamma);
        let sum = ag + ng;
        let lopt = sum.ln() / gamma;
        let e2 = lopt - d.log_step;
        s2 += e2 * e2;
        let da = ag / a / sum; // ∂lopt/∂A
        let dn = ng / net / sum; // ∂lopt/∂N
        g2[0] += e2 * da;
        g2[1] += e2 * da * d.atomic;
        if let (Some(i), Some(j)) = (ia, ib) {
            g2[i] += e2 * dn;
            g2[j] += e2 * dn * retro;
        }
        let dg = (ag * a.ln() + ng * net.ln()) / sum / gamma - sum.ln() / (gamma * gamma);
        g2[6] += e2 * dg;
    }
    let err1 = (s1 / n).sqrt();
    let err2 = (s2 / n).sqrt();
    let reg1 = 1e-3 * (gamma - 1.0) * (gamma - 1.0);
    let rn = x[3] / x[2];
    let rr = x[5] / x[4];
    let reg2 = 1e-2 * (rn * rn + rr * rr);
    for i in 0..7 {
        let a = if err1 > 0.0 { g1[i] / n / err1 } else { 0.0 };
        let b = if err2 > 0.0 { g2[i] / n / err2 } else { 0.0 };
        grad[i] = a + b;
    }
    grad[6] += 2e-3 * (gamma - 1.0);
    grad[2] += 1e-2 * 2.0 * rn * (-x[3] / (x[2] * x[2]));
    grad[3] += 1e-2 * 2.0 * rn / x[2];
    grad[4] += 1e-2 * 2.0 * rr * (-x[5] / (x[4] * x[4]));
    grad[5] += 1e-2 * 2.0 * rr / x[4];
    err1 + err2 + reg1 + reg2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let data = vec![
            Point {
                nodes: 1,
                replicas: 1,
                atomic: 32.0,
                log_compute: (0.04f64).ln(),
                log_step: (0.0405f64).ln(),
            },
            Point {
                nodes: 1,
                replicas: 4,
                atomic: 64.0,
                log_compute: (0.07f64).ln(),
                log_step: (0.09f64).ln(),
            },
            Point {
                nodes: 2,
                replicas: 8,
                atomic: 128.0,
                log_compute: (0.12f64).ln(),
                log_step: (0.2f64).ln(),
            },
        ];
        let x = [0.02, 0.0005, 0.05, 0.004, 0.01, 0.002, 2.5];
        let mut g = [0.0; 7];
        let f = objective(&x, &data, &mut g);
        for i in 0..7 {
            let mut xp = x;
            let h = 1e-7 * x[i].abs().max(1e-3);
            xp[i] += h;
            let mut tmp = [0.0; 7];
            let fp = objective(&xp, &data, &mut tmp);
            let num = (fp - f) / h;
            assert!(
                (num - g[i]).abs() < 1e-4 * num.abs().max(1.0),
                "param {i}: {num} vs {}",
                g[i]
            );
        }
    }

    #[test]
    fn fit_recovers_a_model_that_explains_the_profile() {
        let truth = PerfParams([0.01, 0.0004, 0.05, 0.003, 0.008, 0.001, 1.5]);
        let mut profile = vec![];
        for &(n, r, b) in &[
            (1, 1, 32),
            (1, 1, 128),
            (1, 2, 64),
            (1, 4, 64),
            (2, 8, 128),
            (4, 16, 256),
        ] {
            let st = truth.step_time(n, r, b as f64, 0);
            let sy = st - truth.accum_time(b as f64);
            profile.push(((n, r, b), (st, sy)));
        }
        let fit = fit_perf_params(&profile);
        for &((n, r, b), (st, _)) in &profile {
            let p = fit.step_time(n, r, b as f64, 0);
            assert!((p / st - 1.0).abs() < 0.05, "{n} {r} {b}: {p} vs {st}");
        }
    }

    #[test]
    fn fit_never_ends_above_its_start() {
        // A bert profile at one atomic batch (alpha_c pinned) that once sent the search to
        // alpha_r = 2e13 through a step that was not a descent.
        let profile = vec![
            (
                (1, 1, 12),
                (0.921_515_673_398_971_6, 0.013_695_754_051_208_497),
            ),
            (
                (1, 2, 12),
                (0.919_040_814_042_091_4, 0.054_674_411_535_263_06),
            ),
            (
                (1, 4, 12),
                (0.957_118_213_176_727_3, 0.092_867_869_853_973_38),
            ),
            ((2, 8, 12), (2.538_950_562_477_112, 1.662_843_093_872_070_2)),
        ];
        let fit = fit_perf_params(&profile);
        let data: Vec<Point> = profile
            .iter()
            .map(|&((n, r, b), (st, sy))| Point {
                nodes: n,
                replicas: r,
                atomic: b as f64,
                log_compute: (st - sy).ln(),
                log_step: st.ln(),
            })
            .collect();
        let f = objective(&fit.0, &data, &mut [0.0; 7]);
        assert!(f < 0.1, "objective {f} at {:?}", fit.0);
        assert!(fit.0.iter().all(|&x| x < 10.0), "{:?}", fit.0);
        for &((n, r, b), (st, _)) in &profile {
            let p = fit.step_time(n, r, b as f64, 0);
            assert!((p / st - 1.0).abs() < 0.1, "{n} {r} {b}: {p} vs {st}");
        }
    }

    #[test]
    fn single_batch_pins_alpha_c_and_single_node_keeps_the_prior() {
        let profile = vec![((1, 1, 64), (0.1, 0.001))];
        let fit = fit_perf_params(&profile);
        assert!((fit.0[0] - 0.099 / 2.0).abs() < 1e-12);
        assert!(fit.0[2] >= fit.0[4] * 1.1 - 1e-15);
    }

    #[test]
    fn optimize_prefers_large_batches_when_noise_is_high() {
        let perf = PerfParams([0.01, 0.0004, 0.05, 0.003, 0.008, 0.001, 1.5]);
        let lim = BatchLimits {
            max_batch: 4096,
            min_local: 32,
            max_local: 1024,
        };
        let noisy = GoodputFunction {
            perf,
            grad: GradParams { sqr: 1.0, var: 1e4 },
            init_batch: 128,
        };
        let clean = GoodputFunction {
            perf,
            grad: GradParams {
                sqr: 1.0,
                var: 1e-3,
            },
            init_batch: 128,
        };
        let (_, a_noisy, k_noisy) = noisy.optimize(1, 4, lim);
        let (_, a_clean, k_clean) = clean.optimize(1, 4, lim);
        assert!(a_noisy * u64::from(k_noisy + 1) > a_clean * u64::from(k_clean + 1));
        assert_eq!(a_clean * 4, 128);
    }
}
