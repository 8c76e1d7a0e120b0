//! The Pollux agent's model of a job: a 7-parameter throughput model fitted online, statistical
//! efficiency from the gradient noise scale, and the goodput-maximising batch size
//! (POLLUX-SEMANTICS §5; the artifact's `goodput.py`).

use crate::{bound, lbfgsb, lbfgsb3};

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

/// Observations whose step-time terms the fit computes together (see [`Fit`]'s `value`).
const BLOCK: usize = 4;

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
    /// a per-GPU batch outside the limits scoring 0; the first maximum wins. A candidate equal to
    /// the one before it (neighbouring totals often split alike) is not scored again: its score
    /// is the same, and a score that was compared with the best once cannot beat it later.
    pub fn optimize(&self, nodes: u32, replicas: u32, lim: BatchLimits) -> (f64, u64, u32) {
        const EPS: f64 = 1e-8;
        let r = f64::from(replicas);
        let lo = (self.init_batch as f64).max(lim.min_local as f64 * r);
        let hi = lim.max_batch as f64;
        let (l0, l1) = (lo.log10(), hi.log10());
        let step = (l1 - l0) / 49.0;
        let mut best = (f64::NEG_INFINITY, 0u64, 0u32);
        let mut last = None;
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
            if last == Some((atomic, accum)) {
                continue;
            }
            last = Some((atomic, accum));
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
/// time plus the two regularisers, by scipy's L-BFGS-B with its default stops as the artifact
/// calls it, with the artifact's pinning rules and optimistic prior. Pollux's rule,
/// [`FitRule::POLLUX`].
pub fn fit_perf_params(profile: &[Observation]) -> PerfParams {
    fit_perf_params_with(profile, FitRule::POLLUX)
}

/// The relative-reduction stop of Pollux's fit: scipy's L-BFGS-B default `factr · ε` with
/// `factr = 1e7`.
pub const POLLUX_FTOL: f64 = lbfgsb::FTOL;

/// The projected-gradient stop of Pollux's fit: scipy's L-BFGS-B default `gtol`.
pub const POLLUX_GTOL: f64 = 1e-5;

/// How the throughput model is fitted: which minimiser, with which stops.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FitRule {
    /// blox's projected L-BFGS with Armijo backtracking, restarted twice with the compute
    /// parameters held (it follows L-BFGS-B's outline, not its iterates), stopping on a
    /// relative reduction of at most `ftol`. Formerly [`FitRule::POLLUX`]; about 1.5× slower on
    /// Pollux's workloads than [`FitRule::LbfgsB`], and not the artifact's iterates.
    Projected {
        /// The relative-reduction stop.
        ftol: f64,
    },
    /// scipy 1.10's L-BFGS-B, iterate by iterate, from one call as the original makes it:
    /// `minimize(..., method='L-BFGS-B', options={'ftol': ftol, 'gtol': gtol})`.
    LbfgsB {
        /// scipy's `ftol` (relative reduction, `factr · ε`).
        ftol: f64,
        /// scipy's `gtol` (projected-gradient infinity norm).
        gtol: f64,
    },
}

impl FitRule {
    /// Pollux's fit as the artifact makes it: one `scipy.optimize.minimize(_obj_fn, params,
    /// jac=grad_fn, bounds=bounds)`, which is L-BFGS-B with scipy's default stops (`ftol =
    /// 1e7 · ε`, `gtol = 1e-5`), iterate by iterate ([`FitRule::LbfgsB`]).
    pub const POLLUX: FitRule = FitRule::LbfgsB {
        ftol: POLLUX_FTOL,
        gtol: POLLUX_GTOL,
    };
}

/// [`fit_perf_params`] by blox's projected minimiser instead ([`FitRule::Projected`]), with the
/// relative-reduction stop `ftol`.
pub fn fit_perf_params_with_ftol(profile: &[Observation], ftol: f64) -> PerfParams {
    fit_perf_params_with(profile, FitRule::Projected { ftol })
}

/// The start point and bounds of the fit, with the artifact's pinning rules (a pinned
/// parameter has equal bounds), and whether the profile has a multi-node observation.
fn fit_setup(profile: &[Observation]) -> ([f64; 7], [f64; 7], [f64; 7], bool) {
    let mut x0 = [0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001];
    let mut lower = [TINY; 7];
    lower[6] = 1.0;
    let mut upper = [f64::INFINITY; 7];
    upper[6] = 10.0;
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
    (x0, lower, upper, multi_node)
}

