//! Piecewise-linear interpolation of step times for placements of five or more nodes.
//!
//! The artifact interpolates `(step_time, sync_time)` over points `(num_nodes, num_replicas,
//! local_bsz)` on a 3-D Delaunay triangulation (scipy's `LinearNDInterpolator`, i.e. qhull). The
//! points lie on a grid, so the triangulation is not unique and another triangulator would give
//! other values. The triangulation qhull builds is therefore shipped as data
//! (`data/delaunay/<app>.txt`, made by `tools/pollux_delaunay.py` from the traces): the vertex
//! coordinates and the simplices that reach five or more nodes. The values come from the traces
//! at run time; this module only locates the query and interpolates barycentrically.

use crate::trace::StepTime;

/// Inverse of the matrix whose columns are `v_j − v_3`, and `v_3`.
type Transform = ([[f64; 3]; 3], [f64; 3]);

/// A tetrahedral mesh with values at its vertices, and scipy's point location on it.
#[derive(Debug, Clone)]
pub(crate) struct Triangulation {
    values: Vec<StepTime>,
    simplices: Vec<[usize; 4]>,
    neighbors: Vec<[i64; 4]>,
    /// Per simplex: inverse of the matrix whose columns are `v_j − v_3`, and `v_3`; `None` for a
    /// flat simplex (scipy's NaN transform).
    transforms: Vec<Option<Transform>>,
    /// Per simplex: the hyperplane of its facet on the lifted paraboloid.
    equations: Vec<[f64; 5]>,
    min_bound: [f64; 3],
    max_bound: [f64; 3],
    scale: f64,
    shift: f64,
}

fn fixture(name: &str) -> Option<&'static str> {
    Some(match name {
        "bert" => include_str!("../data/delaunay/bert.txt"),
        "cifar10" => include_str!("../data/delaunay/cifar10.txt"),
        "deepspeech2" => include_str!("../data/delaunay/deepspeech2.txt"),
        "imagenet" => include_str!("../data/delaunay/imagenet.txt"),
        "ncf" => include_str!("../data/delaunay/ncf.txt"),
        "yolov3" => include_str!("../data/delaunay/yolov3.txt"),
        _ => return None,
    })
}

fn parse_nums<T: std::str::FromStr, const N: usize>(line: &str) -> Option<[T; N]> {
    let mut it = line.split_whitespace();
    let mut out = Vec::with_capacity(N);
    for _ in 0..N {
        out.push(it.next()?.parse().ok()?);
    }
    if it.next().is_some() {
        return None;
    }
    out.try_into().ok()
}

fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

const EPS: f64 = 100.0 * f64::EPSILON;

impl Triangulation {
    /// The shipped triangulation for application `name` with values from `points`; `None` for an
    /// application without one (its large placements then have no step time).
    pub(crate) fn for_application(
        name: &str,
        points: &[([u64; 3], StepTime)],
    ) -> Result<Option<Triangulation>, String> {
        let Some(text) = fixture(name) else {
            return Ok(None);
        };
        Triangulation::parse(text, points).map(Some)
    }

