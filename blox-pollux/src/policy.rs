//! The Pollux scheduling policy (POLLUX-SEMANTICS §6; the artifact's `pollux.py` on pymoo
//! 0.4.2's NSGA-II): a genetic search over job × node replica matrices that maximises the
//! power mean (p = −1) of the jobs' restart-penalised speedups, warm-started from the previous
//! round's Pareto front.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

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
    /// Per job (by its input index), the goodput optima of the last round it was in.
    optima: HashMap<usize, GoodputMemo>,
}

impl PolluxPolicy {
    /// A policy with `config`.
    pub fn new(config: PolluxPolicyConfig) -> PolluxPolicy {
        PolluxPolicy {
            config,
            prev_states: Vec::new(),
            prev_jobs: Vec::new(),
            optima: HashMap::new(),
        }
    }
}

/// A job's goodput optima by `(nodes, replicas)` (`GoodputFunction::optimize`'s value), kept
/// from round to round while the job's goodput function, limits and the cluster's shape are
/// unchanged (compared bit for bit): the values are the ones recomputing gives.
#[derive(Debug, Clone)]
struct GoodputMemo {
    key: GoodputKey,
    values: Vec<Option<f64>>,
}

/// Everything `GoodputFunction::optimize` reads, bit for bit, and the memo's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GoodputKey {
    perf: [u64; 7],
    grad: [u64; 2],
    init_batch: u64,
    limits: [u64; 3],
    shape: (usize, usize),
}

/// A job's speedup as the policy sees it: `goodput(n, r) / goodput(1 node, fair replicas)`, or
/// `r / fair` without a fitted model. Memoised for every `(nodes, replicas)`.
struct Speedup {
    goodput: Option<(GoodputFunction, crate::goodput::BatchLimits)>,
    /// The goodput optima, carried over from earlier rounds when still valid.
    optima: Option<GoodputMemo>,
    base: f64,
    fair: f64,
    max_r: usize,
    /// Per `(nodes, replicas)`, side by side: the speedup (negative when not yet computed),
    /// the fairness term `(speedup · scale [· restart factor] + 1e-3)^p` for a row equal to
    /// the current allocation (`[1]`) or not (`[2]`) (negative when not yet computed), and
    /// `speedup / replicas` (set with the speedup).
    cells: Vec<[f64; 4]>,
}

impl Speedup {
    fn new(
        job: &PolluxJob,
        fair_replicas: u32,
        max_nodes: usize,
        max_r: usize,
        kept: Option<GoodputMemo>,
    ) -> Speedup {
        let goodput = job.goodput_fn().map(|g| (g, job.limits()));
        let size = (max_nodes + 1) * (max_r + 1);
        let optima = goodput.map(|(g, lim)| {
            let key = GoodputKey {
                perf: g.perf.0.map(f64::to_bits),
                grad: [g.grad.sqr.to_bits(), g.grad.var.to_bits()],
                init_batch: g.init_batch,
                limits: [lim.max_batch, lim.min_local, lim.max_local],
                shape: (max_nodes, max_r),
            };
            match kept {
                Some(m) if m.key == key => m,
                _ => GoodputMemo {
                    key,
                    values: vec![None; size],
                },
            }
        });
        let mut sp = Speedup {
            goodput,
            optima,
            base: 1.0,
            fair: f64::from(fair_replicas),
            max_r,
            cells: vec![[-1.0; 4]; size],
        };
        if sp.goodput.is_some() {
            sp.base = sp.optimum(1, fair_replicas as usize);
        }
        sp
    }

    /// `optimize(nodes, replicas).0` of the job's goodput function, memoised.
    fn optimum(&mut self, nodes: usize, replicas: usize) -> f64 {
        let (Some((g, lim)), Some(m)) = (&self.goodput, &mut self.optima) else {
            return f64::NAN;
        };
        let i = nodes * (self.max_r + 1) + replicas;
        match m.values.get(i).copied().flatten() {
            Some(v) => v,
            None => {
                let v = g.optimize(nodes as u32, replicas as u32, *lim).0;
                if let Some(slot) = m.values.get_mut(i) {
                    *slot = Some(v);
                }
                v
            }
        }
    }

