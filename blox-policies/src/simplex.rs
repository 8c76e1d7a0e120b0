//! A small dense two-phase simplex for [`crate::max_min_lp`]'s programs (tens to a few hundred
//! variables): maximise `c·x` over `x ≥ 0` subject to rows `a·x ≤ b`, `a·x ≥ b` or `a·x = b`.
//!
//! Textbook method (e.g. Chvátal, *Linear Programming*, 1983, ch. 2–3 and 8): the full tableau,
//! phase one with an artificial variable per `≥`/`=` row (after making every right-hand side
//! non-negative), phase two from its basis. Entering column by the largest reduced cost
//! (Dantzig's rule); after a run of degenerate pivots, by the smallest index with a positive
//! reduced cost and the leaving row by the smallest basic index among ties (Bland's rule), which
//! cannot cycle. Pure arithmetic in a fixed order: the same program gives the same solution,
//! bit for bit, on every platform.

// The tableau is indexed by row and column in step; iterators would obscure the pivots.
#![allow(clippy::needless_range_loop)]

/// A constraint's sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `a·x ≤ b`.
    Le,
    /// `a·x ≥ b`.
    Ge,
}

/// A row: its non-zero coefficients `(variable, value)`, sense and right-hand side.
type Row = (Vec<(usize, f64)>, Op, f64);

/// A linear program: maximise `objective · x`, `x ≥ 0`, subject to `rows`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    objective: Vec<f64>,
    rows: Vec<Row>,
}

/// Pivots and reduced costs smaller than this are zero.
const EPS: f64 = 1e-9;
/// Degenerate pivots in a row before Bland's rule takes over.
const BLAND_AFTER: usize = 50;

impl Program {
    /// A new variable with objective coefficient `gain`; returns its index.
    pub(crate) fn var(&mut self, gain: f64) -> usize {
        self.objective.push(gain);
        self.objective.len() - 1
    }

    /// The row `Σ coef·x[var] op rhs`.
    pub(crate) fn row(&mut self, coefs: Vec<(usize, f64)>, op: Op, rhs: f64) {
        self.rows.push((coefs, op, rhs));
    }

    /// An optimal `x` and the optimal objective, or why there is none.
    #[cfg(test)]
    pub(crate) fn solve(&self) -> Result<(Vec<f64>, f64), String> {
        self.optimum().map(|s| s.solution())
    }

    /// The optimal tableau, or why there is none.
    pub(crate) fn optimum(&self) -> Result<Solved, String> {
        let n = self.objective.len();
        let m = self.rows.len();
        // Columns: the variables, one slack or surplus per row, one artificial per `≥` row
        // (after the sign flip that makes its right-hand side non-negative).
        let mut flipped = Vec::with_capacity(m);
        let mut artificials = 0;
        for (_, op, rhs) in &self.rows {
            // `a·x ≥ b` with `b ≤ 0` is `−a·x ≤ −b`, whose slack starts basic (no artificial).
            let flip = match op {
                Op::Le => *rhs < 0.0,
                Op::Ge => *rhs <= 0.0,
            };
            let op = match (op, flip) {
                (Op::Le, false) | (Op::Ge, true) => Op::Le,
                _ => Op::Ge,
            };
            artificials += usize::from(op == Op::Ge);
            flipped.push((flip, op));
        }
        let first_art = n + m;
        let cols = first_art + artificials;
        let mut t = Tableau {
            a: vec![0.0; m * cols],
            rhs: vec![0.0; m],
            basis: vec![0; m],
            cols,
            cost: vec![0.0; cols],
            d: Vec::new(),
            barred: 0..0,
            scratch: Vec::new(),
        };
        let mut art = first_art;
        for (i, (coefs, _, rhs)) in self.rows.iter().enumerate() {
            let (flip, op) = flipped[i];
            let sign = if flip { -1.0 } else { 1.0 };
            let row = &mut t.a[i * cols..(i + 1) * cols];
            for &(j, v) in coefs {
                row[j] += sign * v;
            }
            t.rhs[i] = sign * rhs;
            if op == Op::Le {
                row[n + i] = 1.0;
                t.basis[i] = n + i;
            } else {
                row[n + i] = -1.0;
                row[art] = 1.0;
                t.basis[i] = art;
                art += 1;
            }
        }
        // Phase one: maximise minus the sum of the artificials.
        if artificials > 0 {
            let mut cost = vec![0.0; cols];
            for c in &mut cost[first_art..] {
                *c = -1.0;
            }
            t.cost = cost;
            t.run()?;
            if t.value() < -1e-7 {
                return Err("the constraints have no solution".into());
            }
            // Artificials still basic (at zero): pivot each out on any other column, else its
            // row is redundant and stays (its artificial never leaves zero).
            for i in 0..m {
                if t.basis[i] >= first_art {
                    if let Some(j) = (0..first_art).find(|&j| t.at(i, j).abs() > EPS) {
                        t.pivot(i, j);
                    }
                }
            }
            t.barred = first_art..cols;
        }
        // Phase two.
        let mut cost = vec![0.0; cols];
        cost[..n].copy_from_slice(&self.objective);
        t.cost = cost;
        t.run()?;
        Ok(Solved {
            t,
            objective: self.objective.clone(),
        })
    }
}

