//! Gavel's space-sharing (`*_packed`) policies, GAVEL-GENERATED §G8.3: `fifo_packed`'s
//! packing rule, and the LP variants over combinations (single jobs and same-scale-factor
//! pairs) with a dense log-barrier path-following solver.
//!
//! **Flattening.** Combinations are the singles sorted by id, then the pairs sorted
//! lexicographically; `rel(s)` is single s's own index followed by the indices of the pairs
//! containing it. The per-single throughput `A[s][c][w]` (s's rate inside c) is an `f32`, as
//! Gavel stores it, divided in `f32` by s's priority weight where Gavel passes weights.
//!
//! **HEAD's reshape (reproduced).** Gavel's HEAD lays out the entries `(s, c ∈ rel(s), w)` one
//! after the other (L·n of them, L = Σ_s |rel(s)|) and reshapes them into S rows of `L·n / S`
//! entries, summing each row as if it were one job: for the per-single constraint
//! `Σ x ≤ 1` (all three LP policies) and for `max_min_fairness_packed`'s objective. When all
//! jobs share one scale factor every `|rel(s)|` is equal and the rows are the jobs; with mixed
//! scale factors they straddle jobs, and when `L·n` is not a multiple of S cvxpy raises
//! "Invalid reshape dimensions" and Gavel's run crashes: here the solve returns an error that
//! stops the run.
//!
//! **The solver.** Gavel solves with ECOS, an interior-point method. The programs here have
//! coupled rows (a pair's share counts for both members), so the per-job block structure of
//! [`crate::barrier`] does not apply; this solver follows the same central path (the
//! logarithmic barrier of exactly the rows Gavel's model states) to a duality gap of 1e-10,
//! with Newton steps that exploit the Hessian's diagonal-plus-low-rank structure (one rank-one
//! term per row: O(N + R³) per step for N variables and R rows, instead of a dense O(N³)). Where the optimum is not unique it returns (about) the analytic centre
//! of the optimal face, as ECOS approaches it.

// Dense numerical kernels index several arrays in step.
#![allow(clippy::needless_range_loop)]

use crate::barrier::{chol_solve_dense as chol_solve, cholesky_dense as cholesky, positive};
use crate::policy::{isolated_shares, FtfState, GavelPolicyKind, SolveJob, SolvePair};
use std::collections::{BTreeMap, VecDeque};

/// `fifo_packed`'s threshold on the summed normalised co-located throughput.
pub const PACKING_THRESHOLD: f64 = 1.5;

/// A combination in `fifo_packed`'s assignment list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combo {
    Single(u32),
    /// Position in the solve's pair list.
    Pair(usize),
}

