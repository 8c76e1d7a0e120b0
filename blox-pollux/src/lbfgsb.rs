//! A small bounded quasi-Newton minimiser (projected L-BFGS) for the agent's 7-parameter fit,
//! [`crate::goodput::FitRule::Projected`].
//!
//! It follows L-BFGS-B's outline and its default stopping rules (memory 10, relative reduction
//! `factr · ε` with `factr = 1e7`, projected-gradient tolerance `1e-5`), with at most 200
//! iterations per call (the fit calls it several times from warm points), but not its iterates:
//! free variables are those not held at a bound by the gradient; the two-loop recursion gives a
//! direction on them; a backtracking Armijo search runs along the projected path, so iterates
//! stay feasible. Variables with equal bounds are fixed. [`crate::lbfgsb3`] is scipy's
//! L-BFGS-B itself (the generalized Cauchy point, subspace minimisation and Moré–Thuente
//! search), which Sia's fit uses.

const M: usize = 10;
pub(crate) const FTOL: f64 = 1e7 * f64::EPSILON;
const PGTOL: f64 = 1e-5;
const MAX_ITER: usize = 200;

fn project(x: &mut [f64; 7], lo: &[f64; 7], hi: &[f64; 7]) {
    for i in 0..7 {
        x[i] = x[i].clamp(lo[i], hi[i]);
    }
}