    fn get(&mut self, nodes: usize, replicas: usize) -> f64 {
        if replicas == 0 {
            return 0.0;
        }
        let i = nodes * (self.max_r + 1) + replicas;
        if self.cells[i][0] >= 0.0 {
            return self.cells[i][0];
        }
        let v = if self.goodput.is_none() {
            replicas as f64 / self.fair
        } else {
            self.optimum(nodes, replicas) / self.base
        };
        self.cells[i][0] = v;
        self.cells[i][3] = v / replicas as f64;
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
    /// Replicas per job at most (every job's [`Speedup::max_r`]).
    max_r: usize,
    /// `replicas / (active nodes · GPUs per node)` by `(active nodes, replicas)`.
    share: Vec<f64>,
    /// Scratch: per node, whether a distributed job has taken it (the repair's interference
    /// pass).
    used: Vec<u8>,
    /// Scratch: a node order.
    order: Vec<usize>,
    /// Scratch: GPUs and holders per node.
    col_used: Vec<u32>,
    col_holders: Vec<u32>,
    /// Growth probability of a mutation entry by its node's holder count (0: not a holder):
    /// `p1 + p2 − p1·p2`, `p1 = 1/J`, `p2 = 1/holders` (0 for a non-holder), as
    /// [`draw_threshold`]s.
    t_grow: Vec<u64>,
}

#[derive(Clone)]
struct Indiv {
    x: Vec<u8>,
    f: [f64; 2],
    rank: usize,
    crowding: f64,
}

/// Nodes per block in the passes over a candidate's columns (one 16-byte vector register).
const LANES: usize = 16;

/// Caps each column of `x` (rows of `nn` entries) at `cap` in total, rows in order: each entry
/// takes what is left of its node's `cap`, at most its value. Nodes are independent, so by
/// blocks of 16 nodes, each block's free GPUs in a local array that the compiler keeps in a
/// vector register (a row's block is then a min and a subtraction).
fn cap_columns(x: &mut [u8], nn: usize, cap: u8) {
    for b in (0..nn).step_by(LANES) {
        let w = LANES.min(nn - b);
        let mut left = [cap; LANES];
        let mut at = b;
        while at < x.len() {
            if w == LANES {
                let row: &mut [u8; LANES] = (&mut x[at..at + LANES]).try_into().expect("a block");
                for k in 0..LANES {
                    let take = row[k].min(left[k]);
                    row[k] = take;
                    left[k] -= take;
                }
            } else {
                for (v, l) in x[at..at + w].iter_mut().zip(&mut left) {
                    let take = (*v).min(*l);
                    *v = take;
                    *l -= take;
                }
            }
            at += nn;
        }
    }
}

/// The columns of `x` (rows of `nn` entries) with a non-zero entry: by blocks of 16 nodes, an
/// OR over the rows in a local array.
fn active_nodes(x: &[u8], nn: usize) -> usize {
    let mut active = 0;
    for b in (0..nn).step_by(LANES) {
        let w = LANES.min(nn - b);
        let mut used = [0u8; LANES];
        let mut at = b;
        while at < x.len() {
            if w == LANES {
                let row: &[u8; LANES] = x[at..at + LANES].try_into().expect("a block");
                for k in 0..LANES {
                    used[k] |= row[k];
                }
            } else {
                for (u, &v) in used.iter_mut().zip(&x[at..at + w]) {
                    *u |= v;
                }
            }
            at += nn;
        }
        active += used.iter().filter(|&&u| u > 0).count();
    }
    active
}

/// `rng.below(n)`: the same draws and the same result (Lemire's method), with the rejection
/// threshold's division done only when the low half is small enough to be rejected (the
/// threshold is below `n`).
fn below(rng: &mut StreamRng, n: u64) -> u64 {
    debug_assert!(n > 0);
    loop {
        let m = u128::from(rng.next_u64()) * u128::from(n);
        let low = m as u64;
        if low >= n || low >= n.wrapping_neg() % n {
            return (m >> 64) as u64;
        }
    }
}

/// `rng.next_f64() < p` as an integer test: `next_f64` is `k · 2⁻⁵³` with `k` the draw's top 53
/// bits, and `k · 2⁻⁵³ < p` exactly when `k < ⌈p · 2⁵³⌉` (the scaling is exact).
fn draw_threshold(p: f64) -> u64 {
    (p * (1u64 << 53) as f64).ceil() as u64
}

/// Whether the next draw's `next_f64()` is below the probability of [`draw_threshold`] `t`.
fn draw_below(rng: &mut StreamRng, t: u64) -> bool {
    (rng.next_u64() >> 11) < t
}

/// Per byte of `w`, its high bit set exactly when the byte is non-zero.
fn nonzero_bytes(w: u64) -> u64 {
    const LO7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (((w & LO7) + LO7) | w) & !LO7
}

/// A row's non-zero entries and their sum, eight bytes at a time.
fn row_stats(row: &[u8]) -> (usize, usize) {
    const LANES: u64 = 0x00ff_00ff_00ff_00ff;
    let (mut nonzero, mut sum) = (0u32, 0u64);
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        let w = u64::from_le_bytes(b);
        nonzero += nonzero_bytes(w).count_ones();
        // Pairs of bytes into four 16-bit lanes (each at most 510), then the lanes' sum (at
        // most 2040) into the top lane.
        let pairs = (w & LANES) + ((w >> 8) & LANES);
        sum += pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48;
    }
    for &v in chunks.remainder() {
        nonzero += u32::from(v != 0);
        sum += u64::from(v);
    }
    (nonzero as usize, sum as usize)
}

/// `a == b` for rows of equal length, eight bytes at a time.
fn rows_equal(a: &[u8], b: &[u8]) -> bool {
    let (mut ca, mut cb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut ca).zip(&mut cb) {
        let (mut u, mut v) = ([0u8; 8], [0u8; 8]);
        u.copy_from_slice(x);
        v.copy_from_slice(y);
        if u64::from_ne_bytes(u) != u64::from_ne_bytes(v) {
            return false;
        }
    }
    ca.remainder() == cb.remainder()
}

