//! An ECOS-faithful interior-point solver for the cone programs cvxpy hands to ECOS for
//! `finish_time_fairness_perf` (GAVEL-SEMANTICS §6.3), and for the LPs of
//! `max_min_fairness_perf` (§6.1), `max_sum_throughput_perf` and `min_total_duration[_perf]`
//! (GAVEL-GENERATED §G8.1, §G8.2; [`ConeProgram::max_min`], [`ConeProgram::max_sum`],
//! [`ConeProgram::min_total_duration`]; `max_min_fairness_perf` on several GPU types only).
//! Against Gavel's own runs on the 8 physical-cluster traces (seed 0, 8:0:0 and 4:4:4), the LPs
//! solved here instead of at the analytic centre took the runs with Gavel's average JCT to 3
//! decimals from 9 to 17 of 24 (max-min on 4:4:4 and max-sum) and from 2 to 31 of 32
//! (`min_total_duration[_perf]`, whose constant objective makes ECOS's point the only answer);
//! the vectors this reproduces bit for bit are in `blox-gavel`'s and `blox-cli`'s tests.
//!
//! **Why.** The finish-time program has many optima (the shares of jobs not at the max ρ are
//! free within the optimal face). [`crate::barrier`] lands on the analytic centre of that face,
//! which reproduces every GAVEL-SEMANTICS vector; ECOS lands near it but not on it (mean share
//! differences of 0.004–0.009 on small multi-type programs, which moved average JCTs by up to
//! 7 %). This module follows ECOS's own iterates on cvxpy's own cone program, so it stops where
//! ECOS stops.
//!
//! **The cone program** (cvxpy 1.9.3, `prob.get_problem_data(cp.ECOS)` on
//! `tools/ref/ftf_ecos.py`'s model; no equality rows, `A = None`): minimise `cᵀv` subject to
//! `h − G v ∈ K`, `K` = the nonnegative orthant of dimension `l` followed by 3-dimensional
//! second-order cones. With m jobs and n types:
//!
//! - m ≥ 2: variables `v = [t, x (column-major: x[i][w] at 1 + w·m + i), u_0..u_{m−1}]`
//!   (`1 + m·n + m`), `c = e_0`. Rows, in order: m epigraph rows `−t + (rem_i·(1/D_i))·u_i ≤
//!   −(since_i·(1/D_i))`; m·n rows `−x ≤ 0` (column-major); n capacity rows `Σ_i s_i·x[i][w] ≤
//!   c_w`; m job rows `Σ_w x[i][w] ≤ 1`; then per job one SOC block of 3 rows
//!   `(y_i + u_i, y_i − u_i, 2)` with `y_i = Σ_w T[i][w]·x[i][w]` (rows `−T·x − u`, `−T·x + u`,
//!   empty with h = 2): `u_i·y_i ≥ 1`, cvxpy's form of `u_i ≥ inv_pos(y_i)`.
//! - m = 1: variables `[u, x_0..x_{n−1}]`, `c = [rem·(1/D), 0, ..]` (the constant since/D is
//!   dropped), rows `−x ≤ 0`, capacity, the job row, one SOC block.
//!
//! **The algorithm** is ECOS 2.0.x's (Domahidi, Chu, Boyd, "ECOS: An SOCP solver for embedded
//! systems", ECC 2013; facts, constants and the order of operations read from embotech/ecos
//! `src/ecos.c`, `src/cone.c`, `src/kkt.c`, `src/equil.c`, `include/ecos.h`; written anew here):
//! Ruiz equilibration (3 passes: column and row max-abs, a SOC block's rows sharing the sum of
//! their maxima, square roots, entries below 1e-6 left at 1; `c /= xequil`, `h /= Gequil`);
//! the homogeneous self-dual embedding with τ, κ; the initial point from two regularised
//! least-squares KKT solves (`[0;h]`, `[−c;0]`) each shifted into the cone (`bring2cone`);
//! Nesterov–Todd scalings (LP: `√(s/z)`; SOC: η, a, q, and the expanded form's d1, u0, u1, v1);
//! Mehrotra predictor–corrector with σ = (1 − α_aff)³ clamped to [1e-4, 1]; the step to the cone
//! boundary (Vandenberghe's line search, τ and κ included) clamped to [1e-6, 0.999] and times
//! γ = 0.99; the safeguards (best iterate, PRES growth × 500, negative gap, minimum step); the
//! stopping tests (feastol = abstol = reltol = 1e-8; the reduced 1e-4 / 5e-5 / 5e-5 for
//! `optimal_inaccurate`), 100 iterations; the result `x / (xequil·τ)`.
//!
//! **The KKT systems.** As ECOS: the sparse quasi-definite KKT matrix `[δI, Gᵀ; G, −W²]` with
//! every SOC block expanded by two rows (`v`, `u`; ECOS's CONEMODE 0), static regularisation
//! δ = 7e-8 (`+δ` on the x block, `−δ` on the cone rows, `+δ` on `u`, none on `v`; at the
//! initial solves W² = I and no δ on the cone rows), an up-looking sparse LDLᵀ with ECOS's
//! dynamic regularisation (a pivot of the wrong sign or at most 1e-13 becomes ±2e-7), and up to
//! 9 steps of iterative refinement on the residual ECOS computes (which states `+δ` for the
//! cone rows except `−δ` on the last row of each SOC block). One difference: the elimination
//! order is a plain minimum-degree order (ties to the lowest index), not SuiteSparse AMD's.
//! That order and the symbolic factorisation depend on the sparsity alone, so a run keeps them
//! by sparsity across its solves ([`KktCache`]).
//! The iterates agree with ECOS's printed ones (pcost, dcost, gap, pres, dres, k/t, mu, step,
//! sigma) on every iteration checked; the final shares differ from ECOS's by rounding, up to a
//! few 1e-5 on programs whose optimum is not unique (another tie-break among equal degrees moves
//! them by as much): see `ecos_tests`. `tools/ref/ftf_ecos_trace.py` prints ECOS's iterations
//! for a dumped program, `BLOX_GAVEL_ECOS_TRACE=1` this solver's (on stderr); both can stop
//! after K iterations ([`solve_with`]) to compare iterates in full. On highmem_test's first
//! 4:4:4 program the shares after iteration 1 agree with ECOS's to 8e-16 (relative), after 2 to
//! 1e-13, 4: 2e-11, 6: 3e-9, 8: 9e-8, 10: 1e-5 (absolute 2e-6), the end (15): 2e-5 absolute:
//! rounding differences (of the order of an ulp at the first KKT solves) grow about ten-fold
//! per iteration. SuiteSparse AMD's order (taken from qdldl for a test) does not remove them:
//! they come from the factorisation's and refinement's own rounding, so only a bit-for-bit
//! copy of ECOS's linear algebra would close the rest.

// Dense numerical kernels index several arrays in step; iterators would obscure them.
#![allow(clippy::needless_range_loop)]

/// ECOS's constants (include/ecos.h).
const MAXIT: usize = 100;
const FEASTOL: f64 = 1e-8;
const ABSTOL: f64 = 1e-8;
const RELTOL: f64 = 1e-8;
const FTOL_INACC: f64 = 1e-4;
const ATOL_INACC: f64 = 5e-5;
const RTOL_INACC: f64 = 5e-5;
const GAMMA: f64 = 0.99;
const DELTASTAT: f64 = 7e-8;
const EPS: f64 = 1e-13;
const DELTA: f64 = 2e-7;
const SIGMAMIN: f64 = 1e-4;
const SIGMAMAX: f64 = 1.0;
const STEPMIN: f64 = 1e-6;
const STEPMAX: f64 = 0.999;
const SAFEGUARD: f64 = 500.0;
const EQUIL_ITERS: usize = 3;
/// Iterative refinement steps on the KKT system, at most.
const NITREF: usize = 9;

/// `x / max(y, EPS)` as ECOS's `SAFEDIV_POS`.
fn safediv(x: f64, y: f64) -> f64 {
    if y < EPS {
        x / EPS
    } else {
        x / y
    }
}

fn norm2(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in v {
        s += x * x;
    }
    s.sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A cone program `min cᵀv s.t. h − Gv ∈ R₊^l × SOC(soc[0]) × …` (G in compressed columns).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConeProgram {
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) c: Vec<f64>,
    pub(crate) colptr: Vec<usize>,
    pub(crate) rowidx: Vec<usize>,
    pub(crate) val: Vec<f64>,
    pub(crate) h: Vec<f64>,
    pub(crate) l: usize,
    pub(crate) soc: Vec<usize>,
}

/// One finish-time job as the cone program needs it.
pub(crate) struct FtfJob<'a> {
    pub(crate) throughput: &'a [f64],
    pub(crate) scale_factor: f64,
    pub(crate) since: f64,
    pub(crate) remaining: f64,
    pub(crate) denominator: f64,
}