    fn parse(text: &str, points: &[([u64; 3], StepTime)]) -> Result<Triangulation, String> {
        let mut lines = text.lines().filter(|l| !l.starts_with('#'));
        let mut header = |what: &str| -> Result<Vec<String>, String> {
            lines
                .next()
                .and_then(|l| l.strip_prefix(what))
                .map(|r| r.split_whitespace().map(str::to_string).collect())
                .ok_or_else(|| format!("fixture: expected `{what} ...`"))
        };
        let pb = header("paraboloid")?;
        let num = |v: Option<&String>| -> Result<f64, String> {
            v.and_then(|s| s.parse().ok())
                .ok_or_else(|| "fixture: bad number".to_string())
        };
        let (scale, shift) = (num(pb.first())?, num(pb.get(1))?);
        let np = num(header("points")?.first())? as usize;
        let mut coords = Vec::with_capacity(np);
        let mut values = Vec::with_capacity(np);
        let mut rest = text.lines().filter(|l| !l.starts_with('#')).skip(2);
        for _ in 0..np {
            let c: [u64; 3] = rest
                .next()
                .and_then(parse_nums)
                .ok_or("fixture: bad point line")?;
            let v = points
                .iter()
                .find(|(k, _)| *k == c)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    format!(
                        "the shipped triangulation has a vertex {c:?} that the traces lack \
                     (traces differ from the artifact's)"
                    )
                })?;
            coords.push(c.map(|x| x as f64));
            values.push(v);
        }
        if points.len() != np {
            return Err(format!(
                "the traces give {} interpolation points, the shipped triangulation {np}",
                points.len()
            ));
        }
        let ns: usize = rest
            .next()
            .and_then(|l| l.strip_prefix("simplices"))
            .and_then(|n| n.trim().parse().ok())
            .ok_or("fixture: expected `simplices N`")?;
        let mut simplices = Vec::with_capacity(ns);
        let mut neighbors = Vec::with_capacity(ns);
        for _ in 0..ns {
            let r: [i64; 8] = rest
                .next()
                .and_then(parse_nums)
                .ok_or("fixture: bad simplex line")?;
            let s = [r[0], r[1], r[2], r[3]];
            if s.iter().any(|&i| i < 0 || i as usize >= np)
                || r[4..].iter().any(|&n| n < -1 || n >= ns as i64)
            {
                return Err("fixture: index out of range".into());
            }
            simplices.push(s.map(|i| i as usize));
            neighbors.push([r[4], r[5], r[6], r[7]]);
        }
        let lift = |p: &[f64; 3]| -> [f64; 4] {
            [
                p[0],
                p[1],
                p[2],
                (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) * scale + shift,
            ]
        };
        let mut transforms = Vec::with_capacity(ns);
        let mut equations = Vec::with_capacity(ns);
        for s in &simplices {
            let v = s.map(|i| coords[i]);
            let o = v[3];
            let m: [[f64; 3]; 3] = std::array::from_fn(|r| std::array::from_fn(|c| v[c][r] - o[r]));
            // Integer coordinates: a flat simplex has a determinant of exactly zero.
            transforms.push(if det3(&m) == 0.0 {
                None
            } else {
                invert(&m).map(|i| (i, o))
            });
            let l = s.map(|i| lift(&coords[i]));
            let a: [[f64; 4]; 3] =
                std::array::from_fn(|k| std::array::from_fn(|d| l[k + 1][d] - l[0][d]));
            let mut n = [0.0; 4];
            for (k, nk) in n.iter_mut().enumerate() {
                let cols: Vec<usize> = (0..4).filter(|&c| c != k).collect();
                let minor: [[f64; 3]; 3] =
                    std::array::from_fn(|r| std::array::from_fn(|c| a[r][cols[c]]));
                *nk = if k % 2 == 0 {
                    det3(&minor)
                } else {
                    -det3(&minor)
                };
            }
            let norm = n.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                for x in &mut n {
                    *x /= norm;
                }
            }
            if n[3] > 0.0 {
                for x in &mut n {
                    *x = -*x;
                }
            }
            let off = -(n[0] * l[0][0] + n[1] * l[0][1] + n[2] * l[0][2] + n[3] * l[0][3]);
            equations.push([n[0], n[1], n[2], n[3], off]);
        }
        let ne: usize = rest
            .next()
            .and_then(|l| l.strip_prefix("equations"))
            .and_then(|n| n.trim().parse().ok())
            .ok_or("fixture: expected `equations N`")?;
        for _ in 0..ne {
            let line = rest.next().ok_or("fixture: missing equation line")?;
            let mut it = line.split_whitespace();
            let i: usize = it
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or("fixture: bad equation")?;
            let e: [f64; 5] =
                parse_nums(&it.collect::<Vec<_>>().join(" ")).ok_or("fixture: bad equation")?;
            *equations
                .get_mut(i)
                .ok_or("fixture: equation index out of range")? = e;
        }
        let mut min_bound = [f64::INFINITY; 3];
        let mut max_bound = [f64::NEG_INFINITY; 3];
        for c in &coords {
            for d in 0..3 {
                min_bound[d] = min_bound[d].min(c[d]);
                max_bound[d] = max_bound[d].max(c[d]);
            }
        }
        Ok(Triangulation {
            values,
            simplices,
            neighbors,
            transforms,
            equations,
            min_bound,
            max_bound,
            scale,
            shift,
        })
    }

    fn outside(&self, x: &[f64; 3]) -> bool {
        (0..3).any(|i| x[i] < self.min_bound[i] - EPS || x[i] > self.max_bound[i] + EPS)
    }

    fn distplane(&self, s: usize, z: &[f64; 4]) -> f64 {
        let e = &self.equations[s];
        let mut d = e[4];
        for k in 0..4 {
            d += e[k] * z[k];
        }
        d
    }

    fn coord(t: &Transform, x: &[f64; 3], c: &mut [f64; 4], i: usize) {
        if i == 3 {
            c[3] = 1.0 - c[0] - c[1] - c[2];
        } else {
            c[i] = 0.0;
            for j in 0..3 {
                c[i] += t.0[i][j] * (x[j] - t.1[j]);
            }
        }
    }

    fn coords(t: &Transform, x: &[f64; 3]) -> [f64; 4] {
        let mut c = [0.0; 4];
        c[3] = 1.0;
        for i in 0..3 {
            Triangulation::coord(t, x, &mut c, i);
            c[3] -= c[i];
        }
        c
    }

    fn bruteforce(&self, x: &[f64; 3], c: &mut [f64; 4]) -> Option<usize> {
        const EPS_BROAD: f64 = 1.490_116_119_384_765_6e-8; // sqrt(DBL_EPSILON)
        if self.outside(x) {
            return None;
        }
        let inside = |c: &[f64; 4]| c.iter().all(|&v| (-EPS..=1.0 + EPS).contains(&v));
        for s in 0..self.simplices.len() {
            if let Some(t) = &self.transforms[s] {
                *c = Triangulation::coords(t, x);
                if inside(c) {
                    return Some(s);
                }
            } else {
                for k in 0..4 {
                    let nb = self.neighbors[s][k];
                    if nb < 0 {
                        continue;
                    }
                    let nb = nb as usize;
                    let Some(t) = &self.transforms[nb] else {
                        continue;
                    };
                    *c = Triangulation::coords(t, x);
                    let ok = (0..4).all(|m| {
                        let lo = if self.neighbors[nb][m] == s as i64 {
                            -EPS_BROAD
                        } else {
                            -EPS
                        };
                        c[m] >= lo && c[m] <= 1.0 + EPS
                    });
                    if ok {
                        return Some(nb);
                    }
                }
            }
        }
        None
    }

    fn directed(&self, x: &[f64; 3], start: usize, c: &mut [f64; 4]) -> Option<usize> {
        let mut s = start as i64;
        for _ in 0..1 + self.simplices.len() / 4 {
            if s < 0 {
                return None;
            }
            let cur = s as usize;
            let mut inside = 1;
            for k in 0..4 {
                match &self.transforms[cur] {
                    Some(t) => Triangulation::coord(t, x, c, k),
                    None => c[k] = f64::NAN,
                }
                if c[k] < -EPS {
                    let m = self.neighbors[cur][k];
                    if m == -1 {
                        return None;
                    }
                    s = m;
                    inside = -1;
                    break;
                } else if c[k] <= 1.0 + EPS {
                } else {
                    inside = 0;
                }
            }
            match inside {
                -1 => continue,
                1 => return Some(cur),
                _ => return self.bruteforce(x, c),
            }
        }
        self.bruteforce(x, c)
    }

    /// The interpolated value at `x` as scipy's `LinearNDInterpolator` computes it (a paraboloid
    /// walk from simplex 0, then a directed walk, then brute force), or `None` outside.
    pub(crate) fn interpolate(&self, x: [f64; 3]) -> Option<StepTime> {
        if self.outside(&x) || self.simplices.is_empty() {
            return None;
        }
        let z = [
            x[0],
            x[1],
            x[2],
            (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) * self.scale + self.shift,
        ];
        let mut s = 0usize;
        let mut best = self.distplane(s, &z);
        let mut changed = true;
        while changed {
            if best > 0.0 {
                break;
            }
            changed = false;
            for k in 0..4 {
                let nb = self.neighbors[s][k];
                if nb == -1 {
                    continue;
                }
                let d = self.distplane(nb as usize, &z);
                if d > best + EPS * (1.0 + best.abs()) {
                    s = nb as usize;
                    best = d;
                    changed = true;
                }
            }
        }
        let mut c = [0.0; 4];
        let found = self.directed(&x, s, &mut c)?;
        let mut out = (0.0, 0.0);
        for (k, &ck) in c.iter().enumerate() {
            let v = self.values[self.simplices[found][k]];
            out.0 += ck * v.0;
            out.1 += ck * v.1;
        }
        Some(out)
    }
}

