//! Synergy's allocation mechanisms (OSDI 2022): GPU-proportional, Synergy-Greedy and
//! Synergy-Tune, exactly as Synergy's simulator runs them.
//!
//! Source: `msr-fiddle/synergy` `simulator/resources/cluster.py` (`allocate_synergy_random`,
//! `_top_synergy_gpus`, `allocate_synergy_tune`, `_tune`, `_get_underutilized_servers`,
//! `_reallocate_peer`, `_make_fair_share`) and `jobs/job.py`, as described in
//! SYNERGY-SEMANTICS §3.

use blox_core::{Ctx, Decisions, GpuId, HostShare, JobId, PlacementPolicy, Schedule};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Which of Synergy's mechanisms shares out CPUs and memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynergyMode {
    /// GPU-proportional (`<POLICY>+fair`): every job gets the per-GPU share of its node's CPUs
    /// and memory and speed-up 1.
    Fair,
    /// Synergy-Greedy (`<POLICY>` alone): a job gets its ideal demand or is skipped this round.
    Greedy,
    /// Synergy-Tune (`<POLICY>+tune`): ideal demand, else the fair share, else peers holding
    /// more than their fair share are cut back to it.
    #[default]
    Tune,
}

impl SynergyMode {
    /// The name used in `synergy:mode=NAME`.
    pub fn as_str(self) -> &'static str {
        match self {
            SynergyMode::Fair => "fair",
            SynergyMode::Greedy => "greedy",
            SynergyMode::Tune => "tune",
        }
    }
}

impl fmt::Display for SynergyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SynergyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fair" | "proportional" => Ok(SynergyMode::Fair),
            "greedy" => Ok(SynergyMode::Greedy),
            "tune" => Ok(SynergyMode::Tune),
            "opt" => Err(
                "synergy mode `opt` (Synergy-OPT) is not available: it needs each \
                 model's 9 x 5 CPU/memory throughput matrix, which the specification does not \
                 give, and an integer program (expected fair, greedy or tune)"
                    .into(),
            ),
            other => Err(format!(
                "unknown synergy mode `{other}` (expected fair, greedy or tune)"
            )),
        }
    }
}

/// Synergy's placement: a [`SynergyMode`] deciding CPUs and memory, with Synergy's GPU choice.
///
/// **Round model.** Synergy ends every lease each round and rebuilds the whole allocation, so
/// this placement stops every running job and places the schedule afresh on the whole cluster
/// (a job restarted on the same GPUs costs nothing in Synergy's time model). It walks the
/// schedule in order; an entry whose GPU count exceeds the GPUs still free is passed over and the
/// walk goes on (Synergy's policies walk every job), as is a job Greedy cannot fit.
///
/// **GPU choice** (`SYNERGY_RANDOM`, Synergy's default): free GPUs in index order, taking each
/// GPU whose node still has the job's *per-GPU* CPU and memory demand free (holding it while the
/// job's GPUs are gathered), until the job has its GPU count; otherwise it does not fit.
///
/// **Demands** come from [`blox_core::JobSpec::cpus`], [`blox_core::JobSpec::mem_gb`] (whole
/// job; absent means the fair share) and the speed-up at that demand from
/// [`blox_core::JobSpec::ideal_speedup`] (absent means 1). The fair share per GPU is the
/// cluster's per-server CPUs and memory (`int(total / servers)`, as Synergy) over the per-server
/// GPUs. Storage (62.5 MB/s per GPU, 500 per server) and network are not modelled: in Synergy
/// they bind exactly when GPUs do.
///
/// **Tune** (`Cluster._tune`), for each job in order: (1) its ideal demand; (2) if that does not
/// fit and it is above the fair share in CPUs or memory, the fair share at speed-up 1; (3) if
/// that does not fit either, *peer adjustment*: on the node(s) chosen for it (for a multi-GPU
/// job the first node with enough free GPUs, else nodes by fewest free GPUs then lowest id),
/// the jobs placed there this round are sorted (stably, in place, as Synergy's per-server list)
/// by fewest nodes, then most CPUs per GPU, then most memory per GPU, and taken in that order
/// until the CPUs and memory they hold beyond their fair share cover the shortfall; each is
/// moved to its fair share on the same GPUs (speed-up 1); then the job is tried again. If that
/// fails, Synergy exits; here the job is left out of the round and counted in
/// [`SynergyPlacement::failures`].
///
/// Each started job gets a [`HostShare`] in [`Decisions::host`]: its CPUs, memory and speed-up
/// (the ideal speed-up at its ideal demand, 1 at the fair share or in `Fair` mode).
/// Synergy's time model ([`crate::Synergy`]) credits progress by that speed-up; the
/// `blox` and `exact` models ignore it (there only the GPUs chosen matter).
///
/// Cost per round: O(s·G) for s schedule entries on G GPUs (first fit scans the free list),
/// plus O(k log k) per peer adjustment over the k jobs of a node.
#[derive(Clone, Debug, Default)]
pub struct SynergyPlacement {
    mode: SynergyMode,
    failures: u64,
    state: RoundState,
}