impl ConeProgram {
    /// cvxpy 1.9.3's ECOS data for the finish-time program (module doc). Entries are stored
    /// even where a throughput is 0 (they change no sum).
    pub(crate) fn finish_time(jobs: &[FtfJob<'_>], counts: &[f64]) -> ConeProgram {
        let m = jobs.len();
        let n = counts.len();
        let single = m == 1;
        // Row offsets.
        let nonneg = if single { 0 } else { m };
        let cap = nonneg + m * n;
        let jobrow = cap + n;
        let socs = jobrow + m;
        let rows = socs + 3 * m;
        let nv = if single { 1 + n } else { 1 + m * n + m };
        let mut cols = ColBuilder::new(nv);
        let xcol = |i: usize, w: usize| if single { 1 + w } else { 1 + w * m + i };
        let ucol = |i: usize| if single { 0 } else { 1 + m * n + i };
        let mut c = vec![0.0; nv];
        let mut h = vec![0.0; rows];
        if single {
            let j = &jobs[0];
            c[0] = j.remaining * (1.0 / j.denominator);
        } else {
            c[0] = 1.0;
            for (i, j) in jobs.iter().enumerate() {
                cols.push(0, i, -1.0);
                h[i] = -(j.since * (1.0 / j.denominator));
            }
        }
        for w in 0..n {
            for (i, j) in jobs.iter().enumerate() {
                let col = xcol(i, w);
                cols.push(col, nonneg + w * m + i, -1.0);
                cols.push(col, cap + w, j.scale_factor);
                cols.push(col, jobrow + i, 1.0);
                cols.push(col, socs + 3 * i, -j.throughput[w]);
                cols.push(col, socs + 3 * i + 1, -j.throughput[w]);
            }
        }
        for (i, j) in jobs.iter().enumerate() {
            let col = ucol(i);
            if !single {
                cols.push(col, i, j.remaining * (1.0 / j.denominator));
            }
            cols.push(col, socs + 3 * i, -1.0);
            cols.push(col, socs + 3 * i + 1, 1.0);
            h[socs + 3 * i + 2] = 2.0;
        }
        h[cap..cap + n].copy_from_slice(counts);
        for i in 0..m {
            h[jobrow + i] = 1.0;
        }
        debug_assert_eq!(h.len(), rows);
        cols.finish(c, h, socs, vec![3; m])
    }

    /// cvxpy 1.9.3's ECOS data for `max_min_fairness_perf`'s program (GAVEL-SEMANTICS §6.2;
    /// `prob.get_problem_data(cp.ECOS)` on Gavel's model, which maximises `min_i Σ_w
    /// coef[i][w]·x[i][w]` through an epigraph variable): variables `v = [t, x (column-major:
    /// x[i][w] at 1 + w·m + i)]`, `c = e_0` (t is minus the max-min value). Rows, in order: m
    /// rows `−t − Σ_w coef[i][w]·x[i][w] ≤ 0`, then the common constraints ([`common_rows`]).
    /// cvxpy leaves out the entries of zero coefficients.
    pub(crate) fn max_min(coef: &[Vec<f64>], scale_factors: &[f64], counts: &[f64]) -> ConeProgram {
        let m = coef.len();
        let n = counts.len();
        let mut cols = ColBuilder::new(1 + m * n);
        for i in 0..m {
            cols.push(0, i, -1.0);
        }
        for w in 0..n {
            for i in 0..m {
                if coef[i][w] != 0.0 {
                    cols.push(1 + w * m + i, i, -coef[i][w]);
                }
            }
        }
        let h = common_rows(&mut cols, m, 1, m, scale_factors, counts);
        let mut c = vec![0.0; 1 + m * n];
        c[0] = 1.0;
        cols.finish_lp(c, h)
    }

    /// cvxpy 1.9.3's ECOS data for `max_sum_throughput_perf`'s program (GAVEL-GENERATED §G8.1:
    /// maximise `Σ_i Σ_w T[i][w]·x[i][w]`): variables `x` column-major (`x[i][w]` at `w·m + i`),
    /// `c = −T` (column-major), the common constraints ([`common_rows`]) alone.
    pub(crate) fn max_sum(
        throughputs: &[&[f64]],
        scale_factors: &[f64],
        counts: &[f64],
    ) -> ConeProgram {
        let m = throughputs.len();
        let n = counts.len();
        let mut cols = ColBuilder::new(m * n);
        let h = common_rows(&mut cols, m, 0, 0, scale_factors, counts);
        let mut c = vec![0.0; m * n];
        for w in 0..n {
            for i in 0..m {
                c[w * m + i] = -throughputs[i][w];
            }
        }
        cols.finish_lp(c, h)
    }

    /// cvxpy 1.9.3's ECOS data for `min_total_duration`'s feasibility program at horizon `th`
    /// (GAVEL-GENERATED §G8.2; `prob.get_problem_data(cp.ECOS)` on Gavel's model): an LP with
    /// no equality rows. Variables `x` column-major (`x[i][w]` at `w·m + i`), `c = 0` (the
    /// constant objective). Rows, in order: m·n rows `−x ≤ 0` (column-major); n capacity rows
    /// `Σ_i s_i·x[i][w] ≤ c_w`; m job rows `Σ_w x[i][w] ≤ 1`; m rows `−Σ_w T[i][w]·x[i][w] ≤
    /// −(rem_i / th)`. cvxpy leaves out the entries of zero throughputs.
    pub(crate) fn min_total_duration(
        throughputs: &[&[f64]],
        scale_factors: &[f64],
        remaining: &[f64],
        counts: &[f64],
        th: f64,
    ) -> ConeProgram {
        let m = throughputs.len();
        let n = counts.len();
        let mut cols = ColBuilder::new(m * n);
        let mut h = common_rows(&mut cols, m, 0, 0, scale_factors, counts);
        let steps = h.len();
        for w in 0..n {
            for i in 0..m {
                let t = throughputs[i][w];
                if t != 0.0 {
                    cols.push(w * m + i, steps + i, -t);
                }
            }
        }
        h.extend(remaining.iter().map(|r| -(r / th)));
        cols.finish_lp(vec![0.0; m * n], h)
    }

    /// `y = G x` (ECOS's column loop).
    fn gx(&self, x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for (j, &xj) in x[..self.n].iter().enumerate() {
            let (a, e) = (self.colptr[j], self.colptr[j + 1]);
            for (&r, &v) in self.rowidx[a..e].iter().zip(&self.val[a..e]) {
                y[r] += v * xj;
            }
        }
    }

    /// `y −= Gᵀ z` (ECOS's `sparseMtVm`).
    fn sub_gtz(&self, z: &[f64], y: &mut [f64]) {
        for (j, yj) in y[..self.n].iter_mut().enumerate() {
            let (a, e) = (self.colptr[j], self.colptr[j + 1]);
            let mut acc = *yj;
            for (&r, &v) in self.rowidx[a..e].iter().zip(&self.val[a..e]) {
                acc -= v * z[r];
            }
            *yj = acc;
        }
    }
}

/// A [`ConeProgram`]'s `G` built column by column (entries pushed in any order).
struct ColBuilder {
    cols: Vec<Vec<(usize, f64)>>,
    rows: usize,
}

impl ColBuilder {
    fn new(n: usize) -> ColBuilder {
        ColBuilder {
            cols: vec![Vec::new(); n],
            rows: 0,
        }
    }

    fn push(&mut self, col: usize, row: usize, v: f64) {
        self.cols[col].push((row, v));
        self.rows = self.rows.max(row + 1);
    }

    /// The LP `min cᵀv s.t. h − Gv ≥ 0` (every row in the orthant).
    fn finish_lp(self, c: Vec<f64>, h: Vec<f64>) -> ConeProgram {
        let l = h.len();
        self.finish(c, h, l, Vec::new())
    }

    /// The program `min cᵀv s.t. h − Gv ∈ K`, `K` the orthant of dimension `l` followed by
    /// second-order cones of sizes `soc` (each column's entries in row order, those of a row
    /// in the order pushed).
    fn finish(mut self, c: Vec<f64>, h: Vec<f64>, l: usize, soc: Vec<usize>) -> ConeProgram {
        debug_assert!(self.rows <= h.len() && l + soc.iter().sum::<usize>() == h.len());
        let mut colptr = vec![0];
        let mut rowidx = Vec::new();
        let mut val = Vec::new();
        for col in &mut self.cols {
            col.sort_by_key(|&(r, _)| r);
            for &(r, v) in col.iter() {
                rowidx.push(r);
                val.push(v);
            }
            colptr.push(rowidx.len());
        }
        ConeProgram {
            n: c.len(),
            m: h.len(),
            c,
            colptr,
            rowidx,
            val,
            h,
            l,
            soc,
        }
    }
}

/// Gavel's common constraints (GAVEL-SEMANTICS §6) as cvxpy 1.9.3 lays them out for ECOS,
/// from row `first` on, `x[i][w]` at column `x0 + w·m + i`: m·n rows `−x ≤ 0` (column-major),
/// n capacity rows `Σ_i s_i·x[i][w] ≤ c_w`, m job rows `Σ_w x[i][w] ≤ 1`. Returns `h` up to
/// their end (zeros before `first`).
fn common_rows(
    cols: &mut ColBuilder,
    m: usize,
    x0: usize,
    first: usize,
    scale_factors: &[f64],
    counts: &[f64],
) -> Vec<f64> {
    let n = counts.len();
    let cap = first + m * n;
    let jobrow = cap + n;
    for w in 0..n {
        for i in 0..m {
            let col = x0 + w * m + i;
            cols.push(col, first + w * m + i, -1.0);
            cols.push(col, cap + w, scale_factors[i]);
            cols.push(col, jobrow + i, 1.0);
        }
    }
    let mut h = vec![0.0; jobrow + m];
    h[cap..jobrow].copy_from_slice(counts);
    h[jobrow..].iter_mut().for_each(|v| *v = 1.0);
    h
}

/// How the solve ended (ECOS's exit flags that matter to cvxpy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// `ECOS_OPTIMAL`.
    Optimal,
    /// `ECOS_OPTIMAL + ECOS_INACC_OFFSET` (cvxpy's `optimal_inaccurate`: a value is returned).
    OptimalInaccurate,
    /// Infeasible, unbounded (also inaccurate ones), out of iterations, numerics: cvxpy
    /// returns no value for these here (Gavel then falls back to the isolated shares).
    Failed,
}

/// The result: status, iterations and `x` (unscaled, divided by τ).
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    pub(crate) status: Status,
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) iterations: usize,
    pub(crate) x: Vec<f64>,
}

/// Nesterov–Todd scaling of one SOC block (ECOS `socone`, CONEMODE 0).
#[derive(Default)]
struct Soc {
    eta: f64,
    eta_square: f64,
    a: f64,
    q: Vec<f64>,
    d1: f64,
    u0: f64,
    u1: f64,
    v1: f64,
}

