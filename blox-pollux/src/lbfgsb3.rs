//! L-BFGS-B 3.0 as scipy 1.10 runs it (`scipy.optimize.minimize(method='L-BFGS-B')`), for the
//! agent's 7-parameter fit ([`crate::goodput::FitRule::LbfgsB`]): the algorithm of Byrd, Lu,
//! Nocedal and Zhu (1995) with the subspace-minimisation correction of Morales and Nocedal
//! (2011), written in Rust after the published algorithm, with the details (order of
//! operations, safeguards, tie rules) as scipy 1.10.1's `lbfgsb.f` has them:
//!
//! - the compact limited-memory BFGS matrix (memory 10; a pair is skipped when
//!   `s'y ≤ ε · (−g's)`), refreshed from scratch after a failed factorisation or line search;
//! - the generalized Cauchy point along the projected steepest-descent path (breakpoints taken
//!   from a heap, the quadratic's slope and curvature updated segment by segment);
//! - the subspace minimisation over the variables free at the Cauchy point (the direct primal
//!   method with the incrementally updated `2m × 2m` middle matrix), then the projection to the
//!   box, or the backtrack to it when the projected step is not a descent;
//! - the Moré–Thuente line search (`ftol = 1e-3`, `gtol = 0.9`, `xtol = 0.1`, at most 20
//!   evaluations), first step `1/‖d‖` capped at 1 on the first iteration, otherwise 1 with the
//!   largest feasible step as its upper limit;
//! - the stops: projected-gradient infinity norm `≤ gtol`, relative reduction
//!   `(f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) ≤ factr · ε` (scipy's `ftol = factr · ε`), and
//!   15,000 iterations or function evaluations.
//!
//! Variables with equal bounds are fixed. Function evaluations are counted as scipy counts them
//! (`nfev`): the start point once, and every later point that differs from the last one
//! evaluated. One departure, unreachable for the fit: a line search whose start is invalid
//! (a step beyond its limit) ends as a failed search here, where the Fortran goes on with stale
//! state.
//!
//! How close: `blox-pollux/tests/data/lbfgsb_scipy.json` holds 24 runs of the fit by scipy
//! itself (`tools/ref/fit_vectors.py`; Sia's `tol = 1e-5` and Pollux's defaults, synthetic
//! profiles and profiles from the repository's Pollux traces, pinned parameters, active
//! bounds), which the fit's tests replay. All stop for scipy's reason; 11 match to 1e-7 with
//! scipy's `nit` and `nfev` (iterate by iterate), 8 of the 12 at Sia's `tol`. With the 36 more
//! cases the script builds from Sia's per-type traces (not committed: that data has no
//! licence), 38 of 60 matched to 1e-7, 47 to 1.5e-6 and 57 to 5e-3. Three synthetic profiles
//! end elsewhere (up to 0.8 in one parameter): two noisy ones 1 % lower than scipy's, and a
//! noiseless one (zero error
//! is a kink of the root-mean-square terms) stalls at 0.057 where scipy's reaches 0.0004. The objective cannot be scipy's to the last bit
//! (numpy's `log` and `pow` are not libm's on every machine, autograd orders the gradient's
//! sums its own way), and where the minimum is flat to rounding (an exactly fitted compute
//! line, `ftol = 2.2e-9`) last-bit differences grow until a line search takes another step.

use crate::lbfgsb::Objective;

/// Parameters of the fit.
const N: usize = 7;
/// Memory: the number of correction pairs kept (scipy's `maxcor`).
const M: usize = 10;
const EPSMCH: f64 = f64::EPSILON;

/// scipy's options for L-BFGS-B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Options {
    /// Relative-reduction stop (scipy's `ftol`; L-BFGS-B's `factr · ε`).
    pub(crate) ftol: f64,
    /// Projected-gradient stop (scipy's `gtol`, L-BFGS-B's `pgtol`).
    pub(crate) gtol: f64,
    pub(crate) maxiter: usize,
    pub(crate) maxfun: usize,
    /// Evaluations per line search.
    pub(crate) maxls: usize,
}

impl Options {
    /// scipy's defaults with the given `ftol` and `gtol`.
    pub(crate) fn scipy(ftol: f64, gtol: f64) -> Options {
        Options {
            ftol,
            gtol,
            maxiter: 15_000,
            maxfun: 15_000,
            maxls: 20,
        }
    }
}

/// Why the minimiser stopped (scipy's `message`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `CONVERGENCE: NORM_OF_PROJECTED_GRADIENT_<=_PGTOL`
    Pgtol,
    /// `CONVERGENCE: REL_REDUCTION_OF_F_<=_FACTR*EPSMCH`
    RelReduction,
    /// `ABNORMAL_TERMINATION_IN_LNSRCH`
    Abnormal,
    /// `STOP: TOTAL NO. of ITERATIONS REACHED LIMIT`
    MaxIter,
    /// `STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT`
    MaxFun,
}

/// The result of [`minimize`] (the fit reads `x`; the tests read the rest).
#[derive(Debug, Clone)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Outcome {
    pub(crate) x: [f64; N],
    pub(crate) f: f64,
    /// Iterations (scipy's `nit`).
    pub(crate) nit: usize,
    /// Function evaluations (scipy's `nfev`).
    pub(crate) nfev: usize,
    pub(crate) stop: Stop,
}

/// The objective with scipy's evaluation count: a point equal to the last one evaluated is not
/// evaluated again.
struct Counted<'a, F: Objective> {
    f: &'a mut F,
    last: Option<[f64; N]>,
    value: f64,
    grad: [f64; N],
    nfev: usize,
}

impl<F: Objective> Counted<'_, F> {
    fn eval(&mut self, x: &[f64; N]) -> (f64, [f64; N]) {
        if self.last.as_ref() != Some(x) {
            self.value = self.f.value(x, None).unwrap_or(f64::NAN);
            self.f.gradient(x, &mut self.grad);
            self.last = Some(*x);
            self.nfev += 1;
        }
        (self.value, self.grad)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
}

/// `y += a · x`.
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// Cholesky factorisation `A = Rᵀ R` of the `n × n` block at `(off, off)` of `a`, in place in
/// its upper triangle (LINPACK `dpofa`'s order). Returns the 1-based column of a non-positive
/// pivot, or 0.
fn cholesky<const K: usize>(a: &mut [[f64; K]; K], off: usize, n: usize) -> usize {
    for j in 0..n {
        let mut s = 0.0;
        for k in 0..j {
            let mut inner = 0.0;
            for i in 0..k {
                inner += a[off + i][off + k] * a[off + i][off + j];
            }
            let t = (a[off + k][off + j] - inner) / a[off + k][off + k];
            a[off + k][off + j] = t;
            s += t * t;
        }
        let s = a[off + j][off + j] - s;
        if s <= 0.0 {
            return j + 1;
        }
        a[off + j][off + j] = s.sqrt();
    }
    0
}