/// [`fit_perf_params`] by the minimiser and stops of `rule`.
pub fn fit_perf_params_with(profile: &[Observation], rule: FitRule) -> PerfParams {
    let (x0, lower, upper, multi_node) = fit_setup(profile);
    let mut f = Fit::new(profile);
    let mut p = match rule {
        FitRule::Projected { ftol } => {
            // The compute error is a root-mean-square: it has a kink where the compute line
            // fits exactly, which stalls a quasi-Newton search in the other parameters. So
            // after a full search, hold the compute parameters, search the (smooth) rest, and
            // search all again.
            let mut p = lbfgsb::minimize(&mut f, x0, lower, upper, ftol);
            for _ in 0..2 {
                let (mut lo, mut up) = (lower, upper);
                lo[..2].copy_from_slice(&p[..2]);
                up[..2].copy_from_slice(&p[..2]);
                p = lbfgsb::minimize(&mut f, p, lo, up, ftol);
                p = lbfgsb::minimize(&mut f, p, lower, upper, ftol);
            }
            p
        }
        FitRule::LbfgsB { ftol, gtol } => {
            let opts = lbfgsb3::Options::scipy(ftol, gtol);
            lbfgsb3::minimize(&mut f, x0, lower, upper, &opts, None).x
        }
    };
    optimistic_prior(&mut p, multi_node);
    PerfParams(p)
}

/// The artifact's optimistic prior on a fit from single-node observations only: the
/// inter-node network parameters at least 1.1 times the intra-node ones.
fn optimistic_prior(p: &mut [f64; 7], multi_node: bool) {
    if !multi_node {
        p[2] = p[2].max(p[4] * 1.1);
        p[3] = p[3].max(p[5] * 1.1);
    }
}

/// One observation as the fit reads it.
struct Point {
    atomic: f64,
    log_compute: f64,
    log_step: f64,
    /// Its network term in [`Fit::nets`].
    net: usize,
    /// Its per-GPU batch in [`Fit::atom_state`] (observations with equal batches share it).
    atom: usize,
    /// Its (batch, network term) pair in [`Fit::pair_ln`].
    pair: usize,
}

/// A network term `x[ia] + x[ib] · retro` (`TINY + TINY · retro` for a single GPU), shared by
/// the observations of one kind and replica count.
#[derive(PartialEq)]
struct Net {
    params: Option<(usize, usize)>,
    retro: f64,
}

/// `f(key)` remembered for the last key (compared bit for bit), so an argument that did not
/// change between evaluations costs no `ln` or `powf`: the value is the one recomputing gives.
#[derive(Clone, Copy)]
struct Memo<K> {
    key: K,
    value: f64,
}

impl Memo<u64> {
    fn new(f: impl Fn(f64) -> f64) -> Self {
        Memo {
            key: f64::NAN.to_bits(),
            value: f(f64::NAN),
        }
    }

    fn get(&mut self, x: f64, f: impl Fn(f64) -> f64) -> f64 {
        if x.to_bits() != self.key {
            self.key = x.to_bits();
            self.value = f(x);
        }
        self.value
    }
}

impl Memo<(u64, u64)> {
    fn new2(f: impl Fn(f64, f64) -> f64) -> Self {
        Memo {
            key: (f64::NAN.to_bits(), f64::NAN.to_bits()),
            value: f(f64::NAN, f64::NAN),
        }
    }

    fn get2(&mut self, x: f64, y: f64, f: impl Fn(f64, f64) -> f64) -> f64 {
        if (x.to_bits(), y.to_bits()) != self.key {
            self.key = (x.to_bits(), y.to_bits());
            self.value = f(x, y);
        }
        self.value
    }
}

/// Per distinct per-GPU batch, `ln a` and `a^γ` of its compute time `a` at the last
/// evaluation (observations with equal batches have equal `a`, bit for bit).
#[derive(Clone, Copy)]
struct AtomState {
    ln_a: Memo<u64>,
    ag: Memo<(u64, u64)>,
}

/// Per observation, what the last value computed and the gradient reuses.
#[derive(Clone, Copy)]
struct PointState {
    a: f64,
    /// `ln a` and `a^γ` at the last evaluation that reached this observation.
    ln_a: f64,
    ag: f64,
    e1: f64,
    sum: f64,
    ln_sum: f64,
    e2: f64,
}

/// Per network term, its value and powers at the last evaluation.
#[derive(Clone, Copy)]
struct NetState {
    net: f64,
    ng: Memo<(u64, u64)>,
    ln_net: Memo<u64>,
    /// The evaluation that last computed `net`.
    stamp: u64,
}