impl Problem<'_> {
    fn evaluate(&mut self, x: &[u8]) -> [f64; 2] {
        let (nj, nn) = (self.jobs, self.nodes);
        let p = self.config.p;
        let mut sum = 0.0;
        let active_nodes = active_nodes(x, nn);
        let total = (active_nodes * usize::from(self.cap)) as f64;
        let mut utility = 0.0;
        for j in 0..nj {
            let row = &x[j * nn..(j + 1) * nn];
            let (nodes, replicas) = row_stats(row);
            let sp = &mut self.speedups[j];
            let s = sp.get(nodes, replicas);
            let changed = !rows_equal(row, &self.base[j * nn..(j + 1) * nn]);
            let i = nodes * (sp.max_r + 1) + replicas;
            let memo = &mut sp.cells[i][1 + usize::from(changed)];
            let term = if *memo >= 0.0 {
                *memo
            } else {
                let mut scaled = s * self.scale;
                if changed {
                    scaled *= self.factor[j];
                }
                *memo = (scaled + 1e-3).powf(p);
                *memo
            };
            sum += term;
            if replicas > 0 && total > 0.0 {
                // `s / replicas · (replicas / total)`, both quotients looked up.
                utility += sp.cells[i][3] * self.share[active_nodes * (self.max_r + 1) + replicas];
            }
        }
        let mean = (sum / nj as f64).powf(1.0 / p);
        [-mean, -utility]
    }

    fn repair(&mut self, x: &mut [u8], rng: &mut StreamRng) {
        let (nj, nn) = (self.jobs, self.nodes);
        if self.config.avoid_interference {
            // On each node, only the first distributed job (in priority order) keeps its GPUs.
            self.used.clear();
            self.used.resize(nn, 0);
            for row in x.chunks_exact_mut(nn) {
                if row_stats(row).0 > 1 {
                    // Branch-free: an entry survives on a node not yet taken; a non-zero entry
                    // takes its node.
                    for (taken, v) in self.used.iter_mut().zip(row.iter_mut()) {
                        let keep = *taken == 0;
                        *taken |= u8::from(*v != 0);
                        *v = if keep { *v } else { 0 };
                    }
                }
            }
        }
        // Per job: visit nodes in a random order, capping the running sum at max_replicas. A row
        // within its cap is unchanged by any order, so only rows over it draw an order.
        for j in 0..nj {
            let row = &mut x[j * nn..(j + 1) * nn];
            let total = row_stats(row).1;
            if total <= self.max_replicas[j] as usize {
                continue;
            }
            self.order.clear();
            self.order.extend(0..nn);
            for i in (1..nn).rev() {
                let k = below(rng, i as u64 + 1) as usize;
                self.order.swap(i, k);
            }
            let mut left = self.max_replicas[j];
            for &n in &self.order {
                let take = u32::from(row[n]).min(left);
                row[n] = take as u8;
                left -= take;
            }
        }
        // Node capacity, jobs in priority order.
        cap_columns(x, nn, self.cap);
    }

    // Not inlined: in the search loop its draws' state would not stay in registers.
    #[inline(never)]
    fn mutate(&mut self, x: &mut [u8], stream: &mut StreamRng) {
        // A local copy of the stream's state (written back at the end), which the loops keep in
        // registers.
        let mut local = stream.clone();
        let rng = &mut local;
        let (nj, nn) = (self.jobs, self.nodes);
        // (1) Each row back to the current allocation with probability 0.1.
        let tenth = draw_threshold(0.1);
        for j in 0..nj {
            if draw_below(rng, tenth) {
                x[j * nn..(j + 1) * nn].copy_from_slice(&self.base[j * nn..(j + 1) * nn]);
            }
        }
        // (2) With probability 0.1 a row has each entry zeroed with probability 0.1 (entries of
        // unchosen rows draw nothing: the same distribution, fewer draws).
        for j in 0..nj {
            if draw_below(rng, tenth) {
                for n in 0..nn {
                    if draw_below(rng, tenth) {
                        x[j * nn + n] = 0;
                    }
                }
            }
        }
        // (3) On nodes with a free GPU, entries grow to a uniform value in [current, capacity]
        // with probability p1 + p2 − p1·p2 (p1 = 1/J; p2 = 1/holders for a holder, `t_grow`).
        // A node's draws all see its entries before any grows (each is read once, by its job).
        let cap = u32::from(self.cap);
        // Every node's counts before any grows (a node's draws read only its own column).
        self.col_used.clear();
        self.col_used.resize(nn, 0);
        self.col_holders.clear();
        self.col_holders.resize(nn, 0);
        for row in x.chunks_exact(nn) {
            for (u, &v) in self.col_used.iter_mut().zip(row) {
                *u += u32::from(v);
            }
            for (h, &v) in self.col_holders.iter_mut().zip(row) {
                *h += u32::from(v > 0);
            }
        }
        let t_other = self.t_grow[0];
        for n in 0..nn {
            if self.col_used[n] >= cap {
                continue;
            }
            let t_holder = self.t_grow[self.col_holders[n] as usize];
            // The node's column: entry `n` of each job's row.
            let mut at = n;
            while at < x.len() {
                let cur = x[at];
                let t = if cur > 0 { t_holder } else { t_other };
                if draw_below(rng, t) {
                    let lo = u64::from(cur).min(u64::from(cap));
                    x[at] = (lo + below(rng, u64::from(cap) - lo + 1)) as u8;
                }
                at += nn;
            }
        }
        *stream = local;
    }

    /// Mating: with probability `crossover_prob` one-point crossover on job rows (the point
    /// drawn whether or not it is used), else copies of the parents; the children go to `c0`
    /// and `c1`.
    fn mate(&self, a: &[u8], b: &[u8], rng: &mut StreamRng, c0: &mut [u8], c1: &mut [u8]) {
        let cross = rng.next_f64() < self.config.crossover_prob;
        let point = below(rng, self.jobs as u64) as usize * self.nodes;
        if cross {
            c0[..point].copy_from_slice(&b[..point]);
            c0[point..].copy_from_slice(&a[point..]);
            c1[..point].copy_from_slice(&a[..point]);
            c1[point..].copy_from_slice(&b[point..]);
        } else {
            c0.copy_from_slice(a);
            c1.copy_from_slice(b);
        }
    }
}