impl Clone for Soc {
    fn clone(&self) -> Self {
        let mut c = Soc::default();
        c.clone_from(self);
        c
    }

    /// The same values, into `q`'s buffer ([`Kkt::factor`] copies the scalings each
    /// iteration).
    fn clone_from(&mut self, o: &Self) {
        (self.eta, self.eta_square, self.a) = (o.eta, o.eta_square, o.a);
        (self.d1, self.u0, self.u1, self.v1) = (o.d1, o.u0, o.u1, o.v1);
        self.q.clone_from(&o.q);
    }
}

struct Cones {
    l: usize,
    soc: Vec<usize>,
    /// LP scaling `s/z` and its root.
    v: Vec<f64>,
    w: Vec<f64>,
    socs: Vec<Soc>,
}

impl Cones {
    /// ECOS `bring2cone`.
    fn bring2cone(&self, r: &[f64], s: &mut [f64]) {
        let mut alpha = -GAMMA;
        let mut i = 0;
        while i < self.l {
            if r[i] <= 0.0 && -r[i] > alpha {
                alpha = -r[i];
            }
            i += 1;
        }
        for &p in &self.soc {
            let mut cres = r[i];
            i += 1;
            let mut r1square = 0.0;
            for _ in 1..p {
                r1square += r[i] * r[i];
                i += 1;
            }
            cres -= r1square.sqrt();
            if cres <= 0.0 && -cres > alpha {
                alpha = -cres;
            }
        }
        alpha += 1.0;
        for i in 0..self.l {
            s[i] = r[i] + alpha;
        }
        let mut i = self.l;
        for &p in &self.soc {
            s[i] = r[i] + alpha;
            i += 1;
            for _ in 1..p {
                s[i] = r[i];
                i += 1;
            }
        }
    }

    /// ECOS `updateScalings`; false when `s` or `z` left the cone.
    fn update(&mut self, s: &[f64], z: &[f64], lambda: &mut [f64]) -> bool {
        for i in 0..self.l {
            self.v[i] = safediv(s[i], z[i]);
            self.w[i] = self.v[i].sqrt();
        }
        let mut k = self.l;
        for (ci, &p) in self.soc.iter().enumerate() {
            let sk = &s[k..k + p];
            let zk = &z[k..k + p];
            let res = |u: &[f64]| {
                let mut r = u[0] * u[0];
                for i in 1..p {
                    r -= u[i] * u[i];
                }
                r
            };
            let sres = res(sk);
            let zres = res(zk);
            if sres <= 0.0 || zres <= 0.0 {
                return false;
            }
            let snorm = sres.sqrt();
            let znorm = zres.sqrt();
            let skbar: Vec<f64> = sk.iter().map(|&x| safediv(x, snorm)).collect();
            let zkbar: Vec<f64> = zk.iter().map(|&x| safediv(x, znorm)).collect();
            let c = &mut self.socs[ci];
            c.eta_square = safediv(snorm, znorm);
            c.eta = c.eta_square.sqrt();
            let mut gamma = 1.0;
            for i in 0..p {
                gamma += skbar[i] * zkbar[i];
            }
            gamma = (0.5 * gamma).sqrt();
            let one_over_2gamma = safediv(0.5, gamma);
            let a = one_over_2gamma * (skbar[0] + zkbar[0]);
            let mut w = 0.0;
            c.q.resize(p - 1, 0.0);
            for i in 1..p {
                c.q[i - 1] = one_over_2gamma * (skbar[i] - zkbar[i]);
                w += c.q[i - 1] * c.q[i - 1];
            }
            c.a = a;
            let temp = 1.0 + a;
            let cc = 1.0 + a + safediv(w, temp);
            let divisor = temp * temp;
            let d = 1.0 + safediv(2.0, temp) + safediv(w, divisor);
            let c_square = cc * cc;
            let divisor = 1.0 + w * d;
            let mut d1 = 0.5 * (a * a + w * (1.0 - safediv(c_square, divisor)));
            if d1 < 0.0 {
                d1 = 0.0;
            }
            let u0_square = a * a + w - d1;
            let u0 = u0_square.sqrt();
            let c2byu02 = safediv(cc * cc, u0_square);
            let c2byu02_d = c2byu02 - d;
            if c2byu02_d <= 0.0 {
                return false;
            }
            c.v1 = c2byu02_d.sqrt();
            c.u1 = c2byu02.sqrt();
            c.d1 = d1;
            c.u0 = u0;
            k += p;
        }
        self.scale(z, lambda);
        true
    }

    /// ECOS `scale`: `lambda = W z`.
    fn scale(&self, z: &[f64], lambda: &mut [f64]) {
        for i in 0..self.l {
            lambda[i] = self.w[i] * z[i];
        }
        let mut cs = self.l;
        for (ci, &p) in self.soc.iter().enumerate() {
            let c = &self.socs[ci];
            let mut zeta = 0.0;
            for i in 1..p {
                zeta += c.q[i - 1] * z[cs + i];
            }
            let factor = z[cs] + safediv(zeta, 1.0 + c.a);
            lambda[cs] = c.eta * (c.a * z[cs] + zeta);
            for i in 1..p {
                lambda[cs + i] = c.eta * (z[cs + i] + factor * c.q[i - 1]);
            }
            cs += p;
        }
    }

    /// ECOS `conicProduct` (the return value, unused by the solver, is dropped).
    fn product(&self, u: &[f64], v: &[f64], w: &mut [f64]) {
        for i in 0..self.l {
            w[i] = u[i] * v[i];
        }
        let mut cs = self.l;
        for &p in &self.soc {
            let u0 = u[cs];
            let v0 = v[cs];
            w[cs] = dot(&u[cs..cs + p], &v[cs..cs + p]);
            for j in 1..p {
                w[cs + j] = u0 * v[cs + j] + v0 * u[cs + j];
            }
            cs += p;
        }
    }

    /// ECOS `conicDivision`: `v = u \ w`.
    fn division(&self, u: &[f64], w: &[f64], v: &mut [f64]) {
        for i in 0..self.l {
            v[i] = safediv(w[i], u[i]);
        }
        let mut cs = self.l;
        for &p in &self.soc {
            let u0 = u[cs];
            let w0 = w[cs];
            let mut rho = u0 * u0;
            let mut zeta = 0.0;
            for j in 1..p {
                let k = cs + j;
                rho -= u[k] * u[k];
                zeta += u[k] * w[k];
            }
            let temp = safediv(zeta, u0) - w0;
            let factor = safediv(temp, rho);
            let temp = u0 * w0 - zeta;
            v[cs] = safediv(temp, rho);
            for j in 1..p {
                let k = cs + j;
                v[k] = factor * u[k] + safediv(w[k], u0);
            }
            cs += p;
        }
    }
}

/// ECOS's line search (`lineSearch`, Vandenberghe §8), τ and κ included; clamped to
/// [STEPMIN, STEPMAX].
#[allow(clippy::too_many_arguments)]
fn line_search(
    cones: &Cones,
    lambda: &[f64],
    ds: &[f64],
    dz: &[f64],
    tau: f64,
    dtau: f64,
    kap: f64,
    dkap: f64,
) -> f64 {
    let minus_tau_by_dtau = -tau / dtau;
    let minus_kap_by_dkap = -kap / dkap;
    let mut alpha;
    if cones.l > 0 {
        let mut rhomin = ds[0] / lambda[0];
        let mut sigmamin = dz[0] / lambda[0];
        for i in 1..cones.l {
            let r = ds[i] / lambda[i];
            if r < rhomin {
                rhomin = r;
            }
            let s = dz[i] / lambda[i];
            if s < sigmamin {
                sigmamin = s;
            }
        }
        if -sigmamin > -rhomin {
            alpha = if sigmamin < 0.0 {
                1.0 / (-sigmamin)
            } else {
                1.0 / EPS
            };
        } else {
            alpha = if rhomin < 0.0 {
                1.0 / (-rhomin)
            } else {
                1.0 / EPS
            };
        }
    } else {
        alpha = 10.0;
    }
    if minus_tau_by_dtau > 0.0 && minus_tau_by_dtau < alpha {
        alpha = minus_tau_by_dtau;
    }
    if minus_kap_by_dkap > 0.0 && minus_kap_by_dkap < alpha {
        alpha = minus_kap_by_dkap;
    }
    let mut cs = cones.l;
    let mut lkbar = [0.0; 16];
    let mut rho = [0.0; 16];
    for &p in &cones.soc {
        let lk = &lambda[cs..cs + p];
        let dsk = &ds[cs..cs + p];
        let dzk = &dz[cs..cs + p];
        let mut lknorm2 = lk[0] * lk[0];
        let mut tail = 0.0;
        for j in 1..p {
            tail += lk[j] * lk[j];
        }
        lknorm2 -= tail;
        if lknorm2 <= 0.0 {
            // ECOS skips such a cone without advancing its offset; so does this.
            continue;
        }
        let lknorm = lknorm2.sqrt();
        for j in 0..p {
            lkbar[j] = lk[j] / lknorm;
        }
        let lknorminv = 1.0 / lknorm;
        let mut step_for = |d: &[f64]| {
            let mut prod = lkbar[0] * d[0];
            for j in 1..p {
                prod -= lkbar[j] * d[j];
            }
            rho[0] = lknorminv * prod;
            let factor = (prod + d[0]) / (lkbar[0] + 1.0);
            for j in 1..p {
                rho[j] = lknorminv * (d[j] - factor * lkbar[j]);
            }
            norm2(&rho[1..p]) - rho[0]
        };
        let rhonorm = step_for(dsk);
        let sigmanorm = step_for(dzk);
        let mut conic_step = 0.0;
        if rhonorm > conic_step {
            conic_step = rhonorm;
        }
        if sigmanorm > conic_step {
            conic_step = sigmanorm;
        }
        if conic_step != 0.0 {
            let temp = 1.0 / conic_step;
            if temp < alpha {
                alpha = temp;
            }
        }
        cs += p;
    }
    alpha.clamp(STEPMIN, STEPMAX)
}