fn singular<const K: usize>(r: &[[f64; K]; K], n: usize) -> bool {
    (0..n).any(|i| r[i][i] == 0.0)
}

/// Solve `Rᵀ x = b` for the upper-triangular `n × n` leading block `r` (in place in `b`).
fn solve_rt<const K: usize>(r: &[[f64; K]; K], n: usize, b: &mut [f64]) -> bool {
    if singular(r, n) {
        return false;
    }
    b[0] /= r[0][0];
    for j in 1..n {
        let mut s = 0.0;
        for i in 0..j {
            s += r[i][j] * b[i];
        }
        b[j] = (b[j] - s) / r[j][j];
    }
    true
}

/// Solve `R x = b` for the upper-triangular `n × n` leading block `r` (in place in `b`).
fn solve_r<const K: usize>(r: &[[f64; K]; K], n: usize, b: &mut [f64]) -> bool {
    if singular(r, n) {
        return false;
    }
    b[n - 1] /= r[n - 1][n - 1];
    for j in (0..n - 1).rev() {
        let t = -b[j + 1];
        for i in 0..=j {
            b[i] += t * r[i][j + 1];
        }
        b[j] /= r[j][j];
    }
    true
}

/// Sift the breakpoints: with `build`, make `t[..n]` a min-heap first; then move its least
/// element to `t[n − 1]` and restore the heap on `t[..n − 1]` (the order of L-BFGS-B's
/// `hpsolb`, which decides between equal breakpoints).
fn heap_pop(n: usize, t: &mut [f64], order: &mut [usize], build: bool) {
    // 1-based positions as in a textbook binary heap.
    if build {
        for k in 2..=n {
            let (v, id) = (t[k - 1], order[k - 1]);
            let mut i = k;
            while i > 1 {
                let j = i / 2;
                if v < t[j - 1] {
                    t[i - 1] = t[j - 1];
                    order[i - 1] = order[j - 1];
                    i = j;
                } else {
                    break;
                }
            }
            t[i - 1] = v;
            order[i - 1] = id;
        }
    }
    if n > 1 {
        let (out, out_id) = (t[0], order[0]);
        let (v, id) = (t[n - 1], order[n - 1]);
        let mut i = 1;
        loop {
            let mut j = i + i;
            if j > n - 1 {
                break;
            }
            if t[j] < t[j - 1] {
                j += 1;
            }
            if t[j - 1] < v {
                t[i - 1] = t[j - 1];
                order[i - 1] = order[j - 1];
                i = j;
            } else {
                break;
            }
        }
        t[i - 1] = v;
        order[i - 1] = id;
        t[n - 1] = out;
        order[n - 1] = out_id;
    }
}

/// The line search's state (Moré and Thuente 1994, as MINPACK-2's `dcsrch`).
#[derive(Default)]
struct LineSearch {
    brackt: bool,
    stage: u8,
    ginit: f64,
    gtest: f64,
    gx: f64,
    gy: f64,
    finit: f64,
    fx: f64,
    fy: f64,
    stx: f64,
    sty: f64,
    stmin: f64,
    stmax: f64,
    width: f64,
    width1: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Search {
    /// Evaluate at the new step.
    Eval,
    /// The step is accepted (converged, or a warning that also ends the search).
    Done,
    /// Invalid input.
    Error,
}

const LS_FTOL: f64 = 1e-3;
const LS_GTOL: f64 = 0.9;
const LS_XTOL: f64 = 0.1;

impl LineSearch {
    fn start(f: f64, g: f64, stp: f64, stpmax: f64) -> (LineSearch, Search) {
        let stpmin = 0.0;
        if stp < stpmin || stp > stpmax || g >= 0.0 {
            return (LineSearch::default(), Search::Error);
        }
        let width = stpmax - stpmin;
        let ls = LineSearch {
            brackt: false,
            stage: 1,
            ginit: g,
            gtest: LS_FTOL * g,
            gx: g,
            gy: g,
            finit: f,
            fx: f,
            fy: f,
            stx: 0.0,
            sty: 0.0,
            stmin: 0.0,
            stmax: stp + 4.0 * stp,
            width,
            width1: width / 0.5,
        };
        (ls, Search::Eval)
    }

    /// The value `f` and slope `g` at `stp`: accept, or set the next trial step.
    fn next(&mut self, f: f64, g: f64, stp: &mut f64, stpmax: f64) -> Search {
        let stpmin = 0.0;
        let ftest = self.finit + *stp * self.gtest;
        if self.stage == 1 && f <= ftest && g >= 0.0 {
            self.stage = 2;
        }
        let mut done = false;
        if self.brackt && (*stp <= self.stmin || *stp >= self.stmax) {
            done = true; // rounding errors prevent progress
        }
        if self.brackt && self.stmax - self.stmin <= LS_XTOL * self.stmax {
            done = true; // xtol test satisfied
        }
        if *stp == stpmax && f <= ftest && g <= self.gtest {
            done = true;
        }
        if *stp == stpmin && (f > ftest || g >= self.gtest) {
            done = true;
        }
        if f <= ftest && g.abs() <= LS_GTOL * (-self.ginit) {
            done = true;
        }
        if done {
            return Search::Done;
        }
        if self.stage == 1 && f <= self.fx && f > ftest {
            // The modified function ψ(α) = f(α) − f(0) − α·gtest.
            let gt = self.gtest;
            let fm = f - *stp * gt;
            let mut fxm = self.fx - self.stx * gt;
            let mut fym = self.fy - self.sty * gt;
            let gm = g - gt;
            let mut gxm = self.gx - gt;
            let mut gym = self.gy - gt;
            let (lo, hi) = (self.stmin, self.stmax);
            self.step(&mut fxm, &mut gxm, &mut fym, &mut gym, stp, fm, gm, lo, hi);
            self.fx = fxm + self.stx * gt;
            self.fy = fym + self.sty * gt;
            self.gx = gxm + gt;
            self.gy = gym + gt;
        } else {
            let (mut fx, mut gx, mut fy, mut gy) = (self.fx, self.gx, self.fy, self.gy);
            let (lo, hi) = (self.stmin, self.stmax);
            self.step(&mut fx, &mut gx, &mut fy, &mut gy, stp, f, g, lo, hi);
            (self.fx, self.gx, self.fy, self.gy) = (fx, gx, fy, gy);
        }
        if self.brackt {
            if (self.sty - self.stx).abs() >= 0.66 * self.width1 {
                *stp = self.stx + 0.5 * (self.sty - self.stx);
            }
            self.width1 = self.width;
            self.width = (self.sty - self.stx).abs();
        }
        if self.brackt {
            self.stmin = self.stx.min(self.sty);
            self.stmax = self.stx.max(self.sty);
        } else {
            self.stmin = *stp + 1.1 * (*stp - self.stx);
            self.stmax = *stp + 4.0 * (*stp - self.stx);
        }
        *stp = stp.max(stpmin);
        *stp = stp.min(stpmax);
        if self.brackt
            && (*stp <= self.stmin
                || *stp >= self.stmax
                || self.stmax - self.stmin <= LS_XTOL * self.stmax)
        {
            *stp = self.stx;
        }
        Search::Eval
    }

