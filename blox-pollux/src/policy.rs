//! The Pollux scheduling policy (POLLUX-SEMANTICS §6; the artifact's `pollux.py` on pymoo
//! 0.4.2's NSGA-II): a genetic search over job × node replica matrices that maximises the
//! power mean (p = −1) of the jobs' restart-penalised speedups, warm-started from the previous
//! round's Pareto front.

use std::collections::HashSet;

use blox_core::StreamRng;

use crate::goodput::GoodputFunction;
use crate::job::{ModelError, PolluxJob};
use crate::{Allocations, RoundInput, RoundPolicy};

/// The genetic search's knobs (the artifact's constants by default).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PolluxPolicyConfig {
    /// Individuals kept per generation (100).
    pub population: usize,
    /// Generations, the initial population included as in pymoo (100).
    pub generations: usize,
    /// Power-mean exponent of the fairness objective (−1).
    pub p: f64,
    /// Restart cost the penalty assumes, seconds (30).
    pub restart_delay: f64,
    /// Keep at most one distributed job per node (the artifact's interference avoidance).
    pub avoid_interference: bool,
    /// Crossover probability per mating (pymoo's default, 0.9).
    pub crossover_prob: f64,
}

impl Default for PolluxPolicyConfig {
    fn default() -> PolluxPolicyConfig {
        PolluxPolicyConfig {
            population: 100,
            generations: 100,
            p: -1.0,
            restart_delay: 30.0,
            avoid_interference: true,
            crossover_prob: 0.9,
        }
    }
}

/// The Pollux policy with its warm-start memory.
#[derive(Debug, Default)]
pub struct PolluxPolicy {
    config: PolluxPolicyConfig,
    /// The previous round's front: states over `prev_jobs` × nodes.
    prev_states: Vec<Vec<u8>>,
    prev_jobs: Vec<usize>,
}

impl PolluxPolicy {
    /// A policy with `config`.
    pub fn new(config: PolluxPolicyConfig) -> PolluxPolicy {
        PolluxPolicy {
            config,
            prev_states: Vec::new(),
            prev_jobs: Vec::new(),
        }
    }
}

/// A job's speedup as the policy sees it: `goodput(n, r) / goodput(1 node, fair replicas)`, or
/// `r / fair` without a fitted model. Memoised for every `(nodes, replicas)`.
struct Speedup {
    goodput: Option<(GoodputFunction, crate::goodput::BatchLimits)>,
    base: f64,
    fair: f64,
    memo: Vec<f64>,
    max_r: usize,
}

impl Speedup {
    fn new(job: &PolluxJob, fair_replicas: u32, max_nodes: usize, max_r: usize) -> Speedup {
        let goodput = job.goodput_fn().map(|g| (g, job.limits()));
        let base = goodput.map_or(1.0, |(g, lim)| g.optimize(1, fair_replicas, lim).0);
        Speedup {
            goodput,
            base,
            fair: f64::from(fair_replicas),
            memo: vec![-1.0; (max_nodes + 1) * (max_r + 1)],
            max_r,
        }
    }

    fn get(&mut self, nodes: usize, replicas: usize) -> f64 {
        if replicas == 0 {
            return 0.0;
        }
        let i = nodes * (self.max_r + 1) + replicas;
        if self.memo[i] >= 0.0 {
            return self.memo[i];
        }
        let v = match &self.goodput {
            None => replicas as f64 / self.fair,
            Some((g, lim)) => g.optimize(nodes as u32, replicas as u32, *lim).0 / self.base,
        };
        self.memo[i] = v;
        v
    }
}

struct Problem<'a> {
    jobs: usize,
    nodes: usize,
    cap: u8,
    base: Vec<u8>,
    max_replicas: Vec<u32>,
    factor: Vec<f64>,
    speedups: Vec<Speedup>,
    scale: f64,
    config: &'a PolluxPolicyConfig,
}

#[derive(Clone)]
struct Indiv {
    x: Vec<u8>,
    f: [f64; 2],
    rank: usize,
    crowding: f64,
}

