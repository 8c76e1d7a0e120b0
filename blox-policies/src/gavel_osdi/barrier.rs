//! A small interior-point (log-barrier, path-following) solver for the two convex programs of
//! Gavel's policies, exploiting their structure.
//!
//! **Why not a simplex.** Gavel solves its programs with ECOS, an interior-point method. Their
//! optima are rarely unique (which of several equally fast jobs takes the spare type; the slack
//! of jobs not at the min/max), and the chosen shares decide the round priorities, so *which*
//! optimum is returned moves job completion times (GAVEL-SEMANTICS §7). A simplex (`microlp`)
//! returns a vertex of the optimal face, which skews who runs. An interior-point method follows
//! the central path, whose limit is the **analytic centre of the optimal face**; ECOS stops on
//! that path at a duality gap of about 1e-8. This solver follows the same path (the logarithmic
//! barrier of exactly the constraints Gavel's cvxpy model states, every row once) to a gap below
//! 1e-9, so where the optimum is not unique it picks (to about 1e-9) the same point ECOS
//! approaches. Ties that ECOS breaks by its own 1e-9 noise cannot be reproduced by anyone.
//!
//! **The programs.** Variables `x[i][w] ≥ 0` (job i's share of type w) and one scalar `z`, with
//! the common constraints `Σ_w x[i][w] ≤ 1` per job and `Σ_i s_i·x[i][w] ≤ c_w` per type, and one
//! row per job:
//!
//! - max-min ([`JobRow::Linear`]): maximise `z` subject to `Σ_w coef[i][w]·x[i][w] ≥ z`;
//! - finish-time fairness ([`JobRow::FinishTime`]): minimise `z = ρ` subject to
//!   `ρ·D_i − since_i − rem_i / Σ_w T[i][w]·x[i][w] ≥ 0` (the epigraph of
//!   `ρ_i = (since_i + rem_i / Σ T·x) / D_i`, multiplied by `D_i > 0`).
//!
//! **The Newton step.** The barrier Hessian is block-diagonal per job over `(x_i, z)` plus one
//! rank-one term per GPU type (its capacity row). Per-job blocks are factored (Cholesky, n × n
//! with n ≤ the number of types), the type rows are folded in with the Woodbury identity and `z`
//! with a Schur complement: O(m·n³) per step instead of O((m·n)³).

// Dense numerical kernels index several arrays in step; iterators would obscure them.
#![allow(clippy::needless_range_loop)]

use super::policy::SolveJob;

/// The per-job row of the program.
#[derive(Clone, Debug)]
pub(crate) enum JobRow {
    /// `Σ_w coef[w]·x[w] ≥ z` (max-min; maximise z).
    Linear {
        /// Coefficient per type.
        coef: Vec<f64>,
    },
    /// `z·denominator − since − remaining / Σ_w T[w]·x[w] ≥ 0` (finish-time fairness; minimise
    /// z).
    FinishTime {
        /// Seconds since arrival.
        since: f64,
        /// Remaining steps.
        remaining: f64,
        /// `cum_iso + remaining / iso` (> 0).
        denominator: f64,
    },
}

/// Final duality-gap bound (`#constraints × μ`).
const GAP: f64 = 1e-10;
/// μ divisor between centring steps.
const SHRINK: f64 = 8.0;
/// Newton iterations per centring step, at most.
const MAX_NEWTON: usize = 60;

struct Problem<'a> {
    m: usize,
    n: usize,
    jobs: &'a [SolveJob<'a>],
    counts: Vec<f64>,
    rows: &'a [JobRow],
    /// −1: maximise z (max-min); +1: minimise z (finish-time fairness).
    sense: f64,
}

/// Slacks of every constraint at `(x, z)`, or `None` if any is not strictly positive.
struct Slacks {
    x: Vec<f64>,
    row: Vec<f64>,
    cap: Vec<f64>,
    job: Vec<f64>,
    /// Job throughput `Σ T·x` (finish-time rows only; 0 otherwise).
    y: Vec<f64>,
}