    /// One safeguarded step of the interval of uncertainty `[stx, sty]` given the trial `stp`
    /// with value `fp` and slope `dp`, the new trial kept within `[stpmin, stpmax]` (the
    /// search's current `[stmin, stmax]`; MINPACK-2's `dcstep`).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        fx: &mut f64,
        dx: &mut f64,
        fy: &mut f64,
        dy: &mut f64,
        stp: &mut f64,
        fp: f64,
        dp: f64,
        stpmin: f64,
        stpmax: f64,
    ) {
        let (stx, sty, s0) = (self.stx, self.sty, *stp);
        let sgnd = dp * (*dx / dx.abs());
        let stpf;
        if fp > *fx {
            // Higher value: the minimum is bracketed; cubic or the cubic–quadratic mean.
            let theta = 3.0 * (*fx - fp) / (s0 - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s) * (theta / s) - (*dx / s) * (dp / s)).sqrt();
            if s0 < stx {
                gamma = -gamma;
            }
            let p = (gamma - *dx) + theta;
            let q = ((gamma - *dx) + gamma) + dp;
            let r = p / q;
            let stpc = stx + r * (s0 - stx);
            let stpq = stx + ((*dx / ((*fx - fp) / (s0 - stx) + *dx)) / 2.0) * (s0 - stx);
            stpf = if (stpc - stx).abs() < (stpq - stx).abs() {
                stpc
            } else {
                stpc + (stpq - stpc) / 2.0
            };
            self.brackt = true;
        } else if sgnd < 0.0 {
            // Slopes of opposite sign: bracketed; cubic or secant step.
            let theta = 3.0 * (*fx - fp) / (s0 - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s) * (theta / s) - (*dx / s) * (dp / s)).sqrt();
            if s0 > stx {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = ((gamma - dp) + gamma) + *dx;
            let r = p / q;
            let stpc = s0 + r * (stx - s0);
            let stpq = s0 + (dp / (dp - *dx)) * (stx - s0);
            stpf = if (stpc - s0).abs() > (stpq - s0).abs() {
                stpc
            } else {
                stpq
            };
            self.brackt = true;
        } else if dp.abs() < dx.abs() {
            // Lower value, same slope sign, slope decreasing in magnitude.
            let theta = 3.0 * (*fx - fp) / (s0 - stx) + *dx + dp;
            let s = theta.abs().max(dx.abs()).max(dp.abs());
            let mut gamma = s
                * (0.0f64)
                    .max((theta / s) * (theta / s) - (*dx / s) * (dp / s))
                    .sqrt();
            if s0 > stx {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = (gamma + (*dx - dp)) + gamma;
            let r = p / q;
            let stpc = if r < 0.0 && gamma != 0.0 {
                s0 + r * (stx - s0)
            } else if s0 > stx {
                stpmax
            } else {
                stpmin
            };
            let stpq = s0 + (dp / (dp - *dx)) * (stx - s0);
            if self.brackt {
                let mut f = if (stpc - s0).abs() < (stpq - s0).abs() {
                    stpc
                } else {
                    stpq
                };
                if s0 > stx {
                    f = (s0 + 0.66 * (sty - s0)).min(f);
                } else {
                    f = (s0 + 0.66 * (sty - s0)).max(f);
                }
                stpf = f;
            } else {
                let f = if (stpc - s0).abs() > (stpq - s0).abs() {
                    stpc
                } else {
                    stpq
                };
                stpf = stpmax.min(f).max(stpmin);
            }
        } else if self.brackt {
            // Lower value, same slope sign, slope not decreasing: cubic towards sty.
            let theta = 3.0 * (fp - *fy) / (sty - s0) + *dy + dp;
            let s = theta.abs().max(dy.abs()).max(dp.abs());
            let mut gamma = s * ((theta / s) * (theta / s) - (*dy / s) * (dp / s)).sqrt();
            if s0 > sty {
                gamma = -gamma;
            }
            let p = (gamma - dp) + theta;
            let q = ((gamma - dp) + gamma) + *dy;
            let r = p / q;
            stpf = s0 + r * (sty - s0);
        } else if s0 > stx {
            stpf = stpmax;
        } else {
            stpf = stpmin;
        }
        if fp > *fx {
            self.sty = s0;
            *fy = fp;
            *dy = dp;
        } else {
            if sgnd < 0.0 {
                self.sty = stx;
                *fy = *fx;
                *dy = *dx;
            }
            self.stx = s0;
            *fx = fp;
            *dx = dp;
        }
        *stp = stpf;
    }
}

/// Bound kinds (L-BFGS-B's `nbd`): 0 none, 1 lower, 2 both, 3 upper.
fn bound_kind(lo: f64, hi: f64) -> u8 {
    match (lo > f64::NEG_INFINITY, hi < f64::INFINITY) {
        (false, false) => 0,
        (true, false) => 1,
        (true, true) => 2,
        (false, true) => 3,
    }
}

/// The infinity norm of the projected gradient (NaN if the gradient has one).
fn projected_gradient_norm(
    x: &[f64; N],
    g: &[f64; N],
    l: &[f64; N],
    u: &[f64; N],
    nbd: &[u8; N],
) -> f64 {
    let mut norm: f64 = 0.0;
    for i in 0..N {
        let mut gi = g[i];
        if gi.is_nan() {
            return gi;
        }
        if nbd[i] != 0 {
            if gi < 0.0 {
                if nbd[i] >= 2 {
                    gi = gi.max(x[i] - u[i]);
                }
            } else if nbd[i] <= 2 {
                gi = gi.min(x[i] - l[i]);
            }
        }
        norm = norm.max(gi.abs());
    }
    norm
}