/// `FIFOPolicy._pack` after the `fifo_perf` placement `assign` (id order = assignment order in
/// perf mode): each still-queued job in turn joins the assigned single of the same scale factor
/// whose pair has the strictly largest normalised co-located throughput above 1.5 on the
/// single's type (first wins ties); the first job with none stops the packing.
pub(crate) fn fifo_pack(
    assign: &BTreeMap<u32, usize>,
    mut queue: VecDeque<u32>,
    jobs: &[SolveJob<'_>],
    pairs: &[SolvePair<'_>],
    n: usize,
) -> PackedShares {
    let pos: BTreeMap<u32, usize> = jobs.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
    let pair_of: BTreeMap<(usize, usize), usize> = pairs
        .iter()
        .enumerate()
        .map(|(q, p)| ((p.members[0], p.members[1]), q))
        .collect();
    let mut order: Vec<(Combo, usize)> = assign
        .iter()
        .map(|(&id, &w)| (Combo::Single(id), w))
        .collect();
    while let Some(h) = queue.pop_front() {
        let hp = pos[&h];
        let mut best = PACKING_THRESHOLD;
        let mut pick = None;
        for (k, &(combo, w)) in order.iter().enumerate() {
            let Combo::Single(s) = combo else { continue };
            let sp = pos[&s];
            if jobs[sp].scale_factor != jobs[hp].scale_factor {
                continue;
            }
            let (a, b) = (sp.min(hp), sp.max(hp));
            let Some(&q) = pair_of.get(&(a, b)) else {
                continue;
            };
            let packed = pairs[q].throughput[w];
            let mut norm = 0.0;
            for (i, m) in [a, b].into_iter().enumerate() {
                if packed[i] <= 0.0 {
                    continue;
                }
                norm += packed[i] / jobs[m].throughput[w];
            }
            if norm > best {
                best = norm;
                pick = Some((k, q));
            }
        }
        let Some((k, q)) = pick else { break };
        let (_, w) = order.remove(k);
        order.push((Combo::Pair(q), w));
    }
    let mut singles = vec![vec![0.0; n]; jobs.len()];
    let mut pair_rows = vec![vec![0.0; n]; pairs.len()];
    for (combo, w) in order {
        match combo {
            Combo::Single(id) => singles[pos[&id]][w] = 1.0,
            Combo::Pair(q) => pair_rows[q][w] = 1.0,
        }
    }
    (singles, pair_rows)
}

/// The flattened combinations of a packed solve.
struct Flat {
    /// Number of combinations (singles, then pairs).
    c: usize,
    n: usize,
    /// Scale factor of each combination.
    sf: Vec<f64>,
    /// `rel[s]`: combination indices relevant to single s.
    rel: Vec<Vec<usize>>,
    /// `a[s][k]`: s's rate (f32) in `rel[s][k]`, per type.
    a: Vec<Vec<Vec<f32>>>,
}

fn flatten(jobs: &[SolveJob<'_>], pairs: &[SolvePair<'_>], n: usize, weights: bool) -> Flat {
    let m = jobs.len();
    let c = m + pairs.len();
    let mut sf: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
    let mut rel: Vec<Vec<usize>> = (0..m).map(|s| vec![s]).collect();
    let mut a: Vec<Vec<Vec<f32>>> = jobs
        .iter()
        .map(|j| vec![j.throughput.iter().map(|&t| t as f32).collect()])
        .collect();
    for (q, p) in pairs.iter().enumerate() {
        let [x, y] = p.members;
        // Gavel's pair scale factor: the members' common one (0 if they differ; never).
        let (sx, sy) = (jobs[x].scale_factor, jobs[y].scale_factor);
        sf.push(if sx == sy { f64::from(sx) } else { 0.0 });
        for (i, mem) in [x, y].into_iter().enumerate() {
            rel[mem].push(m + q);
            a[mem].push(p.throughput.iter().map(|r| r[i] as f32).collect());
        }
    }
    if weights {
        for (s, j) in jobs.iter().enumerate() {
            let w = j.weight as f32;
            for row in &mut a[s] {
                for v in row.iter_mut() {
                    *v /= w;
                }
            }
        }
    }
    Flat { c, n, sf, rel, a }
}

impl Flat {
    /// HEAD's reshape of the `(s, c ∈ rel(s), w)` entries into S rows (see the module docs):
    /// each row's entries as `(variable, s, k, w)`; `Err` where cvxpy cannot reshape.
    fn reshaped_rows(&self) -> Result<Vec<Vec<Entry>>, String> {
        let s_count = self.rel.len();
        let mut flat = Vec::new();
        for (s, r) in self.rel.iter().enumerate() {
            for (k, &c) in r.iter().enumerate() {
                for w in 0..self.n {
                    flat.push((c * self.n + w, s, k, w));
                }
            }
        }
        if flat.len() % s_count != 0 {
            return Err(format!(
                "Gavel's HEAD lays this packed LP's per-job sums out as {} entries in {} rows: \
                 cvxpy's reshape fails (\"Invalid reshape dimensions\") and Gavel's run \
                 crashes here (active jobs with different scale factors, GAVEL-GENERATED \
                 §G8.3); this port reproduces HEAD, so the run stops",
                flat.len(),
                s_count
            ));
        }
        let len = flat.len() / s_count;
        Ok(flat.chunks(len).map(<[_]>::to_vec).collect())
    }
}

/// A row `c0 + Σ coef·v + cz·z > 0` of the barrier.
#[derive(Clone, Debug)]
struct Affine {
    idx: Vec<usize>,
    coef: Vec<f64>,
    cz: f64,
    c0: f64,
}

impl Affine {
    /// The row's slack `c0 + Σ coef·v + cz·z` at `(v, z)`.
    fn slack(&self, v: &[f64], z: f64) -> f64 {
        self.c0
            + self
                .idx
                .iter()
                .zip(&self.coef)
                .map(|(&i, c)| c * v[i])
                .sum::<f64>()
            + self.cz * z
    }
}

/// A finish-time row `z·d − since − rem / (Σ t·v) > 0`.
#[derive(Clone, Debug)]
struct Recip {
    idx: Vec<usize>,
    t: Vec<f64>,
    since: f64,
    rem: f64,
    d: f64,
}

/// What is optimised.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sense {
    /// Maximise z.
    Max,
    /// Minimise z.
    Min,
    /// No z: the analytic centre.
    Centre,
}

struct Dense<'a> {
    nv: usize,
    affine: &'a [Affine],
    recip: &'a [Recip],
    sense: Sense,
}