/// FxHash's multiply-rotate over a candidate's bytes, 8 at a time, in four interleaved lanes
/// (independent chains the processor overlaps), then the lanes and the last bytes into one.
/// Only membership tests read it ([`Seen`]), so any function of the bytes will do.
fn candidate_hash(x: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8 bytes"));
    let mut lanes = [x.len() as u64, 1, 2, 3];
    let mut blocks = x.chunks_exact(32);
    for b in &mut blocks {
        for (l, c) in lanes.iter_mut().zip(b.chunks_exact(8)) {
            *l = step(*l, word(c));
        }
    }
    let mut h = lanes.into_iter().fold(0, step);
    let mut words = blocks.remainder().chunks_exact(8);
    for c in &mut words {
        h = step(h, word(c));
    }
    let mut last = [0u8; 8];
    let rest = words.remainder();
    last[..rest.len()].copy_from_slice(rest);
    step(h, u64::from_le_bytes(last))
}

/// A hasher for keys that are hashes already.
#[derive(Default, Clone, Copy)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The candidates a generation has seen (its population, then the children it keeps), for the
/// duplicate test: found by a hash of their contents and compared in full. Membership only
/// (never iterated), so the hash cannot reach an output. Candidate `i` is the population's
/// `i`-th, or the kept children's `i − population`-th.
#[derive(Default)]
struct Seen {
    first: HashMap<u64, usize, BuildHasherDefault<Prehashed>>,
    /// Further candidates whose hash an earlier one has.
    more: Vec<(u64, usize)>,
}

impl Seen {
    fn contains<'x>(&self, h: u64, x: &[u8], cand: impl Fn(usize) -> &'x [u8]) -> bool {
        match self.first.get(&h) {
            None => false,
            Some(&i) => cand(i) == x || self.more.iter().any(|&(g, k)| g == h && cand(k) == x),
        }
    }

    fn insert(&mut self, h: u64, i: usize) {
        match self.first.entry(h) {
            Entry::Vacant(e) => {
                e.insert(i);
            }
            Entry::Occupied(_) => self.more.push((h, i)),
        }
    }

    fn clear(&mut self) {
        self.first.clear();
        self.more.clear();
    }
}