/// One job's allocation in the round being built.
#[derive(Clone, Debug)]
struct Placed {
    job: JobId,
    gpus: Vec<GpuId>,
    /// Per node: (node, GPUs, CPUs, memory), in first-use order.
    nodes: Vec<(usize, u32, f64, f64)>,
    speedup: f64,
    /// Ideal demand of the whole job (for re-deriving the fair share of a peer).
    ideal_cpus: f64,
    ideal_mem: f64,
    ideal_speedup: f64,
    live: bool,
}

impl Placed {
    fn cpus(&self) -> f64 {
        self.nodes.iter().map(|n| n.2).sum()
    }
    fn mem(&self) -> f64 {
        self.nodes.iter().map(|n| n.3).sum()
    }
}

#[derive(Clone, Debug, Default)]
struct RoundState {
    node_gpus: Vec<u32>,
    node_cpus: Vec<f64>,
    node_mem: Vec<f64>,
    gpu_used: Vec<u32>,
    cpu_used: Vec<f64>,
    mem_used: Vec<f64>,
    hold_gpu: Vec<u32>,
    hold_cpu: Vec<f64>,
    hold_mem: Vec<f64>,
    free: Vec<GpuId>,
    /// Scratch: the positions in `free` of the GPUs the last first fit chose, ascending.
    chosen_at: Vec<usize>,
    placed: Vec<Placed>,
    node_jobs: Vec<Vec<usize>>,
    fair_cpu: f64,
    fair_mem: f64,
}

/// A per-GPU demand: (CPUs, memory).
type PerGpu = (f64, f64);

impl SynergyPlacement {
    /// Synergy's placement with this mechanism.
    pub fn new(mode: SynergyMode) -> Self {
        SynergyPlacement {
            mode,
            failures: 0,
            state: RoundState::default(),
        }
    }

    /// The mechanism.
    pub fn mode(&self) -> SynergyMode {
        self.mode
    }

    /// Jobs Tune could not place even after peer adjustment (Synergy exits on the first; by
    /// construction it should stay 0).
    pub fn failures(&self) -> u64 {
        self.failures
    }
}