/// ECOS's KKT matrix (CONEMODE 0: every SOC block expanded by the two rows `v`, `u`), in
/// ECOS's unpermuted order `[x; z_LP; per SOC: its p rows, v, u]`, factored by a sparse LDLᵀ
/// in a minimum-degree order with ECOS's static and dynamic regularisation, and solved with
/// ECOS's iterative refinement (`kkt_solve`).
#[derive(Clone)]
struct Kkt {
    n: usize,
    m: usize,
    l: usize,
    soc: Vec<usize>,
    /// Size of the expanded system.
    nk: usize,
    /// `pinv[o]`: the position of original index `o` in the elimination order.
    pinv: Vec<usize>,
    /// The position in the elimination order of each row of `z` as the program has it (the
    /// LP rows, then each SOC's `p` rows; the expansion's `v` and `u` rows left out): what
    /// carries a right-hand side in and a solution's `z` out.
    zpinv: Vec<usize>,
    /// Upper triangle of the permuted matrix, compressed columns; `slot[e]` is the position of
    /// original entry `e` of `entries`.
    colptr: Vec<usize>,
    rowidx: Vec<usize>,
    val: Vec<f64>,
    /// Original entries `(row, col)` with row ≤ col in original indices, and their slots.
    slot: Vec<usize>,
    /// Index of each original entry kind (see [`Kkt::symbolic`]).
    x_diag: Vec<usize>,
    lp_diag: Vec<usize>,
    soc_entries: Vec<Vec<usize>>,
    sign: Vec<f64>,
    /// Elimination tree and the factor.
    parent: Vec<usize>,
    lnz: Vec<usize>,
    lp: Vec<usize>,
    li: Vec<usize>,
    lx: Vec<f64>,
    d: Vec<f64>,
    /// Set by `factor`: the initial system (W = I), refined as ECOS's `isinit`.
    init: bool,
    /// The current scalings (copied at `factor`, for the refinement's residual).
    lp_v: Vec<f64>,
    socs: Vec<Soc>,
    /// Per column of the factor, the rows its up-looking step visits, in order (`pattern`
    /// of [`Kkt::numeric`]: a function of the sparsity alone, found at the first
    /// factorisation and kept): `pat[pat_ptr[k]..pat_ptr[k + 1]]`.
    pat_ptr: Vec<usize>,
    pat: Vec<usize>,
    /// Reused buffers of [`Kkt::numeric`] (`y`), [`Kkt::factor`] (a cone's values) and
    /// [`Kkt::solve`] (its seven vectors).
    y: Vec<f64>,
    vals: Vec<f64>,
    bufs: [Vec<f64>; 7],
}

/// The symbolic KKT systems of the programs solved so far, by sparsity (`n`, `m`, `l`, the
/// SOC sizes and `G`'s pattern), each with the reach pattern its first factorisation finds: a
/// run's finish-time programs repeat their sparsity (the same numbers of jobs on the same
/// types), and the minimum-degree order and the symbolic factorisation are a function of it
/// alone, so a system taken from here has the order and factor structure [`Kkt::symbolic`]
/// builds, bit for bit. Its values are the last solve's until [`KktCache::kkt`] and
/// [`Kkt::factor`] overwrite them (every one the next solve reads).
#[derive(Clone, Default)]
pub(crate) struct KktCache {
    kept: Vec<(Sparsity, Kkt)>,
}

/// A program's sparsity: `n`, `m`, `l`, the SOC sizes, `G`'s column pointers and row indices.
type Sparsity = (usize, usize, usize, Vec<usize>, Vec<usize>, Vec<usize>);

/// Most systems [`KktCache`] keeps (the oldest goes first).
const KKT_CACHE_SIZE: usize = 64;

impl std::fmt::Debug for KktCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KktCache({} systems)", self.kept.len())
    }
}

impl KktCache {
    /// The KKT system of `g` with `g`'s values (the others are set by [`Kkt::factor`]), from a
    /// kept symbolic system of the same sparsity where there is one. The system is the kept one
    /// itself: a factorisation overwrites every value, factor entry and scaling it reads, so what
    /// a solve leaves behind never reaches the next.
    fn kkt(&mut self, g: &ConeProgram) -> &mut Kkt {
        let same = |k: &Sparsity| {
            k.0 == g.n
                && k.1 == g.m
                && k.2 == g.l
                && k.3 == g.soc
                && k.4 == g.colptr
                && k.5 == g.rowidx
        };
        let i = match self.kept.iter().position(|(k, _)| same(k)) {
            Some(i) => i,
            None => {
                let mut kkt = Kkt::symbolic(g);
                kkt.symbolic_pattern();
                if self.kept.len() >= KKT_CACHE_SIZE {
                    self.kept.remove(0);
                }
                let key = (
                    g.n,
                    g.m,
                    g.l,
                    g.soc.clone(),
                    g.colptr.clone(),
                    g.rowidx.clone(),
                );
                self.kept.push((key, kkt));
                self.kept.len() - 1
            }
        };
        let kkt = &mut self.kept[i].1;
        kkt.set_values(g);
        kkt
    }
}

const NONE: usize = usize::MAX;

impl Kkt {
    /// Puts `G`'s values of `g` (a program of this system's sparsity) in place.
    fn set_values(&mut self, g: &ConeProgram) {
        for (e, v) in g.val.iter().enumerate() {
            self.val[self.slot[self.n + e]] = *v;
        }
    }

