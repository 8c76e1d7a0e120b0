//! The Sia policy (SIA-SEMANTICS §6): goodput matrix, restart factor, fairness power, the
//! integer program and placement.

use crate::agent::{goodput_row, restart_factor, utility};
use crate::cluster::{Config, SiaCluster};
use crate::ilp::{solve_with, IlpError, IlpJob, IlpSolver};
use crate::job::SiaJob;

/// A decision for one job: its GPU type and the node id of each GPU (in the order taken), or
/// `None` for no allocation.
pub type Decision = Option<(usize, Vec<u32>)>;

/// Sia's parameters (the Table 3 command line, §6.10).
#[derive(Debug, Clone, PartialEq)]
pub struct SiaParams {
    /// Fairness power `p` (`--policy_p_val`; Table 3: −0.5). Must not be 0.
    pub p: f64,
    /// `λ_n`, the cost of leaving a job out (`--mip_lambda_n`; Table 3: 1.1).
    pub lambda_n: f64,
    /// `λ_a` (`--mip_lambda_a`; Table 3: 0.01): read by the original but never used
    /// `[quirk]`; kept so a run records it.
    pub lambda_a: f64,
    /// Who solves the integer program (`sia:solver=dp|cbc`): the exact dynamic program (the
    /// default) or CBC (feature `cbc`).
    pub solver: IlpSolver,
}

impl Default for SiaParams {
    fn default() -> Self {
        SiaParams {
            p: -0.5,
            lambda_n: 1.1,
            lambda_a: 0.01,
            solver: IlpSolver::Dp,
        }
    }
}

/// The Sia policy's state: each job's previous configuration.
#[derive(Debug, Clone)]
pub struct SiaPolicy {
    /// The parameters.
    pub params: SiaParams,
    configs: Vec<Config>,
    /// Per job (workload index): the configuration chosen last round.
    previous: Vec<Option<usize>>,
}

impl SiaPolicy {
    /// The policy for `cluster` and `jobs` jobs.
    pub fn new(params: SiaParams, cluster: &SiaCluster, jobs: usize) -> SiaPolicy {
        SiaPolicy {
            params,
            configs: cluster.configurations(),
            previous: vec![None; jobs],
        }
    }

    /// The configurations, in index order.
    pub fn configs(&self) -> &[Config] {
        &self.configs
    }

    /// The utility row `A` of one job at time `now` (§6.3–§6.5).
    pub fn utilities(&self, cluster: &SiaCluster, job: &SiaJob, j: usize, now: f64) -> Vec<f32> {
        let mut g = goodput_row(job, cluster, &self.configs);
        if let Some(prev) = self.previous[j] {
            let age = now - job.submission_time;
            let r = restart_factor(&job.name, age, job.num_restarts.unwrap_or(0)) as f32;
            for (i, v) in g.iter_mut().enumerate() {
                if i != prev {
                    *v *= r;
                }
            }
        }
        let p = self.params.p as f32;
        g.into_iter().map(|v| utility(v, p)).collect()
    }

    /// The integer program's rows for the `active` jobs (workload indices, in order) at `now`:
    /// what [`SiaPolicy::decide`] solves (the capacities are the types' GPUs).
    pub fn ilp_rows(
        &self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Vec<IlpJob> {
        active
            .iter()
            .map(|&j| IlpJob {
                utility: self.utilities(cluster, &jobs[j], j, now),
                previous: self.previous[j],
                pinned: self.previous[j].is_some() && jobs[j].scaling_underway(),
            })
            .collect()
    }

    /// Decide the allocations of the `active` jobs (workload indices, in order) at `now`.
    pub fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Result<Vec<Decision>, IlpError> {
        let rows = self.ilp_rows(cluster, jobs, active, now);
        let capacity: Vec<u32> = cluster.types.iter().map(|t| t.gpus()).collect();
        let x = solve_with(
            self.params.solver,
            &rows,
            &self.configs,
            &capacity,
            self.params.lambda_n,
            self.params.p < 0.0,
        )?;
        for (&j, c) in active.iter().zip(&x) {
            self.previous[j] = *c;
        }
        let picks: Vec<Option<Config>> = x.iter().map(|c| c.map(|c| self.configs[c])).collect();
        place(cluster, &picks)
    }
}

/// Sia's placement (`alloc_to_placement_fast`, §6.9), recomputed from scratch every round:
/// per type, jobs by GPU count descending (stable), a node pointer carried from job to job;
/// a job first takes `GPUs // GPUs-per-node` completely free nodes (scanning at most every node
/// from the pointer), then its remaining GPUs node by node; the pointer moves past every node
/// visited.
pub fn place(cluster: &SiaCluster, picks: &[Option<Config>]) -> Result<Vec<Decision>, IlpError> {
    let mut out: Vec<Decision> = vec![None; picks.len()];
    for (t, ty) in cluster.types.iter().enumerate() {
        let nodes = ty.nodes as usize;
        let gpn = ty.gpus_per_node;
        let mut free = vec![gpn; nodes];
        let mut order: Vec<usize> = (0..picks.len())
            .filter(|&i| picks[i].is_some_and(|c| c.gpu_type == t))
            .collect();
        order.sort_by_key(|&i| std::cmp::Reverse(picks[i].map_or(0, |c| c.gpus)));
        let mut ptr = 0usize;
        for i in order {
            let Some(c) = picks[i] else { continue };
            let mut ids = Vec::with_capacity(c.gpus as usize);
            let mut remaining = c.gpus;
            let mut whole = c.gpus / gpn;
            let mut scanned = 0;
            while whole > 0 && scanned < nodes {
                let n = ptr;
                ptr = (ptr + 1) % nodes;
                scanned += 1;
                if free[n] == gpn {
                    free[n] = 0;
                    ids.extend(std::iter::repeat(n as u32).take(gpn as usize));
                    remaining -= gpn;
                    whole -= 1;
                }
            }
            let mut visits = 0;
            while remaining > 0 && visits < 2 * nodes {
                let n = ptr;
                ptr = (ptr + 1) % nodes;
                visits += 1;
                let take = free[n].min(remaining);
                free[n] -= take;
                remaining -= take;
                ids.extend(std::iter::repeat(n as u32).take(take as usize));
            }
            if remaining > 0 {
                return Err(IlpError(format!(
                    "placement: {} GPUs of {} do not fit",
                    c.gpus, ty.name
                )));
            }
            out[i] = Some((t, ids));
        }
    }
    Ok(out)
}

/// GPUs per node of a node-id list: counts of runs of equal consecutive ids (§1.2).
pub fn placement_tuple(ids: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let mut last = None;
    for &id in ids {
        if Some(id) == last {
            if let Some(c) = out.last_mut() {
                *c += 1;
            }
        } else {
            out.push(1);
            last = Some(id);
        }
    }
    out
}