/// The fit's objective (RMSE of log compute time + RMSE of log step time + regularisers) with
/// its gradient, as [`lbfgsb::Objective`]. It computes exactly what the plain formula computes,
/// operation for operation and in the same order, but: the gradient only at accepted points;
/// `ln`/`powf` of an argument that did not change since the last evaluation not again (fixed
/// compute parameters, a fixed γ, observations sharing a network term), nor the compute-time
/// sum while the compute parameters are unchanged (the searches that hold them: the sum is the
/// last complete one, bit for bit); and, when a line-search trial is being valued, it stops as
/// soon as the partial sums already put the value above what the search accepts (every term
/// is non-negative and floating-point addition is monotone, so the partial value is a lower
/// bound of the final one). Before the step-time terms' `powf` and
/// `ln`, a lower bound of the whole value from cheap approximate logarithms
/// ([`Fit::bound_rejects`]) settles most rejected trials (on workload 6, 11.0 M of the 13.6 M
/// trials that reach that point); none of the values it returns comes from the bound.
struct Fit {
    points: Vec<Point>,
    nets: Vec<Net>,
    n: f64,
    state: Vec<PointState>,
    atom_state: Vec<AtomState>,
    /// Per distinct (batch, network term): `ln(a^γ + net^γ)` by its argument.
    pair_ln: Vec<Memo<u64>>,
    net_state: Vec<NetState>,
    /// The order the step-time errors are computed in (any order gives the same value).
    order: Vec<usize>,
    /// Scratch of [`Fit::bound_rejects`]: approximate `ln net` per network term (NaN where
    /// unknown), and per observation `z`, `max(ln a, ln net)` and `ln(1 + e^−z)`.
    ln_net: Vec<f64>,
    /// The current value (`Cut::below`, bits) of the line search whose trial the bound last
    /// failed to reject: the search's later trials are shorter steps, nearer its start and
    /// seldom decided by the bound, so they skip it.
    bound_missed: u64,
    z: Vec<f64>,
    top: Vec<f64>,
    h: Vec<f64>,
    stamp: u64,
    /// The compute parameters (bits) of the last evaluation that summed every compute-time
    /// error, and that sum: the per-observation state holds its terms.
    s1_key: Option<(u64, u64)>,
    s1: f64,
    /// Regularisers at the last evaluation.
    rn: f64,
    rr: f64,
    err1: f64,
    err2: f64,
}

impl Fit {
    fn new(profile: &[Observation]) -> Fit {
        let mut nets: Vec<Net> = Vec::new();
        let mut atoms: Vec<u64> = Vec::new();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let points = profile
            .iter()
            .map(|&((nodes, replicas, b), (st, sy))| {
                let params = if nodes > 1 {
                    Some((2, 3))
                } else if replicas > 1 {
                    Some((4, 5))
                } else {
                    None
                };
                let net = Net {
                    params,
                    retro: (f64::from(replicas) - 2.0).max(TINY),
                };
                let k = nets.iter().position(|m| *m == net).unwrap_or_else(|| {
                    nets.push(net);
                    nets.len() - 1
                });
                let atom = atoms.iter().position(|&m| m == b).unwrap_or_else(|| {
                    atoms.push(b);
                    atoms.len() - 1
                });
                let pair = pairs
                    .iter()
                    .position(|&m| m == (atom, k))
                    .unwrap_or_else(|| {
                        pairs.push((atom, k));
                        pairs.len() - 1
                    });
                Point {
                    atomic: b as f64,
                    log_compute: (st - sy).ln(),
                    log_step: st.ln(),
                    net: k,
                    atom,
                    pair,
                }
            })
            .collect::<Vec<_>>();
        let ps = PointState {
            a: f64::NAN,
            ln_a: f64::NAN,
            ag: f64::NAN,
            e1: f64::NAN,
            sum: f64::NAN,
            ln_sum: f64::NAN,
            e2: f64::NAN,
        };
        let ns = NetState {
            net: f64::NAN,
            ng: Memo::new2(f64::powf),
            ln_net: Memo::new(f64::ln),
            stamp: 0,
        };
        Fit {
            n: points.len() as f64,
            state: vec![ps; points.len()],
            atom_state: vec![
                AtomState {
                    ln_a: Memo::new(f64::ln),
                    ag: Memo::new2(f64::powf),
                };
                atoms.len()
            ],
            pair_ln: vec![Memo::new(f64::ln); pairs.len()],
            net_state: vec![ns; nets.len()],
            order: (0..points.len()).collect(),
            ln_net: vec![f64::NAN; nets.len()],
            bound_missed: f64::NAN.to_bits(),
            z: vec![0.0; points.len()],
            top: vec![0.0; points.len()],
            h: vec![0.0; points.len()],
            points,
            nets,
            stamp: 0,
            s1_key: None,
            s1: f64::NAN,
            rn: f64::NAN,
            rr: f64::NAN,
            err1: f64::NAN,
            err2: f64::NAN,
        }
    }
}