    /// The KKT system of `g`'s sparsity, every value 0: the elimination order, the permuted
    /// pattern, the elimination tree and the factor's column counts (a function of the
    /// sparsity alone).
    fn symbolic(g: &ConeProgram) -> Kkt {
        let (n, m, l) = (g.n, g.m, g.l);
        let nsoc = g.soc.len();
        let nk = n + m + 2 * nsoc;
        // Original index of z-row r (stretched).
        let mut zpos = vec![0; m];
        let mut k = n;
        for r in 0..l {
            zpos[r] = k;
            k += 1;
        }
        let mut r = l;
        for &p in &g.soc {
            for _ in 0..p {
                zpos[r] = k;
                k += 1;
                r += 1;
            }
            k += 2;
        }
        let mut entries: Vec<(usize, usize)> = Vec::new();
        let mut sign = vec![0.0; nk];
        let mut x_diag = Vec::new();
        for j in 0..n {
            x_diag.push(entries.len());
            entries.push((j, j));
            sign[j] = 1.0;
        }
        let g_first = entries.len();
        for j in 0..n {
            for e in g.colptr[j]..g.colptr[j + 1] {
                entries.push((j, zpos[g.rowidx[e]]));
            }
        }
        debug_assert_eq!(entries.len() - g_first, g.val.len());
        let mut lp_diag = Vec::new();
        for r in 0..l {
            lp_diag.push(entries.len());
            entries.push((zpos[r], zpos[r]));
            sign[zpos[r]] = -1.0;
        }
        // Per SOC: p diagonals, then v's column (p−1 entries and its diagonal), then u's
        // column (p entries and its diagonal), as ECOS's kkt_update writes them.
        let mut soc_entries = Vec::new();
        let mut r = l;
        for &p in &g.soc {
            let base = zpos[r];
            let (v, u) = (base + p, base + p + 1);
            let mut idx = Vec::new();
            for i in 0..p {
                idx.push(entries.len());
                entries.push((base + i, base + i));
                sign[base + i] = -1.0;
            }
            for i in 1..p {
                idx.push(entries.len());
                entries.push((base + i, v));
            }
            idx.push(entries.len());
            entries.push((v, v));
            sign[v] = -1.0;
            for i in 0..p {
                idx.push(entries.len());
                entries.push((base + i, u));
            }
            idx.push(entries.len());
            entries.push((u, u));
            sign[u] = 1.0;
            soc_entries.push(idx);
            r += p;
        }
        let perm = min_degree(nk, &entries);
        let mut pinv = vec![0; nk];
        for (k, &o) in perm.iter().enumerate() {
            pinv[o] = k;
        }
        let mut zpinv = pinv[n..n + l].to_vec();
        let mut k = n + l;
        for &p in &g.soc {
            zpinv.extend_from_slice(&pinv[k..k + p]);
            k += p + 2;
        }
        debug_assert_eq!(zpinv.len(), m);
        // Upper triangle of P K Pᵀ.
        let mut cols: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nk];
        for (e, &(a, b)) in entries.iter().enumerate() {
            let (pa, pb) = (pinv[a], pinv[b]);
            let (r, c) = if pa <= pb { (pa, pb) } else { (pb, pa) };
            cols[c].push((r, e));
        }
        let mut colptr = vec![0];
        let mut rowidx = Vec::new();
        let mut slot = vec![0; entries.len()];
        for col in &mut cols {
            col.sort_unstable();
            for &(r, e) in col.iter() {
                slot[e] = rowidx.len();
                rowidx.push(r);
            }
            colptr.push(rowidx.len());
        }
        let psign: Vec<f64> = (0..nk).map(|k| sign[perm[k]]).collect();
        // G's values are set by `set_values`.
        debug_assert_eq!(g_first, n);
        let val = vec![0.0; rowidx.len()];
        // Symbolic factorisation (elimination tree, column counts).
        let mut parent = vec![NONE; nk];
        let mut lnz = vec![0; nk];
        let mut flag = vec![NONE; nk];
        for k in 0..nk {
            flag[k] = k;
            for e in colptr[k]..colptr[k + 1] {
                let mut i = rowidx[e];
                if i < k {
                    while flag[i] != k {
                        if parent[i] == NONE {
                            parent[i] = k;
                        }
                        lnz[i] += 1;
                        flag[i] = k;
                        i = parent[i];
                    }
                }
            }
        }
        let mut lp = vec![0; nk + 1];
        for k in 0..nk {
            lp[k + 1] = lp[k] + lnz[k];
        }
        let total = lp[nk];
        Kkt {
            n,
            m,
            l,
            soc: g.soc.clone(),
            nk,
            pinv,
            zpinv,
            colptr,
            rowidx,
            val,
            slot,
            x_diag,
            lp_diag,
            soc_entries,
            sign: psign,
            parent,
            lnz: vec![0; nk],
            lp,
            li: vec![0; total],
            lx: vec![0.0; total],
            d: vec![0.0; nk],
            init: true,
            lp_v: vec![0.0; l],
            socs: Vec::new(),
            pat_ptr: Vec::new(),
            pat: Vec::new(),
            y: Vec::new(),
            vals: Vec::new(),
            bufs: Default::default(),
        }
    }

    fn set(&mut self, entry: usize, v: f64) {
        self.val[self.slot[entry]] = v;
    }

    /// ECOS `kkt_init` (`init`) or `kkt_update`, then `kkt_factor`; false if a pivot is not
    /// finite.
    fn factor(&mut self, cones: &Cones, init: bool) -> bool {
        self.init = init;
        for j in 0..self.n {
            self.set(self.x_diag[j], DELTASTAT);
        }
        for i in 0..self.l {
            let v = if init { -1.0 } else { -cones.v[i] - DELTASTAT };
            self.set(self.lp_diag[i], v);
        }
        self.lp_v.clone_from(&cones.v);
        self.socs.clone_from(&cones.socs);
        let mut vals = std::mem::take(&mut self.vals);
        for ci in 0..self.soc.len() {
            let p = self.soc[ci];
            vals.clear();
            if init {
                vals.extend(std::iter::repeat(-1.0).take(p));
                vals.extend(std::iter::repeat(0.0).take(p - 1));
                vals.push(-1.0);
                vals.extend(std::iter::repeat(0.0).take(p));
                vals.push(1.0);
            } else {
                let c = &cones.socs[ci];
                let e2 = c.eta_square;
                vals.push(-e2 * c.d1 - DELTASTAT);
                for _ in 1..p {
                    vals.push(-e2 - DELTASTAT);
                }
                for k in 0..p - 1 {
                    vals.push(-e2 * c.v1 * c.q[k]);
                }
                vals.push(-e2);
                vals.push(-e2 * c.u0);
                for k in 0..p - 1 {
                    vals.push(-e2 * c.u1 * c.q[k]);
                }
                vals.push(e2 + DELTASTAT);
            }
            for (&e, &v) in self.soc_entries[ci].iter().zip(&vals) {
                self.val[self.slot[e]] = v;
            }
        }
        self.vals = vals;
        self.numeric()
    }

    /// Up-looking sparse LDLᵀ with ECOS's dynamic regularisation (`LDL_numeric2`): a pivot
    /// whose sign disagrees with the expected one or whose size is at most EPS becomes
    /// `sign·DELTA`.
    fn numeric(&mut self) -> bool {
        let nk = self.nk;
        if self.pat_ptr.is_empty() {
            self.symbolic_pattern();
        }
        let mut yv = std::mem::take(&mut self.y);
        yv.clear();
        yv.resize(nk, 0.0);
        let y = &mut yv[..nk];
        // The arrays as local slices (the factor's writes cannot move the others).
        let (colptr, rowidx, val) = (&self.colptr[..=nk], &self.rowidx[..], &self.val[..]);
        let (pat_ptr, pat, lp, sign) = (&self.pat_ptr[..=nk], &self.pat[..], &self.lp, &self.sign);
        let (lnz, li, lx, d) = (
            &mut self.lnz[..nk],
            &mut self.li[..],
            &mut self.lx[..],
            &mut self.d[..nk],
        );
        lnz.fill(0);
        let mut ok = true;
        for k in 0..nk {
            y[k] = 0.0;
            let (a, e) = (colptr[k], colptr[k + 1]);
            for (&r, &v) in rowidx[a..e].iter().zip(&val[a..e]) {
                y[r] += v;
            }
            let mut dk = y[k];
            y[k] = 0.0;
            for &i in &pat[pat_ptr[k]..pat_ptr[k + 1]] {
                let yi = y[i];
                y[i] = 0.0;
                let (a, p2) = (lp[i], lp[i] + lnz[i]);
                for (&r, &l) in li[a..p2].iter().zip(&lx[a..p2]) {
                    y[r] -= l * yi;
                }
                let l_ki = yi / d[i];
                dk -= l_ki * yi;
                li[p2] = k;
                lx[p2] = l_ki;
                lnz[i] += 1;
            }
            if dk * sign[k] <= EPS {
                dk = sign[k] * DELTA;
            }
            if !dk.is_finite() {
                ok = false;
                break;
            }
            d[k] = dk;
        }
        self.y = yv;
        ok
    }

    /// The rows each column's up-looking step visits, in the order it visits them (the
    /// elimination-tree reach of the column's entries: `pat`, `pat_ptr`).
    fn symbolic_pattern(&mut self) {
        let nk = self.nk;
        let mut pattern = vec![0; nk];
        let mut flag = vec![NONE; nk];
        self.pat_ptr.clear();
        self.pat.clear();
        self.pat_ptr.push(0);
        for k in 0..nk {
            let mut top = nk;
            flag[k] = k;
            for e in self.colptr[k]..self.colptr[k + 1] {
                let mut i = self.rowidx[e];
                let mut len = 0;
                while flag[i] != k {
                    pattern[len] = i;
                    len += 1;
                    flag[i] = k;
                    i = self.parent[i];
                }
                while len > 0 {
                    top -= 1;
                    len -= 1;
                    pattern[top] = pattern[len];
                }
            }
            self.pat.extend_from_slice(&pattern[top..nk]);
            self.pat_ptr.push(self.pat.len());
        }
    }

    /// `x = (L D Lᵀ)⁻¹ b` in permuted coordinates.
    fn ldl_solve(&self, b: &[f64], x: &mut [f64]) {
        let nk = self.nk;
        let x = &mut x[..nk];
        x.copy_from_slice(&b[..nk]);
        let (lp, lnz, d) = (&self.lp[..nk], &self.lnz[..nk], &self.d[..nk]);
        // Column j of L: rows `li[lp[j]..lp[j] + lnz[j]]`, all below j, values `lx` alike.
        let col = |j: usize| {
            let (a, e) = (lp[j], lp[j] + lnz[j]);
            self.li[a..e].iter().zip(&self.lx[a..e])
        };
        for j in 0..nk {
            let xj = x[j];
            for (&i, &l) in col(j) {
                x[i] -= l * xj;
            }
        }
        // The diagonal solve folded into the backward one: `x[j] / d[j]` is taken when row j
        // is reached (the rows below it are final by then), the same operations in the same
        // order as a pass of divisions first.
        for j in (0..nk).rev() {
            let mut s = x[j] / d[j];
            for (&i, &l) in col(j) {
                s -= l * x[i];
            }
            x[j] = s;
        }
    }

    /// The x and (unstretched) z parts of a permuted solution.
    fn unstretch(&self, px: &[f64], dx: &mut [f64], dz: &mut [f64]) {
        let n = self.n;
        for (d, &q) in dx[..n].iter_mut().zip(&self.pinv[..n]) {
            *d = px[q];
        }
        for (d, &q) in dz[..self.m].iter_mut().zip(&self.zpinv) {
            *d = px[q];
        }
    }

    /// Solves `K [dx; dz] = [rx; rz]` as ECOS's `kkt_solve` (module doc).
    #[allow(clippy::too_many_arguments)]
    fn solve(
        &mut self,
        g: &ConeProgram,
        _cones: &Cones,
        rx: &[f64],
        rz: &[f64],
        dx: &mut [f64],
        dz: &mut [f64],
    ) {
        let (n, m, nk) = (self.n, self.m, self.nk);
        let mt = nk - n;
        // The buffers at their lengths: `b` zeroed (its extra rows stay 0); every entry of
        // the others is written before it is read (`gx` zeroes its own).
        let mut bufs = std::mem::take(&mut self.bufs);
        for (i, (buf, len)) in bufs.iter_mut().zip([nk, nk, nk, nk, nk, m, mt]).enumerate() {
            if i == 0 {
                buf.clear();
            }
            buf.resize(len, 0.0);
        }
        let [b, px, dpx, e, pe, gdx, truez] = &mut bufs;
        let l = self.l;
        let (rx, rz) = (&rx[..n], &rz[..m]);
        // Pb: the right-hand side in permuted order (stretched z with zero extras). So
        // `b[pinv[i]]` is `rx[i]` for an x row and `rz[j]` for z row j: the residuals below
        // read them there.
        for (&r, &q) in rx.iter().zip(&self.pinv[..n]) {
            b[q] = r;
        }
        for (&r, &q) in rz.iter().zip(&self.zpinv) {
            b[q] = r;
        }
        let bnorm = 1.0 + b.iter().fold(0.0f64, |a, &v| a.max(v.abs()));
        let threshold = bnorm * 1e-14;
        self.ldl_solve(b, px);
        let mut prev = f64::NAN;
        let norm = |v: &[f64]| {
            v.iter()
                .fold(0.0f64, |a, &x| if x.abs() > a { x.abs() } else { a })
        };
        for kit in 0..=NITREF {
            self.unstretch(px, dx, dz);
            // ex = b_x − δ·dx − Gᵀ dz
            for ((ei, &r), &d) in e[..n].iter_mut().zip(rx).zip(&dx[..n]) {
                *ei = r - DELTASTAT * d;
            }
            g.sub_gtz(dz, &mut e[..n]);
            let nex = norm(&e[..n]);
            g.gx(dx, gdx);
            let ez = &mut e[n..];
            let terms = rz.iter().zip(&gdx[..m]).zip(&dz[..m]);
            for (ei, ((&r, &gd), &d)) in ez[..l].iter_mut().zip(terms.clone()) {
                *ei = r - gd + DELTASTAT * d;
            }
            let (mut kk, mut j) = (l, l);
            for &p in &self.soc {
                let cone = terms.clone().skip(j).take(p);
                for (i, (ei, ((&r, &gd), &d))) in ez[kk..kk + p].iter_mut().zip(cone).enumerate() {
                    *ei = if i < p - 1 {
                        r - gd + DELTASTAT * d
                    } else {
                        r - gd - DELTASTAT * d
                    };
                }
                ez[kk + p] = 0.0;
                ez[kk + p + 1] = 0.0;
                kk += p + 2;
                j += p;
            }
            for (t, &q) in truez.iter_mut().zip(&self.pinv[n..nk]) {
                *t = px[q];
            }
            if self.init {
                for (ei, &t) in ez.iter_mut().zip(truez.iter()) {
                    *ei += t;
                }
            } else {
                self.scale2add(truez, ez);
            }
            let nez = norm(ez);
            let nerr = nex.max(nez);
            if kit > 0 && nerr > prev {
                for (a, &d) in px.iter_mut().zip(dpx.iter()) {
                    *a -= d;
                }
                break;
            }
            if kit == NITREF || nerr < threshold || (kit > 0 && prev < 6.0 * nerr) {
                break;
            }
            prev = nerr;
            for (&q, &v) in self.pinv[..nk].iter().zip(e.iter()) {
                pe[q] = v;
            }
            self.ldl_solve(pe, dpx);
            for (a, &d) in px.iter_mut().zip(dpx.iter()) {
                *a += d;
            }
        }
        self.unstretch(px, dx, dz);
        self.bufs = bufs;
    }

    /// ECOS `scale2add`: `y += W² x` in the expanded form (x, y stretched).
    fn scale2add(&self, x: &[f64], y: &mut [f64]) {
        for i in 0..self.l {
            y[i] += self.lp_v[i] * x[i];
        }
        let mut cs = self.l;
        for (ci, &p) in self.soc.iter().enumerate() {
            let c = &self.socs[ci];
            let e2 = c.eta_square;
            let x1 = x[cs];
            let x3 = x[cs + p];
            let x4 = x[cs + p + 1];
            y[cs] += e2 * (c.d1 * x1 + c.u0 * x4);
            let v1x3_plus_u1x4 = c.v1 * x3 + c.u1 * x4;
            let mut qtx2 = 0.0;
            for i in 0..p - 1 {
                y[cs + 1 + i] += e2 * (x[cs + 1 + i] + v1x3_plus_u1x4 * c.q[i]);
                qtx2 += c.q[i] * x[cs + 1 + i];
            }
            y[cs + p] += e2 * (c.v1 * qtx2 + x3);
            y[cs + p + 1] += e2 * (c.u0 * x1 + c.u1 * qtx2 - x4);
            cs += p + 2;
        }
    }
}

