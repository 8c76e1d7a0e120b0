//! Sia's Gavel+TunedJobs baseline (`gavel.py` with `max_sum_throughput`, SIA-SEMANTICS §7.1):
//! fixed GPU counts and batches, a throughput LP per round, priorities from time received,
//! a greedy selection and worker assignment that keeps previous workers.
//!
//! The LP (ECOS in the original, an interior-point method) is solved here by a log-barrier
//! path-following method to a duality gap of 1e-10, so where the optimum is not unique (it is
//! highly degenerate, SIA-SEMANTICS §13.8) it returns the analytic centre of the optimal face,
//! the point ECOS's path approaches; a simplex's vertex halves the restarts on the saturn
//! workloads. Every job of the five test vectors of §11.1 gets the original's JCT and restarts,
//! and the 10 saturn workloads give the artifact README's figures (§12) to 4 digits.

use crate::cluster::SiaCluster;
use crate::job::SiaJob;
use crate::model::slowdown;
use crate::policy::Decision;
use crate::sim::{HeteroPolicy, SimError};

/// The Gavel baseline's state.
#[derive(Debug, Clone)]
pub struct GavelBaseline {
    interval: f64,
    /// Per job: time received per type (`None` before the job was first seen).
    received: Vec<Option<Vec<f64>>>,
    /// Per type: total time handed out.
    totals: Vec<f64>,
    /// Per job: last round's decision.
    last: Vec<Decision>,
}

impl GavelBaseline {
    /// The baseline for `jobs` jobs on `cluster`, rounds of `interval` seconds (360 in Sia's
    /// runs).
    pub fn new(cluster: &SiaCluster, jobs: usize, interval: f64) -> GavelBaseline {
        GavelBaseline {
            interval,
            received: vec![None; jobs],
            totals: vec![0.0; cluster.types.len()],
            last: vec![None; jobs],
        }
    }
}

/// Iterations per second of `job` with its fixed GPU count on type `t` (§7.1 step 2).
pub(crate) fn throughput(
    job: &SiaJob,
    cluster: &SiaCluster,
    t: usize,
    largest: u32,
) -> Result<f64, SimError> {
    let k = job.target_num_replicas;
    if k > largest {
        return Ok(0.1);
    }
    let gpn = cluster.types[t].gpus_per_node;
    let mut placement = vec![gpn; (k / gpn) as usize];
    if k % gpn > 0 {
        placement.push(k % gpn);
    }
    let app = &job.app.per_type[t];
    let lmax = app
        .max_local_bsz_at(&placement)
        .unwrap_or(app.max_local_bsz) as f64;
    let b = job.target_batch_size as f64;
    let local = (b / f64::from(k)).ceil();
    let mut accum = ((local / lmax).ceil() - 1.0).max(0.0);
    if k == 1 {
        accum = accum.max(1.0);
    }
    let mut atomic = (local / (accum + 1.0)).ceil();
    atomic = atomic.min((app.max_batch_size as f64 / (f64::from(k) * (accum + 1.0))).floor());
    let (st, sy) = app.step_time(&placement, atomic as u64).ok_or_else(|| {
        SimError::Model(blox_pollux::ModelError {
            job: job.name.clone(),
            message: format!(
                "Gavel's estimate: no step time for {placement:?} at per-GPU batch {atomic}"
            ),
        })
    })?;
    Ok(1.0 / (st + accum * (st - sy)) / slowdown(&job.app.name))
}