impl Problem<'_> {
    fn slacks(&self, x: &[f64], z: f64) -> Option<Slacks> {
        let (m, n) = (self.m, self.n);
        if x.iter().any(|&v| !positive(v)) {
            return None;
        }
        let mut row = vec![0.0; m];
        let mut cap = self.counts.clone();
        let mut job = vec![0.0; m];
        let mut y = vec![0.0; m];
        for i in 0..m {
            let xi = &x[i * n..(i + 1) * n];
            let s = f64::from(self.jobs[i].scale_factor);
            row[i] = 1.0 - xi.iter().sum::<f64>();
            for w in 0..n {
                cap[w] -= s * xi[w];
            }
            job[i] = match &self.rows[i] {
                JobRow::Linear { coef } => dot(coef, xi) - z,
                JobRow::FinishTime {
                    since,
                    remaining,
                    denominator,
                } => {
                    y[i] = dot(self.jobs[i].throughput, xi);
                    if !positive(y[i]) {
                        return None;
                    }
                    z * denominator - since - remaining / y[i]
                }
            };
        }
        let ok = row.iter().chain(&cap).chain(&job).all(|&v| v > 0.0);
        ok.then_some(Slacks {
            x: x.to_vec(),
            row,
            cap,
            job,
            y,
        })
    }

    fn n_constraints(&self) -> usize {
        self.m * self.n + 2 * self.m + self.n
    }

    /// `sense·z/μ − Σ log slack`.
    fn value(&self, s: &Slacks, z: f64, mu: f64) -> f64 {
        let logs: f64 =
            s.x.iter()
                .chain(&s.row)
                .chain(&s.cap)
                .chain(&s.job)
                .map(|v| v.ln())
                .sum();
        self.sense * z / mu - logs
    }

    /// The Newton direction `(dx, dz)` and the decrement `−g·d` at a strictly feasible point.
    fn newton(&self, s: &Slacks, mu: f64) -> Option<(Vec<f64>, f64, f64)> {
        let (m, n) = (self.m, self.n);
        let d = n + 1;
        // Per-job block over (x_i, z), gradient over x and z.
        let mut blocks = vec![0.0; m * d * d];
        let mut gx = vec![0.0; m * n];
        let mut gz = self.sense / mu;
        for i in 0..m {
            let b = &mut blocks[i * d * d..(i + 1) * d * d];
            let xi = &s.x[i * n..(i + 1) * n];
            let g = &mut gx[i * n..(i + 1) * n];
            for w in 0..n {
                g[w] -= 1.0 / xi[w];
                b[w * d + w] += 1.0 / (xi[w] * xi[w]);
            }
            let r = s.row[i];
            for w in 0..n {
                g[w] += 1.0 / r;
                for v in 0..n {
                    b[w * d + v] += 1.0 / (r * r);
                }
            }
            let sc = f64::from(self.jobs[i].scale_factor);
            for w in 0..n {
                g[w] += sc / s.cap[w];
            }
            // Job row: gradient of the slack over (x_i, z).
            let sj = s.job[i];
            let mut grad = vec![0.0; d];
            match &self.rows[i] {
                JobRow::Linear { coef } => {
                    grad[..n].copy_from_slice(coef);
                    grad[n] = -1.0;
                }
                JobRow::FinishTime {
                    remaining,
                    denominator,
                    ..
                } => {
                    let t = self.jobs[i].throughput;
                    let y = s.y[i];
                    for w in 0..n {
                        grad[w] = remaining / (y * y) * t[w];
                    }
                    grad[n] = *denominator;
                    // −∇²slack / slack = 2·rem/(y³·slack) · T Tᵀ.
                    let c = 2.0 * remaining / (y * y * y * sj);
                    for w in 0..n {
                        for v in 0..n {
                            b[w * d + v] += c * t[w] * t[v];
                        }
                    }
                }
            }
            for a in 0..d {
                for c in 0..d {
                    b[a * d + c] += grad[a] * grad[c] / (sj * sj);
                }
            }
            for w in 0..n {
                g[w] -= grad[w] / sj;
            }
            gz -= grad[n] / sj;
        }
        // K_i = block[xx], factor each; q_i = block[x z]; r = Σ block[z z].
        let mut chol = vec![0.0; m * n * n];
        let mut q = vec![0.0; m * n];
        let mut r = 0.0;
        for i in 0..m {
            let b = &blocks[i * d * d..(i + 1) * d * d];
            let mut k = vec![0.0; n * n];
            for a in 0..n {
                for c in 0..n {
                    k[a * n + c] = b[a * d + c];
                }
                q[i * n + a] = b[a * d + n];
            }
            r += b[n * d + n];
            cholesky(&mut k, n)?;
            chol[i * n * n..(i + 1) * n * n].copy_from_slice(&k);
        }
        // U: column w has s_i / cap_w at (i, w). V = K⁻¹U (per job n × n), S = I + UᵀV.
        let mut v_mat = vec![0.0; m * n * n];
        let mut small = vec![0.0; n * n];
        for w in 0..n {
            small[w * n + w] = 1.0;
        }
        for i in 0..m {
            let sc = f64::from(self.jobs[i].scale_factor);
            let l = &chol[i * n * n..(i + 1) * n * n];
            for w in 0..n {
                let mut col = vec![0.0; n];
                col[w] = sc / s.cap[w];
                chol_solve(l, n, &mut col);
                for a in 0..n {
                    v_mat[i * n * n + a * n + w] = col[a];
                }
            }
            for a in 0..n {
                let ua = sc / s.cap[a];
                for w in 0..n {
                    small[a * n + w] += ua * v_mat[i * n * n + a * n + w];
                }
            }
        }
        cholesky(&mut small, n)?;
        // M⁻¹b for M = K + UUᵀ.
        let solve_m = |b: &[f64]| -> Vec<f64> {
            let mut y = b.to_vec();
            for i in 0..m {
                chol_solve(
                    &chol[i * n * n..(i + 1) * n * n],
                    n,
                    &mut y[i * n..(i + 1) * n],
                );
            }
            // t = Uᵀ y.
            let mut t = vec![0.0; n];
            for i in 0..m {
                let sc = f64::from(self.jobs[i].scale_factor);
                for w in 0..n {
                    t[w] += sc / s.cap[w] * y[i * n + w];
                }
            }
            chol_solve(&small, n, &mut t);
            for i in 0..m {
                for a in 0..n {
                    let mut acc = 0.0;
                    for w in 0..n {
                        acc += v_mat[i * n * n + a * n + w] * t[w];
                    }
                    y[i * n + a] -= acc;
                }
            }
            y
        };
        let neg_gx: Vec<f64> = gx.iter().map(|v| -v).collect();
        let mq = solve_m(&q);
        let mg = solve_m(&neg_gx);
        let schur = r - dot(&q, &mq);
        if !positive(schur) {
            return None;
        }
        let dz = (-gz - dot(&q, &mg)) / schur;
        let dx: Vec<f64> = mg.iter().zip(&mq).map(|(a, b)| a - b * dz).collect();
        let dec = -(dot(&gx, &dx) + gz * dz);
        Some((dx, dz, dec))
    }
}