/// A minimum-degree elimination order of the symmetric pattern `entries` (ties: lowest index).
/// ECOS uses AMD; any fill-reducing order gives the same solution up to rounding. The graph is
/// kept as one bit set of neighbours per vertex: eliminating a vertex joins its neighbours into
/// a clique (each row ORed with the neighbours' set) and removes it from their rows. The
/// vertices not yet eliminated are kept in one bit set per degree, so the next one (the lowest
/// index of the lowest non-empty degree) is found by a scan of a few words.
fn min_degree(nk: usize, entries: &[(usize, usize)]) -> Vec<usize> {
    let words = nk.div_ceil(64);
    let mut adj = vec![0u64; nk * words];
    let bit = |i: usize| (i / 64, 1u64 << (i % 64));
    for &(a, b) in entries {
        if a != b {
            let (wa, ma) = bit(a);
            let (wb, mb) = bit(b);
            adj[a * words + wb] |= mb;
            adj[b * words + wa] |= ma;
        }
    }
    let degree = |adj: &[u64], i: usize| -> usize {
        adj[i * words..(i + 1) * words]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum()
    };
    let mut deg: Vec<usize> = (0..nk).map(|i| degree(&adj, i)).collect();
    // `by_degree[d * words..]`: the vertices of degree d (at most nk − 1); `count[d]` of them.
    let mut by_degree = vec![0u64; nk * words];
    let mut count = vec![0usize; nk];
    for (i, &d) in deg.iter().enumerate() {
        let (w, m) = bit(i);
        by_degree[d * words + w] |= m;
        count[d] += 1;
    }
    let mut lowest = 0;
    let mut order = Vec::with_capacity(nk);
    let mut nbrs = Vec::new();
    let mut mask = vec![0u64; words];
    for _ in 0..nk {
        while count[lowest] == 0 {
            lowest += 1;
        }
        let set = &mut by_degree[lowest * words..(lowest + 1) * words];
        let (w, word) = set
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(w, &word)| (w, word))
            .expect("a degree counted non-empty has a vertex");
        let v = w * 64 + word.trailing_zeros() as usize;
        set[w] &= word - 1;
        count[lowest] -= 1;
        order.push(v);
        // v's neighbours, in increasing order.
        mask.copy_from_slice(&adj[v * words..(v + 1) * words]);
        nbrs.clear();
        for (wi, &w) in mask.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                nbrs.push(wi * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
        let (wv, mv) = bit(v);
        for &a in &nbrs {
            let (wa, ma) = bit(a);
            by_degree[deg[a] * words + wa] &= !ma;
            count[deg[a]] -= 1;
            let row = &mut adj[a * words..(a + 1) * words];
            row[wv] &= !mv;
            for (r, &m) in row.iter_mut().zip(&mask) {
                *r |= m;
            }
            row[wa] &= !ma;
            let d = degree(&adj, a);
            deg[a] = d;
            by_degree[d * words + wa] |= ma;
            count[d] += 1;
            lowest = lowest.min(d);
        }
        adj[v * words..(v + 1) * words].fill(0);
    }
    order
}

/// [`min_degree`] with a set of neighbours per vertex (the first implementation; the
/// reference its bit sets are checked against).
#[cfg(test)]
fn min_degree_sets(nk: usize, entries: &[(usize, usize)]) -> Vec<usize> {
    use std::collections::BTreeSet;
    let mut adj: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); nk];
    for &(a, b) in entries {
        if a != b {
            adj[a].insert(b);
            adj[b].insert(a);
        }
    }
    let mut done = vec![false; nk];
    let mut order = Vec::with_capacity(nk);
    let mut by_degree: BTreeSet<(usize, usize)> = (0..nk).map(|i| (adj[i].len(), i)).collect();
    while let Some(&(_, v)) = by_degree.iter().next() {
        by_degree.remove(&(adj[v].len(), v));
        done[v] = true;
        order.push(v);
        let nbrs: Vec<usize> = adj[v].iter().copied().collect();
        for &a in &nbrs {
            by_degree.remove(&(adj[a].len(), a));
            adj[a].remove(&v);
        }
        for (x, &a) in nbrs.iter().enumerate() {
            for &b in &nbrs[x + 1..] {
                adj[a].insert(b);
                adj[b].insert(a);
            }
        }
        for &a in &nbrs {
            by_degree.insert((adj[a].len(), a));
        }
        adj[v].clear();
    }
    debug_assert!(done.iter().all(|&d| d));
    order
}

/// ECOS's per-iteration statistics.
#[derive(Clone, Copy, Default, Debug)]
struct Info {
    pcost: f64,
    dcost: f64,
    pres: f64,
    dres: f64,
    pinfres: f64,
    dinfres: f64,
    gap: f64,
    relgap: f64,
    mu: f64,
    kapovert: f64,
    sigma: f64,
    step: f64,
    step_aff: f64,
}

#[derive(Clone)]
struct Iterate {
    x: Vec<f64>,
    z: Vec<f64>,
    s: Vec<f64>,
    kap: f64,
    tau: f64,
    cx: f64,
    hz: f64,
    info: Info,
}

/// Runs ECOS's algorithm on `prog`. `trace`: one line per iteration on stderr in ECOS's
/// verbose format (`BLOX_GAVEL_ECOS_TRACE`).
#[cfg(test)]
pub(crate) fn solve(prog: &ConeProgram) -> Solution {
    solve_with(prog, MAXIT)
}

/// [`solve`] with another iteration limit (ECOS's `max_iters`; to compare iterates with ECOS's
/// stopped at the same iteration).
#[cfg(test)]
pub(crate) fn solve_with(prog: &ConeProgram, maxit: usize) -> Solution {
    solve_in(prog, maxit, &mut KktCache::default())
}