fn invert(m: &[[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = [
        [
            (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det,
            (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det,
            (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det,
        ],
        [
            (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det,
            (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det,
            (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det,
        ],
        [
            (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det,
            (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det,
            (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det,
        ],
    ];
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_linearly_inside_one_tetrahedron() {
        let text = "paraboloid 1 0\npoints 4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\nsimplices 1\n0 1 2 3 -1 -1 -1 -1\nequations 0\n";
        let pts = vec![
            ([0, 0, 0], (1.0, 0.0)),
            ([1, 0, 0], (2.0, 1.0)),
            ([0, 1, 0], (3.0, 2.0)),
            ([0, 0, 1], (5.0, 4.0)),
        ];
        let t = Triangulation::parse(text, &pts).unwrap();
        let (a, b) = t.interpolate([0.25, 0.25, 0.25]).unwrap();
        // f = 1 + x + 2y + 4z, g = x + 2y + 4z.
        assert!((a - (1.0 + 0.25 + 0.5 + 1.0)).abs() < 1e-12);
        assert!((b - 1.75).abs() < 1e-12);
        assert!(t.interpolate([1.0, 1.0, 1.0]).is_none());
    }

    #[test]
    fn rejects_a_vertex_the_traces_lack() {
        let text = "paraboloid 1 0\npoints 1\n9 9 9\nsimplices 0\nequations 0\n";
        assert!(Triangulation::parse(text, &[])
            .unwrap_err()
            .contains("lack"));
    }
}