fn dot(a: &[f64; 7], b: &[f64; 7]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What the line search accepts: a value below `below` and at most `armijo`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cut {
    /// The current value (a trial must improve on it).
    pub(crate) below: f64,
    /// The sufficient-decrease bound.
    pub(crate) armijo: f64,
}

impl Cut {
    /// Whether a trial valued `v` (or more) is rejected; true for NaN.
    pub(crate) fn rejects(self, v: f64) -> bool {
        !(v < self.below && v <= self.armijo)
    }
}

/// A function to minimise, evaluated in two parts so that a rejected trial point costs no
/// gradient and, where the objective can tell early, not even its whole value.
pub(crate) trait Objective {
    /// The value at `x`. With a `cut`, `None` means the value is certainly rejected by it (the
    /// implementation may stop early); it must never answer `None` for a value the cut accepts.
    fn value(&mut self, x: &[f64; 7], cut: Option<Cut>) -> Option<f64>;
    /// The gradient at `x`, the point of the last `value` call (which returned a value).
    fn gradient(&mut self, x: &[f64; 7], grad: &mut [f64; 7]);
}

/// Minimise `f` from `x0` within `[lo, hi]`, stopping when an iteration reduces the value by
/// at most `ftol` relatively (confirmed by a steepest-descent step).
pub(crate) fn minimize(
    f: &mut impl Objective,
    x0: [f64; 7],
    lo: [f64; 7],
    hi: [f64; 7],
    ftol: f64,
) -> [f64; 7] {
    let mut x = x0;
    project(&mut x, &lo, &hi);
    let mut g = [0.0; 7];
    let Some(mut fx) = f.value(&x, None) else {
        return x;
    };
    if !fx.is_finite() {
        return x;
    }
    f.gradient(&x, &mut g);
    let mut hist: Vec<([f64; 7], [f64; 7], f64)> = Vec::with_capacity(M);
    for iter in 0..MAX_ITER {
        // Free variables: not fixed and not pushed against an active bound.
        let mut free = [false; 7];
        let mut pg_max: f64 = 0.0;
        for i in 0..7 {
            let at_lo = x[i] <= lo[i] && g[i] > 0.0;
            let at_hi = x[i] >= hi[i] && g[i] < 0.0;
            free[i] = lo[i] < hi[i] && !at_lo && !at_hi;
            if free[i] {
                pg_max = pg_max.max(g[i].abs());
            }
        }
        if pg_max <= PGTOL {
            break;
        }
        let mut q = [0.0; 7];
        for i in 0..7 {
            q[i] = if free[i] { g[i] } else { 0.0 };
        }
        let mut alpha = [0.0; M];
        for (k, (s, y, rho)) in hist.iter().enumerate().rev() {
            let mut sq = 0.0;
            for i in 0..7 {
                if free[i] {
                    sq += s[i] * q[i];
                }
            }
            alpha[k] = rho * sq;
            for i in 0..7 {
                if free[i] {
                    q[i] -= alpha[k] * y[i];
                }
            }
        }
        if let Some((s, y, _)) = hist.last() {
            let yy = dot(y, y);
            if yy > 0.0 {
                let gamma = dot(s, y) / yy;
                for v in &mut q {
                    *v *= gamma;
                }
            }
        }
        for (k, (s, y, rho)) in hist.iter().enumerate() {
            let mut yq = 0.0;
            for i in 0..7 {
                if free[i] {
                    yq += y[i] * q[i];
                }
            }
            let beta = rho * yq;
            for i in 0..7 {
                if free[i] {
                    q[i] += s[i] * (alpha[k] - beta);
                }
            }
        }
        let mut d = [0.0; 7];
        for i in 0..7 {
            d[i] = if free[i] { -q[i] } else { 0.0 };
        }
        let mut slope = dot(&d, &g);
        if slope >= 0.0 || !slope.is_finite() {
            hist.clear();
            for i in 0..7 {
                d[i] = if free[i] { -g[i] } else { 0.0 };
            }
            slope = dot(&d, &g);
        }
        // First step as L-BFGS-B: at most a unit step in the infinity norm.
        let mut t = if iter == 0 || hist.is_empty() {
            let dn = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            (1.0 / dn).min(1.0)
        } else {
            1.0
        };
        let mut accepted = None;
        for _ in 0..60 {
            let mut xn = x;
            for i in 0..7 {
                xn[i] += t * d[i];
            }
            project(&mut xn, &lo, &hi);
            let mut dec = 0.0;
            for i in 0..7 {
                dec += g[i] * (xn[i] - x[i]);
            }
            let cut = Cut {
                below: fx,
                armijo: fx + 1e-4 * dec.min(0.0),
            };
            if let Some(fnew) = f.value(&xn, Some(cut)) {
                if fnew.is_finite() && !cut.rejects(fnew) {
                    let mut gn = [0.0; 7];
                    f.gradient(&xn, &mut gn);
                    accepted = Some((xn, gn, fnew));
                    break;
                }
            }
            t *= 0.5;
        }
        let Some((xn, gn, fnew)) = accepted else {
            if hist.is_empty() {
                break;
            }
            // The quasi-Newton model misled the search: restart from steepest descent.
            hist.clear();
            continue;
        };
        let mut s = [0.0; 7];
        let mut y = [0.0; 7];
        for i in 0..7 {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        let sy = dot(&s, &y);
        if sy > f64::EPSILON * dot(&y, &y) {
            if hist.len() == M {
                hist.remove(0);
            }
            hist.push((s, y, 1.0 / sy));
        }
        let rel = (fx - fnew) / fx.abs().max(fnew.abs()).max(1.0);
        x = xn;
        g = gn;
        fx = fnew;
        if rel <= ftol {
            if hist.is_empty() {
                break;
            }
            // Stalled on a quasi-Newton step: confirm with a fresh steepest-descent step.
            hist.clear();
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value-and-gradient closure as an [`Objective`].
    struct Smooth<F>(F, [f64; 7]);

    impl<F: FnMut(&[f64; 7], &mut [f64; 7]) -> f64> Objective for Smooth<F> {
        fn value(&mut self, x: &[f64; 7], _cut: Option<Cut>) -> Option<f64> {
            Some((self.0)(x, &mut self.1))
        }
        fn gradient(&mut self, _x: &[f64; 7], grad: &mut [f64; 7]) {
            *grad = self.1;
        }
    }

    #[test]
    fn finds_a_bounded_minimum() {
        // (x0 − 3)² + (x1 + 1)² + Σ others², with x0 ≤ 2 and x1 ≥ 0: optimum (2, 0, 0, ...).
        let f = |x: &[f64; 7], g: &mut [f64; 7]| {
            let mut v = (x[0] - 3.0).powi(2) + (x[1] + 1.0).powi(2);
            g[0] = 2.0 * (x[0] - 3.0);
            g[1] = 2.0 * (x[1] + 1.0);
            for i in 2..7 {
                v += (x[i] - 0.5 * i as f64).powi(2);
                g[i] = 2.0 * (x[i] - 0.5 * i as f64);
            }
            v
        };
        let lo = [-10.0, 0.0, -10.0, -10.0, -10.0, -10.0, -10.0];
        let hi = [2.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
        let x = minimize(&mut Smooth(f, [0.0; 7]), [0.0; 7], lo, hi, FTOL);
        assert!((x[0] - 2.0).abs() < 1e-6 && x[1].abs() < 1e-6);
        for (i, xi) in x.iter().enumerate().skip(2) {
            assert!((xi - 0.5 * i as f64).abs() < 1e-4);
        }
    }
}
