//! Piecewise-linear interpolation on the Delaunay triangulation of a point set, without
//! building the triangulation: the Delaunay simplex containing a query `q` is the facet of the
//! lower convex hull of the points lifted onto the paraboloid that lies below `q`, i.e. the
//! optimal basis of the linear program
//!
//! `min Σ λ_i |p_i − q|²  s.t.  Σ λ_i (p_i − q) = 0,  Σ λ_i = 1,  λ ≥ 0`,
//!
//! whose optimal `λ` are the barycentric coordinates of `q` in that simplex. Where the
//! triangulation is unique this is the value scipy's `LinearNDInterpolator` gives; where the
//! points are cospherical (grids) the Delaunay cell is not a simplex, any triangulation of it is
//! Delaunay, and qhull's choice may differ from the basis found here (SIA-SEMANTICS §13.4).
//! Used for Sia's per-type traces, which have no shipped triangulation.

/// Interpolate at `q` the values `vals[i]` given at `points[i]`; `None` outside the convex
/// hull (scipy's NaN).
pub(crate) fn interpolate(
    points: &[[f64; 3]],
    vals: &[(f64, f64)],
    q: [f64; 3],
) -> Option<(f64, f64)> {
    let n = points.len();
    if n == 0 {
        return None;
    }
    const M: usize = 4;
    // Tableau: M rows of [n variables | M artificials | rhs]; costs separately.
    let width = n + M + 1;
    let mut t = vec![0.0f64; M * width];
    for (j, p) in points.iter().enumerate() {
        for r in 0..3 {
            t[r * width + j] = p[r] - q[r];
        }
        t[3 * width + j] = 1.0;
    }
    for r in 0..M {
        t[r * width + n + r] = 1.0;
    }
    t[3 * width + n + M] = 1.0;
    let cost: Vec<f64> = points
        .iter()
        .map(|p| (0..3).map(|r| (p[r] - q[r]).powi(2)).sum())
        .collect();
    let mut basis: Vec<usize> = (n..n + M).collect();
    let scale = cost.iter().copied().fold(1.0f64, f64::max);
    let eps = 1e-9;
    // Phase 1 (artificial costs 1), then phase 2 (the lifted heights, artificials barred).
    for phase in 0..2 {
        let c = |j: usize| -> f64 {
            if phase == 0 {
                if j >= n {
                    1.0
                } else {
                    0.0
                }
            } else if j >= n {
                f64::INFINITY
            } else {
                cost[j] / scale
            }
        };
        for _ in 0..10_000 {
            // Duals: y = c_B B^-1 is implicit in the tableau; reduced cost d_j = c_j − Σ_r c_B[r] t[r][j].
            let cb: Vec<f64> = basis
                .iter()
                .map(|&b| if c(b).is_finite() { c(b) } else { 0.0 })
                .collect();
            let mut enter = None;
            let mut best = -eps;
            for j in 0..n + M {
                let cj = c(j);
                if !cj.is_finite() || basis.contains(&j) {
                    continue;
                }
                let d = cj - (0..M).map(|r| cb[r] * t[r * width + j]).sum::<f64>();
                if d < best {
                    best = d;
                    enter = Some(j);
                }
            }
            let Some(e) = enter else { break };
            // Ratio test (lowest ratio, then lowest basis index: deterministic).
            let mut leave: Option<(usize, f64)> = None;
            for r in 0..M {
                let a = t[r * width + e];
                if a > eps {
                    let ratio = t[r * width + n + M] / a;
                    if leave.map_or(true, |(lr, lv)| {
                        ratio < lv - 1e-12 || (ratio <= lv + 1e-12 && basis[r] < basis[lr])
                    }) {
                        leave = Some((r, ratio));
                    }
                }
            }
            let Some((lr, _)) = leave else {
                return None; // unbounded: cannot happen with Σ λ = 1
            };
            let piv = t[lr * width + e];
            for k in 0..width {
                t[lr * width + k] /= piv;
            }
            for r in 0..M {
                if r != lr {
                    let f = t[r * width + e];
                    if f != 0.0 {
                        for k in 0..width {
                            t[r * width + k] -= f * t[lr * width + k];
                        }
                    }
                }
            }
            basis[lr] = e;
        }
        if phase == 0 {
            let infeasibility: f64 = (0..M)
                .filter(|&r| basis[r] >= n)
                .map(|r| t[r * width + n + M])
                .sum();
            if infeasibility > 1e-7 {
                return None;
            }
        }
    }
    let mut st = 0.0;
    let mut sy = 0.0;
    let mut total = 0.0;
    for r in 0..M {
        let b = basis[r];
        let lam = t[r * width + n + M];
        if b < n && lam > 0.0 {
            st += lam * vals[b].0;
            sy += lam * vals[b].1;
            total += lam;
        }
    }
    ((total - 1.0).abs() < 1e-6).then_some((st, sy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_data_is_reproduced_inside_and_refused_outside() {
        // A non-degenerate cloud; values linear in the coordinates are interpolated exactly.
        let pts = [
            [0.0, 0.0, 0.0],
            [4.0, 0.5, 0.2],
            [0.3, 5.0, 0.1],
            [0.2, 0.4, 6.0],
            [3.1, 3.7, 2.9],
            [1.3, 2.2, 4.1],
        ];
        let f = |p: &[f64; 3]| (1.0 + 2.0 * p[0] - p[1] + 0.5 * p[2], 3.0 * p[2]);
        let vals: Vec<(f64, f64)> = pts.iter().map(f).collect();
        for q in [[1.0, 1.0, 1.0], [0.5, 0.5, 0.5], [2.0, 2.0, 1.5]] {
            let (a, b) = interpolate(&pts, &vals, q).unwrap();
            let (wa, wb) = f(&q);
            assert!((a - wa).abs() < 1e-9 && (b - wb).abs() < 1e-9, "{q:?}");
        }
        assert!(interpolate(&pts, &vals, [-1.0, 0.0, 0.0]).is_none());
        // A vertex gives its own value.
        assert_eq!(
            interpolate(&pts, &vals, pts[4]).map(|v| v.1),
            Some(vals[4].1)
        );
    }
}