impl Fit {
    /// Whether a lower bound of the value at `x`, computed with the approximate logarithms of
    /// [`bound`], already proves that `cut` rejects it (then the exact value need not be
    /// computed: it is at least the bound, and `cut` rejects every larger value too).
    ///
    /// The step-time term is `ln(a^γ + net^γ)/γ = max(ln a, ln net) + ln(1 + e^−z)/γ` with
    /// `z = γ |ln a − ln net|`; it moves by at most the largest error of the two logarithms
    /// (its partial derivatives are non-negative and sum to 1), so it is known within
    /// `2 · LN_ERR` plus rounding. Each error term then counts as `(|e| − margin)²` at least,
    /// and the sums a relative 1e-12 less (far above the rounding of sums of 60 terms in
    /// another order); the final additions are the exact value's, in the same order, and
    /// floating-point operations are monotone, so the bound is at most the exact value.
    fn bound_rejects(
        &mut self,
        x: &[f64; 7],
        cut: lbfgsb::Cut,
        err1: f64,
        reg1: f64,
        reg2: f64,
    ) -> bool {
        const MARGIN2: f64 = 3.0 * bound::LN_ERR;
        const SHRINK: f64 = 1.0 - 1e-12;
        let n = self.n;
        let gamma = x[6];
        if !(1.0..=10.0).contains(&gamma) {
            return false;
        }
        let value = |s2: f64| err1 + (s2 * SHRINK / n).sqrt() + reg1 + reg2;
        for (ln, m) in self.ln_net.iter_mut().zip(&self.nets) {
            let net = match m.params {
                Some((i, j)) => x[i] + x[j] * m.retro,
                None => TINY + TINY * m.retro,
            };
            *ln = bound::ln_approx(net).unwrap_or(f64::NAN);
        }
        // Stage by stage over all observations (each loop's iterations are independent, so
        // they overlap or vectorise); NaN (an unknown logarithm) counts as 0.
        for (k, d) in self.points.iter().enumerate() {
            let (la, ln) = (self.state[k].ln_a, self.ln_net[d.net]);
            self.z[k] = gamma * (la - ln).abs();
            self.top[k] = la.max(ln);
        }
        for (h, &z) in self.h.iter_mut().zip(&self.z) {
            *h = bound::ln_1p_exp_neg(z);
        }
        let mut s2 = 0.0;
        for (k, d) in self.points.iter().enumerate() {
            let lopt = self.top[k] + self.h[k] / gamma;
            let l = ((lopt - d.log_step).abs() - MARGIN2).max(0.0);
            s2 += if self.z[k].is_nan() { 0.0 } else { l * l };
        }
        cut.rejects(value(s2))
    }
}