/// Runs ECOS's algorithm on `prog` for at most `maxit` iterations, the KKT system's symbolic
/// part from `cache` where it holds one of the program's sparsity (the same iterates, bit for
/// bit, as a system built anew).
fn solve_in(prog: &ConeProgram, maxit: usize, cache: &mut KktCache) -> Solution {
    let trace = std::env::var_os("BLOX_GAVEL_ECOS_TRACE").is_some();
    let (n, m) = (prog.n, prog.m);
    // Equilibration (Ruiz).
    let mut g = prog.clone();
    let mut xequil = vec![1.0; n];
    let mut gequil = vec![1.0; m];
    let mut xtmp = vec![0.0; n];
    let mut gtmp = vec![0.0; m];
    for _ in 0..EQUIL_ITERS {
        xtmp.iter_mut().for_each(|v| *v = 0.0);
        gtmp.iter_mut().for_each(|v| *v = 0.0);
        for j in 0..n {
            for k in g.colptr[j]..g.colptr[j + 1] {
                xtmp[j] = g.val[k].abs().max(xtmp[j]);
                let r = g.rowidx[k];
                gtmp[r] = g.val[k].abs().max(gtmp[r]);
            }
        }
        let mut ind = g.l;
        for &p in &g.soc {
            let mut total = 0.0;
            for j in 0..p {
                total += gtmp[ind + j];
            }
            for j in 0..p {
                gtmp[ind + j] = total;
            }
            ind += p;
        }
        for v in xtmp.iter_mut().chain(gtmp.iter_mut()) {
            *v = if v.abs() < 1e-6 { 1.0 } else { v.sqrt() };
        }
        for j in 0..n {
            for k in g.colptr[j]..g.colptr[j + 1] {
                g.val[k] /= gtmp[g.rowidx[k]];
            }
        }
        for j in 0..n {
            for k in g.colptr[j]..g.colptr[j + 1] {
                g.val[k] /= xtmp[j];
            }
        }
        for j in 0..n {
            xequil[j] *= xtmp[j];
        }
        for i in 0..m {
            gequil[i] *= gtmp[i];
        }
    }
    for i in 0..m {
        g.h[i] /= gequil[i];
    }
    for j in 0..n {
        g.c[j] /= xequil[j];
    }
    let c = g.c.clone();
    let h = g.h.clone();
    let dim = (g.l + g.soc.len()) as f64;
    let mut cones = Cones {
        l: g.l,
        soc: g.soc.clone(),
        v: vec![0.0; g.l],
        w: vec![0.0; g.l],
        socs: vec![Soc::default(); g.soc.len()],
    };
    let failed = |iterations| Solution {
        status: Status::Failed,
        iterations,
        x: Vec::new(),
    };
    // init()
    let kkt = cache.kkt(&g);
    if !kkt.factor(&cones, true) {
        return failed(0);
    }
    let resx0 = norm2(&c).max(1.0);
    let resz0 = norm2(&h).max(1.0);
    let zeros_n = vec![0.0; n];
    let zeros_m = vec![0.0; m];
    let mut dx1 = vec![0.0; n];
    let mut dz1 = vec![0.0; m];
    let mut dx2 = vec![0.0; n];
    let mut dz2 = vec![0.0; m];
    kkt.solve(&g, &cones, &zeros_n, &h, &mut dx1, &mut dz1);
    let mut x = dx1.clone();
    let r: Vec<f64> = dz1.iter().map(|v| -v).collect();
    let mut s = vec![0.0; m];
    cones.bring2cone(&r, &mut s);
    let minus_c: Vec<f64> = c.iter().map(|v| -v).collect();
    kkt.solve(&g, &cones, &minus_c, &zeros_m, &mut dx2, &mut dz2);
    let mut z = vec![0.0; m];
    cones.bring2cone(&dz2, &mut z);
    let mut kap = 1.0;
    let mut tau = 1.0;
    let mut info = Info::default();
    let mut best: Option<Iterate> = None;
    // An iterate's buffers to reuse (one not kept as the best).
    let mut spare: Option<Iterate> = None;
    let mut pres_prev = f64::NAN;
    let mut rx = vec![0.0; n];
    let mut rz = vec![0.0; m];
    let mut lambda = vec![0.0; m];
    let mut w_dzaff = vec![0.0; m];
    let mut dsaff_by_w = vec![0.0; m];
    let mut ds1 = vec![0.0; m];
    let mut ds2 = vec![0.0; m];
    let mut dsaff = vec![0.0; m];
    let mut rhs_x = vec![0.0; n];
    let mut rhs_z = vec![0.0; m];
    let mut exit: Option<Status> = None;
    let mut iter = 0;
    let mut cx;
    let mut hz;
    while iter <= maxit {
        // computeResiduals
        rx.iter_mut().for_each(|v| *v = 0.0);
        g.sub_gtz(&z, &mut rx);
        let hresx = norm2(&rx);
        for i in 0..n {
            rx[i] -= tau * c[i];
        }
        g.gx(&x, &mut rz);
        for i in 0..m {
            rz[i] += s[i];
        }
        let hresz = norm2(&rz);
        for i in 0..m {
            rz[i] -= tau * h[i];
        }
        cx = dot(&c, &x);
        hz = dot(&h, &z);
        let rt = kap + cx + 0.0 + hz;
        let nx = norm2(&x);
        let ns = norm2(&s);
        let nz = norm2(&z);
        // updateStatistics
        info.gap = dot(&s, &z);
        info.mu = (info.gap + kap * tau) / (dim + 1.0);
        info.kapovert = kap / tau;
        info.pcost = cx / tau;
        info.dcost = -(hz + 0.0) / tau;
        info.relgap = if info.pcost < 0.0 {
            info.gap / (-info.pcost)
        } else if info.dcost > 0.0 {
            info.gap / info.dcost
        } else {
            f64::NAN
        };
        let nrz = norm2(&rz) / (resz0 + nx + ns).max(1.0);
        info.pres = 0.0f64.max(nrz) / tau;
        info.dres = norm2(&rx) / (resx0 + 0.0 + nz).max(1.0) / tau;
        info.pinfres = if (hz + 0.0) / nz.max(1.0) < -RELTOL {
            hresx / nz.max(1.0)
        } else {
            f64::NAN
        };
        info.dinfres = if cx / nx.max(1.0) < -RELTOL {
            (0.0 / nx.max(1.0)).max(hresz / (nx + ns).max(1.0))
        } else {
            f64::NAN
        };
        if trace {
            eprintln!(
                "{:2} {:+.15e} {:+.15e} {:+.3e} {:.3e} {:.3e} {:.3e} {:.3e} {:.6} {:.6e}",
                iter,
                info.pcost,
                info.dcost,
                info.gap,
                info.pres,
                info.dres,
                info.kapovert,
                info.mu,
                info.step,
                info.sigma
            );
        }
        let cur = |x: &Vec<f64>, z: &Vec<f64>, s: &Vec<f64>, info: Info| Iterate {
            x: x.clone(),
            z: z.clone(),
            s: s.clone(),
            kap,
            tau,
            cx,
            hz,
            info,
        };
        if iter > 0 && (info.pres > SAFEGUARD * pres_prev || info.gap < 0.0) {
            let b = best.clone().expect("saved at iteration 0");
            let st = check(&b, true);
            restore(&b, &mut x, &mut z, &mut s, &mut kap, &mut tau);
            exit = Some(st.unwrap_or(Status::Failed));
            break;
        }
        pres_prev = info.pres;
        // The current iterate, in the buffers of the last one that was not kept.
        let here = match spare.take() {
            Some(mut it) => {
                it.x.clone_from(&x);
                it.z.clone_from(&z);
                it.s.clone_from(&s);
                (it.kap, it.tau, it.cx, it.hz, it.info) = (kap, tau, cx, hz, info);
                it
            }
            None => cur(&x, &z, &s, info),
        };
        if let Some(st) = check(&here, false) {
            exit = Some(st);
            break;
        }
        if iter > 0 && info.step == STEPMIN * GAMMA {
            let b = best.clone().expect("saved at iteration 0");
            restore(&b, &mut x, &mut z, &mut s, &mut kap, &mut tau);
            exit = Some(check(&b, true).unwrap_or(Status::Failed));
            break;
        } else if iter == maxit || info.pcost.is_nan() {
            // (No best iterate yet only when stopped at iteration 0: the current one.)
            let pick = match best.clone() {
                Some(b) if !compare(&info, &b.info) => b,
                _ => here,
            };
            restore(&pick, &mut x, &mut z, &mut s, &mut kap, &mut tau);
            exit = Some(check(&pick, true).unwrap_or(Status::Failed));
            break;
        }
        if iter == 0 || compare(&info, &best.as_ref().expect("saved").info) {
            spare = best.replace(here);
        } else {
            spare = Some(here);
        }
        if !cones.update(&s, &z, &mut lambda) {
            let b = best.clone().expect("saved at iteration 0");
            match check(&b, true) {
                Some(st) => {
                    restore(&b, &mut x, &mut z, &mut s, &mut kap, &mut tau);
                    exit = Some(st);
                    break;
                }
                None => return failed(iter),
            }
        }
        if !kkt.factor(&cones, false) {
            return failed(iter);
        }
        // RHS1 = [−c; h]
        kkt.solve(&g, &cones, &minus_c, &h, &mut dx1, &mut dz1);
        // RHS_affine = [rx; s − rz]
        rhs_x.copy_from_slice(&rx);
        for i in 0..m {
            rhs_z[i] = s[i] - rz[i];
        }
        kkt.solve(&g, &cones, &rhs_x, &rhs_z, &mut dx2, &mut dz2);
        let dtau_denom = kap / tau - dot(&c, &dx1) - 0.0 - dot(&h, &dz1);
        let dtauaff = (rt - kap + dot(&c, &dx2) + 0.0 + dot(&h, &dz2)) / dtau_denom;
        for i in 0..m {
            dz2[i] += dtauaff * dz1[i];
        }
        cones.scale(&dz2, &mut w_dzaff);
        for i in 0..m {
            dsaff_by_w[i] = -w_dzaff[i] - lambda[i];
        }
        let dkapaff = -kap - kap / tau * dtauaff;
        info.step_aff = line_search(
            &cones,
            &lambda,
            &dsaff_by_w,
            &w_dzaff,
            tau,
            dtauaff,
            kap,
            dkapaff,
        );
        let one_minus = 1.0 - info.step_aff;
        info.sigma = (one_minus * one_minus * one_minus).clamp(SIGMAMIN, SIGMAMAX);
        let sigma = info.sigma;
        // RHS_combined
        let sigmamu = sigma * info.mu;
        let one_minus_sigma = 1.0 - sigma;
        cones.product(&lambda, &lambda, &mut ds1);
        cones.product(&dsaff_by_w, &w_dzaff, &mut ds2);
        for i in 0..cones.l {
            ds1[i] += ds2[i] - sigmamu;
        }
        let mut k = cones.l;
        for &p in &cones.soc {
            ds1[k] += ds2[k] - sigmamu;
            k += 1;
            for _ in 1..p {
                ds1[k] += ds2[k];
                k += 1;
            }
        }
        cones.division(&lambda, &ds1, &mut dsaff_by_w);
        cones.scale(&dsaff_by_w, &mut ds1);
        for i in 0..n {
            rhs_x[i] *= one_minus_sigma;
        }
        for i in 0..m {
            rhs_z[i] = -one_minus_sigma * rz[i] + ds1[i];
        }
        kkt.solve(&g, &cones, &rhs_x, &rhs_z, &mut dx2, &mut dz2);
        let bkap = kap * tau + dkapaff * dtauaff - sigma * info.mu;
        let dtau =
            ((1.0 - sigma) * rt - bkap / tau + dot(&c, &dx2) + 0.0 + dot(&h, &dz2)) / dtau_denom;
        for i in 0..n {
            dx2[i] += dtau * dx1[i];
        }
        for i in 0..m {
            dz2[i] += dtau * dz1[i];
        }
        cones.scale(&dz2, &mut w_dzaff);
        for i in 0..m {
            dsaff_by_w[i] = -(dsaff_by_w[i] + w_dzaff[i]);
        }
        let dkap = -(bkap + kap * dtau) / tau;
        info.step =
            line_search(&cones, &lambda, &dsaff_by_w, &w_dzaff, tau, dtau, kap, dkap) * GAMMA;
        cones.scale(&dsaff_by_w, &mut dsaff);
        for i in 0..n {
            x[i] += info.step * dx2[i];
        }
        for i in 0..m {
            z[i] += info.step * dz2[i];
        }
        for i in 0..m {
            s[i] += info.step * dsaff[i];
        }
        kap += info.step * dkap;
        tau += info.step * dtau;
        iter += 1;
    }
    let status = exit.unwrap_or(Status::Failed);
    for j in 0..n {
        x[j] /= xequil[j] * tau;
    }
    Solution {
        status,
        iterations: iter,
        x,
    }
}