/// `v > 0`, false for NaN (so a NaN anywhere reads as infeasible).
fn positive(v: f64) -> bool {
    v > 0.0
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// In-place Cholesky `A = L Lᵀ` of a row-major n × n SPD matrix (L in the lower triangle).
fn cholesky(a: &mut [f64], n: usize) -> Option<()> {
    for j in 0..n {
        let mut s = a[j * n + j];
        for k in 0..j {
            s -= a[j * n + k] * a[j * n + k];
        }
        if !positive(s) {
            return None;
        }
        let l = s.sqrt();
        a[j * n + j] = l;
        for i in j + 1..n {
            let mut t = a[i * n + j];
            for k in 0..j {
                t -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = t / l;
        }
    }
    Some(())
}

/// Solves `L Lᵀ y = b` in place.
fn chol_solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let mut t = b[i];
        for k in 0..i {
            t -= l[i * n + k] * b[k];
        }
        b[i] = t / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut t = b[i];
        for k in i + 1..n {
            t -= l[k * n + i] * b[k];
        }
        b[i] = t / l[i * n + i];
    }
}

/// Solves the program for `jobs` (all rows of one kind) on types with `counts` GPUs; returns
/// the shares per job and type, or `None` if no strictly feasible start exists or the method
/// fails numerically (Gavel's "no value" case).
pub(crate) fn solve(
    jobs: &[SolveJob<'_>],
    counts: &[u32],
    rows: &[JobRow],
) -> Option<Vec<Vec<f64>>> {
    let m = jobs.len();
    let n = counts.len();
    if m == 0 || n == 0 {
        return Some(vec![vec![0.0; n]; m]);
    }
    let sense = match rows[0] {
        JobRow::Linear { .. } => -1.0,
        JobRow::FinishTime { .. } => 1.0,
    };
    let p = Problem {
        m,
        n,
        jobs,
        counts: counts.iter().map(|&c| f64::from(c)).collect(),
        rows,
        sense,
    };
    // Strictly feasible start: half of the tighter of 1/n and c_w / Σ s_i on every entry.
    let total_scale: f64 = jobs.iter().map(|j| f64::from(j.scale_factor)).sum();
    let per_type: Vec<f64> = p
        .counts
        .iter()
        .map(|&c| 0.5 * (1.0 / n as f64).min(c / total_scale))
        .collect();
    let mut x: Vec<f64> = (0..m).flat_map(|_| per_type.iter().copied()).collect();
    let mut z = match &rows[0] {
        JobRow::Linear { .. } => {
            let lo = (0..m)
                .map(|i| match &rows[i] {
                    JobRow::Linear { coef } => dot(coef, &x[i * n..(i + 1) * n]),
                    JobRow::FinishTime { .. } => f64::NAN,
                })
                .fold(f64::INFINITY, f64::min);
            lo - 1.0
        }
        JobRow::FinishTime { .. } => {
            let mut hi = f64::NEG_INFINITY;
            for i in 0..m {
                let JobRow::FinishTime {
                    since,
                    remaining,
                    denominator,
                } = &rows[i]
                else {
                    return None;
                };
                let y = dot(jobs[i].throughput, &x[i * n..(i + 1) * n]);
                if !positive(y) || !positive(*denominator) || !denominator.is_finite() {
                    return None;
                }
                hi = hi.max((since + remaining / y) / denominator);
            }
            hi + 1.0
        }
    };
    let mut slack = p.slacks(&x, z)?;
    let mut mu = 1.0;
    let ncons = p.n_constraints() as f64;
    loop {
        for _ in 0..MAX_NEWTON {
            let Some((dx, dz, dec)) = p.newton(&slack, mu) else {
                break;
            };
            if dec.partial_cmp(&1e-14) != Some(std::cmp::Ordering::Greater) {
                break;
            }
            // Backtracking line search (feasibility, then Armijo).
            let f0 = p.value(&slack, z, mu);
            let mut step = 1.0;
            let mut moved = false;
            for _ in 0..80 {
                let nx: Vec<f64> = x.iter().zip(&dx).map(|(a, b)| a + step * b).collect();
                let nz = z + step * dz;
                if let Some(ns) = p.slacks(&nx, nz) {
                    if p.value(&ns, nz, mu) <= f0 - 0.25 * step * dec {
                        x = nx;
                        z = nz;
                        slack = ns;
                        moved = true;
                        break;
                    }
                }
                step *= 0.5;
            }
            if !moved || dec < 1e-12 {
                break;
            }
        }
        if ncons * mu <= GAP {
            break;
        }
        mu /= SHRINK;
    }
    Some((0..m).map(|i| x[i * n..(i + 1) * n].to_vec()).collect())
}