impl Problem<'_> {
    fn evaluate(&mut self, x: &[u8]) -> [f64; 2] {
        let (nj, nn) = (self.jobs, self.nodes);
        let mut sum = 0.0;
        let mut active_nodes = 0usize;
        for n in 0..nn {
            if (0..nj).any(|j| x[j * nn + n] > 0) {
                active_nodes += 1;
            }
        }
        let total = (active_nodes * usize::from(self.cap)) as f64;
        let mut utility = 0.0;
        for j in 0..nj {
            let row = &x[j * nn..(j + 1) * nn];
            let nodes = row.iter().filter(|&&v| v > 0).count();
            let replicas: usize = row.iter().map(|&v| usize::from(v)).sum();
            let s = self.speedups[j].get(nodes, replicas);
            let mut scaled = s * self.scale;
            if row != &self.base[j * nn..(j + 1) * nn] {
                scaled *= self.factor[j];
            }
            sum += (scaled + 1e-3).powf(self.config.p);
            if replicas > 0 && total > 0.0 {
                utility += s / replicas as f64 * (replicas as f64 / total);
            }
        }
        let mean = (sum / nj as f64).powf(1.0 / self.config.p);
        [-mean, -utility]
    }

    fn repair(&self, x: &mut [u8], rng: &mut StreamRng) {
        let (nj, nn) = (self.jobs, self.nodes);
        if self.config.avoid_interference {
            let distributed: Vec<bool> = (0..nj)
                .map(|j| x[j * nn..(j + 1) * nn].iter().filter(|&&v| v > 0).count() > 1)
                .collect();
            for n in 0..nn {
                let mut seen = false;
                for j in 0..nj {
                    if distributed[j] && x[j * nn + n] > 0 {
                        if seen {
                            x[j * nn + n] = 0;
                        }
                        seen = true;
                    }
                }
            }
        }
        // Per job: visit nodes in a random order, capping the running sum at max_replicas. A row
        // within its cap is unchanged by any order, so only rows over it draw an order.
        let mut order: Vec<usize> = (0..nn).collect();
        for j in 0..nj {
            let row = &mut x[j * nn..(j + 1) * nn];
            let total: u32 = row.iter().map(|&v| u32::from(v)).sum();
            if total <= self.max_replicas[j] {
                continue;
            }
            for (i, o) in order.iter_mut().enumerate() {
                *o = i;
            }
            for i in (1..nn).rev() {
                let k = rng.below(i as u64 + 1) as usize;
                order.swap(i, k);
            }
            let mut left = self.max_replicas[j];
            for &n in &order {
                let take = u32::from(row[n]).min(left);
                row[n] = take as u8;
                left -= take;
            }
        }
        // Node capacity, jobs in priority order.
        for n in 0..nn {
            let mut left = self.cap;
            for j in 0..nj {
                let v = &mut x[j * nn + n];
                let take = (*v).min(left);
                *v = take;
                left -= take;
            }
        }
    }

    fn mutate(&self, x: &mut [u8], rng: &mut StreamRng) {
        let (nj, nn) = (self.jobs, self.nodes);
        // (1) Each row back to the current allocation with probability 0.1.
        for j in 0..nj {
            if rng.next_f64() < 0.1 {
                x[j * nn..(j + 1) * nn].copy_from_slice(&self.base[j * nn..(j + 1) * nn]);
            }
        }
        // (2) With probability 0.1 a row has each entry zeroed with probability 0.1 (entries of
        // unchosen rows draw nothing: the same distribution, fewer draws).
        for j in 0..nj {
            if rng.next_f64() < 0.1 {
                for n in 0..nn {
                    if rng.next_f64() < 0.1 {
                        x[j * nn + n] = 0;
                    }
                }
            }
        }
        // (3) On nodes with a free GPU, entries grow to a uniform value in [current, capacity]
        // with probability p1 + p2 − p1·p2 (p1 = 1/J; p2 = 1/holders for a holder).
        let cap = u32::from(self.cap);
        for n in 0..nn {
            let used: u32 = (0..nj).map(|j| u32::from(x[j * nn + n])).sum();
            if used >= cap {
                continue;
            }
            let holders = (0..nj).filter(|&j| x[j * nn + n] > 0).count();
            let p1 = 1.0 / nj as f64;
            let mut grow: Vec<(usize, u8)> = Vec::new();
            for j in 0..nj {
                let cur = x[j * nn + n];
                let p2 = if cur > 0 {
                    1.0 / holders.max(1) as f64
                } else {
                    0.0
                };
                if rng.next_f64() < p1 + p2 - p1 * p2 {
                    let lo = u64::from(cur).min(u64::from(cap));
                    grow.push((j, (lo + rng.below(u64::from(cap) - lo + 1)) as u8));
                }
            }
            for (j, v) in grow {
                x[j * nn + n] = v;
            }
        }
    }

    fn crossover(&self, a: &[u8], b: &[u8], rng: &mut StreamRng) -> (Vec<u8>, Vec<u8>) {
        let point = rng.below(self.jobs as u64) as usize * self.nodes;
        let mut c0 = a.to_vec();
        let mut c1 = b.to_vec();
        c0[..point].copy_from_slice(&b[..point]);
        c1[..point].copy_from_slice(&a[..point]);
        (c0, c1)
    }
}