/// The limited-memory matrix and the per-iteration work of L-BFGS-B.
struct Solver {
    l: [f64; N],
    u: [f64; N],
    nbd: [u8; N],
    /// Correction pairs `s` and `y` by slot (a ring starting at `head`).
    ws: [[f64; N]; M],
    wy: [[f64; N]; M],
    /// `sy[i][j] = s_iᵀ y_j` (lower triangle used), `ss[i][j] = s_iᵀ s_j` (upper), in age order.
    sy: [[f64; M]; M],
    ss: [[f64; M]; M],
    /// Cholesky factor of `θ SᵀS + L D⁻¹ Lᵀ`.
    wt: [[f64; M]; M],
    /// The factored middle matrix of the subspace problem.
    wn: [[f64; 2 * M]; 2 * M],
    /// Its unfactored inner products, updated as variables enter and leave the free set.
    wn1: [[f64; 2 * M]; 2 * M],
    theta: f64,
    col: usize,
    head: usize,
    itail: usize,
    iupdat: usize,
    updatd: bool,
    /// −1 unbounded, 0 free, 1 at lower, 2 at upper, 3 fixed, −3 free with zero gradient.
    iwhere: [i8; N],
    /// Free variables first (`nfree` of them), then the active ones from the end.
    index: [usize; N],
    /// Breakpoint order in the Cauchy search; then entering variables first and leaving ones
    /// from `ileave`.
    indx2: [usize; N],
    nfree: usize,
    nenter: usize,
    ileave: usize,
    /// Breakpoints.
    tbrk: [f64; N],
    /// The Cauchy direction, then the search direction.
    d: [f64; N],
    /// The Cauchy point, then the subspace minimiser.
    z: [f64; N],
    /// The reduced gradient on the free variables, then the previous gradient.
    r: [f64; N],
    /// `Wᵀ d` along the Cauchy path and `Wᵀ (xcp − x)`.
    p: [f64; 2 * M],
    c: [f64; 2 * M],
    wbp: [f64; 2 * M],
    v: [f64; 2 * M],
}

impl Solver {
    fn reset(&mut self) {
        self.col = 0;
        self.head = 0;
        self.theta = 1.0;
        self.iupdat = 0;
        self.updatd = false;
    }

    /// `out = M v` for the `2·col` vector `v`, with the middle matrix
    /// `M = [[−D, Lᵀ], [L, θ SᵀS]]⁻¹` from `sy` and `wt`. False when `wt` is singular.
    fn middle_times(&self, v: &[f64; 2 * M], out: &mut [f64; 2 * M]) -> bool {
        let col = self.col;
        if col == 0 {
            return true;
        }
        let sy = &self.sy;
        out[col] = v[col];
        for i in 1..col {
            let mut sum = 0.0;
            for k in 0..i {
                sum += sy[i][k] * v[k] / sy[k][k];
            }
            out[col + i] = v[col + i] + sum;
        }
        if !solve_rt(&self.wt, col, &mut out[col..2 * col]) {
            return false;
        }
        for i in 0..col {
            out[i] = v[i] / sy[i][i].sqrt();
        }
        if !solve_r(&self.wt, col, &mut out[col..2 * col]) {
            return false;
        }
        for i in 0..col {
            out[i] = -out[i] / sy[i][i].sqrt();
        }
        for i in 0..col {
            let mut sum = 0.0;
            for k in i + 1..col {
                sum += sy[k][i] * out[col + k] / sy[i][i];
            }
            out[i] += sum;
        }
        true
    }

    /// The generalized Cauchy point `z` from `x` along the projected steepest-descent path of the
    /// quadratic model; sets `iwhere`, `c = Wᵀ(z − x)`. False when `wt` is singular.
    fn cauchy(&mut self, x: &[f64; N], g: &[f64; N], sbgnrm: f64) -> bool {
        if sbgnrm <= 0.0 {
            self.z = *x;
            return true;
        }
        let (col, theta) = (self.col, self.theta);
        let col2 = 2 * col;
        let mut bnded = true;
        let mut nfree_at = N;
        let mut nbreak = 0;
        let mut ibkmin = 0;
        let (mut tl, mut tu) = (0.0, 0.0);
        let mut bkmin = 0.0;
        let mut f1 = 0.0;
        self.p[..col2].fill(0.0);
        for i in 0..N {
            let neggi = -g[i];
            let nbd = self.nbd[i];
            if self.iwhere[i] != 3 && self.iwhere[i] != -1 {
                if nbd <= 2 {
                    tl = x[i] - self.l[i];
                }
                if nbd >= 2 {
                    tu = self.u[i] - x[i];
                }
                let xlower = nbd <= 2 && tl <= 0.0;
                let xupper = nbd >= 2 && tu <= 0.0;
                self.iwhere[i] = 0;
                if xlower {
                    if neggi <= 0.0 {
                        self.iwhere[i] = 1;
                    }
                } else if xupper {
                    if neggi >= 0.0 {
                        self.iwhere[i] = 2;
                    }
                } else if neggi.abs() <= 0.0 {
                    self.iwhere[i] = -3;
                }
            }
            if self.iwhere[i] != 0 && self.iwhere[i] != -1 {
                self.d[i] = 0.0;
                continue;
            }
            self.d[i] = neggi;
            f1 -= neggi * neggi;
            let mut ptr = self.head;
            for j in 0..col {
                self.p[j] += self.wy[ptr][i] * neggi;
                self.p[col + j] += self.ws[ptr][i] * neggi;
                ptr = (ptr + 1) % M;
            }
            let brk = if nbd <= 2 && nbd != 0 && neggi < 0.0 {
                Some(tl / (-neggi))
            } else if nbd >= 2 && neggi > 0.0 {
                Some(tu / neggi)
            } else {
                None
            };
            match brk {
                Some(t) => {
                    self.indx2[nbreak] = i;
                    self.tbrk[nbreak] = t;
                    if nbreak == 0 || t < bkmin {
                        bkmin = t;
                        ibkmin = nbreak;
                    }
                    nbreak += 1;
                }
                None => {
                    nfree_at -= 1;
                    self.indx2[nfree_at] = i;
                    if neggi.abs() > 0.0 {
                        bnded = false;
                    }
                }
            }
        }
        if theta != 1.0 {
            for j in 0..col {
                self.p[col + j] *= theta;
            }
        }
        self.z = *x;
        if nbreak == 0 && nfree_at == N {
            return true;
        }
        self.c[..col2].fill(0.0);
        let mut f2 = -theta * f1;
        let f2_org = f2;
        if col > 0 {
            let p = self.p;
            let mut v = [0.0; 2 * M];
            if !self.middle_times(&p, &mut v) {
                return false;
            }
            self.v = v;
            f2 -= dot(&self.v[..col2], &self.p[..col2]);
        }
        let mut dtm = -f1 / f2;
        let mut tsum = 0.0;
        if nbreak > 0 {
            let mut nleft = nbreak;
            let mut iter = 1;
            let mut tj = 0.0;
            loop {
                let tj0 = tj;
                let ibp;
                if iter == 1 {
                    tj = bkmin;
                    ibp = self.indx2[ibkmin];
                } else {
                    if iter == 2 && ibkmin != nbreak - 1 {
                        self.tbrk[ibkmin] = self.tbrk[nbreak - 1];
                        self.indx2[ibkmin] = self.indx2[nbreak - 1];
                    }
                    heap_pop(nleft, &mut self.tbrk, &mut self.indx2, iter == 2);
                    tj = self.tbrk[nleft - 1];
                    ibp = self.indx2[nleft - 1];
                }
                let dt = tj - tj0;
                if dtm < dt {
                    break;
                }
                tsum += dt;
                nleft -= 1;
                iter += 1;
                let dibp = self.d[ibp];
                self.d[ibp] = 0.0;
                let zibp;
                if dibp > 0.0 {
                    zibp = self.u[ibp] - x[ibp];
                    self.z[ibp] = self.u[ibp];
                    self.iwhere[ibp] = 2;
                } else {
                    zibp = self.l[ibp] - x[ibp];
                    self.z[ibp] = self.l[ibp];
                    self.iwhere[ibp] = 1;
                }
                if nleft == 0 && nbreak == N {
                    // Every variable is at a bound: the Cauchy point is the last breakpoint.
                    if col > 0 {
                        let p = self.p;
                        axpy(dt, &p[..col2], &mut self.c[..col2]);
                    }
                    return true;
                }
                let dibp2 = dibp * dibp;
                f1 = f1 + dt * f2 + dibp2 - theta * dibp * zibp;
                f2 -= theta * dibp2;
                if col > 0 {
                    let p = self.p;
                    axpy(dt, &p[..col2], &mut self.c[..col2]);
                    let mut ptr = self.head;
                    for j in 0..col {
                        self.wbp[j] = self.wy[ptr][ibp];
                        self.wbp[col + j] = theta * self.ws[ptr][ibp];
                        ptr = (ptr + 1) % M;
                    }
                    let wbp = self.wbp;
                    let mut v = [0.0; 2 * M];
                    if !self.middle_times(&wbp, &mut v) {
                        return false;
                    }
                    self.v = v;
                    let wmc = dot(&self.c[..col2], &v[..col2]);
                    let wmp = dot(&self.p[..col2], &v[..col2]);
                    let wmw = dot(&wbp[..col2], &v[..col2]);
                    axpy(-dibp, &wbp[..col2], &mut self.p[..col2]);
                    f1 += dibp * wmc;
                    f2 = f2 + 2.0 * dibp * wmp - dibp2 * wmw;
                }
                f2 = (EPSMCH * f2_org).max(f2);
                if nleft > 0 {
                    dtm = -f1 / f2;
                    continue;
                } else if bnded {
                    dtm = 0.0;
                } else {
                    dtm = -f1 / f2;
                }
                break;
            }
        }
        if dtm <= 0.0 {
            dtm = 0.0;
        }
        tsum += dtm;
        let d = self.d;
        axpy(tsum, &d, &mut self.z);
        if col > 0 {
            let p = self.p;
            axpy(dtm, &p[..col2], &mut self.c[..col2]);
        }
        true
    }

