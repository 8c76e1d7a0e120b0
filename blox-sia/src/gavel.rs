//! Sia's Gavel+TunedJobs baseline (`gavel.py` with `max_sum_throughput`, SIA-SEMANTICS §7.1):
//! fixed GPU counts and batches, a throughput LP per round, priorities from time received,
//! a greedy selection and worker assignment that keeps previous workers.
//!
//! The LP (ECOS in the original, an interior-point method) is solved here by a simplex
//! (Dantzig pivoting, lowest-index ties): where its optimum is unique the result is the same;
//! where it is degenerate ECOS returns a point inside the optimal face and this a vertex
//! (SIA-SEMANTICS §13.8). Every job of the five test vectors of §11.1 gets the original's JCT
//! and restarts.

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
fn throughput(job: &SiaJob, cluster: &SiaCluster, t: usize, largest: u32) -> Result<f64, SimError> {
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

/// Maximise `c·x` subject to `A x ≤ b`, `x ≥ 0` (`b ≥ 0`), by the simplex method from the
/// slack basis; entering variable the largest reduced gain (lowest index on ties), leaving row
/// the smallest ratio (lowest row on ties).
fn simplex_max(c: &[f64], a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let (m, n) = (a.len(), c.len());
    let w = n + m + 1;
    let mut t = vec![0.0; (m + 1) * w];
    for r in 0..m {
        for j in 0..n {
            t[r * w + j] = a[r][j];
        }
        t[r * w + n + r] = 1.0;
        t[r * w + n + m] = b[r];
    }
    for j in 0..n {
        t[m * w + j] = -c[j];
    }
    let mut basis: Vec<usize> = (n..n + m).collect();
    for _ in 0..10_000 {
        let mut enter = None;
        let mut best = -1e-12;
        for j in 0..n + m {
            if t[m * w + j] < best {
                best = t[m * w + j];
                enter = Some(j);
            }
        }
        let Some(e) = enter else { break };
        let mut leave: Option<(usize, f64)> = None;
        for r in 0..m {
            let v = t[r * w + e];
            if v > 1e-12 {
                let ratio = t[r * w + n + m] / v;
                if leave.map_or(true, |(_, lv)| ratio < lv - 1e-12) {
                    leave = Some((r, ratio));
                }
            }
        }
        let Some((lr, _)) = leave else { break };
        let piv = t[lr * w + e];
        for k in 0..w {
            t[lr * w + k] /= piv;
        }
        for r in 0..=m {
            if r != lr {
                let f = t[r * w + e];
                if f != 0.0 {
                    for k in 0..w {
                        t[r * w + k] -= f * t[lr * w + k];
                    }
                }
            }
        }
        basis[lr] = e;
    }
    let mut x = vec![0.0; n];
    for (r, &bv) in basis.iter().enumerate() {
        if bv < n {
            x[bv] = t[r * w + n + m];
        }
    }
    x
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
        let var = |ji: usize, ti: usize| ji * nt + ti;
        let nv = active.len() * nt;
        let mut c = vec![0.0; nv];
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut rhs: Vec<f64> = Vec::new();
        for (ji, &i) in jorder.iter().enumerate() {
            for (ti, &t) in torder.iter().enumerate() {
                c[var(ji, ti)] = tput[i][t];
            }
        }
        for (ti, &t) in torder.iter().enumerate() {
            let mut row = vec![0.0; nv];
            for (ji, &i) in jorder.iter().enumerate() {
                row[var(ji, ti)] = f64::from(jobs[active[i]].target_num_replicas);
            }
            rows.push(row);
            rhs.push(f64::from(cluster.types[t].gpus()));
        }
        for ji in 0..jorder.len() {
            let mut row = vec![0.0; nv];
            for ti in 0..nt {
                row[var(ji, ti)] = 1.0;
            }
            rows.push(row);
            rhs.push(1.0);
        }
        let sol = simplex_max(&c, &rows, &rhs);
        let mut x = vec![vec![0.0; nt]; active.len()];
        for (ji, &i) in jorder.iter().enumerate() {
            for (ti, &t) in torder.iter().enumerate() {
                let v = (sol[var(ji, ti)] * 1e5).round_ties_even() / 1e5;
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