fn dominates(a: &[f64; 2], b: &[f64; 2]) -> bool {
    a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

/// An unsigned key ordered as [`f64::total_cmp`] orders floats.
fn total_key(x: f64) -> u64 {
    let b = x.to_bits();
    // Negative: all bits flipped (larger magnitude sorts first); otherwise the sign bit set.
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Survival's working memory (non-dominated sorting and crowding), reused from generation to
/// generation.
#[derive(Default)]
struct Survival {
    /// Every individual's `(f0, f1, index)` under `total_cmp`, as keys, sorted.
    keys: Vec<(u64, u64, usize)>,
    /// Per front, the member with the smallest second objective (first such in key order).
    best: Vec<[f64; 2]>,
    /// Per individual, its front.
    rank: Vec<usize>,
    /// Where each front starts in `by_index` and `by_key` (and, last, where the last ends).
    start: Vec<usize>,
    /// A cursor per front while the lists are filled.
    at: Vec<usize>,
    /// The fronts' members, front after front, each front in index order.
    by_index: Vec<usize>,
    /// The same, each front in key order.
    by_key: Vec<usize>,
    /// A front's members that no earlier member equals ([`first_of_equals`]), in key order.
    unique: Vec<usize>,
    /// Per individual: it is first of its equals in its front (crowding's scratch).
    first: Vec<bool>,
    /// Per individual: the crowding sum (crowding's scratch).
    acc: Vec<f64>,
    /// The last front's crowding distances, by position in the front (index order).
    cd: Vec<f64>,
}

impl Survival {
    /// Non-dominated fronts of two-objective points: sort by the objectives, then put each
    /// point in the first front none of whose members dominates it. Returns the number of
    /// fronts; front `k` is [`Survival::front`]`(k)`.
    fn sort(&mut self, pop: &[Indiv]) -> usize {
        // Sorted by (f0, f1, index) under `total_cmp`, as keys held in one array: a total order
        // (the index breaks ties), so an unstable sort gives the stable order.
        self.keys.clear();
        self.keys.extend(
            pop.iter()
                .enumerate()
                .map(|(i, p)| (total_key(p.f[0]), total_key(p.f[1]), i)),
        );
        self.keys.sort_unstable();
        self.best.clear();
        self.rank.clear();
        self.rank.resize(pop.len(), 0);
        for &(_, _, i) in &self.keys {
            let f = pop[i].f;
            let best = &mut self.best;
            // Without short-circuits (`|`, `&`): the search compiles without branches.
            let k = best.partition_point(|b| (b[1] < f[1]) | ((b[1] == f[1]) & (b[0] < f[0])));
            if k == best.len() {
                best.push(f);
            } else if f[1] < best[k][1] {
                best[k] = f;
            }
            self.rank[i] = k;
        }
        // The members of each front, by a counting sort on the fronts: in index order (a pass
        // over the indices) and in key order (a pass over the keys).
        let nf = self.best.len();
        self.start.clear();
        self.start.resize(nf + 1, 0);
        for &r in &self.rank {
            self.start[r + 1] += 1;
        }
        for k in 0..nf {
            self.start[k + 1] += self.start[k];
        }
        self.by_index.resize(pop.len(), 0);
        self.by_key.resize(pop.len(), 0);
        self.at.clear();
        self.at.extend_from_slice(&self.start[..nf]);
        for (i, &r) in self.rank.iter().enumerate() {
            self.by_index[self.at[r]] = i;
            self.at[r] += 1;
        }
        self.at.copy_from_slice(&self.start[..nf]);
        for &(_, _, i) in &self.keys {
            let r = self.rank[i];
            self.by_key[self.at[r]] = i;
            self.at[r] += 1;
        }
        nf
    }

    /// Front `k` of the last [`Survival::sort`], in index order.
    fn front(&self, k: usize) -> &[usize] {
        &self.by_index[self.start[k]..self.start[k + 1]]
    }

    /// [`crowding`] of front `k` of the last [`Survival::sort`] into `self.cd`, by position in
    /// the front, without sorting: in a front whose objectives are not NaN, members equal in
    /// both objectives (`==`) are neighbours in key order, and the members that no earlier
    /// one equals have distinct objectives (equal in one objective, the two would be equal in
    /// the other, as neither dominates), so in key order they ascend strictly in the first
    /// objective and descend strictly in the second: the orders `crowding` sorts them into,
    /// which decide its sums, term for term. A front with a NaN takes `crowding` itself.
    fn crowd(&mut self, pop: &[Indiv], k: usize) {
        let (s, e) = (self.start[k], self.start[k + 1]);
        let m = e - s;
        self.cd.clear();
        if m <= 2 {
            self.cd.resize(m, 1e14);
            return;
        }
        let front = &self.by_index[s..e];
        if front
            .iter()
            .any(|&i| pop[i].f[0].is_nan() || pop[i].f[1].is_nan())
        {
            self.cd = crowding(pop, front);
            return;
        }
        if self.first.len() < pop.len() {
            self.first.resize(pop.len(), false);
            self.acc.resize(pop.len(), 0.0);
        }
        // The first (least index) of each run of equals in key order.
        let canon = |v: f64| if v == 0.0 { 0 } else { v.to_bits() };
        let sorted = &self.by_key[s..e];
        self.unique.clear();
        let mut g = 0;
        while g < m {
            let i = sorted[g];
            let key = (canon(pop[i].f[0]), canon(pop[i].f[1]));
            let mut least = i;
            self.first[i] = false;
            g += 1;
            while g < m {
                let h = sorted[g];
                if (canon(pop[h].f[0]), canon(pop[h].f[1])) != key {
                    break;
                }
                least = least.min(h);
                self.first[h] = false;
                g += 1;
            }
            self.first[least] = true;
            self.acc[least] = 0.0;
            self.unique.push(least);
        }
        let u = self.unique.len();
        let unique = &self.unique;
        for obj in 0..2 {
            // Ascending in the objective: key order for the first, its reverse for the second.
            let id = |k: usize| {
                if obj == 0 {
                    unique[k]
                } else {
                    unique[u - 1 - k]
                }
            };
            let acc = &mut self.acc;
            crowding_terms(u, |k| pop[id(k)].f[obj], |k, t| acc[id(k)] += t);
        }
        for &i in front {
            self.cd.push(if self.first[i] {
                let c = self.acc[i] / 2.0;
                if c.is_infinite() {
                    1e14
                } else {
                    c
                }
            } else {
                0.0
            });
        }
    }
}

/// Non-dominated fronts of two-objective points (each front in index order): sort by the
/// objectives, then put each point in the first front none of whose members dominates it.
#[cfg(test)]
fn fronts(pop: &[Indiv]) -> Vec<Vec<usize>> {
    // Sorted by (f0, f1, index) under `total_cmp`, as keys held in one array: a total order
    // (the index breaks ties), so an unstable sort gives the stable order.
    let mut keys: Vec<(u64, u64, usize)> = pop
        .iter()
        .enumerate()
        .map(|(i, p)| (total_key(p.f[0]), total_key(p.f[1]), i))
        .collect();
    keys.sort_unstable();
    let idx = keys.iter().map(|k| k.2);
    // Per front: the member with the smallest second objective (first such in sorted order).
    let mut best: Vec<[f64; 2]> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in idx {
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

/// The positions in `front` of the members whose objectives (compared with `==`) no earlier
/// member has, in order: by sorting on the objectives' bits (with −0 as +0; a NaN equals
/// nothing, so it is always first of its kind).
fn first_of_equals(pop: &[Indiv], front: &[usize]) -> Vec<usize> {
    let canon = |v: f64| if v == 0.0 { 0 } else { v.to_bits() };
    let mut keys: Vec<(u64, u64, usize)> = front
        .iter()
        .enumerate()
        .filter(|&(_, &i)| !pop[i].f[0].is_nan() && !pop[i].f[1].is_nan())
        .map(|(a, &i)| (canon(pop[i].f[0]), canon(pop[i].f[1]), a))
        .collect();
    keys.sort_unstable();
    let mut first = vec![true; front.len()];
    for w in keys.windows(2) {
        if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
            first[w[1].2] = false;
        }
    }
    (0..front.len()).filter(|&a| first[a]).collect()
}

/// One objective's part of the crowding distance of `u` points whose values in ascending
/// order are `v(0..u)`: `add(k, term)` with the distances to point `k`'s neighbours over the
/// objective's range (infinite at the ends; 0 when the range is).
fn crowding_terms(u: usize, v: impl Fn(usize) -> f64, mut add: impl FnMut(usize, f64)) {
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
        add(k, l + n);
    }
}

/// pymoo's crowding distance: extremes (and fronts of at most two) get 1e14, duplicates 0.
fn crowding(pop: &[Indiv], front: &[usize]) -> Vec<f64> {
    let m = front.len();
    if m <= 2 {
        return vec![1e14; m];
    }
    let unique = first_of_equals(pop, front);
    let mut cd = vec![0.0; m];
    let u = unique.len();
    let mut acc = vec![0.0; u];
    for obj in 0..2 {
        let mut idx: Vec<usize> = (0..u).collect();
        // Stable by objective: ties in index order.
        idx.sort_unstable_by(|&a, &b| {
            pop[front[unique[a]]].f[obj]
                .total_cmp(&pop[front[unique[b]]].f[obj])
                .then(a.cmp(&b))
        });
        crowding_terms(
            u,
            |k| pop[front[unique[idx[k]]]].f[obj],
            |k, t| acc[idx[k]] += t,
        );
    }
    for (k, &a) in unique.iter().enumerate() {
        let c = acc[k] / 2.0;
        cd[a] = if c.is_infinite() { 1e14 } else { c };
    }
    cd
}

/// Rank-and-crowding survival of `n` individuals; sets rank and crowding on the survivors.
/// The candidates of the others go to `spare`.
fn survive(
    mut pop: Vec<Indiv>,
    n: usize,
    rng: &mut StreamRng,
    spare: &mut Vec<Vec<u8>>,
    sv: &mut Survival,
) -> Vec<Indiv> {
    let nf = sv.sort(&pop);
    let mut keep: Vec<usize> = Vec::with_capacity(n);
    for rank in 0..nf {
        if keep.len() >= n {
            break;
        }
        sv.crowd(&pop, rank);
        let front = sv.front(rank);
        for (a, &i) in front.iter().enumerate() {
            pop[i].rank = rank;
            pop[i].crowding = sv.cd[a];
        }
        if keep.len() + front.len() > n {
            // Descending crowding, random order among equals.
            let mut perm: Vec<usize> = (0..front.len()).collect();
            shuffle(&mut perm, rng);
            let cd = &sv.cd;
            perm.sort_by(|&a, &b| cd[b].total_cmp(&cd[a]));
            for &a in perm.iter().take(n - keep.len()) {
                keep.push(front[a]);
            }
        } else {
            keep.extend_from_slice(front);
        }
    }
    // The survivors moved out in order (an empty candidate left in their place: no
    // allocation), then the others' buffers kept for the next children.
    let out = keep
        .iter()
        .map(|&i| {
            std::mem::replace(
                &mut pop[i],
                Indiv {
                    x: Vec::new(),
                    f: [0.0; 2],
                    rank: 0,
                    crowding: 0.0,
                },
            )
        })
        .collect();
    spare.extend(pop.into_iter().map(|p| p.x).filter(|x| x.capacity() > 0));
    out
}

fn shuffle(v: &mut [usize], rng: &mut StreamRng) {
    for i in (1..v.len()).rev() {
        let k = below(rng, i as u64 + 1) as usize;
        v.swap(i, k);
    }
}

/// Binary tournaments on domination, then crowding (random when equal).
fn select_parents(pop: &[Indiv], n: usize, rng: &mut StreamRng) -> Vec<usize> {
    let need = n * 2;
    let mut perm: Vec<usize> = Vec::with_capacity(need + pop.len());
    while perm.len() < need {
        // Each pass a fresh permutation of the population, shuffled in place at the end.
        let at = perm.len();
        perm.extend(0..pop.len());
        shuffle(&mut perm[at..], rng);
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
        for (k, j) in &jobs {
            let app = &j.app;
            let mut m = (2 * j.max_profiled_replicas())
                .max(1)
                .min(total_gpus as u32);
            m = m.min((app.max_batch_size / app.min_local_bsz.max(1)) as u32);
            if app.name == "ncf" {
                m = 1;
            }
            max_replicas.push(m);
            speedups.push(Speedup::new(j, fair, nn, max_r, self.optima.remove(k)));
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
            max_r,
            share: (0..=nn)
                .flat_map(|active| {
                    let total = (active * usize::from(cap)) as f64;
                    (0..=max_r).map(move |r| r as f64 / total)
                })
                .collect(),
            used: Vec::with_capacity(nn),
            order: Vec::with_capacity(nn),
            col_used: Vec::with_capacity(nn),
            col_holders: Vec::with_capacity(nn),
            t_grow: (0..=nj)
                .map(|holders| {
                    let p1 = 1.0 / nj as f64;
                    let p2 = if holders > 0 {
                        1.0 / holders as f64
                    } else {
                        0.0
                    };
                    draw_threshold(p1 + p2 - p1 * p2)
                })
                .collect(),
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
        // Candidates' buffers that survival dropped, for the next children.
        let mut spare: Vec<Vec<u8>> = Vec::new();
        let mut sv = Survival::default();
        pop = survive(pop, n0, &mut rng, &mut spare, &mut sv);
        // The generation's children, one after another (reused).
        let mut kids: Vec<u8> = Vec::new();
        let mut seen = Seen::default();
        for _ in 1..cfg.generations {
            let mut off: Vec<Indiv> = Vec::with_capacity(cfg.population);
            // Children already in the population or kept this generation are not kept again.
            seen.clear();
            for (i, p) in pop.iter().enumerate() {
                let h = candidate_hash(&p.x);
                if !seen.contains(h, &p.x, |k| &pop[k].x) {
                    seen.insert(h, i);
                }
            }
            for _attempt in 0..=100 {
                if off.len() >= cfg.population {
                    break;
                }
                let remaining = cfg.population - off.len();
                let matings = remaining.div_ceil(2);
                let parents = select_parents(&pop, 2 * matings, &mut rng);
                let size = nj * nn;
                // Every byte of a child is written by the mating (its content before does not
                // matter): the buffer only grows, never zero-filled again.
                let len = 2 * matings * size;
                if kids.len() < len {
                    kids.resize(len, 0);
                }
                let kids = &mut kids[..len];
                for (m, pair) in kids.chunks_exact_mut(2 * size).enumerate() {
                    let (a, b) = (&pop[parents[2 * m]].x, &pop[parents[2 * m + 1]].x);
                    let (c0, c1) = pair.split_at_mut(size);
                    problem.mate(a, b, &mut rng, c0, c1);
                }
                for x in kids.chunks_exact_mut(size) {
                    problem.mutate(x, &mut rng);
                }
                for x in kids.chunks_exact_mut(size) {
                    problem.repair(x, &mut rng);
                }
                for x in kids.chunks_exact(size) {
                    if off.len() >= cfg.population {
                        break;
                    }
                    let h = candidate_hash(x);
                    let n = pop.len();
                    if !seen.contains(h, x, |k| if k < n { &pop[k].x } else { &off[k - n].x }) {
                        seen.insert(h, n + off.len());
                        let f = problem.evaluate(x);
                        let mut buf = spare.pop().unwrap_or_default();
                        buf.clear();
                        buf.extend_from_slice(x);
                        off.push(Indiv {
                            x: buf,
                            f,
                            rank: 0,
                            crowding: 0.0,
                        });
                    }
                }
            }
            pop.extend(off);
            pop = survive(pop, cfg.population, &mut rng, &mut spare, &mut sv);
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
        // Keep this round's jobs' goodput optima (a job absent from a round starts afresh).
        self.optima.clear();
        for ((k, _), sp) in jobs.iter().zip(problem.speedups.iter_mut()) {
            if let Some(m) = sp.optima.take() {
                self.optima.insert(*k, m);
            }
        }
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
    fn row_stats_count_and_sum_as_the_plain_loops() {
        let mut rng = blox_core::Seed(3).stream("row-stats");
        for len in 0..40 {
            for _ in 0..50 {
                let row: Vec<u8> = (0..len)
                    .map(|_| match rng.below(3) {
                        0 => 0,
                        1 => rng.below(5) as u8,
                        _ => rng.below(256) as u8,
                    })
                    .collect();
                let nonzero = row.iter().filter(|&&v| v > 0).count();
                let sum: usize = row.iter().map(|&v| usize::from(v)).sum();
                assert_eq!(row_stats(&row), (nonzero, sum), "{row:?}");
                let mut other = row.clone();
                assert!(rows_equal(&row, &other));
                if len > 0 {
                    let k = rng.below(len as u64) as usize;
                    other[k] ^= 1 << rng.below(8);
                    assert!(!rows_equal(&row, &other), "{row:?} {other:?}");
                }
            }
        }
    }

    #[test]
    fn column_passes_are_the_plain_loops() {
        let mut rng = blox_core::Seed(4).stream("columns");
        for nn in 1..40 {
            for _ in 0..30 {
                let rows = rng.below(12) as usize;
                let cap = rng.below(9) as u8;
                let x: Vec<u8> = (0..rows * nn).map(|_| rng.below(6) as u8).collect();
                let mut want = x.clone();
                let mut left = vec![cap; nn];
                for row in want.chunks_exact_mut(nn) {
                    for (v, l) in row.iter_mut().zip(left.iter_mut()) {
                        *v = (*v).min(*l);
                        *l -= *v;
                    }
                }
                let mut got = x.clone();
                cap_columns(&mut got, nn, cap);
                assert_eq!(got, want, "nn {nn} cap {cap} {x:?}");
                let active = (0..nn)
                    .filter(|&n| x.chunks_exact(nn).any(|r| r[n] > 0))
                    .count();
                assert_eq!(active_nodes(&x, nn), active, "nn {nn} {x:?}");
            }
        }
    }

    #[test]
    fn draw_threshold_decides_as_next_f64() {
        let mut rng = blox_core::Seed(5).stream("thresholds");
        let mut ps = vec![
            0.0,
            0.1,
            0.5,
            1.0,
            1.5,
            1.0 / 3.0,
            1.0 / 7.0,
            f64::MIN_POSITIVE,
        ];
        ps.extend((1..60).map(|j| {
            let p1 = 1.0 / f64::from(j);
            p1 + 0.5 - p1 * 0.5
        }));
        ps.extend((0..200).map(|_| rng.next_f64()));
        for p in ps {
            let t = draw_threshold(p);
            for k in [t.saturating_sub(1), t, t + 1, rng.below(1 << 53)] {
                let k = k.min((1 << 53) - 1);
                let f = k as f64 * (1.0 / (1u64 << 53) as f64);
                assert_eq!(f < p, k < t, "p {p} k {k}");
            }
        }
    }

    #[test]
    fn total_key_orders_as_total_cmp() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            5e-324,
            1.0,
            2.5,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in v {
            for b in v {
                assert_eq!(total_key(a).cmp(&total_key(b)), a.total_cmp(&b), "{a} {b}");
            }
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
    fn survival_gives_the_fronts_and_crowding_of_the_plain_functions() {
        // Populations with many ties, both zeros, duplicates and (in some) NaNs: the fronts of
        // `Survival::sort` are `fronts`', and `Survival::crowd` gives `crowding`'s distances
        // bit for bit, front by front.
        let mut rng = blox_core::Seed(11).stream("survival");
        let vals = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            2.0,
            2.5,
            -3.0,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut sv = Survival::default();
        for round in 0..400 {
            let len = rng.below(60) as usize;
            let kinds = if round % 4 == 0 {
                vals.len()
            } else {
                vals.len() - 1
            };
            let pop: Vec<Indiv> = (0..len)
                .map(|_| {
                    let mut pick = || match rng.below(3) {
                        0 => vals[rng.below(kinds as u64) as usize],
                        _ => -(rng.below(20) as f64) / 4.0,
                    };
                    ind(pick(), pick())
                })
                .collect();
            let want = fronts(&pop);
            let nf = sv.sort(&pop);
            assert_eq!(nf, want.len(), "round {round}");
            for (k, front) in want.iter().enumerate() {
                assert_eq!(sv.front(k), &front[..], "round {round} front {k}");
                sv.crowd(&pop, k);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&sv.cd),
                    bits(&crowding(&pop, front)),
                    "round {round} front {k}"
                );
            }
        }
    }

    #[test]
    fn first_of_equals_is_the_pairwise_test() {
        let mut rng = blox_core::Seed(9).stream("first-of-equals");
        let vals = [0.0, -0.0, 1.0, -1.5, f64::NAN, 2.0, f64::INFINITY];
        for len in 0..30 {
            let pop: Vec<Indiv> = (0..len)
                .map(|_| {
                    ind(
                        vals[rng.below(vals.len() as u64) as usize],
                        vals[rng.below(vals.len() as u64) as usize],
                    )
                })
                .collect();
            let front: Vec<usize> = (0..len).rev().collect();
            let want: Vec<usize> = (0..len)
                .filter(|&a| !front[..a].iter().any(|&k| pop[k].f == pop[front[a]].f))
                .collect();
            assert_eq!(first_of_equals(&pop, &front), want);
        }
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