fn restore(
    b: &Iterate,
    x: &mut Vec<f64>,
    z: &mut Vec<f64>,
    s: &mut Vec<f64>,
    kap: &mut f64,
    tau: &mut f64,
) {
    x.clone_from(&b.x);
    z.clone_from(&b.z);
    s.clone_from(&b.s);
    *kap = b.kap;
    *tau = b.tau;
}

/// ECOS `checkExitConditions` (`reduced`: the `_inacc` tolerances); `None`: not converged.
/// Only optimality yields a value; infeasibility certificates are [`Status::Failed`].
fn check(it: &Iterate, reduced: bool) -> Option<Status> {
    let (feastol, abstol, reltol) = if reduced {
        (FTOL_INACC, ATOL_INACC, RTOL_INACC)
    } else {
        (FEASTOL, ABSTOL, RELTOL)
    };
    let i = &it.info;
    if (-it.cx > 0.0 || -0.0 - it.hz >= -abstol)
        && (i.pres < feastol && i.dres < feastol)
        && (i.gap < abstol || i.relgap < reltol)
    {
        return Some(if reduced {
            Status::OptimalInaccurate
        } else {
            Status::Optimal
        });
    }
    let dinf = !i.dinfres.is_nan() && i.dinfres < feastol && it.tau < it.kap;
    let pinf = (!i.pinfres.is_nan() && i.pinfres < feastol && it.tau < it.kap)
        || (it.tau < FEASTOL && it.kap < FEASTOL && i.pinfres < FEASTOL);
    if dinf || pinf {
        return Some(Status::Failed);
    }
    None
}

/// ECOS `compareStatistics`: is `a` better than `b`?
fn compare(a: &Info, b: &Info) -> bool {
    if !a.pinfres.is_nan() && a.kapovert > 1.0 {
        if !b.pinfres.is_nan() {
            a.gap > 0.0
                && b.gap > 0.0
                && a.gap < b.gap
                && a.pinfres > 0.0
                && a.pinfres < b.pres
                && a.mu > 0.0
                && a.mu < b.mu
        } else {
            a.gap > 0.0 && b.gap > 0.0 && a.gap < b.gap && a.mu > 0.0 && a.mu < b.mu
        }
    } else {
        a.gap > 0.0
            && b.gap > 0.0
            && a.gap < b.gap
            && a.pres > 0.0
            && a.pres < b.pres
            && a.dres > 0.0
            && a.dres < b.dres
            && a.kapovert > 0.0
            && a.kapovert < b.kapovert
            && a.mu > 0.0
            && a.mu < b.mu
    }
}

/// `finish_time_fairness_perf`'s program (the rows of [`crate::barrier::JobRow::FinishTime`])
/// solved as Gavel's cvxpy + ECOS solves it: the shares per job and type, or `None` where
/// cvxpy returns no value (infeasible, unbounded, out of iterations, numerical failure).
pub(crate) fn finish_time_fairness(
    jobs: &[crate::policy::SolveJob<'_>],
    counts: &[u32],
    rows: &[crate::barrier::JobRow],
    cache: &mut KktCache,
) -> Option<Vec<Vec<f64>>> {
    let m = jobs.len();
    let n = counts.len();
    if m == 0 || n == 0 {
        return Some(vec![vec![0.0; n]; m]);
    }
    let ftf: Option<Vec<FtfJob<'_>>> = jobs
        .iter()
        .zip(rows)
        .map(|(j, r)| match r {
            crate::barrier::JobRow::FinishTime {
                since,
                remaining,
                denominator,
            } => Some(FtfJob {
                throughput: j.throughput,
                scale_factor: f64::from(j.scale_factor),
                since: *since,
                remaining: *remaining,
                denominator: *denominator,
            }),
            _ => None,
        })
        .collect();
    let counts: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let prog = ConeProgram::finish_time(&ftf?, &counts);
    let sol = solve_in(&prog, MAXIT, cache);
    if sol.status == Status::Failed || sol.x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(
        (0..m)
            .map(|i| {
                (0..n)
                    .map(|w| sol.x[if m == 1 { 1 + w } else { 1 + w * m + i }])
                    .collect()
            })
            .collect(),
    )
}

/// The shares `x[i][w]` (at `x0 + w·m + i`) of a solve for which cvxpy returns a value
/// (`optimal` or `optimal_inaccurate`, finite), else `None`.
fn shares_of(sol: &Solution, m: usize, n: usize, x0: usize) -> Option<Vec<Vec<f64>>> {
    if sol.status == Status::Failed || sol.x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(
        (0..m)
            .map(|i| (0..n).map(|w| sol.x[x0 + w * m + i]).collect())
            .collect(),
    )
}

/// The max-min program of `max_min_fairness_perf` over rows `coef` (GAVEL-SEMANTICS §6.1),
/// solved as Gavel's cvxpy + ECOS solves it; `None` where cvxpy returns no value.
pub(crate) fn max_min(
    coef: &[Vec<f64>],
    scale_factors: &[f64],
    counts: &[u32],
    cache: &mut KktCache,
) -> Option<Vec<Vec<f64>>> {
    let counts: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let prog = ConeProgram::max_min(coef, scale_factors, &counts);
    shares_of(&solve_in(&prog, MAXIT, cache), coef.len(), counts.len(), 1)
}

/// `max_sum_throughput_perf`'s program (GAVEL-GENERATED §G8.1) solved as Gavel's cvxpy + ECOS
/// solves it; `None` where cvxpy returns no value.
pub(crate) fn max_sum(
    throughputs: &[&[f64]],
    scale_factors: &[f64],
    counts: &[u32],
    cache: &mut KktCache,
) -> Option<Vec<Vec<f64>>> {
    let counts: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let prog = ConeProgram::max_sum(throughputs, scale_factors, &counts);
    shares_of(
        &solve_in(&prog, MAXIT, cache),
        throughputs.len(),
        counts.len(),
        0,
    )
}

/// `min_total_duration`'s feasibility program at horizon `th` solved as Gavel's cvxpy + ECOS
/// solves it: the shares per job and type when ECOS reports `optimal` (the only status Gavel's
/// search takes as feasible), else `None`. Per job: its throughputs (the agnostic variant's
/// V100 rows), scale factor and steps remaining; `counts` per type.
pub(crate) fn min_total_duration(
    throughputs: &[&[f64]],
    scale_factors: &[f64],
    remaining: &[f64],
    counts: &[f64],
    th: f64,
    cache: &mut KktCache,
) -> Option<Vec<Vec<f64>>> {
    let (m, n) = (throughputs.len(), counts.len());
    let prog = ConeProgram::min_total_duration(throughputs, scale_factors, remaining, counts, th);
    let sol = solve_in(&prog, MAXIT, cache);
    if sol.status != Status::Optimal {
        return None;
    }
    shares_of(&sol, m, n, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_degree_bit_sets_give_the_sets_order() {
        // Random symmetric patterns (with diagonals and repeated entries) of several sizes and
        // densities, and a KKT-like arrowhead: the same order, tie for tie.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for nk in [1, 2, 5, 63, 64, 65, 130, 300] {
            for per_mille in [0, 5, 20, 100, 400] {
                let mut entries = Vec::new();
                for a in 0..nk {
                    entries.push((a, a));
                    for b in a + 1..nk {
                        if next() % 1000 < per_mille {
                            entries.push((a, b));
                            if next() % 4 == 0 {
                                entries.push((b, a));
                            }
                        }
                    }
                }
                assert_eq!(
                    min_degree(nk, &entries),
                    min_degree_sets(nk, &entries),
                    "{nk} {per_mille}"
                );
            }
            let arrow: Vec<(usize, usize)> = (1..nk).map(|i| (0, i)).collect();
            assert_eq!(min_degree(nk, &arrow), min_degree_sets(nk, &arrow));
        }
    }
}