impl lbfgsb::Objective for Fit {
    fn value(&mut self, x: &[f64; 7], cut: Option<lbfgsb::Cut>) -> Option<f64> {
        let n = self.n;
        let gamma = x[6];
        let reg1 = 1e-3 * (gamma - 1.0) * (gamma - 1.0);
        let rn = x[3] / x[2];
        let rr = x[5] / x[4];
        let reg2 = 1e-2 * (rn * rn + rr * rr);
        (self.rn, self.rr) = (rn, rr);
        // As for err2 below: err1 at least its partial value, err2 at least 0; tested once the
        // partial sum nears where it could reject.
        let near1 = cut.map_or(f64::INFINITY, |c| {
            let room = c.below.min(c.armijo) - (reg1 + reg2);
            if room > 0.0 {
                n * room * room * (1.0 - 1e-9)
            } else {
                0.0
            }
        });
        let key = (x[0].to_bits(), x[1].to_bits());
        let s1 = if self.s1_key == Some(key) {
            self.s1
        } else {
            self.s1_key = None;
            let mut s1 = 0.0;
            for (d, st) in self.points.iter().zip(&mut self.state) {
                let a = x[0] + x[1] * d.atomic;
                let ln_a = self.atom_state[d.atom].ln_a.get(a, f64::ln);
                st.ln_a = ln_a;
                let e1 = ln_a - d.log_compute;
                s1 += e1 * e1;
                st.a = a;
                st.e1 = e1;
                if s1 >= near1
                    && cut.is_some_and(|c| c.rejects((s1 / n).sqrt() + 0.0 + reg1 + reg2))
                {
                    return None;
                }
            }
            (self.s1_key, self.s1) = (Some(key), s1);
            s1
        };
        let err1 = (s1 / n).sqrt();
        // err1 + err2 + reg1 + reg2 with err2 at least its partial value.
        let bound = |s2: f64| err1 + (s2 / n).sqrt() + reg1 + reg2;
        if cut.is_some_and(|c| c.rejects(bound(0.0))) {
            return None;
        }
        if let Some(c) = cut {
            if c.below.to_bits() != self.bound_missed {
                if self.bound_rejects(x, c, err1, reg1, reg2) {
                    return None;
                }
                self.bound_missed = c.below.to_bits();
            }
        }
        // The bound is tested only once the partial sum nears where it could reject (a cheap
        // estimate; the test itself is exact, so the estimate only decides how early we stop).
        let near = cut.map_or(f64::INFINITY, |c| {
            let room = c.below.min(c.armijo) - (err1 + reg1 + reg2);
            n * room * room * (1.0 - 1e-9)
        });
        self.stamp += 1;
        let stamp = self.stamp;
        // The observations in `order` (largest error first at the last full evaluation), so that
        // a rejected trial is cut early, a block at a time (the block's `powf`/`ln` calls are
        // independent, so they overlap). A partial sum in another order can exceed the in-order
        // sum of all terms by rounding only (at most 2nε relatively), so the bound is tested on
        // it less a margin far above that: still a lower bound of the value.
        let mut partial = 0.0;
        for block in self.order.chunks(BLOCK) {
            for &i in block {
                let (d, st) = (&self.points[i], &mut self.state[i]);
                let ns = &mut self.net_state[d.net];
                if ns.stamp != stamp {
                    let m = &self.nets[d.net];
                    ns.net = match m.params {
                        Some((i, j)) => x[i] + x[j] * m.retro,
                        None => TINY + TINY * m.retro,
                    };
                    ns.stamp = stamp;
                }
                let ag = self.atom_state[d.atom].ag.get2(st.a, gamma, f64::powf);
                let ng = ns.ng.get2(ns.net, gamma, f64::powf);
                let sum = ag + ng;
                let ln_sum = self.pair_ln[d.pair].get(sum, f64::ln);
                (st.ag, st.sum, st.ln_sum) = (ag, sum, ln_sum);
            }
            for &i in block {
                let (d, st) = (&self.points[i], &mut self.state[i]);
                let lopt = st.ln_sum / gamma;
                let e2 = lopt - d.log_step;
                st.e2 = e2;
                partial += e2 * e2;
                if partial >= near && cut.is_some_and(|c| c.rejects(bound(partial * (1.0 - 1e-9))))
                {
                    return None;
                }
            }
        }
        // The sum in the observations' order, of the same terms.
        let mut s2 = 0.0;
        for st in &self.state {
            s2 += st.e2 * st.e2;
        }
        // Largest term first for the next trials (ties by index).
        let state = &self.state;
        self.order.sort_unstable_by(|&i, &j| {
            let (a, b) = (state[i].e2 * state[i].e2, state[j].e2 * state[j].e2);
            b.total_cmp(&a).then(i.cmp(&j))
        });
        let err2 = (s2 / n).sqrt();
        (self.err1, self.err2) = (err1, err2);
        Some(err1 + err2 + reg1 + reg2)
    }