const GAP: f64 = 1e-10;

/// One entry of HEAD's reshaped rows: `(variable, single s, position in rel(s), type)`.
type Entry = (usize, usize, usize, usize);

/// A rank-one term of the Hessian: its `v` entries, its weight, its `z` component.
type Column = (Vec<(usize, f64)>, f64, f64);

/// Shares per single job and per pair.
pub(crate) type PackedShares = (Vec<Vec<f64>>, Vec<Vec<f64>>);
const SHRINK: f64 = 30.0;
const MAX_NEWTON: usize = 80;
/// Largest problem (variables) the dense Newton step is tried on when the structured one fails.
const DENSE_FALLBACK_MAX: usize = 600;

impl Dense<'_> {
    fn dim(&self) -> usize {
        if self.sense == Sense::Centre {
            self.nv
        } else {
            self.nv + 1
        }
    }

    /// Barrier value at `(v, z)` for `mu`, `None` if not strictly feasible.
    fn value(&self, v: &[f64], z: f64, mu: f64) -> Option<f64> {
        let mut logs = 0.0;
        for &x in v {
            if !positive(x) {
                return None;
            }
            logs += x.ln();
        }
        for r in self.affine {
            let s = r.slack(v, z);
            if !positive(s) {
                return None;
            }
            logs += s.ln();
        }
        for r in self.recip {
            let y: f64 = r.idx.iter().zip(&r.t).map(|(&i, t)| t * v[i]).sum();
            if !positive(y) {
                return None;
            }
            let s = z * r.d - r.since - r.rem / y;
            if !positive(s) {
                return None;
            }
            logs += s.ln();
        }
        let obj = match self.sense {
            Sense::Max => -z / mu,
            Sense::Min => z / mu,
            Sense::Centre => 0.0,
        };
        Some(obj - logs)
    }

    /// Newton direction and decrement at a strictly feasible point, with the dense Hessian
    /// (O(N³); the fallback of [`Dense::newton_lowrank`]).
    fn newton(&self, v: &[f64], z: f64, mu: f64) -> Option<(Vec<f64>, f64)> {
        let d = self.dim();
        let zi = self.nv;
        let mut h = vec![0.0; d * d];
        let mut g = vec![0.0; d];
        match self.sense {
            Sense::Max => g[zi] = -1.0 / mu,
            Sense::Min => g[zi] = 1.0 / mu,
            Sense::Centre => {}
        }
        for (i, &x) in v.iter().enumerate() {
            g[i] -= 1.0 / x;
            h[i * d + i] += 1.0 / (x * x);
        }
        let mut grad: Vec<(usize, f64)> = Vec::new();
        for r in self.affine {
            let s = r.slack(v, z);
            grad.clear();
            grad.extend(r.idx.iter().copied().zip(r.coef.iter().copied()));
            if r.cz != 0.0 && self.sense != Sense::Centre {
                grad.push((zi, r.cz));
            }
            let s2 = s * s;
            for &(p, a) in &grad {
                g[p] -= a / s;
                for &(q, b) in &grad {
                    h[p * d + q] += a * b / s2;
                }
            }
        }
        for r in self.recip {
            let y: f64 = r.idx.iter().zip(&r.t).map(|(&i, t)| t * v[i]).sum();
            let s = z * r.d - r.since - r.rem / y;
            grad.clear();
            grad.extend(
                r.idx
                    .iter()
                    .copied()
                    .zip(r.t.iter().map(|t| r.rem / (y * y) * t)),
            );
            grad.push((zi, r.d));
            let s2 = s * s;
            for &(p, a) in &grad {
                g[p] -= a / s;
                for &(q, b) in &grad {
                    h[p * d + q] += a * b / s2;
                }
            }
            let c = 2.0 * r.rem / (y * y * y * s);
            for (&p, &tp) in r.idx.iter().zip(&r.t) {
                for (&q, &tq) in r.idx.iter().zip(&r.t) {
                    h[p * d + q] += c * tp * tq;
                }
            }
        }
        cholesky(&mut h, d)?;
        let mut dx: Vec<f64> = g.iter().map(|x| -x).collect();
        chol_solve(&h, d, &mut dx);
        let dec = -g.iter().zip(&dx).map(|(a, b)| a * b).sum::<f64>();
        Some((dx, dec))
    }

    /// The Newton direction and decrement, by the structure of the Hessian: the barrier of
    /// `v ≥ 0` is diagonal and every other row adds a rank-one (finish-time rows: rank-two)
    /// term, so the `v` block is solved with the Woodbury identity (an R × R capacitance
    /// matrix, R = number of rows) and `z` by a Schur complement. O(N·k + R³) instead of the
    /// dense O(N³), N = combinations × types.
    fn newton_lowrank(&self, v: &[f64], z: f64, mu: f64) -> Option<(Vec<f64>, f64)> {
        let nv = self.nv;
        let has_z = self.sense != Sense::Centre;
        let mut dg = vec![0.0; nv];
        let mut gv = vec![0.0; nv];
        let mut gz = match self.sense {
            Sense::Max => -1.0 / mu,
            Sense::Min => 1.0 / mu,
            Sense::Centre => 0.0,
        };
        for (i, &x) in v.iter().enumerate() {
            gv[i] -= 1.0 / x;
            dg[i] = 1.0 / (x * x);
        }
        // Columns of U (v part): (entries, weight C, z component).
        let mut cols: Vec<Column> = Vec::new();
        for r in self.affine {
            let s = r.slack(v, z);
            for (&i, &c) in r.idx.iter().zip(&r.coef) {
                gv[i] -= c / s;
            }
            let cz = if has_z { r.cz } else { 0.0 };
            gz -= cz / s;
            cols.push((
                r.idx.iter().copied().zip(r.coef.iter().copied()).collect(),
                1.0 / (s * s),
                cz,
            ));
        }
        for r in self.recip {
            let y: f64 = r.idx.iter().zip(&r.t).map(|(&i, t)| t * v[i]).sum();
            let s = z * r.d - r.since - r.rem / y;
            let grad: Vec<(usize, f64)> = r
                .idx
                .iter()
                .copied()
                .zip(r.t.iter().map(|t| r.rem / (y * y) * t))
                .collect();
            for &(i, a) in &grad {
                gv[i] -= a / s;
            }
            gz -= r.d / s;
            cols.push((grad, 1.0 / (s * s), r.d));
            cols.push((
                r.idx.iter().copied().zip(r.t.iter().copied()).collect(),
                2.0 * r.rem / (y * y * y * s),
                0.0,
            ));
        }
        let rn = cols.len();
        // Which columns touch each variable.
        let mut touch: Vec<Vec<(usize, f64)>> = vec![Vec::new(); nv];
        for (c, (e, _, _)) in cols.iter().enumerate() {
            for &(i, a) in e {
                touch[i].push((c, a));
            }
        }
        // K = C⁻¹ + Uᵀ D⁻¹ U.
        let mut k = vec![0.0; rn * rn];
        for (c, (_, w, _)) in cols.iter().enumerate() {
            if !positive(*w) {
                return None;
            }
            k[c * rn + c] += 1.0 / w;
        }
        for i in 0..nv {
            let t = &touch[i];
            for &(p, a) in t {
                for &(q, b) in t {
                    k[p * rn + q] += a * b / dg[i];
                }
            }
        }
        cholesky(&mut k, rn)?;
        // Solves H_vv x = b (Woodbury).
        let solve = |b: &[f64]| -> Vec<f64> {
            let y0: Vec<f64> = b.iter().zip(&dg).map(|(a, d)| a / d).collect();
            let mut w: Vec<f64> = cols
                .iter()
                .map(|(e, _, _)| e.iter().map(|&(i, a)| a * y0[i]).sum())
                .collect();
            chol_solve(&k, rn, &mut w);
            let mut x = y0;
            for (c, (e, _, _)) in cols.iter().enumerate() {
                for &(i, a) in e {
                    x[i] -= a * w[c] / dg[i];
                }
            }
            x
        };
        let neg_g: Vec<f64> = gv.iter().map(|x| -x).collect();
        let p = solve(&neg_g);
        if !has_z {
            let dec = -gv.iter().zip(&p).map(|(a, b)| a * b).sum::<f64>();
            return Some((p, dec));
        }
        // Coupling h = Σ C a^v a^z, h_zz = Σ C (a^z)².
        let mut h = vec![0.0; nv];
        let mut hzz = 0.0;
        for (e, w, cz) in &cols {
            if *cz != 0.0 {
                for &(i, a) in e {
                    h[i] += w * a * cz;
                }
                hzz += w * cz * cz;
            }
        }
        let q = solve(&h);
        let schur = hzz - h.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>();
        if !positive(schur) {
            return None;
        }
        let dz = (-gz - h.iter().zip(&p).map(|(a, b)| a * b).sum::<f64>()) / schur;
        let mut dx: Vec<f64> = p.iter().zip(&q).map(|(a, b)| a - b * dz).collect();
        dx.push(dz);
        let dec = -(gv.iter().zip(&dx).map(|(a, b)| a * b).sum::<f64>() + gz * dz);
        Some((dx, dec))
    }

    fn terms(&self) -> f64 {
        (self.nv + self.affine.len() + self.recip.len()) as f64
    }

    /// Follows the central path from the strictly feasible `(v, z)`.
    fn solve(&self, mut v: Vec<f64>, mut z: f64) -> Option<(Vec<f64>, f64)> {
        let mut mu = 1.0;
        let mut cur = self.value(&v, z, mu)?;
        let terms = self.terms();
        loop {
            for _ in 0..MAX_NEWTON {
                // The structured step; the dense one if its factorisation fails on a small problem.
                let step = self.newton_lowrank(&v, z, mu).or_else(|| {
                    (self.dim() <= DENSE_FALLBACK_MAX)
                        .then(|| self.newton(&v, z, mu))
                        .flatten()
                });
                let Some((dx, dec)) = step else {
                    break;
                };
                if dec.partial_cmp(&1e-14) != Some(std::cmp::Ordering::Greater) {
                    break;
                }
                let dz = if self.sense == Sense::Centre {
                    0.0
                } else {
                    dx[self.nv]
                };
                let mut step = 1.0;
                let mut moved = false;
                let mut tv = vec![0.0; self.nv];
                for _ in 0..80 {
                    for i in 0..self.nv {
                        tv[i] = v[i] + step * dx[i];
                    }
                    let nz = z + step * dz;
                    if let Some(val) = self.value(&tv, nz, mu) {
                        if val <= cur - 0.25 * step * dec {
                            std::mem::swap(&mut v, &mut tv);
                            z = nz;
                            cur = val;
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
            if terms * mu <= GAP {
                break;
            }
            mu /= SHRINK;
            cur = self.value(&v, z, mu)?;
        }
        Some((v, z))
    }
}

/// The common packed rows: capacity per type, and HEAD's reshaped `Σ x ≤ 1` rows.
fn common_rows(f: &Flat, counts: &[u32]) -> Result<Vec<Affine>, String> {
    let mut rows = Vec::new();
    for w in 0..f.n {
        rows.push(Affine {
            idx: (0..f.c).map(|c| c * f.n + w).collect(),
            coef: (0..f.c).map(|c| -f.sf[c]).collect(),
            cz: 0.0,
            c0: f64::from(counts[w]),
        });
    }
    for row in f.reshaped_rows()? {
        rows.push(Affine {
            idx: row.iter().map(|e| e.0).collect(),
            coef: vec![-1.0; row.len()],
            cz: 0.0,
            c0: 1.0,
        });
    }
    Ok(rows)
}

/// A strictly feasible uniform start: half the tighter of `1 / longest row` and
/// `c_w / Σ_c sf_c`.
fn start(f: &Flat, common: &[Affine], counts: &[u32]) -> f64 {
    let mut eps = f64::INFINITY;
    for w in 0..f.n {
        let total: f64 = f.sf.iter().sum();
        if total > 0.0 {
            eps = eps.min(f64::from(counts[w]) / total);
        }
    }
    for r in common.iter().skip(f.n) {
        eps = eps.min(1.0 / r.idx.len() as f64);
    }
    0.5 * eps.min(1.0)
}

fn unflatten(f: &Flat, m: usize, v: &[f64]) -> PackedShares {
    let rows: Vec<Vec<f64>> = (0..f.c)
        .map(|c| v[c * f.n..(c + 1) * f.n].to_vec())
        .collect();
    let pairs = rows[m..].to_vec();
    let mut singles = rows;
    singles.truncate(m);
    (singles, pairs)
}

/// The LP `*_packed` policies. `Err`: Gavel's HEAD cannot build the program (its run crashes).
pub(crate) fn lp(
    kind: GavelPolicyKind,
    ftf: &mut FtfState,
    jobs: &[SolveJob<'_>],
    pairs: &[SolvePair<'_>],
    counts: &[u32],
) -> Result<PackedShares, String> {
    let n = counts.len();
    let m = jobs.len();
    if m == 0 {
        if kind == GavelPolicyKind::FinishTimeFairnessPacked {
            ftf.prev_rem.clear();
            ftf.prev_iso.clear();
        }
        return Ok((Vec::new(), vec![vec![0.0; n]; pairs.len()]));
    }
    let fallback = || {
        (
            isolated_shares(jobs, counts),
            vec![vec![0.0; n]; pairs.len()],
        )
    };
    match kind {
        GavelPolicyKind::MaxMinFairnessPacked => {
            let f = flatten(jobs, pairs, n, true);
            let mut rows = common_rows(&f, counts)?;
            let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
            let prop: Vec<f64> = jobs
                .iter()
                .map(|j| {
                    j.throughput
                        .iter()
                        .zip(counts)
                        .map(|(t, &c)| t * (f64::from(c) / total))
                        .sum()
                })
                .collect();
            let n_common = rows.len();
            for row in f.reshaped_rows()? {
                rows.push(Affine {
                    idx: row.iter().map(|e| e.0).collect(),
                    coef: row
                        .iter()
                        .map(|&(var, s, k, w)| f64::from(f.a[s][k][w]) * f.sf[var / n] / prop[s])
                        .collect(),
                    cz: -1.0,
                    c0: 0.0,
                });
            }
            let eps = start(&f, &rows[..n_common], counts);
            let v = vec![eps; f.c * n];
            let z0 = rows[n_common..]
                .iter()
                .map(|r| r.coef.iter().sum::<f64>() * eps)
                .fold(f64::INFINITY, f64::min)
                - 1.0;
            let p = Dense {
                nv: f.c * n,
                affine: &rows,
                recip: &[],
                sense: Sense::Max,
            };
            Ok(p.solve(v, z0)
                .map(|(v, _)| unflatten(&f, m, &v))
                .unwrap_or_else(fallback))
        }
        GavelPolicyKind::FinishTimeFairnessPacked => {
            let f = flatten(jobs, pairs, n, true);
            let rows = common_rows(&f, counts)?;
            let iso_x = isolated_shares(jobs, counts);
            let iso: Vec<f64> = jobs
                .iter()
                .zip(&iso_x)
                .map(|(j, x)| j.throughput.iter().zip(x).map(|(a, b)| a * b).sum())
                .collect();
            for j in jobs {
                let cum = ftf.cum_iso.entry(j.id).or_insert(0.0);
                if let Some(&prev) = ftf.prev_rem.get(&j.id) {
                    *cum += (prev - j.remaining_steps) / ftf.prev_iso[&j.id];
                }
            }
            let recip: Vec<Recip> = jobs
                .iter()
                .enumerate()
                .map(|(s, j)| {
                    let mut idx = Vec::new();
                    let mut t = Vec::new();
                    for (k, &c) in f.rel[s].iter().enumerate() {
                        for w in 0..n {
                            idx.push(c * n + w);
                            t.push(f64::from(f.a[s][k][w]));
                        }
                    }
                    Recip {
                        idx,
                        t,
                        since: j.since_arrival,
                        rem: j.remaining_steps,
                        d: ftf.cum_iso[&j.id] + j.remaining_steps / iso[s],
                    }
                })
                .collect();
            let eps = start(&f, &rows, counts);
            let v = vec![eps; f.c * n];
            let mut z0 = f64::NEG_INFINITY;
            let mut ok = true;
            for r in &recip {
                let y: f64 = r.t.iter().sum::<f64>() * eps;
                if !(y > 0.0 && r.d > 0.0 && r.d.is_finite()) {
                    ok = false;
                    break;
                }
                z0 = z0.max((r.since + r.rem / y) / r.d);
            }
            let solved = if ok {
                Dense {
                    nv: f.c * n,
                    affine: &rows,
                    recip: &recip,
                    sense: Sense::Min,
                }
                .solve(v, z0 + 1.0)
            } else {
                None
            };
            ftf.prev_rem = jobs.iter().map(|j| (j.id, j.remaining_steps)).collect();
            ftf.prev_iso = jobs.iter().zip(&iso).map(|(j, &v)| (j.id, v)).collect();
            Ok(solved
                .map(|(v, _)| unflatten(&f, m, &v))
                .unwrap_or_else(fallback))
        }
        GavelPolicyKind::MinTotalDurationPacked => {
            let f = flatten(jobs, pairs, n, false);
            let common = common_rows(&f, counts)?;
            let eps = start(&f, &common, counts);
            let nv = f.c * n;
            // Per-single rows `Σ A·x · T_h / rem`.
            let rows_for = |th: f64| -> Vec<Affine> {
                jobs.iter()
                    .enumerate()
                    .map(|(s, j)| {
                        let mut idx = Vec::new();
                        let mut coef = Vec::new();
                        for (k, &c) in f.rel[s].iter().enumerate() {
                            for w in 0..n {
                                idx.push(c * n + w);
                                coef.push(f64::from(f.a[s][k][w]) * th / j.remaining_steps);
                            }
                        }
                        Affine {
                            idx,
                            coef,
                            cz: -1.0,
                            c0: 0.0,
                        }
                    })
                    .collect()
            };
            let feasible = |th: f64| -> Option<Vec<f64>> {
                let mut rows = common.clone();
                let job_rows = rows_for(th);
                let z0 = job_rows
                    .iter()
                    .map(|r| r.coef.iter().sum::<f64>() * eps)
                    .fold(f64::INFINITY, f64::min)
                    - 1.0;
                rows.extend(job_rows.iter().cloned());
                let (x, z) = Dense {
                    nv,
                    affine: &rows,
                    recip: &[],
                    sense: Sense::Max,
                }
                .solve(vec![eps; nv], z0)?;
                let _ = z;
                let worst = job_rows
                    .iter()
                    .map(|r| {
                        r.idx
                            .iter()
                            .zip(&r.coef)
                            .map(|(&i, c)| c * x[i])
                            .sum::<f64>()
                    })
                    .fold(f64::INFINITY, f64::min);
                if worst <= 1.0 {
                    return None;
                }
                let mut floors = common.clone();
                floors.extend(job_rows.into_iter().map(|r| Affine {
                    cz: 0.0,
                    c0: -1.0,
                    ..r
                }));
                Dense {
                    nv,
                    affine: &floors,
                    recip: &[],
                    sense: Sense::Centre,
                }
                .solve(x, 0.0)
                .map(|(v, _)| v)
            };
            Ok(crate::policy::horizon_search(feasible)
                .map(|v| unflatten(&f, m, &v))
                .unwrap_or_else(fallback))
        }
        _ => Ok(fallback()),
    }
}