/// Maximise `Σ c[i][w]·x[i][w]` subject to `Σ_w x[i][w] ≤ 1` per job, `Σ_i k[i]·x[i][w] ≤
/// cap[w]` per type and `x ≥ 0` by a log-barrier path-following method, to a duality gap of
/// 1e-10: where the optimum is not unique it returns (to that precision) the analytic centre of
/// the optimal face, the point ECOS's interior-point path approaches (SIA-SEMANTICS §13.8).
fn barrier_max(c: &[Vec<f64>], k: &[f64], cap: &[f64]) -> Vec<Vec<f64>> {
    let (nj, nt) = (c.len(), cap.len());
    let nv = nj * nt;
    if nv == 0 {
        return vec![vec![0.0; nt]; nj];
    }
    let scale = c
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    let cc: Vec<f64> = c.iter().flatten().map(|v| v / scale).collect();
    let ksum: f64 = k.iter().sum();
    let start =
        0.5 * (1.0 / nt as f64).min(cap.iter().fold(f64::INFINITY, |m, &v| m.min(v)) / ksum);
    let mut x = vec![start; nv];
    let m_constraints = (nv + nj + nt) as f64;
    let slacks = |x: &[f64]| -> (Vec<f64>, Vec<f64>) {
        let sj = (0..nj)
            .map(|i| 1.0 - (0..nt).map(|w| x[i * nt + w]).sum::<f64>())
            .collect();
        let sw = (0..nt)
            .map(|w| cap[w] - (0..nj).map(|i| k[i] * x[i * nt + w]).sum::<f64>())
            .collect();
        (sj, sw)
    };
    let phi = |x: &[f64], t: f64| -> f64 {
        let (sj, sw) = slacks(x);
        if x.iter().any(|&v| v <= 0.0) || sj.iter().chain(&sw).any(|&v| v <= 0.0) {
            return f64::INFINITY;
        }
        -t * cc.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()
            - x.iter().map(|v| v.ln()).sum::<f64>()
            - sj.iter().chain(&sw).map(|v| v.ln()).sum::<f64>()
    };
    let mut t = 1.0;
    let mut h = vec![0.0; nv * nv];
    let mut g = vec![0.0; nv];
    loop {
        for _ in 0..100 {
            let (sj, sw) = slacks(&x);
            for v in 0..nv {
                let (i, w) = (v / nt, v % nt);
                g[v] = -t * cc[v] - 1.0 / x[v] + 1.0 / sj[i] + k[i] / sw[w];
            }
            h.iter_mut().for_each(|e| *e = 0.0);
            for a in 0..nv {
                let (ia, wa) = (a / nt, a % nt);
                h[a * nv + a] += 1.0 / (x[a] * x[a]);
                for b in 0..nv {
                    let (ib, wb) = (b / nt, b % nt);
                    let mut e = 0.0;
                    if ia == ib {
                        e += 1.0 / (sj[ia] * sj[ia]);
                    }
                    if wa == wb {
                        e += k[ia] * k[ib] / (sw[wa] * sw[wa]);
                    }
                    h[a * nv + b] += e;
                }
            }
            // Cholesky solve H d = −g.
            let mut l = h.clone();
            let mut ok = true;
            for j in 0..nv {
                let mut d = l[j * nv + j];
                for p in 0..j {
                    d -= l[j * nv + p] * l[j * nv + p];
                }
                if d <= 0.0 {
                    ok = false;
                    break;
                }
                let d = d.sqrt();
                l[j * nv + j] = d;
                for i in j + 1..nv {
                    let mut s = l[i * nv + j];
                    for p in 0..j {
                        s -= l[i * nv + p] * l[j * nv + p];
                    }
                    l[i * nv + j] = s / d;
                }
            }
            if !ok {
                break;
            }
            let mut y: Vec<f64> = g.iter().map(|v| -v).collect();
            for i in 0..nv {
                for p in 0..i {
                    y[i] -= l[i * nv + p] * y[p];
                }
                y[i] /= l[i * nv + i];
            }
            for i in (0..nv).rev() {
                for p in i + 1..nv {
                    y[i] -= l[p * nv + i] * y[p];
                }
                y[i] /= l[i * nv + i];
            }
            let dec: f64 = -g.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>();
            if dec / 2.0 < 1e-12 {
                break;
            }
            let f0 = phi(&x, t);
            let mut step = 1.0;
            let mut moved = false;
            for _ in 0..60 {
                let xn: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + step * b).collect();
                let fnew = phi(&xn, t);
                if fnew <= f0 - 0.25 * step * dec {
                    x = xn;
                    moved = true;
                    break;
                }
                step *= 0.5;
            }
            if !moved {
                break;
            }
        }
        if m_constraints / t < 1e-10 {
            break;
        }
        t *= 10.0;
    }
    (0..nj).map(|i| x[i * nt..(i + 1) * nt].to_vec()).collect()
}

impl HeteroPolicy for GavelBaseline {
    fn name(&self) -> &str {
        "gavel"
    }

    fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        _now: f64,
    ) -> Result<Vec<Decision>, SimError> {
        let nt = cluster.types.len();
        let half = self.interval / 2.0;
        for &j in active {
            if self.received[j].is_none() {
                self.received[j] = Some(vec![half; nt]);
                for tot in &mut self.totals {
                    *tot += half;
                }
            }
        }
        let configs = cluster.configurations();
        let largest: Vec<u32> = (0..nt)
            .map(|t| {
                configs
                    .iter()
                    .filter(|c| c.gpu_type == t)
                    .map(|c| c.gpus)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut tput = vec![vec![0.0; nt]; active.len()];
        for (i, &j) in active.iter().enumerate() {
            for t in 0..nt {
                tput[i][t] = throughput(&jobs[j], cluster, t, largest[t])?;
            }
        }
        // The LP: jobs by name (string order), types alphabetically.
        let mut jorder: Vec<usize> = (0..active.len()).collect();
        jorder.sort_by(|&a, &b| jobs[active[a]].name.cmp(&jobs[active[b]].name));
        let mut torder: Vec<usize> = (0..nt).collect();
        torder.sort_by(|&a, &b| cluster.types[a].name.cmp(&cluster.types[b].name));
        let c: Vec<Vec<f64>> = jorder
            .iter()
            .map(|&i| torder.iter().map(|&t| tput[i][t]).collect())
            .collect();
        let k: Vec<f64> = jorder
            .iter()
            .map(|&i| f64::from(jobs[active[i]].target_num_replicas))
            .collect();
        let cap: Vec<f64> = torder
            .iter()
            .map(|&t| f64::from(cluster.types[t].gpus()))
            .collect();
        let sol = barrier_max(&c, &k, &cap);
        let mut x = vec![vec![0.0; nt]; active.len()];
        for (ji, &i) in jorder.iter().enumerate() {
            for (ti, &t) in torder.iter().enumerate() {
                let v = (sol[ji][ti] * 1e5).round_ties_even() / 1e5;
                x[i][t] = v.clamp(0.0, 1.0);
            }
        }
        // Priorities and the selection list, type by type then job by job.
        let mut entries: Vec<(f64, f64, usize, usize)> = Vec::new();
        for t in 0..nt {
            for (i, &j) in active.iter().enumerate() {
                let xv = x[i][t];
                let pr = if xv == 0.0 {
                    0.0
                } else if self.totals[t] == 0.0 {
                    xv * 1e9
                } else {
                    let rec = self.received[j].as_ref().map_or(0.0, |r| r[t]);
                    let frac = rec / self.totals[t];
                    if frac == 0.0 {
                        xv * 1e9
                    } else {
                        xv / frac
                    }
                };
                entries.push((pr, xv, i, t));
            }
        }
        entries.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
        let mut free: Vec<u32> = cluster.types.iter().map(|t| t.gpus()).collect();
        let mut chosen: Vec<Option<usize>> = vec![None; active.len()];
        for &(_, _, i, t) in &entries {
            let k = jobs[active[i]].target_num_replicas;
            if free[t] == 0 || chosen[i].is_some() || k > free[t] {
                continue;
            }
            chosen[i] = Some(t);
            free[t] -= k;
        }
        // Worker assignment per type.
        let mut out: Vec<Decision> = vec![None; active.len()];
        for (t, ty) in cluster.types.iter().enumerate() {
            let mut taken = vec![false; ty.gpus() as usize];
            let mut mine: Vec<usize> = (0..active.len())
                .filter(|&i| chosen[i] == Some(t))
                .collect();
            mine.sort_by_key(|&i| std::cmp::Reverse(jobs[active[i]].target_num_replicas));
            let mut sizes: Vec<u32> = mine
                .iter()
                .map(|&i| jobs[active[i]].target_num_replicas)
                .collect();
            sizes.dedup();
            for k in sizes {
                let group: Vec<usize> = mine
                    .iter()
                    .copied()
                    .filter(|&i| jobs[active[i]].target_num_replicas == k)
                    .collect();
                let mut rest = Vec::new();
                for &i in &group {
                    let j = active[i];
                    match &self.last[j] {
                        Some((lt, workers))
                            if *lt == t && workers.iter().all(|&w| !taken[w as usize]) =>
                        {
                            for &w in workers {
                                taken[w as usize] = true;
                            }
                            out[i] = Some((t, workers.clone()));
                        }
                        _ => rest.push(i),
                    }
                }
                for i in rest {
                    let mut workers = Vec::with_capacity(k as usize);
                    for w in 0..taken.len() {
                        if workers.len() == k as usize {
                            break;
                        }
                        if !taken[w] {
                            taken[w] = true;
                            workers.push(w as u32);
                        }
                    }
                    if workers.len() < k as usize {
                        return Err(SimError::Policy(crate::ilp::IlpError(format!(
                            "Gavel's worker assignment: {k} GPUs of {} do not fit",
                            ty.name
                        ))));
                    }
                    out[i] = Some((t, workers));
                }
            }
            for &i in &mine {
                self.received[active[i]].as_mut().expect("seen")[t] += self.interval;
                self.totals[t] += self.interval;
            }
        }
        for (i, &j) in active.iter().enumerate() {
            self.last[j] = out[i].clone();
        }
        // The simulator reads node ids: worker w is on node w / GPUs-per-node.
        Ok(out
            .into_iter()
            .map(|d| {
                d.map(|(t, ws)| {
                    let gpn = cluster.types[t].gpus_per_node;
                    (t, ws.iter().map(|w| w / gpn).collect())
                })
            })
            .collect())
    }
}