fn dominates(a: &[f64; 2], b: &[f64; 2]) -> bool {
    a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

/// Non-dominated fronts of two-objective points (each front in index order): sort by the
/// objectives, then put each point in the first front none of whose members dominates it.
fn fronts(pop: &[Indiv]) -> Vec<Vec<usize>> {
    let mut idx: Vec<usize> = (0..pop.len()).collect();
    idx.sort_by(|&a, &b| {
        pop[a].f[0]
            .total_cmp(&pop[b].f[0])
            .then(pop[a].f[1].total_cmp(&pop[b].f[1]))
            .then(a.cmp(&b))
    });
    // Per front: the member with the smallest second objective (first such in sorted order).
    let mut best: Vec<[f64; 2]> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &i in &idx {
        let f = pop[i].f;
        let k = best.partition_point(|b| b[1] < f[1] || (b[1] == f[1] && b[0] < f[0]));
        if k == best.len() {
            best.push(f);
            out.push(vec![i]);
        } else {
            if f[1] < best[k][1] {
                best[k] = f;
            }
            out[k].push(i);
        }
    }
    for f in &mut out {
        f.sort_unstable();
    }
    out
}

/// pymoo's crowding distance: extremes (and fronts of at most two) get 1e14, duplicates 0.
fn crowding(pop: &[Indiv], front: &[usize]) -> Vec<f64> {
    let m = front.len();
    if m <= 2 {
        return vec![1e14; m];
    }
    let mut unique: Vec<usize> = Vec::with_capacity(m);
    for (a, &i) in front.iter().enumerate() {
        if !front[..a].iter().any(|&k| pop[k].f == pop[i].f) {
            unique.push(a);
        }
    }
    let mut cd = vec![0.0; m];
    let u = unique.len();
    let mut acc = vec![0.0; u];
    for obj in 0..2 {
        let mut idx: Vec<usize> = (0..u).collect();
        idx.sort_by(|&a, &b| pop[front[unique[a]]].f[obj].total_cmp(&pop[front[unique[b]]].f[obj]));
        let v = |k: usize| pop[front[unique[idx[k]]]].f[obj];
        let norm = v(u - 1) - v(0);
        for k in 0..u {
            let last = if k == 0 {
                f64::INFINITY
            } else {
                v(k) - v(k - 1)
            };
            let next = if k + 1 == u {
                f64::INFINITY
            } else {
                v(k + 1) - v(k)
            };
            let (l, n) = if norm == 0.0 {
                (0.0, 0.0)
            } else {
                (last / norm, next / norm)
            };
            acc[idx[k]] += l + n;
        }
    }
    for (k, &a) in unique.iter().enumerate() {
        let c = acc[k] / 2.0;
        cd[a] = if c.is_infinite() { 1e14 } else { c };
    }
    cd
}

/// Rank-and-crowding survival of `n` individuals; sets rank and crowding on the survivors.
fn survive(mut pop: Vec<Indiv>, n: usize, rng: &mut StreamRng) -> Vec<Indiv> {
    let fr = fronts(&pop);
    let mut keep: Vec<usize> = Vec::with_capacity(n);
    for (rank, front) in fr.iter().enumerate() {
        if keep.len() >= n {
            break;
        }
        let cd = crowding(&pop, front);
        for (a, &i) in front.iter().enumerate() {
            pop[i].rank = rank;
            pop[i].crowding = cd[a];
        }
        if keep.len() + front.len() > n {
            // Descending crowding, random order among equals.
            let mut perm: Vec<usize> = (0..front.len()).collect();
            shuffle(&mut perm, rng);
            perm.sort_by(|&a, &b| cd[b].total_cmp(&cd[a]));
            for &a in perm.iter().take(n - keep.len()) {
                keep.push(front[a]);
            }
        } else {
            keep.extend(front.iter().copied());
        }
    }
    keep.into_iter().map(|i| pop[i].clone()).collect()
}

fn shuffle(v: &mut [usize], rng: &mut StreamRng) {
    for i in (1..v.len()).rev() {
        let k = rng.below(i as u64 + 1) as usize;
        v.swap(i, k);
    }
}

/// Binary tournaments on domination, then crowding (random when equal).
fn select_parents(pop: &[Indiv], n: usize, rng: &mut StreamRng) -> Vec<usize> {
    let need = n * 2;
    let mut perm: Vec<usize> = Vec::with_capacity(need + pop.len());
    while perm.len() < need {
        let mut p: Vec<usize> = (0..pop.len()).collect();
        shuffle(&mut p, rng);
        perm.extend(p);
    }
    perm.truncate(need);
    perm.chunks(2)
        .map(|c| {
            let (a, b) = (c[0], c[1]);
            if dominates(&pop[a].f, &pop[b].f) {
                a
            } else if dominates(&pop[b].f, &pop[a].f) {
                b
            } else if pop[a].crowding > pop[b].crowding {
                a
            } else if pop[b].crowding > pop[a].crowding {
                b
            } else if rng.next_f64() < 0.5 {
                a
            } else {
                b
            }
        })
        .collect()
}

impl RoundPolicy for PolluxPolicy {
    fn name(&self) -> &str {
        "pollux"
    }

    fn optimize(&mut self, input: &RoundInput<'_>) -> Result<Allocations, ModelError> {
        let cfg = self.config;
        let nn = input.nodes as usize;
        let cap = input.gpus_per_node.min(u32::from(u8::MAX)) as u8;
        let total_gpus = (input.nodes * input.gpus_per_node) as usize;
        // Jobs by (attained service, submission), stable on workload order.
        let mut jobs: Vec<(usize, &PolluxJob)> = input.jobs.clone();
        jobs.sort_by_key(|(_, j)| (j.attained_service, j.submission_time));
        let nj = jobs.len();
        if nj == 0 || nn == 0 {
            return Ok(Allocations::new());
        }
        let mut base = vec![0u8; nj * nn];
        for (r, (k, _)) in jobs.iter().enumerate() {
            for &n in input.prev.get(k).map(Vec::as_slice).unwrap_or(&[]) {
                if (n as usize) < nn {
                    base[r * nn + n as usize] += 1;
                }
            }
        }
        // Fair share: ceil(total / J) replicas on one (virtual) node.
        let fair = total_gpus.div_ceil(nj.max(1)) as u32;
        let max_r = total_gpus.max(1);
        let mut max_replicas = Vec::with_capacity(nj);
        let mut speedups = Vec::with_capacity(nj);
        let mut factor = Vec::with_capacity(nj);
        for (_, j) in &jobs {
            let app = &j.app;
            let mut m = (2 * j.max_profiled_replicas())
                .max(1)
                .min(total_gpus as u32);
            m = m.min((app.max_batch_size / app.min_local_bsz.max(1)) as u32);
            if app.name == "ncf" {
                m = 1;
            }
            max_replicas.push(m);
            speedups.push(Speedup::new(j, fair, nn, max_r));
            let age = (input.now - j.submission_time) as f64;
            let restarts = f64::from(j.num_restarts.unwrap_or(0));
            factor.push((age - restarts * cfg.restart_delay).max(0.0) / (age + cfg.restart_delay));
        }
        let mut problem = Problem {
            jobs: nj,
            nodes: nn,
            cap,
            base: base.clone(),
            max_replicas,
            factor,
            speedups,
            // Dominant share of one replica (1 / GPUs) times the node count.
            scale: nn as f64 / total_gpus as f64,
            config: &cfg,
        };
        let mut rng = input.seed.stream(&format!("pollux-ga/{}", input.round));
        // Warm start: the previous front re-indexed to the current jobs, else the current state.
        let mut init: Vec<Vec<u8>> = if self.prev_states.is_empty() {
            vec![base.clone()]
        } else {
            self.prev_states
                .iter()
                .map(|s| {
                    let mut x = vec![0u8; nj * nn];
                    for (r, (k, _)) in jobs.iter().enumerate() {
                        if let Some(pr) = self.prev_jobs.iter().position(|p| p == k) {
                            x[r * nn..(r + 1) * nn].copy_from_slice(&s[pr * nn..(pr + 1) * nn]);
                        }
                    }
                    x
                })
                .collect()
        };
        for x in &mut init {
            problem.repair(x, &mut rng);
        }
        let mut pop: Vec<Indiv> = Vec::with_capacity(2 * cfg.population);
        for x in init {
            if pop.iter().all(|p| p.x != x) {
                let f = problem.evaluate(&x);
                pop.push(Indiv {
                    x,
                    f,
                    rank: 0,
                    crowding: 0.0,
                });
            }
        }
        let n0 = pop.len();
        pop = survive(pop, n0, &mut rng);
        for _ in 1..cfg.generations {
            let mut off: Vec<Indiv> = Vec::with_capacity(cfg.population);
            // Membership only (never iterated), so hashing cannot reach an output.
            let mut seen: HashSet<Vec<u8>> = pop.iter().map(|p| p.x.clone()).collect();
            for _attempt in 0..=100 {
                if off.len() >= cfg.population {
                    break;
                }
                let remaining = cfg.population - off.len();
                let matings = remaining.div_ceil(2);
                let parents = select_parents(&pop, 2 * matings, &mut rng);
                let mut kids: Vec<Vec<u8>> = Vec::with_capacity(2 * matings);
                for m in 0..matings {
                    let (a, b) = (&pop[parents[2 * m]].x, &pop[parents[2 * m + 1]].x);
                    let cross = rng.next_f64() < cfg.crossover_prob;
                    let (c0, c1) = problem.crossover(a, b, &mut rng);
                    if cross {
                        kids.push(c0);
                        kids.push(c1);
                    } else {
                        kids.push(a.clone());
                        kids.push(b.clone());
                    }
                }
                for x in &mut kids {
                    problem.mutate(x, &mut rng);
                }
                for x in &mut kids {
                    problem.repair(x, &mut rng);
                }
                for x in kids {
                    if off.len() >= cfg.population {
                        break;
                    }
                    if !seen.contains(&x) {
                        seen.insert(x.clone());
                        let f = problem.evaluate(&x);
                        off.push(Indiv {
                            x,
                            f,
                            rank: 0,
                            crowding: 0.0,
                        });
                    }
                }
            }
            pop.extend(off);
            pop = survive(pop, cfg.population, &mut rng);
        }
        // The final front; the member with the best fairness objective (first on ties).
        let front: Vec<&Indiv> = pop.iter().filter(|p| p.rank == 0).collect();
        let best = front
            .iter()
            .copied()
            .fold(None::<&Indiv>, |b, p| match b {
                Some(b) if b.f[0] <= p.f[0] => Some(b),
                _ => Some(p),
            })
            .map(|p| p.x.clone())
            .unwrap_or_else(|| base.clone());
        self.prev_states = front.iter().map(|p| p.x.clone()).collect();
        self.prev_jobs = jobs.iter().map(|(k, _)| *k).collect();
        let mut out = Allocations::new();
        for (r, (k, _)) in jobs.iter().enumerate() {
            let mut a = Vec::new();
            for n in 0..nn {
                a.extend(std::iter::repeat(n as u32).take(usize::from(best[r * nn + n])));
            }
            out.insert(*k, a);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ind(f0: f64, f1: f64) -> Indiv {
        Indiv {
            x: vec![],
            f: [f0, f1],
            rank: 0,
            crowding: 0.0,
        }
    }

    #[test]
    fn fronts_match_pairwise_domination() {
        let pts = [
            (1.0, 5.0),
            (2.0, 3.0),
            (2.0, 3.0),
            (3.0, 1.0),
            (2.0, 4.0),
            (4.0, 4.0),
            (1.0, 6.0),
            (5.0, 0.5),
        ];
        let pop: Vec<Indiv> = pts.iter().map(|&(a, b)| ind(a, b)).collect();
        let fr = fronts(&pop);
        let mut rank = vec![0; pop.len()];
        for (k, f) in fr.iter().enumerate() {
            for &i in f {
                rank[i] = k;
            }
        }
        // Brute force: rank = longest chain of dominators.
        fn depth(pop: &[Indiv], i: usize) -> usize {
            (0..pop.len())
                .filter(|&k| dominates(&pop[k].f, &pop[i].f))
                .map(|k| depth(pop, k) + 1)
                .max()
                .unwrap_or(0)
        }
        for i in 0..pop.len() {
            assert_eq!(rank[i], depth(&pop, i), "point {i}");
        }
        assert_eq!(fr[0], vec![0, 1, 2, 3, 7]);
    }

    #[test]
    fn crowding_gives_extremes_the_maximum_and_duplicates_zero() {
        let pop: Vec<Indiv> = [(0.0, 3.0), (1.0, 2.0), (1.0, 2.0), (3.0, 0.0)]
            .iter()
            .map(|&(a, b)| ind(a, b))
            .collect();
        let cd = crowding(&pop, &[0, 1, 2, 3]);
        assert_eq!(cd[0], 1e14);
        assert_eq!(cd[3], 1e14);
        assert_eq!(cd[2], 0.0);
        // Unique middle point: ((3 − 0)/3 + (3 − 0)/3) / 2 = 1.
        assert!((cd[1] - 1.0).abs() < 1e-12);
    }
}