    /// The free set at the Cauchy point, and which variables entered or left it since the last
    /// iteration. Returns whether the middle matrix must be refactored.
    fn free_set(&mut self, track: bool) -> bool {
        self.nenter = 0;
        self.ileave = N;
        if track {
            for i in 0..self.nfree {
                let k = self.index[i];
                if self.iwhere[k] > 0 {
                    self.ileave -= 1;
                    self.indx2[self.ileave] = k;
                }
            }
            for i in self.nfree..N {
                let k = self.index[i];
                if self.iwhere[k] <= 0 {
                    self.indx2[self.nenter] = k;
                    self.nenter += 1;
                }
            }
        }
        let wrk = self.ileave < N || self.nenter > 0 || self.updatd;
        self.nfree = 0;
        let mut iact = N;
        for i in 0..N {
            if self.iwhere[i] <= 0 {
                self.index[self.nfree] = i;
                self.nfree += 1;
            } else {
                iact -= 1;
                self.index[iact] = i;
            }
        }
        wrk
    }

    /// Form and factor the middle matrix of the subspace problem on the free variables.
    /// False when a factorisation fails.
    fn form_k(&mut self) -> bool {
        let (col, theta, head) = (self.col, self.theta, self.head);
        let nsub = self.nfree;
        let wn1 = &mut self.wn1;
        let (ws, wy) = (&self.ws, &self.wy);
        let free = &self.index[..nsub];
        let active = &self.index[nsub..];
        let upcl;
        if self.updatd {
            if self.iupdat > M {
                // Drop the oldest pair: shift the stored blocks up and left by one.
                for jy in 0..M - 1 {
                    let js = M + jy;
                    for t in 0..M - 1 - jy {
                        wn1[jy + t][jy] = wn1[jy + 1 + t][jy + 1];
                        wn1[js + t][js] = wn1[js + 1 + t][js + 1];
                    }
                    for t in 0..M - 1 {
                        wn1[M + t][jy] = wn1[M + 1 + t][jy + 1];
                    }
                }
            }
            // The newest row and column from scratch.
            let iy = col - 1;
            let is = M + col - 1;
            let ipntr = (head + col - 1) % M;
            let mut jpntr = head;
            for jy in 0..col {
                let js = M + jy;
                let (mut t1, mut t2, mut t3) = (0.0, 0.0, 0.0);
                for &k in free {
                    t1 += wy[ipntr][k] * wy[jpntr][k];
                }
                for &k in active {
                    t2 += ws[ipntr][k] * ws[jpntr][k];
                    t3 += ws[ipntr][k] * wy[jpntr][k];
                }
                wn1[iy][jy] = t1;
                wn1[is][js] = t2;
                wn1[is][jy] = t3;
                jpntr = (jpntr + 1) % M;
            }
            let jy = col - 1;
            let jpntr = (head + col - 1) % M;
            let mut ipntr = head;
            for i in 0..col {
                let is = M + i;
                let mut t3 = 0.0;
                for &k in free {
                    t3 += ws[ipntr][k] * wy[jpntr][k];
                }
                ipntr = (ipntr + 1) % M;
                wn1[is][jy] = t3;
            }
            upcl = col - 1;
        } else {
            upcl = col;
        }
        // The older entries: add the entering variables, remove the leaving ones.
        let entering = &self.indx2[..self.nenter];
        let leaving = &self.indx2[self.ileave..];
        let mut ipntr = head;
        for iy in 0..upcl {
            let is = M + iy;
            let mut jpntr = head;
            for jy in 0..=iy {
                let js = M + jy;
                let (mut t1, mut t2, mut t3, mut t4) = (0.0, 0.0, 0.0, 0.0);
                for &k in entering {
                    t1 += wy[ipntr][k] * wy[jpntr][k];
                    t2 += ws[ipntr][k] * ws[jpntr][k];
                }
                for &k in leaving {
                    t3 += wy[ipntr][k] * wy[jpntr][k];
                    t4 += ws[ipntr][k] * ws[jpntr][k];
                }
                wn1[iy][jy] = wn1[iy][jy] + t1 - t3;
                wn1[is][js] = wn1[is][js] - t2 + t4;
                jpntr = (jpntr + 1) % M;
            }
            ipntr = (ipntr + 1) % M;
        }
        let mut ipntr = head;
        for is in M..M + upcl {
            let mut jpntr = head;
            for jy in 0..upcl {
                let (mut t1, mut t3) = (0.0, 0.0);
                for &k in entering {
                    t1 += ws[ipntr][k] * wy[jpntr][k];
                }
                for &k in leaving {
                    t3 += ws[ipntr][k] * wy[jpntr][k];
                }
                if is <= jy + M {
                    wn1[is][jy] = wn1[is][jy] + t1 - t3;
                } else {
                    wn1[is][jy] = wn1[is][jy] - t1 + t3;
                }
                jpntr = (jpntr + 1) % M;
            }
            ipntr = (ipntr + 1) % M;
        }
        // The matrix [[Y'ZZ'Y/θ + D, −L_A' + R_Z'], [·, θ S'AA'S]] in the upper triangle of wn.
        let wn = &mut self.wn;
        for iy in 0..col {
            let is = col + iy;
            let is1 = M + iy;
            for jy in 0..=iy {
                let js = col + jy;
                let js1 = M + jy;
                wn[jy][iy] = wn1[iy][jy] / theta;
                wn[js][is] = wn1[is1][js1] * theta;
            }
            for jy in 0..iy {
                wn[jy][is] = -wn1[is1][jy];
            }
            for jy in iy..col {
                wn[jy][is] = wn1[is1][jy];
            }
            wn[iy][iy] += self.sy[iy][iy];
        }
        if cholesky(wn, 0, col) != 0 {
            return false;
        }
        let col2 = 2 * col;
        for js in col..col2 {
            let mut b = [0.0; 2 * M];
            for i in 0..col {
                b[i] = wn[i][js];
            }
            solve_rt(wn, col, &mut b[..col]);
            for i in 0..col {
                wn[i][js] = b[i];
            }
        }
        for is in col..col2 {
            for js in is..col2 {
                let mut s = 0.0;
                for k in 0..col {
                    s += wn[k][is] * wn[k][js];
                }
                wn[is][js] += s;
            }
        }
        cholesky(wn, col, col) == 0
    }