/// An optimal tableau: its solution, or a second stage from it.
pub(crate) struct Solved {
    t: Tableau,
    objective: Vec<f64>,
}

impl Solved {
    /// The dual values of the rows of a program whose rows are all `≤` with a non-negative
    /// right-hand side (row `i`'s slack is column `n + i`): minus its reduced cost.
    #[cfg(test)]
    fn duals(&self) -> Vec<f64> {
        let n = self.objective.len();
        (0..self.t.rhs.len()).map(|i| -self.t.d[n + i]).collect()
    }

    /// The optimal `x` and objective.
    pub(crate) fn solution(&self) -> (Vec<f64>, f64) {
        let n = self.objective.len();
        let mut x = vec![0.0; n];
        for (i, &b) in self.t.basis.iter().enumerate() {
            if b < n {
                x[b] = self.t.rhs[i];
            }
        }
        let value = self.objective.iter().zip(&x).map(|(c, v)| c * v).sum();
        (x, value)
    }

    /// A second stage: maximise `objective · x` over the same rows plus `x[var] ≥ floor`, from
    /// this optimum (feasible for it when `floor` is at most `x[var]` here: no phase one).
    pub(crate) fn then_maximise(
        mut self,
        objective: Vec<f64>,
        var: usize,
        floor: f64,
    ) -> Result<Solved, String> {
        let n = self.objective.len();
        let t = &mut self.t;
        let (m, old) = (t.rhs.len(), t.cols);
        // One more column (the new row's slack) and row: `−x[var] + s = −floor`, with `x[var]`
        // eliminated through its row when basic, so that `s` starts basic at `x[var] − floor`.
        let cols = old + 1;
        let mut a = vec![0.0; (m + 1) * cols];
        for i in 0..m {
            a[i * cols..i * cols + old].copy_from_slice(&t.a[i * old..(i + 1) * old]);
        }
        let mut rhs = std::mem::take(&mut t.rhs);
        let (above, new) = a.split_at_mut(m * cols);
        new[var] = -1.0;
        new[old] = 1.0;
        let mut b = -floor;
        if let Some(r) = t.basis.iter().position(|&k| k == var) {
            for (v, &w) in new[..old].iter_mut().zip(&above[r * cols..r * cols + old]) {
                *v += w;
            }
            new[var] = 0.0;
            b += rhs[r];
        }
        if b < -1e-9 {
            return Err("the floor is above the current optimum".into());
        }
        rhs.push(b.max(0.0));
        t.a = a;
        t.rhs = rhs;
        t.basis.push(old);
        // The slack column comes after the artificials, which stay barred from entering.
        t.cols = cols;
        let mut cost = vec![0.0; cols];
        cost[..n].copy_from_slice(&objective);
        t.cost = cost;
        t.run()?;
        self.objective = objective;
        Ok(self)
    }
}

/// The dense tableau `B⁻¹A | B⁻¹b` with its basis.
struct Tableau {
    /// Row-major, `rhs.len()` rows of `cols`.
    a: Vec<f64>,
    rhs: Vec<f64>,
    basis: Vec<usize>,
    cols: usize,
    /// The phase's objective (maximised).
    cost: Vec<f64>,
    /// The reduced costs `c_j − c_B · B⁻¹A_j` of every column, kept up to date by the pivots
    /// (and recomputed from scratch before an optimum is declared).
    d: Vec<f64>,
    /// Columns that never enter: the artificials, once phase one is over.
    barred: std::ops::Range<usize>,
    /// The pivot row's non-zero entries (reused).
    scratch: Vec<(usize, f64)>,
}