impl RoundState {
    fn reset(&mut self, ctx: &Ctx<'_>) {
        let spec = ctx.cluster.spec();
        let n = spec.nodes.len();
        self.node_gpus.clear();
        self.node_cpus.clear();
        self.node_mem.clear();
        for node in &spec.nodes {
            self.node_gpus.push(node.gpus);
            self.node_cpus.push(f64::from(node.cpus));
            self.node_mem.push(node.mem_gb);
        }
        for v in [&mut self.gpu_used, &mut self.hold_gpu] {
            v.clear();
            v.resize(n, 0);
        }
        for v in [
            &mut self.cpu_used,
            &mut self.mem_used,
            &mut self.hold_cpu,
            &mut self.hold_mem,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
        self.free.clear();
        self.free.extend((0..ctx.cluster.total_gpus()).map(GpuId));
        self.placed.clear();
        for l in &mut self.node_jobs {
            l.clear();
        }
        self.node_jobs.resize_with(n, Vec::new);
        // Synergy's `per_server_size`: int(total / servers) of each resource; the fair share per
        // GPU divides it by the per-server GPU count.
        let servers = n.max(1) as f64;
        let total_gpus: u64 = spec.nodes.iter().map(|x| u64::from(x.gpus)).sum();
        let total_cpus: f64 = self.node_cpus.iter().sum();
        let total_mem: f64 = self.node_mem.iter().sum();
        let per_gpus = ((total_gpus as f64) / servers).trunc().max(1.0);
        self.fair_cpu = (total_cpus / servers).trunc() / per_gpus;
        self.fair_mem = (total_mem / servers).trunc() / per_gpus;
    }

    fn node_free_with_hold(&self, k: usize) -> (u32, f64, f64) {
        (
            self.node_gpus[k] - self.gpu_used[k] - self.hold_gpu[k],
            self.node_cpus[k] - self.cpu_used[k] - self.hold_cpu[k],
            self.node_mem[k] - self.mem_used[k] - self.hold_mem[k],
        )
    }

    /// `_top_synergy_gpus`: first fit over the free GPUs in index order, with holds.
    fn first_fit(&mut self, ctx: &Ctx<'_>, n: u32, per: PerGpu) -> Option<Vec<GpuId>> {
        let mut chosen = Vec::with_capacity(n as usize);
        self.chosen_at.clear();
        for (i, &g) in self.free.iter().enumerate() {
            let k = ctx.cluster.node_of(g).0 as usize;
            let (fg, fc, fm) = self.node_free_with_hold(k);
            if fg >= 1 && fc >= per.0 && fm >= per.1 {
                chosen.push(g);
                self.chosen_at.push(i);
                self.hold_gpu[k] += 1;
                self.hold_cpu[k] += per.0;
                self.hold_mem[k] += per.1;
            }
            if chosen.len() == n as usize {
                break;
            }
        }
        self.hold_gpu.iter_mut().for_each(|x| *x = 0);
        self.hold_cpu.iter_mut().for_each(|x| *x = 0.0);
        self.hold_mem.iter_mut().for_each(|x| *x = 0.0);
        (chosen.len() == n as usize).then_some(chosen)
    }

    /// Try to allocate `n` GPUs at `per`-GPU demand; on success record the job.
    fn try_allocate(
        &mut self,
        ctx: &Ctx<'_>,
        idx: usize,
        n: u32,
        per: PerGpu,
        speedup: f64,
    ) -> bool {
        let Some(gpus) = self.first_fit(ctx, n, per) else {
            return false;
        };
        let mut nodes: Vec<(usize, u32, f64, f64)> = Vec::new();
        for &g in &gpus {
            let k = ctx.cluster.node_of(g).0 as usize;
            match nodes.iter_mut().find(|x| x.0 == k) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += per.0;
                    e.3 += per.1;
                }
                None => nodes.push((k, 1, per.0, per.1)),
            }
        }
        for &(k, g, c, m) in &nodes {
            self.gpu_used[k] += g;
            self.cpu_used[k] += c;
            self.mem_used[k] += m;
            self.node_jobs[k].push(idx);
        }
        // Out of the free list, from the positions first fit chose them at: the stretches
        // between them move down, and nothing before the first is touched.
        let (free, at) = (&mut self.free, &self.chosen_at);
        if let Some(&first) = at.first() {
            let mut to = first;
            for (i, &p) in at.iter().enumerate() {
                let end = at.get(i + 1).copied().unwrap_or(free.len());
                free.copy_within(p + 1..end, to);
                to += end - p - 1;
            }
            free.truncate(to);
        }
        let p = &mut self.placed[idx];
        p.gpus = gpus;
        p.nodes = nodes;
        p.speedup = speedup;
        p.live = true;
        true
    }

    /// `_get_underutilized_servers`: the nodes (and GPU counts) to look for peers on.
    fn underutilized(&self, ctx: &Ctx<'_>, n: u32) -> Vec<(usize, u32)> {
        if n > 1 {
            for k in 0..self.node_gpus.len() {
                if self.node_gpus[k] - self.gpu_used[k] >= n {
                    return vec![(k, n)];
                }
            }
        }
        // Free GPUs per node (those in the free list), by (count, node id) ascending.
        let mut per_node: Vec<(u32, usize)> = Vec::new();
        for &g in &self.free {
            let k = ctx.cluster.node_of(g).0 as usize;
            match per_node.iter_mut().find(|x| x.1 == k) {
                Some(e) => e.0 += 1,
                None => per_node.push((1, k)),
            }
        }
        per_node.sort_unstable();
        let mut need = n;
        let mut out = Vec::new();
        for (free, k) in per_node {
            if need == 0 {
                break;
            }
            if free >= need {
                out.push((k, need));
                return out;
            }
            out.push((k, free));
            need -= free;
        }
        out
    }

    /// `_reallocate_peer`: the jobs on node `k` to cut back to their fair share so that
    /// `demand` (whole, for the GPUs wanted on this node) fits.
    fn peers_to_cut(&mut self, k: usize, demand: (f64, f64)) -> Vec<usize> {
        let avail_cpu = self.node_cpus[k] - self.cpu_used[k];
        let avail_mem = self.node_mem[k] - self.mem_used[k];
        let mut spare = (
            (demand.0 - avail_cpu).max(0.0),
            (demand.1 - avail_mem).max(0.0),
        );
        if spare.0 == 0.0 && spare.1 == 0.0 {
            return Vec::new();
        }
        let placed = &self.placed;
        let key = |i: usize| {
            let p = &placed[i];
            let g = p.gpus.len() as f64;
            (p.nodes.len(), -(p.cpus() / g), -(p.mem() / g))
        };
        self.node_jobs[k].sort_by(|&a, &b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0)
                .then(ka.1.partial_cmp(&kb.1).unwrap_or(Ordering::Equal))
                .then(ka.2.partial_cmp(&kb.2).unwrap_or(Ordering::Equal))
        });
        let mut out = Vec::new();
        for &i in &self.node_jobs[k] {
            let p = &self.placed[i];
            let here = p.nodes.iter().find(|x| x.0 == k).map_or(0, |x| x.1);
            let g_here = f64::from(here);
            let share = g_here / p.gpus.len() as f64;
            let excess_cpu = (p.cpus() * share - self.fair_cpu * g_here).max(0.0);
            let excess_mem = (p.mem() * share - self.fair_mem * g_here).max(0.0);
            let diff = (
                (spare.0 - excess_cpu).max(0.0),
                (spare.1 - excess_mem).max(0.0),
            );
            out.push(i);
            // Synergy's "all components > 0: skip" never holds (the GPU component of the
            // difference is always 0), so every job is taken until the shortfall is covered.
            if diff.0 == 0.0 && diff.1 == 0.0 {
                return out;
            }
            spare = diff;
        }
        out
    }

    /// Move placed job `i` to its fair share (or its own demand, if that is not above the fair
    /// share) on the same GPUs, at speed-up 1 in the first case.
    fn cut_to_fair(&mut self, i: usize) {
        let p = &self.placed[i];
        let g = p.gpus.len() as f64;
        let above = p.ideal_cpus > self.fair_cpu * g || p.ideal_mem > self.fair_mem * g;
        let (total_cpu, total_mem, speedup) = if above {
            (self.fair_cpu * g, self.fair_mem * g, 1.0)
        } else {
            (p.ideal_cpus, p.ideal_mem, p.speedup)
        };
        let nodes = p.nodes.clone();
        let mut new_nodes = Vec::with_capacity(nodes.len());
        for (k, gk, c, m) in nodes {
            self.cpu_used[k] -= c;
            self.mem_used[k] -= m;
            let share = f64::from(gk) / g;
            let (nc, nm) = (total_cpu * share, total_mem * share);
            self.cpu_used[k] += nc;
            self.mem_used[k] += nm;
            new_nodes.push((k, gk, nc, nm));
        }
        let p = &mut self.placed[i];
        p.nodes = new_nodes;
        p.speedup = speedup;
    }

    fn tune(&mut self, ctx: &Ctx<'_>, idx: usize, n: u32) -> bool {
        let g = f64::from(n);
        let p = &self.placed[idx];
        let (mut cpus, mut mem, mut speedup) = (p.ideal_cpus, p.ideal_mem, p.ideal_speedup);
        if self.try_allocate(ctx, idx, n, (cpus / g, mem / g), speedup) {
            return true;
        }
        if cpus > self.fair_cpu * g || mem > self.fair_mem * g {
            cpus = self.fair_cpu * g;
            mem = self.fair_mem * g;
            speedup = 1.0;
            if self.try_allocate(ctx, idx, n, (cpus / g, mem / g), speedup) {
                return true;
            }
        }
        for (k, gk) in self.underutilized(ctx, n) {
            let ratio = f64::from(gk) / g;
            for i in self.peers_to_cut(k, (cpus * ratio, mem * ratio)) {
                self.cut_to_fair(i);
            }
        }
        self.try_allocate(ctx, idx, n, (cpus / g, mem / g), speedup)
    }
}