    /// The reduced gradient of the quadratic model at the Cauchy point, on the free variables
    /// (into `r[..nfree]`). False when `wt` is singular.
    fn reduced_gradient(&mut self, x: &[f64; N], g: &[f64; N]) -> bool {
        let (col, theta) = (self.col, self.theta);
        for i in 0..self.nfree {
            let k = self.index[i];
            self.r[i] = -theta * (self.z[k] - x[k]) - g[k];
        }
        let c = self.c;
        let mut v = [0.0; 2 * M];
        if !self.middle_times(&c, &mut v) {
            return false;
        }
        let mut ptr = self.head;
        for j in 0..col {
            let a1 = v[j];
            let a2 = theta * v[col + j];
            for i in 0..self.nfree {
                let k = self.index[i];
                self.r[i] = self.r[i] + self.wy[ptr][k] * a1 + self.ws[ptr][k] * a2;
            }
            ptr = (ptr + 1) % M;
        }
        true
    }

    /// Minimise the quadratic model over the free variables from the Cauchy point (into `z`),
    /// then project to the box, or backtrack to it if the projection is not a descent direction.
    fn subspace(&mut self, x: &[f64; N], g: &[f64; N]) -> bool {
        let nsub = self.nfree;
        if nsub == 0 {
            return true;
        }
        let (col, theta) = (self.col, self.theta);
        let col2 = 2 * col;
        let mut wv = [0.0; 2 * M];
        let mut ptr = self.head;
        for i in 0..col {
            let (mut t1, mut t2) = (0.0, 0.0);
            for j in 0..nsub {
                let k = self.index[j];
                t1 += self.wy[ptr][k] * self.r[j];
                t2 += self.ws[ptr][k] * self.r[j];
            }
            wv[i] = t1;
            wv[col + i] = theta * t2;
            ptr = (ptr + 1) % M;
        }
        if !solve_rt(&self.wn, col2, &mut wv[..col2]) {
            return false;
        }
        for v in &mut wv[..col] {
            *v = -*v;
        }
        if !solve_r(&self.wn, col2, &mut wv[..col2]) {
            return false;
        }
        let d = &mut self.r;
        let mut ptr = self.head;
        for jy in 0..col {
            let js = col + jy;
            for i in 0..nsub {
                let k = self.index[i];
                d[i] = d[i] + self.wy[ptr][k] * wv[jy] / theta + self.ws[ptr][k] * wv[js];
            }
            ptr = (ptr + 1) % M;
        }
        let scale = 1.0 / theta;
        for v in &mut d[..nsub] {
            *v *= scale;
        }
        // Project the subspace step to the box.
        let xcp = self.z;
        let (l, u) = (&self.l, &self.u);
        let mut hit = false;
        for i in 0..nsub {
            let k = self.index[i];
            let (dk, xk) = (d[i], self.z[k]);
            let z = &mut self.z[k];
            match self.nbd[k] {
                0 => *z = xk + dk,
                1 => {
                    *z = l[k].max(xk + dk);
                    hit |= *z == l[k];
                }
                2 => {
                    *z = u[k].min(l[k].max(xk + dk));
                    hit |= *z == l[k] || *z == u[k];
                }
                _ => {
                    *z = u[k].min(xk + dk);
                    hit |= *z == u[k];
                }
            }
        }
        if !hit {
            return true;
        }
        let mut dd = 0.0;
        for i in 0..N {
            dd += (self.z[i] - x[i]) * g[i];
        }
        if dd <= 0.0 {
            return true;
        }
        // Not a descent direction: the longest feasible step along the subspace direction.
        self.z = xcp;
        let mut alpha = 1.0;
        let mut temp1 = alpha;
        let mut ibd = 0;
        for i in 0..nsub {
            let k = self.index[i];
            let dk = d[i];
            let nbd = self.nbd[k];
            if nbd == 0 {
                continue;
            }
            if dk < 0.0 && nbd <= 2 {
                let temp2 = l[k] - self.z[k];
                if temp2 >= 0.0 {
                    temp1 = 0.0;
                } else if dk * alpha < temp2 {
                    temp1 = temp2 / dk;
                }
            } else if dk > 0.0 && nbd >= 2 {
                let temp2 = u[k] - self.z[k];
                if temp2 <= 0.0 {
                    temp1 = 0.0;
                } else if dk * alpha > temp2 {
                    temp1 = temp2 / dk;
                }
            }
            if temp1 < alpha {
                alpha = temp1;
                ibd = i;
            }
        }
        if alpha < 1.0 {
            let dk = d[ibd];
            let k = self.index[ibd];
            if dk > 0.0 {
                self.z[k] = u[k];
                d[ibd] = 0.0;
            } else if dk < 0.0 {
                self.z[k] = l[k];
                d[ibd] = 0.0;
            }
        }
        for i in 0..nsub {
            let k = self.index[i];
            self.z[k] += alpha * d[i];
        }
        true
    }