impl Tableau {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.a[i * self.cols + j]
    }

    /// The current basis's objective value.
    fn value(&self) -> f64 {
        self.basis
            .iter()
            .zip(&self.rhs)
            .map(|(&b, &r)| self.cost[b] * r)
            .sum()
    }

    /// Recompute the reduced costs from the tableau.
    fn reduced(&mut self) {
        let d = &mut self.d;
        d.clear();
        d.extend_from_slice(&self.cost);
        for (i, &b) in self.basis.iter().enumerate() {
            let cb = self.cost[b];
            if cb != 0.0 {
                let row = &self.a[i * self.cols..(i + 1) * self.cols];
                for (dj, &aij) in d.iter_mut().zip(row) {
                    *dj -= cb * aij;
                }
            }
        }
    }

    /// Pivot until no column improves the objective.
    fn run(&mut self) -> Result<(), String> {
        let m = self.rhs.len();
        let limit = 50 * (m + self.cols) + 1000;
        let mut degenerate = 0;
        self.reduced();
        let mut fresh = true;
        for _ in 0..limit {
            let d = &self.d;
            let barred = &self.barred;
            let mut candidates = d
                .iter()
                .enumerate()
                .filter(|&(j, &v)| v > EPS && !barred.contains(&j));
            let entering = if degenerate >= BLAND_AFTER {
                candidates.next().map(|(j, _)| j)
            } else {
                candidates
                    .fold(None::<(usize, f64)>, |best, (j, &v)| match best {
                        Some((_, b)) if b >= v => best,
                        _ => Some((j, v)),
                    })
                    .map(|(j, _)| j)
            };
            let Some(j) = entering else {
                if fresh {
                    return Ok(());
                }
                // Optimal by the updated costs: confirm with costs computed afresh.
                self.reduced();
                fresh = true;
                continue;
            };
            // Ratio test; ties to the smallest basic index.
            let mut leave: Option<(usize, f64)> = None;
            for i in 0..m {
                let aij = self.at(i, j);
                if aij > EPS {
                    let r = self.rhs[i] / aij;
                    let better = match leave {
                        None => true,
                        Some((l, best)) => {
                            r < best - 1e-12 || (r <= best + 1e-12 && self.basis[i] < self.basis[l])
                        }
                    };
                    if better {
                        leave = Some((i, r));
                    }
                }
            }
            let Some((i, r)) = leave else {
                return Err("the objective is unbounded".into());
            };
            degenerate = if r <= 1e-12 { degenerate + 1 } else { 0 };
            self.pivot(i, j);
            fresh = false;
        }
        Err(format!("no optimum after {limit} pivots"))
    }

    /// Make column `j` basic in row `r`.
    fn pivot(&mut self, r: usize, j: usize) {
        let cols = self.cols;
        let p = self.at(r, j);
        {
            let row = &mut self.a[r * cols..(r + 1) * cols];
            for v in row.iter_mut() {
                *v /= p;
            }
            row[j] = 1.0;
        }
        self.rhs[r] /= p;
        // The pivot row's non-zero entries (few: a row couples one class's variables, `t` and
        // some slacks), so that each update costs those alone; `v − f·0` is `v`, so skipping
        // the zeros changes nothing.
        let mut pivot_row = std::mem::take(&mut self.scratch);
        pivot_row.clear();
        pivot_row.extend(
            self.a[r * cols..(r + 1) * cols]
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v != 0.0)
                .map(|(k, &v)| (k, v)),
        );
        let pivot_rhs = self.rhs[r];
        for i in 0..self.rhs.len() {
            if i == r {
                continue;
            }
            let f = self.a[i * cols + j];
            if f != 0.0 {
                let row = &mut self.a[i * cols..(i + 1) * cols];
                for &(k, pv) in &pivot_row {
                    row[k] -= f * pv;
                }
                row[j] = 0.0;
                self.rhs[i] -= f * pivot_rhs;
                if self.rhs[i] < 0.0 && self.rhs[i] > -EPS {
                    self.rhs[i] = 0.0;
                }
            }
        }
        if !self.d.is_empty() {
            let f = self.d[j];
            if f != 0.0 {
                for &(k, pv) in &pivot_row {
                    self.d[k] -= f * pv;
                }
                self.d[j] = 0.0;
            }
        }
        self.scratch = pivot_row;
        self.basis[r] = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Random bounded programs `max c·x, A·x ≤ b, x ≥ 0` (A's entries in [0, 5], every column
    /// with a positive entry, b ≥ 0): the solution is feasible and the tableau's duals certify
    /// it optimal (dual feasible, `Aᵀy ≥ c`, `y ≥ 0`, and the same objective: strong duality).
    #[test]
    fn solutions_carry_an_optimality_certificate(
        (n, m, c, a, b) in (1usize..7, 1usize..7).prop_flat_map(|(n, m)| (
            Just(n),
            Just(m),
            prop::collection::vec(-3i32..6, n),
            prop::collection::vec(0i32..6, n * m),
            prop::collection::vec(0i32..10, m),
        ))
    ) {
        let mut p = Program::default();
        let vars: Vec<usize> = c.iter().map(|&v| p.var(f64::from(v))).collect();
        for i in 0..m {
            let row = (0..n).filter(|&j| a[i * n + j] != 0).map(|j| (vars[j], f64::from(a[i * n + j]))).collect();
            p.row(row, Op::Le, f64::from(b[i]));
        }
        // Every variable bounded: a last row with all of them.
        p.row(vars.iter().map(|&v| (v, 1.0)).collect(), Op::Le, 7.0);
        let solved = p.optimum().unwrap();
        let (x, value) = solved.solution();
        let y = solved.duals();
        let tol = 1e-7;
        let coef = |i: usize, j: usize| if i < m { f64::from(a[i * n + j]) } else { 1.0 };
        let rhs = |i: usize| if i < m { f64::from(b[i]) } else { 7.0 };
        for i in 0..=m {
            let lhs: f64 = (0..n).map(|j| coef(i, j) * x[j]).sum();
            prop_assert!(lhs <= rhs(i) + tol, "row {i}: {lhs} > {}", rhs(i));
            prop_assert!(y[i] >= -tol, "dual {i} = {}", y[i]);
        }
        for j in 0..n {
            prop_assert!(x[j] >= -tol);
            let aty: f64 = (0..=m).map(|i| coef(i, j) * y[i]).sum();
            prop_assert!(aty >= f64::from(c[j]) - tol, "column {j}: {aty} < {}", c[j]);
        }
        let dual: f64 = (0..=m).map(|i| rhs(i) * y[i]).sum();
        prop_assert!((dual - value).abs() <= tol * (1.0 + value.abs()), "primal {value}, dual {dual}");
    }
    }

    #[test]
    fn solves_a_textbook_program() {
        // Chvátal's first example: max 5x + 4y + 3z, 2x + 3y + z ≤ 5, 4x + y + 2z ≤ 11,
        // 3x + 4y + 2z ≤ 8: optimum 13 at (2, 0, 1).
        let mut p = Program::default();
        let (x, y, z) = (p.var(5.0), p.var(4.0), p.var(3.0));
        p.row(vec![(x, 2.0), (y, 3.0), (z, 1.0)], Op::Le, 5.0);
        p.row(vec![(x, 4.0), (y, 1.0), (z, 2.0)], Op::Le, 11.0);
        p.row(vec![(x, 3.0), (y, 4.0), (z, 2.0)], Op::Le, 8.0);
        let (v, obj) = p.solve().unwrap();
        assert!((obj - 13.0).abs() < 1e-9, "{obj}");
        assert!((v[0] - 2.0).abs() < 1e-9 && v[1].abs() < 1e-9 && (v[2] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn phase_one_finds_a_start_and_reports_infeasibility() {
        // max −x − y, x + y ≥ 2, x ≤ 3: optimum −2.
        let mut p = Program::default();
        let (x, y) = (p.var(-1.0), p.var(-1.0));
        p.row(vec![(x, 1.0), (y, 1.0)], Op::Ge, 2.0);
        p.row(vec![(x, 1.0)], Op::Le, 3.0);
        let (v, obj) = p.solve().unwrap();
        assert!((obj + 2.0).abs() < 1e-9 && (v[0] + v[1] - 2.0).abs() < 1e-9);
        // x ≥ 2 and x ≤ 1.
        let mut q = Program::default();
        let x = q.var(1.0);
        q.row(vec![(x, 1.0)], Op::Ge, 2.0);
        q.row(vec![(x, 1.0)], Op::Le, 1.0);
        assert!(q.solve().is_err());
        // max x with nothing bounding it.
        let mut u = Program::default();
        let x = u.var(1.0);
        u.row(vec![(x, 1.0)], Op::Ge, 0.0);
        assert!(u.solve().unwrap_err().contains("unbounded"));
    }

    #[test]
    fn a_negative_right_hand_side_flips_the_row() {
        // max x, −x ≥ −4 (x ≤ 4).
        let mut p = Program::default();
        let x = p.var(1.0);
        p.row(vec![(x, -1.0)], Op::Ge, -4.0);
        let (v, obj) = p.solve().unwrap();
        assert!((v[0] - 4.0).abs() < 1e-12 && (obj - 4.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_programs_terminate() {
        // Beale's example, which cycles under Dantzig's rule with the textbook tie-breaking:
        // max 3/4 x4 − 20 x5 + 1/2 x6 − 6 x7 subject to three rows; optimum 5/4 at x4 = x6 = 1.
        let mut p = Program::default();
        let v: Vec<usize> = [0.75, -20.0, 0.5, -6.0].iter().map(|&c| p.var(c)).collect();
        p.row(
            vec![(v[0], 0.25), (v[1], -8.0), (v[2], -1.0), (v[3], 9.0)],
            Op::Le,
            0.0,
        );
        p.row(
            vec![(v[0], 0.5), (v[1], -12.0), (v[2], -0.5), (v[3], 3.0)],
            Op::Le,
            0.0,
        );
        p.row(vec![(v[2], 1.0)], Op::Le, 1.0);
        let (x, obj) = p.solve().unwrap();
        assert!((obj - 1.25).abs() < 1e-9, "{obj}");
        assert!(
            (x[0] - 1.0).abs() < 1e-9 && (x[2] - 1.0).abs() < 1e-9,
            "{x:?}"
        );
    }
}