impl PlacementPolicy for SynergyPlacement {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let st = &mut self.state;
        st.reset(ctx);
        for j in ctx.jobs.iter().filter(|j| j.is_running()) {
            out.stop.push(j.id);
        }
        let (fair_cpu, fair_mem) = (st.fair_cpu, st.fair_mem);
        for entry in schedule.iter() {
            let Some(job) = ctx.jobs.get(entry.job) else {
                continue;
            };
            let n = job.n_gpus();
            if n == 0 || (st.free.len() as u64) < u64::from(n) {
                continue;
            }
            let g = f64::from(n);
            let spec = &job.spec;
            let ideal_cpus = spec.cpus.unwrap_or(fair_cpu * g);
            let ideal_mem = spec.mem_gb.unwrap_or(fair_mem * g);
            let ideal_speedup = spec.ideal_speedup.unwrap_or(1.0);
            let idx = st.placed.len();
            st.placed.push(Placed {
                job: job.id,
                gpus: Vec::new(),
                nodes: Vec::new(),
                speedup: ideal_speedup,
                ideal_cpus,
                ideal_mem,
                ideal_speedup,
                live: false,
            });
            let ok = match self.mode {
                SynergyMode::Fair => st.try_allocate(ctx, idx, n, (fair_cpu, fair_mem), 1.0),
                SynergyMode::Greedy => {
                    st.try_allocate(ctx, idx, n, (ideal_cpus / g, ideal_mem / g), ideal_speedup)
                }
                SynergyMode::Tune => {
                    let ok = st.tune(ctx, idx, n);
                    if !ok {
                        self.failures += 1;
                    }
                    ok
                }
            };
            if !ok {
                st.placed.pop();
            }
        }
        for p in st.placed.iter().filter(|p| p.live) {
            out.start(p.job, &p.gpus);
            out.host
                .push(HostShare::new(p.job, p.cpus(), p.mem(), p.speedup));
        }
    }

    fn name(&self) -> String {
        format!("synergy:mode={}", self.mode)
    }
}