    /// Add the pair `(s, y)` = (`d`, `r`) to the memory.
    fn add_pair(&mut self, s: &[f64; N], y: &[f64; N], rr: f64, dr: f64, stp: f64, dtd: f64) {
        if self.iupdat <= M {
            self.col = self.iupdat;
            self.itail = (self.head + self.iupdat - 1) % M;
        } else {
            self.itail = (self.itail + 1) % M;
            self.head = (self.head + 1) % M;
        }
        self.ws[self.itail] = *s;
        self.wy[self.itail] = *y;
        self.theta = rr / dr;
        let col = self.col;
        if self.iupdat > M {
            for j in 0..col - 1 {
                for i in 0..=j {
                    self.ss[i][j] = self.ss[i + 1][j + 1];
                }
                for i in j..col - 1 {
                    self.sy[i][j] = self.sy[i + 1][j + 1];
                }
            }
        }
        let mut ptr = self.head;
        for j in 0..col - 1 {
            self.sy[col - 1][j] = dot(s, &self.wy[ptr]);
            self.ss[j][col - 1] = dot(&self.ws[ptr], s);
            ptr = (ptr + 1) % M;
        }
        self.ss[col - 1][col - 1] = if stp == 1.0 { dtd } else { stp * stp * dtd };
        self.sy[col - 1][col - 1] = dr;
    }

    /// Factor `θ SᵀS + L D⁻¹ Lᵀ` into `wt`. False when not positive definite.
    fn form_t(&mut self) -> bool {
        let (col, theta) = (self.col, self.theta);
        for j in 0..col {
            self.wt[0][j] = theta * self.ss[0][j];
        }
        for i in 1..col {
            for j in i..col {
                let mut s = 0.0;
                for k in 0..i {
                    s += self.sy[i][k] * self.sy[j][k] / self.sy[k][k];
                }
                self.wt[i][j] = s + theta * self.ss[i][j];
            }
        }
        cholesky(&mut self.wt, 0, col) == 0
    }
}