    fn gradient(&mut self, x: &[f64; 7], grad: &mut [f64; 7]) {
        let n = self.n;
        let gamma = x[6];
        let (mut g1, mut g2) = ([0.0; 7], [0.0; 7]);
        for (d, st) in self.points.iter().zip(&mut self.state) {
            let (a, e1) = (st.a, st.e1);
            // d e1 / d(α_c, β_c)
            g1[0] += e1 / a;
            g1[1] += e1 * d.atomic / a;
            let ns = &mut self.net_state[d.net];
            let m = &self.nets[d.net];
            let (net, ag, ng) = (ns.net, st.ag, ns.ng.value);
            let (sum, e2) = (st.sum, st.e2);
            let da = ag / a / sum; // ∂lopt/∂A
            let dn = ng / net / sum; // ∂lopt/∂N
            g2[0] += e2 * da;
            g2[1] += e2 * da * d.atomic;
            if let Some((i, j)) = m.params {
                g2[i] += e2 * dn;
                g2[j] += e2 * dn * m.retro;
            }
            let ln_a = st.ln_a;
            let ln_net = ns.ln_net.get(net, f64::ln);
            let dg = (ag * ln_a + ng * ln_net) / sum / gamma - st.ln_sum / (gamma * gamma);
            g2[6] += e2 * dg;
        }
        let (err1, err2, rn, rr) = (self.err1, self.err2, self.rn, self.rr);
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The objective as the plain formula, value and gradient in one pass (the reference the
    /// incremental [`Fit`] must match bit for bit).
    fn objective(x: &[f64; 7], profile: &[Observation], grad: &mut [f64; 7]) -> f64 {
        let n = profile.len() as f64;
        let gamma = x[6];
        let (mut s1, mut s2) = (0.0, 0.0);
        let mut g1 = [0.0; 7];
        let mut g2 = [0.0; 7];
        for &((nodes, replicas, b), (st, sy)) in profile {
            let atomic = b as f64;
            let (log_compute, log_step) = ((st - sy).ln(), st.ln());
            let a = x[0] + x[1] * atomic;
            let (ia, ib) = if nodes > 1 {
                (Some(2), Some(3))
            } else if replicas > 1 {
                (Some(4), Some(5))
            } else {
                (None, None)
            };
            let retro = (f64::from(replicas) - 2.0).max(TINY);
            let net = ia.map_or(TINY, |i| x[i]) + ib.map_or(TINY, |i| x[i]) * retro;
            let e1 = a.ln() - log_compute;
            s1 += e1 * e1;
            g1[0] += e1 / a;
            g1[1] += e1 * atomic / a;
            let ag = a.powf(gamma);
            let ng = net.powf(gamma);
            let sum = ag + ng;
            let lopt = sum.ln() / gamma;
            let e2 = lopt - log_step;
            s2 += e2 * e2;
            let da = ag / a / sum;
            let dn = ng / net / sum;
            g2[0] += e2 * da;
            g2[1] += e2 * da * atomic;
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

    fn small_profile() -> Vec<Observation> {
        vec![
            ((1, 1, 32), (0.0405, 0.0005)),
            ((1, 4, 64), (0.09, 0.02)),
            ((2, 8, 128), (0.2, 0.08)),
            ((1, 4, 96), (0.11, 0.021)),
            ((3, 8, 128), (0.21, 0.085)),
        ]
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let data = small_profile();
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
    fn the_incremental_objective_is_the_formula_bit_for_bit() {
        use lbfgsb::Objective;
        let data = small_profile();
        let mut fit = Fit::new(&data);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut unit = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut x = [0.02, 0.0005, 0.05, 0.004, 0.01, 0.002, 2.5];
        let (mut cut_short, mut full) = (0, 0);
        for k in 0..4000 {
            // Move a random subset of the parameters (the rest stay, as fixed ones do).
            for xi in &mut x {
                if unit() < 0.5 {
                    *xi *= 0.5 + unit();
                }
            }
            if k % 7 == 0 {
                x[6] = 1.0 + 9.0 * unit();
            }
            let mut want = [0.0; 7];
            let f = objective(&x, &data, &mut want);
            let below = f * (0.5 + unit());
            let cut = lbfgsb::Cut {
                below,
                armijo: below - 1e-3 * unit(),
            };
            match fit.value(&x, Some(cut)) {
                None => {
                    assert!(cut.rejects(f), "{x:?}: cut short an accepted {f}");
                    cut_short += 1;
                }
                Some(v) => {
                    assert_eq!(v.to_bits(), f.to_bits(), "{x:?}");
                    let mut got = [0.0; 7];
                    fit.gradient(&x, &mut got);
                    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{x:?}");
                    full += 1;
                }
            }
            let v = fit.value(&x, None).expect("no cut, a value");
            assert_eq!(v.to_bits(), f.to_bits(), "{x:?}");
        }
        assert!(cut_short > 100 && full > 100, "{cut_short} {full}");
    }

    /// blox's projected fit recovers the model within 5 % at every observation (scipy's
    /// L-BFGS-B, Pollux's rule, stops at the compute error's kink 11 % off at one of them here,
    /// as the artifact's fit does: `lbfgsb3_replays_scipy_iterate_by_iterate` holds it to
    /// scipy's own runs).
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
        let fit = fit_perf_params_with_ftol(&profile, POLLUX_FTOL);
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
        let f = objective(&fit.0, &profile, &mut [0.0; 7]);
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

/// scipy's own runs of the fit (`tools/ref/fit_vectors.py`, scipy 1.10.1) replayed by
/// [`lbfgsb3`].
#[cfg(test)]
mod scipy_vectors {
    use super::*;
    use serde_json::Value;

    struct Case {
        name: String,
        profile: Vec<Observation>,
        ftol: f64,
        gtol: f64,
        x: [f64; 7],
        fun: f64,
        nit: usize,
        nfev: usize,
        message: String,
        trail: Vec<([f64; 7], f64)>,
    }

    fn num(v: &Value) -> f64 {
        v.as_str()
            .expect("a decimal string")
            .parse()
            .expect("a float")
    }

    fn vec7(v: &Value) -> [f64; 7] {
        let a = v.as_array().expect("an array");
        std::array::from_fn(|i| num(&a[i]))
    }

    fn cases() -> Vec<Case> {
        let data: Value =
            serde_json::from_str(include_str!("../tests/data/lbfgsb_scipy.json")).expect("json");
        data["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| {
                let profile = c["profile"]
                    .as_array()
                    .expect("rows")
                    .iter()
                    .map(|r| {
                        let n = |i: usize| r[i].as_u64().expect("an integer");
                        ((n(0) as u32, n(1) as u32, n(2)), (num(&r[3]), num(&r[4])))
                    })
                    .collect();
                // scipy's defaults (`ftol = 2.2204460492503131e-09`, which is 1e7 · ε), or
                // `tol`, which sets both.
                let (ftol, gtol) = if c["tol"].is_null() {
                    (POLLUX_FTOL, 1e-5)
                } else {
                    (num(&c["tol"]), num(&c["tol"]))
                };
                Case {
                    name: c["name"].as_str().expect("name").to_string(),
                    profile,
                    ftol,
                    gtol,
                    x: vec7(&c["x"]),
                    fun: num(&c["fun"]),
                    nit: c["nit"].as_u64().expect("nit") as usize,
                    nfev: c["nfev"].as_u64().expect("nfev") as usize,
                    message: c["message"].as_str().expect("message").to_string(),
                    trail: c["trail"]
                        .as_array()
                        .expect("trail")
                        .iter()
                        .map(|t| (vec7(&t["x"]), num(&t["f"])))
                        .collect(),
                }
            })
            .collect()
    }

    fn rel(a: f64, b: f64) -> f64 {
        if a == b {
            0.0
        } else {
            (a - b).abs() / a.abs().max(b.abs())
        }
    }

    fn max_rel(a: &[f64; 7], b: &[f64; 7]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| rel(*x, *y))
            .fold(0.0, f64::max)
    }

    fn message(stop: lbfgsb3::Stop) -> &'static str {
        match stop {
            lbfgsb3::Stop::Pgtol => "CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL",
            lbfgsb3::Stop::RelReduction => "CONVERGENCE: REL_REDUCTION_OF_F_<=_FACTR*EPSMCH",
            lbfgsb3::Stop::Abnormal => "ABNORMAL_TERMINATION_IN_LNSRCH",
            lbfgsb3::Stop::MaxIter => "STOP: TOTAL NO. of ITERATIONS REACHED LIMIT",
            lbfgsb3::Stop::MaxFun => "STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT",
        }
    }

    /// Pollux's fit is scipy's L-BFGS-B with its default stops, as the artifact calls it: on
    /// scipy's recorded runs with those stops, `fit_perf_params` ends where scipy did (to the
    /// replay's 1e-7, the artifact's prior applied after the search) wherever the replay
    /// follows scipy to the end.
    #[test]
    fn pollux_fits_as_scipys_defaults() {
        assert_eq!(
            FitRule::POLLUX,
            FitRule::LbfgsB {
                ftol: 2.220446049250313e-9,
                gtol: 1e-5
            }
        );
        let mut checked = 0;
        for c in cases().iter().filter(|c| c.ftol == POLLUX_FTOL) {
            let (x0, lo, hi, multi_node) = fit_setup(&c.profile);
            let opts = lbfgsb3::Options::scipy(c.ftol, c.gtol);
            let out = lbfgsb3::minimize(&mut Fit::new(&c.profile), x0, lo, hi, &opts, None);
            if max_rel(&out.x, &c.x) > 1e-7 {
                // The replay parts from scipy's run (see the test below).
                continue;
            }
            let mut want = c.x;
            optimistic_prior(&mut want, multi_node);
            let got = fit_perf_params(&c.profile).0;
            assert!(
                max_rel(&got, &want) <= 1e-7,
                "{}: {got:?} vs scipy's {want:?}",
                c.name
            );
            checked += 1;
        }
        assert!(
            checked >= 3,
            "{checked} of scipy's default-stop runs checked"
        );
    }

    /// Every case runs; a case "matches" when the final x agrees to a relative 1e-7 in every
    /// parameter and nit, nfev and the stop message are scipy's. The objective is computed in
    /// another order than autograd's (and scipy's BLAS may fuse), so values differ in the last
    /// bits; in flat or kinked regions (an exactly fitting compute line, `ftol = 2.2e-9`) such
    /// differences grow until the line search takes another step. The report (run with
    /// `--nocapture`) gives, per case, the largest relative difference of the final x and of
    /// the trail, nit and nfev (ours/scipy's) and the first iteration off by over 1e-6;
    /// `LBFGSB_CASE=name` runs one case and prints its difference iteration by iteration (on
    /// the diverging cases it grows smoothly from 1e-15, as rounding differences do).
    #[test]
    fn lbfgsb3_replays_scipy_iterate_by_iterate() {
        let cases = cases();
        assert!(cases.len() >= 12);
        let only = std::env::var("LBFGSB_CASE").ok();
        let mut report = Vec::new();
        let (mut matching, mut sia_matching, mut sia) = (0, 0, 0);
        let mut worst_matching: f64 = 0.0;
        let mut worst_fun = f64::NEG_INFINITY;
        for c in &cases {
            if only.as_ref().is_some_and(|o| *o != c.name) {
                continue;
            }
            let (x0, lo, hi, _) = fit_setup(&c.profile);
            let mut trail = Vec::new();
            let out = lbfgsb3::minimize(
                &mut Fit::new(&c.profile),
                x0,
                lo,
                hi,
                &lbfgsb3::Options::scipy(c.ftol, c.gtol),
                Some(&mut trail),
            );
            assert_eq!(trail.len(), out.nit, "{}", c.name);
            if out.nit > 0 && out.stop != lbfgsb3::Stop::Abnormal {
                assert_eq!(trail.last().map(|t| t.1), Some(out.f), "{}", c.name);
            }
            let err = max_rel(&out.x, &c.x);
            let trail_err = trail
                .iter()
                .zip(&c.trail)
                .map(|(a, b)| max_rel(&a.0, &b.0).max(rel(a.1, b.1)))
                .fold(0.0, f64::max);
            if only.is_some() {
                for (k, (a, b)) in trail.iter().zip(&c.trail).enumerate() {
                    eprintln!("{k}: {:.1e} f {:.1e}", max_rel(&a.0, &b.0), rel(a.1, b.1));
                }
            }
            let diverged = trail
                .iter()
                .zip(&c.trail)
                .position(|(a, b)| max_rel(&a.0, &b.0) > 1e-6);
            let same = err <= 1e-7
                && out.nit == c.nit
                && out.nfev == c.nfev
                && message(out.stop) == c.message;
            if same {
                matching += 1;
                worst_matching = worst_matching.max(err);
            }
            if c.ftol == 1e-5 {
                sia += 1;
                sia_matching += usize::from(same);
            }
            // Where the runs part, whose end is lower.
            let dfun = (out.f - c.fun) / c.fun.abs().max(1e-300);
            worst_fun = worst_fun.max(dfun);
            assert_eq!(message(out.stop), c.message, "{}", c.name);
            report.push(format!(
                "{}: x {err:.1e} trail {trail_err:.1e} nit {}/{} nfev {}/{} stop {} first off {diverged:?} fun {dfun:+.1e}",
                c.name,
                out.nit,
                c.nit,
                out.nfev,
                c.nfev,
                message(out.stop) == c.message,
            ));
        }
        eprintln!("{}", report.join("\n"));
        eprintln!(
            "{matching}/{} cases match (worst x {worst_matching:.1e}); Sia's tol = 1e-5: {sia_matching}/{sia}; \
             final value at most {worst_fun:+.1e} relatively above scipy's",
            report.len()
        );
        if only.is_none() {
            // What this minimiser achieves today (a regression guard, not a target).
            assert!(matching >= 11, "{matching} cases match");
            assert!(sia_matching >= 8, "{sia_matching} of Sia's cases match");
        }
    }
}