/// Minimise `f` from `x0` within `[lo, hi]` (infinite bounds are absent; equal bounds fix the
/// variable) as scipy 1.10's L-BFGS-B does. With `trail`, the iterate and its value after each
/// iteration (what scipy's `callback` sees) are appended to it.
pub(crate) fn minimize(
    f: &mut impl Objective,
    x0: [f64; N],
    lo: [f64; N],
    hi: [f64; N],
    opts: &Options,
    mut trail: Option<&mut Vec<([f64; N], f64)>>,
) -> Outcome {
    let nbd: [u8; N] = std::array::from_fn(|i| bound_kind(lo[i], hi[i]));
    let mut s = Solver {
        l: lo,
        u: hi,
        nbd,
        ws: [[0.0; N]; M],
        wy: [[0.0; N]; M],
        sy: [[0.0; M]; M],
        ss: [[0.0; M]; M],
        wt: [[0.0; M]; M],
        wn: [[0.0; 2 * M]; 2 * M],
        wn1: [[0.0; 2 * M]; 2 * M],
        theta: 1.0,
        col: 0,
        head: 0,
        itail: 0,
        iupdat: 0,
        updatd: false,
        iwhere: [0; N],
        index: [0; N],
        indx2: [0; N],
        nfree: N,
        nenter: 0,
        ileave: N,
        tbrk: [0.0; N],
        d: [0.0; N],
        z: [0.0; N],
        r: [0.0; N],
        p: [0.0; 2 * M],
        c: [0.0; 2 * M],
        wbp: [0.0; 2 * M],
        v: [0.0; 2 * M],
    };
    // The start point, projected to the box (scipy clips it before anything else).
    let mut x = x0;
    let mut cnstnd = false;
    let mut boxed = true;
    for i in 0..N {
        if nbd[i] > 0 {
            if nbd[i] <= 2 && x[i] <= lo[i] {
                x[i] = lo[i];
            } else if nbd[i] >= 2 && x[i] >= hi[i] {
                x[i] = hi[i];
            }
        }
        if nbd[i] != 2 {
            boxed = false;
        }
        s.iwhere[i] = if nbd[i] == 0 {
            -1
        } else {
            cnstnd = true;
            if nbd[i] == 2 && hi[i] - lo[i] <= 0.0 {
                3
            } else {
                0
            }
        };
    }
    let tol = (opts.ftol / EPSMCH) * EPSMCH;
    let mut obj = Counted {
        f,
        last: None,
        value: f64::NAN,
        grad: [0.0; N],
        nfev: 0,
    };
    let (mut fx, mut g) = obj.eval(&x);
    let mut nit = 0;
    let mut iter = 0;
    let done = |x: [f64; N], f: f64, nit: usize, nfev: usize, stop: Stop| Outcome {
        x,
        f,
        nit,
        nfev,
        stop,
    };
    let mut sbgnrm = projected_gradient_norm(&x, &g, &lo, &hi, &nbd);
    if sbgnrm <= opts.gtol {
        return done(x, fx, nit, obj.nfev, Stop::Pgtol);
    }
    loop {
        // A new search direction.
        let wrk;
        if !cnstnd && s.col > 0 {
            s.z = x;
            wrk = s.updatd;
        } else {
            if !s.cauchy(&x, &g, sbgnrm) {
                s.reset();
                continue;
            }
            wrk = s.free_set(iter > 0 && cnstnd);
        }
        if s.nfree != 0 && s.col != 0 {
            if wrk && !s.form_k() {
                s.reset();
                continue;
            }
            if !cnstnd {
                // Unconstrained: the reduced gradient is the gradient.
                for i in 0..N {
                    s.r[i] = -g[i];
                }
            } else if !s.reduced_gradient(&x, &g) {
                s.reset();
                continue;
            }
            if !s.subspace(&x, &g) {
                s.reset();
                continue;
            }
        }
        for i in 0..N {
            s.d[i] = s.z[i] - x[i];
        }
        // The line search along d.
        let d = s.d;
        let dtd = dot(&d, &d);
        let dnorm = dtd.sqrt();
        let mut stpmx: f64 = 1e10;
        if cnstnd {
            if iter == 0 {
                stpmx = 1.0;
            } else {
                for i in 0..N {
                    let a1 = d[i];
                    if nbd[i] == 0 {
                        continue;
                    }
                    if a1 < 0.0 && nbd[i] <= 2 {
                        let a2 = lo[i] - x[i];
                        if a2 >= 0.0 {
                            stpmx = 0.0;
                        } else if a1 * stpmx < a2 {
                            stpmx = a2 / a1;
                        }
                    } else if a1 > 0.0 && nbd[i] >= 2 {
                        let a2 = hi[i] - x[i];
                        if a2 <= 0.0 {
                            stpmx = 0.0;
                        } else if a1 * stpmx > a2 {
                            stpmx = a2 / a1;
                        }
                    }
                }
            }
        }
        let mut stp = if iter == 0 && !boxed {
            (1.0 / dnorm).min(stpmx)
        } else {
            1.0
        };
        let (t, r_old, fold) = (x, g, fx);
        let mut ifun = 0;
        let mut gdold = 0.0;
        let mut gd;
        let mut ls = LineSearch::default();
        let accepted = loop {
            gd = dot(&g, &d);
            let state = if ifun == 0 {
                gdold = gd;
                if gd >= 0.0 {
                    break false; // not a descent direction
                }
                let (l, st) = LineSearch::start(fx, gd, stp, stpmx);
                ls = l;
                st
            } else {
                ls.next(fx, gd, &mut stp, stpmx)
            };
            match state {
                Search::Done => break true,
                Search::Error => break false,
                Search::Eval => {}
            }
            ifun += 1;
            if stp == 1.0 {
                x = s.z;
            } else {
                for i in 0..N {
                    let mut xi = stp * d[i] + t[i];
                    if nbd[i] == 1 || nbd[i] == 2 {
                        xi = xi.max(lo[i]);
                    }
                    if nbd[i] == 2 || nbd[i] == 3 {
                        xi = xi.min(hi[i]);
                    }
                    x[i] = xi;
                }
            }
            // At most `maxls` evaluations per search: the next request gives up instead.
            if ifun > opts.maxls {
                break false;
            }
            (fx, g) = obj.eval(&x);
        };
        if !accepted {
            x = t;
            g = r_old;
            fx = fold;
            if s.col == 0 {
                return done(x, fx, nit, obj.nfev, Stop::Abnormal);
            }
            s.reset();
            continue;
        }
        iter += 1;
        sbgnrm = projected_gradient_norm(&x, &g, &lo, &hi, &nbd);
        nit += 1;
        if let Some(tr) = trail.as_deref_mut() {
            tr.push((x, fx));
        }
        if nit >= opts.maxiter {
            return done(x, fx, nit, obj.nfev, Stop::MaxIter);
        }
        if obj.nfev > opts.maxfun {
            return done(x, fx, nit, obj.nfev, Stop::MaxFun);
        }
        if sbgnrm <= opts.gtol {
            return done(x, fx, nit, obj.nfev, Stop::Pgtol);
        }
        let ddum = fold.abs().max(fx.abs()).max(1.0);
        if fold - fx <= tol * ddum {
            return done(x, fx, nit, obj.nfev, Stop::RelReduction);
        }
        // The correction pair.
        let mut y = [0.0; N];
        for i in 0..N {
            y[i] = g[i] - r_old[i];
        }
        let rr = dot(&y, &y);
        let mut sv = d;
        let (dr, ddum) = if stp == 1.0 {
            (gd - gdold, -gdold)
        } else {
            for v in &mut sv {
                *v *= stp;
            }
            ((gd - gdold) * stp, -gdold * stp)
        };
        if dr <= EPSMCH * ddum {
            s.updatd = false;
            continue;
        }
        s.updatd = true;
        s.iupdat += 1;
        s.add_pair(&sv, &y, rr, dr, stp, dtd);
        if !s.form_t() {
            s.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lbfgsb::Cut;

    /// A value-and-gradient closure as an [`Objective`].
    struct Smooth<F>(F, [f64; N]);

    impl<F: FnMut(&[f64; N], &mut [f64; N]) -> f64> Objective for Smooth<F> {
        fn value(&mut self, x: &[f64; N], _cut: Option<Cut>) -> Option<f64> {
            Some((self.0)(x, &mut self.1))
        }
        fn gradient(&mut self, _x: &[f64; N], grad: &mut [f64; N]) {
            *grad = self.1;
        }
    }

    #[test]
    fn finds_a_bounded_minimum_with_fixed_and_free_variables() {
        // (x0 − 3)² + (x1 + 1)² + Σ (x_i − i/2)² with x0 ≤ 2, x1 ≥ 0, x6 fixed at 0.25 and x5
        // unbounded: the optimum is (2, 0, 1, 1.5, 2, 2.5, 0.25).
        let f = |x: &[f64; N], g: &mut [f64; N]| {
            let mut v = (x[0] - 3.0).powi(2) + (x[1] + 1.0).powi(2);
            g[0] = 2.0 * (x[0] - 3.0);
            g[1] = 2.0 * (x[1] + 1.0);
            for i in 2..N {
                v += (x[i] - 0.5 * i as f64).powi(2);
                g[i] = 2.0 * (x[i] - 0.5 * i as f64);
            }
            v
        };
        let lo = [-10.0, 0.0, -10.0, -10.0, -10.0, f64::NEG_INFINITY, 0.25];
        let hi = [2.0, 10.0, 10.0, 10.0, 10.0, f64::INFINITY, 0.25];
        let mut trail = Vec::new();
        let out = minimize(
            &mut Smooth(f, [0.0; N]),
            [0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            lo,
            hi,
            &Options::scipy(1e7 * EPSMCH, 1e-5),
            Some(&mut trail),
        );
        let want = [2.0, 0.0, 1.0, 1.5, 2.0, 2.5, 0.25];
        for (i, (x, w)) in out.x.iter().zip(want).enumerate() {
            assert!((x - w).abs() < 1e-6, "x{i} = {x}, want {w}");
        }
        assert!(
            matches!(out.stop, Stop::Pgtol | Stop::RelReduction),
            "{:?}",
            out.stop
        );
        assert_eq!(trail.len(), out.nit);
        // The start is projected (x6 to its fixed value) and every iterate is feasible.
        for (x, _) in &trail {
            assert!(x
                .iter()
                .zip(lo.iter().zip(&hi))
                .all(|(v, (l, h))| l <= v && v <= h));
        }
    }
}
