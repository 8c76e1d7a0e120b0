use crate::simplex::{Op, Program};
use blox_core::{
    Cluster, ConfigError, Ctx, GpuTypeId, Job, JobId, Schedule, SchedulingPolicy, ThroughputTable,
    Time,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// How [`Gavel`] computes its max-min fair time fractions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MaxMinSolver {
    /// The closed form for one GPU type ([`water_fill`]): O(n log n), exact, unique.
    #[default]
    WaterFilling,
    /// Gavel's linear program ([`max_min_lp`]) solved by a simplex; re-solved only when the
    /// set of active jobs (or their GPU counts) changes.
    Lp,
}

impl MaxMinSolver {
    /// The name used on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            MaxMinSolver::WaterFilling => "water-filling",
            MaxMinSolver::Lp => "lp",
        }
    }
}

impl fmt::Display for MaxMinSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MaxMinSolver {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s {
            "water-filling" => Ok(MaxMinSolver::WaterFilling),
            "lp" => Ok(MaxMinSolver::Lp),
            _ => Err(ConfigError::new(format!(
                "unknown max-min solver `{s}` (expected `water-filling` or `lp`)"
            ))),
        }
    }
}

/// Gavel-style max-min fairness (after Narayanan et al., OSDI 2020): heterogeneity-aware on a
/// cluster of several GPU types, the agnostic form on a cluster of one.
///
/// **What it is not.** Named `gavel` (alias `gavel-style`) on the command line, this is an
/// adaptation to this engine's rounds (fixed round grid, its own re-solve rule, engine
/// placement), not Gavel's simulator: it does not reproduce Gavel's numbers. For those, run
/// `--semantics gavel --policy max_min_fairness_perf` (or `max_min_fairness`), whose rules are
/// in `blox-gavel`.
///
/// **Allocation, one GPU type.** Each job `j` asking for `s_j` GPUs gets a time fraction
/// `x_j ∈ [0, 1]` (the share of rounds it should run), chosen so that the GPU shares `s_j·x_j`
/// are max-min fair under `Σ s_j·x_j ≤ G` (G = the cluster's GPUs). As in Gavel's
/// implementation, throughputs are multiplied by the scale factor `s_j`, so a 1-GPU job gets
/// `s_j` times the time of an `s_j`-GPU job at equal throughput. With one type Gavel's LP
/// ([`max_min_lp`]) only pins down the smallest share; the water-filling solution
/// ([`water_fill`], the default solver) is an optimum of that LP and the unique max-min fair
/// one (the tests cross-check it against the LP).
///
/// **Allocation, several GPU types.** Time fractions `x_jk` per job and type from Gavel's LP
/// ([`max_min_lp`], whatever the solver setting: water-filling is the one-type closed form):
/// the smallest normalised effective throughput `s_j · Σ_k T_jk·x_jk / T_j^equal` is maximised,
/// where `T_jk` is job `j`'s throughput on type `k` and `T_j^equal` its throughput when every
/// job gets an equal share of every type (Gavel §4.1). `T_jk` is the job's speed factor on type
/// `k` ([`ThroughputTable::speed_factor`] of its model and GPU count, against the reference
/// type) from the table given with [`Gavel::with_throughputs`]; without a table, for a job
/// without a model, or with `hetero = false` (Gavel's heterogeneity-agnostic baseline), every
/// `T_jk` is 1. The allocation is re-solved when the set of active jobs changes.
///
/// **Order, one type.** Gavel's priority `x_j / f_j`, where `f_j` is the share of time the job
/// has received: its running time (`attained_wall_s`) over the time since it was admitted. A job that has
/// received nothing has infinite priority (zero if its allocation is zero too). Ascending
/// starvation class, then descending priority, then descending `x_j`, then lowest id. Each job
/// is listed with its request; the placement decides who fits.
///
/// **Order, several types.** Gavel's round mechanism (§5): a priority `x_jk / f_jk` per job and
/// type, `f_jk` = time the job has run on type `k` (as this policy saw it running at each call)
/// over the time since it was admitted. The `(job, type)` pairs are walked by ascending
/// starvation class, descending priority, ascending share of time received on all types (so
/// that among jobs of infinite priority the one that has run least goes first), descending
/// `x_jk`, lowest id, lowest type; a job not
/// yet chosen is listed **on that type** ([`Schedule::push_on`]) when the type still has as
/// many GPUs as it asks for (counting every GPU of the type, since the round is decided anew).
/// Jobs left over follow, each on the best of its pairs whose type can hold it, so the schedule
/// still lists every active job. A job is never pinned to a type with fewer GPUs than it asks
/// for: such a type gets no share of it in the LP (its throughput there counts as 0), unless no
/// type can hold the job alone; that job is listed unpinned ([`Schedule::push`]), at its best
/// pair's rank when the round still has as many GPUs in all, and runs across types. A job that
/// runs on GPUs of several types is credited to its first GPU's type.
///
/// Simplifications: "rounds received" is time received since admission (Gavel counts rounds
/// since its last allocation change); all jobs have weight 1; GPU packing (space sharing) is not
/// modelled.
///
/// Cost per round: O(n log n) with water-filling; with the LP, one solve per change of the active
/// set (see the crate's benches for its cost) plus O(nK log nK) for `K` types.
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Time};
/// use blox_policies::Gavel;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // Three jobs of 1, 4 and 8 GPUs admitted at 0; at t = 1000 s, job 2 has run 1000 s.
/// for (id, gpus) in [(0, 1), (1, 4), (2, 8)] {
///     jobs.push(Job::new(JobId(id), JobSpec::new(Time::ZERO, gpus, 1e5), Time::ZERO));
/// }
/// jobs.get_mut(JobId(2)).unwrap().attained_wall_s = 1000.0;
/// let ctx = Ctx::new(Time::from_secs(1000), 3, Time::from_secs(300),
///                    &cluster, &jobs);
/// let mut gavel = Gavel::default();
/// let mut out = Schedule::default();
/// gavel.schedule(&ctx, &mut out);
/// // Water level 3.5 GPUs: job 0 gets its 1 GPU all the time, jobs 1 and 2 3.5 GPUs' worth.
/// let x: Vec<f64> = gavel.allocation().iter().map(|&(_, x)| x).collect();
/// assert_eq!(x, vec![1.0, 3.5 / 4.0, 3.5 / 8.0]);
/// // Jobs 0 and 1 have received nothing (infinite priority; larger allocation first); job 2
/// // has had all the time.
/// let order: Vec<u32> = out.iter().map(|a| a.job.0).collect();
/// assert_eq!(order, vec![0, 1, 2]);
/// ```
///
/// Heterogeneity-aware, on one V100 and one K80: a model 4× faster on the V100 gets the V100,
/// one that runs equally well on both gets the K80.
///
/// ```
/// use blox_core::{Cluster, Ctx, Job, JobId, JobSpec, JobTable, Schedule, SchedulingPolicy,
///                 ThroughputTable, Time};
/// use blox_policies::Gavel;
/// use std::sync::Arc;
///
/// let mut table = ThroughputTable::new();
/// for (ty, fast, flat) in [("v100", 4.0, 1.0), ("k80", 1.0, 1.0)] {
///     table.insert(ty, "fast-on-v100", 1, fast);
///     table.insert(ty, "flat", 1, flat);
/// }
/// let cluster = Cluster::new("1x1:v100,1x1:k80".parse().unwrap());
/// let mut jobs = JobTable::new();
/// for (id, model) in [(0, "flat"), (1, "fast-on-v100")] {
///     let mut spec = JobSpec::new(Time::ZERO, 1, 1e4);
///     spec.model = Some(model.into());
///     jobs.push(Job::new(JobId(id), spec, Time::ZERO));
/// }
/// let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
/// let mut gavel = Gavel::default().with_throughputs(Arc::new(table), "v100");
/// let mut out = Schedule::default();
/// gavel.schedule(&ctx, &mut out);
/// let picks: Vec<(u32, &str)> = out
///     .iter()
///     .map(|a| (a.job.0, cluster.gpu_type_name(a.gpu_type.unwrap())))
///     .collect();
/// assert_eq!(picks, vec![(0, "k80"), (1, "v100")]);
/// ```
#[derive(Clone, Debug)]
pub struct Gavel {
    solver: MaxMinSolver,
    hetero: bool,
    table: Option<Arc<ThroughputTable>>,
    reference: String,
    /// (job, x_j) in id order, as last computed (x_j summed over types).
    alloc: Vec<(JobId, f64)>,
    /// Several types: `x_jk`, row-major by job (id order), `n_types` per row.
    by_type: Vec<f64>,
    n_types: usize,
    /// One type: the GPUs in service the allocation was computed for.
    capacity: u32,
    /// The active set the allocation was computed for.
    key: Vec<(JobId, u32)>,
    demands: Vec<f64>,
    shares: Vec<f64>,
    scratch: Vec<u32>,
    buf: Vec<(u32, f64, f64, JobId, u32)>,
    /// Several types: seconds each job has run on each type, as seen at the calls.
    received: HashMap<JobId, Vec<f64>>,
    last_now: Option<Time>,
    /// (class, priority, share received on all types, x, job, type, table position) per pair.
    pairs: Vec<(u32, f64, f64, f64, JobId, u32, u32)>,
    remaining: Vec<u32>,
    chosen: Vec<bool>,
}

impl Default for Gavel {
    fn default() -> Self {
        Gavel {
            solver: MaxMinSolver::default(),
            hetero: true,
            table: None,
            reference: DEFAULT_REFERENCE_TYPE.to_owned(),
            alloc: Vec::new(),
            by_type: Vec::new(),
            n_types: 1,
            capacity: 0,
            key: Vec::new(),
            demands: Vec::new(),
            shares: Vec::new(),
            scratch: Vec::new(),
            buf: Vec::new(),
            received: HashMap::new(),
            last_now: None,
            pairs: Vec::new(),
            remaining: Vec::new(),
            chosen: Vec::new(),
        }
    }
}

/// The GPU type jobs' work is measured on unless said otherwise: Gavel's traces are read
/// against the V100 (`blox_workload::ReadOptions::gavel_worker_type`).
pub const DEFAULT_REFERENCE_TYPE: &str = "v100";

impl Gavel {
    /// Max-min fairness with this solver.
    pub fn new(solver: MaxMinSolver) -> Self {
        Gavel {
            solver,
            ..Gavel::default()
        }
    }

    /// Use these per-model, per-type throughputs on clusters of several GPU types; `reference`
    /// is the type jobs' work is measured on.
    pub fn with_throughputs(
        mut self,
        table: Arc<ThroughputTable>,
        reference: impl Into<String>,
    ) -> Self {
        self.table = Some(table);
        self.reference = reference.into();
        self
    }

    /// Heterogeneity-aware (`true`, the default) or agnostic: with `false`, every job's
    /// throughput is taken as equal on every type (Gavel's agnostic baseline).
    pub fn with_hetero(mut self, hetero: bool) -> Self {
        self.hetero = hetero;
        self
    }

    /// The solver.
    pub fn solver(&self) -> MaxMinSolver {
        self.solver
    }

    /// The time fractions `(job, x_j)` of the last call, in id order (summed over GPU types).
    pub fn allocation(&self) -> &[(JobId, f64)] {
        &self.alloc
    }

    /// On a cluster of several GPU types, the last call's time fractions per job and type:
    /// row-major in the order of [`Gavel::allocation`], [`Gavel::n_types`] entries a row
    /// (empty on a cluster of one type).
    pub fn allocation_by_type(&self) -> &[f64] {
        &self.by_type
    }

    /// GPU types of the last allocation.
    pub fn n_types(&self) -> usize {
        self.n_types
    }

    /// Job `j`'s throughput row over the cluster's types (see the type's docs).
    fn row(&self, job: &Job, cluster: &Cluster, out: &mut Vec<f64>) {
        let k_types = cluster.n_gpu_types();
        match (&self.table, job.spec.model.as_deref()) {
            (Some(table), Some(model)) if self.hetero => out.extend((0..k_types).map(|k| {
                table.speed_factor(
                    model,
                    job.n_gpus(),
                    cluster.gpu_type_name(GpuTypeId(k as u32)),
                    &self.reference,
                )
            })),
            _ => out.extend(std::iter::repeat(1.0).take(k_types)),
        }
        // A type too small to hold the job on its own gets no share of it, unless no type
        // can: such a job spans types, and its time is shared out over all of them.
        let n = job.n_gpus();
        let start = out.len() - k_types;
        if (0..k_types).any(|k| cluster.gpus_of_type(GpuTypeId(k as u32)) >= n) {
            for (k, v) in out[start..].iter_mut().enumerate() {
                if cluster.gpus_of_type(GpuTypeId(k as u32)) < n {
                    *v = 0.0;
                }
            }
        }
    }

    fn recompute_typed(&mut self, jobs: &[&Job], cluster: &Cluster) {
        let k_types = cluster.n_gpu_types();
        let caps: Vec<u32> = (0..k_types)
            .map(|k| cluster.gpus_of_type(GpuTypeId(k as u32)))
            .collect();
        let rows: Vec<Vec<f64>> = jobs
            .iter()
            .map(|j| {
                let mut r = Vec::with_capacity(k_types);
                self.row(j, cluster, &mut r);
                r
            })
            .collect();
        let scale: Vec<u32> = jobs.iter().map(|j| j.n_gpus()).collect();
        self.n_types = k_types;
        self.by_type.clear();
        match max_min_lp(&rows, &scale, &caps) {
            Ok(sol) => {
                for x in &sol.fractions {
                    self.by_type.extend(x.iter().map(|v| v.clamp(0.0, 1.0)));
                }
            }
            Err(_) => {
                // Fallback: the agnostic water-filling over all GPUs, spread over the types in
                // proportion to their size.
                let total: u32 = caps.iter().sum();
                self.water_fill_alloc(jobs, total);
                for &(_, x) in &self.alloc {
                    self.by_type.extend(
                        caps.iter()
                            .map(|&c| x * f64::from(c) / f64::from(total.max(1))),
                    );
                }
            }
        }
        self.alloc.clear();
        self.alloc.extend(
            jobs.iter()
                .zip(self.by_type.chunks(k_types))
                .map(|(j, x)| (j.id, x.iter().sum::<f64>().min(1.0))),
        );
    }

    /// The round on a cluster of several GPU types (see the type's docs, "Order, several
    /// types").
    fn schedule_typed(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let jobs: Vec<&Job> = ctx.jobs.iter().collect();
        let jobs = &jobs[..];
        let cluster = ctx.cluster;
        let k_types = cluster.n_gpu_types();
        // Credit the time since the last call to the type each running job runs on.
        if let Some(last) = self.last_now {
            let dt = ctx.now.saturating_sub(last).as_secs_f64();
            if dt > 0.0 {
                for j in jobs.iter().filter(|j| j.is_running()) {
                    let t = cluster.gpu_type(j.gpus[0]).index();
                    self.received
                        .entry(j.id)
                        .or_insert_with(|| vec![0.0; k_types])[t] += dt;
                }
            }
        }
        self.last_now = Some(ctx.now);
        if !self.same_active_set(jobs) || self.n_types != k_types {
            self.key.clear();
            self.key.extend(jobs.iter().map(|j| (j.id, j.n_gpus())));
            self.recompute_typed(jobs, cluster);
            self.received.retain(|id, _| ctx.jobs.contains(*id));
        }
        self.pairs.clear();
        for (i, j) in jobs.iter().enumerate() {
            let age = ctx.now.saturating_sub(j.admitted_at).as_secs_f64();
            let got = self.received.get(&j.id);
            let total = match got {
                Some(r) if age > 0.0 => (r.iter().sum::<f64>() / age).clamp(0.0, 1.0),
                _ => 0.0,
            };
            for k in 0..k_types {
                let x = self.by_type[i * k_types + k];
                let f = match got {
                    Some(r) if age > 0.0 => (r[k] / age).clamp(0.0, 1.0),
                    _ => 0.0,
                };
                let prio = if x <= 0.0 {
                    0.0
                } else if f > 0.0 {
                    x / f
                } else {
                    f64::INFINITY
                };
                self.pairs
                    .push((j.priority, prio, total, x, j.id, k as u32, i as u32));
            }
        }
        self.pairs.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.total_cmp(&b.2))
                .then(b.3.total_cmp(&a.3))
                .then(a.4.cmp(&b.4))
                .then(a.5.cmp(&b.5))
        });
        self.remaining.clear();
        self.remaining
            .extend((0..k_types).map(|k| cluster.gpus_of_type(GpuTypeId(k as u32))));
        self.chosen.clear();
        self.chosen.resize(jobs.len(), false);
        out.entries.reserve(jobs.len());
        let largest = (0..k_types)
            .map(|k| cluster.gpus_of_type(GpuTypeId(k as u32)))
            .max()
            .unwrap_or(0);
        for &(_, _, _, _, id, k, i) in &self.pairs {
            let n = jobs[i as usize].n_gpus();
            if self.chosen[i as usize] {
                continue;
            }
            if n > largest {
                // No type holds the job alone: it runs unpinned, across types, at its best
                // pair's rank, when the round still has that many GPUs in all.
                if self.remaining.iter().sum::<u32>() >= n {
                    take_across(&mut self.remaining, n);
                    self.chosen[i as usize] = true;
                    out.push(id, n);
                }
                continue;
            }
            if self.remaining[k as usize] < n {
                continue;
            }
            self.remaining[k as usize] -= n;
            self.chosen[i as usize] = true;
            out.push_on(id, n, GpuTypeId(k));
        }
        // Jobs left over, each on its best pair's type among those that can hold it (never a
        // type with fewer GPUs than the job asks for), or unpinned when none can.
        for &(_, _, _, _, id, k, i) in &self.pairs {
            let n = jobs[i as usize].n_gpus();
            if self.chosen[i as usize] {
                continue;
            }
            if n > largest {
                self.chosen[i as usize] = true;
                out.push(id, n);
            } else if cluster.gpus_of_type(GpuTypeId(k)) >= n {
                self.chosen[i as usize] = true;
                out.push_on(id, n, GpuTypeId(k));
            }
        }
    }

    fn same_active_set(&self, jobs: &[&Job]) -> bool {
        self.key.len() == jobs.len()
            && self
                .key
                .iter()
                .zip(jobs)
                .all(|(&(id, n), j)| id == j.id && n == j.n_gpus())
            && self.alloc.len() == jobs.len()
    }

    /// Water-filling time fractions `x_j` over `gpus` GPUs, into `alloc`.
    fn water_fill_alloc(&mut self, jobs: &[&Job], gpus: u32) {
        self.demands.clear();
        self.demands
            .extend(jobs.iter().map(|j| f64::from(j.n_gpus())));
        water_fill_into(
            &self.demands,
            f64::from(gpus),
            &mut self.scratch,
            &mut self.shares,
        );
        self.alloc.clear();
        self.alloc
            .extend(jobs.iter().zip(&self.shares).map(|(j, &g)| {
                (
                    j.id,
                    if j.n_gpus() == 0 {
                        0.0
                    } else {
                        g / f64::from(j.n_gpus())
                    },
                )
            }));
    }

    fn recompute(&mut self, jobs: &[&Job], gpus: u32) {
        self.n_types = 1;
        self.by_type.clear();
        let lp = match self.solver {
            MaxMinSolver::WaterFilling => None,
            MaxMinSolver::Lp => {
                let tput: Vec<Vec<f64>> = jobs.iter().map(|_| vec![1.0]).collect();
                let scale: Vec<u32> = jobs.iter().map(|j| j.n_gpus()).collect();
                max_min_lp(&tput, &scale, &[gpus]).ok()
            }
        };
        if let Some(sol) = lp {
            self.alloc.clear();
            self.alloc.extend(
                jobs.iter()
                    .zip(&sol.fractions)
                    .map(|(j, x)| (j.id, x[0].clamp(0.0, 1.0))),
            );
        } else {
            // Water-filling, also the fallback should the LP solver fail.
            self.water_fill_alloc(jobs, gpus);
        }
    }
}

/// Takes `n` GPUs out of the per-type counts `remaining`, from the type with the most left
/// first (ties: lowest type): the round's estimate of what a job spanning types uses.
fn take_across(remaining: &mut [u32], mut n: u32) {
    while n > 0 {
        let Some((k, &left)) = remaining
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
        else {
            return;
        };
        let take = left.min(n);
        remaining[k] -= take;
        n -= take;
    }
}

/// Share of its time since admission a job has spent running, in `[0, 1]`.
pub(crate) fn received_share(job: &Job, ctx: &Ctx<'_>) -> f64 {
    let age = ctx.now.saturating_sub(job.admitted_at).as_secs_f64();
    if age <= 0.0 {
        return 0.0;
    }
    let ran = job.attained_wall_s;
    (ran / age).clamp(0.0, 1.0)
}

impl SchedulingPolicy for Gavel {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        if ctx.cluster.n_gpu_types() > 1 {
            return self.schedule_typed(ctx, out);
        }
        let jobs: Vec<&Job> = ctx.jobs.iter().collect();
        let jobs = &jobs[..];
        // The allocation is over the GPUs in service; it is recomputed when they change.
        let gpus = ctx.cluster.available_gpus();
        if !self.same_active_set(jobs) || self.n_types != 1 || self.capacity != gpus {
            self.key.clear();
            self.key.extend(jobs.iter().map(|j| (j.id, j.n_gpus())));
            self.capacity = gpus;
            self.recompute(jobs, gpus);
        }
        self.buf.clear();
        for (j, &(_, x)) in jobs.iter().zip(&self.alloc) {
            let f = received_share(j, ctx);
            let prio = if f > 0.0 {
                x / f
            } else if x > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
            self.buf.push((j.priority, prio, x, j.id, j.n_gpus()));
        }
        self.buf.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.total_cmp(&a.1))
                .then(b.2.total_cmp(&a.2))
                .then(a.3.cmp(&b.3))
        });
        out.entries.reserve(self.buf.len());
        for &(_, _, _, id, n) in &self.buf {
            out.push(id, n);
        }
    }

    fn name(&self) -> String {
        match (self.solver, self.hetero) {
            (MaxMinSolver::WaterFilling, true) => "gavel".into(),
            (MaxMinSolver::Lp, true) => "gavel(lp)".into(),
            (MaxMinSolver::WaterFilling, false) => "gavel(agnostic)".into(),
            (MaxMinSolver::Lp, false) => "gavel(lp,agnostic)".into(),
        }
    }
}

/// Max-min fair division of `capacity` among demands (water-filling): every demand gets
/// `min(demand, level)`, with the level chosen so the shares add up to `capacity`, or every
/// demand in full when they fit. Returns the shares in input order.
///
/// This is the unique max-min fair allocation and an optimum of Gavel's single-type LP. The
/// shares add up to at most `capacity` (up to rounding in the last place). Cost: O(n log n).
///
/// ```
/// use blox_policies::water_fill;
/// assert_eq!(water_fill(&[1.0, 4.0, 8.0], 8.0), vec![1.0, 3.5, 3.5]);
/// assert_eq!(water_fill(&[1.0, 2.0], 8.0), vec![1.0, 2.0]);
/// ```
pub fn water_fill(demands: &[f64], capacity: f64) -> Vec<f64> {
    let mut out = Vec::new();
    water_fill_into(demands, capacity, &mut Vec::new(), &mut out);
    out
}

pub(crate) fn water_fill_into(
    demands: &[f64],
    capacity: f64,
    order: &mut Vec<u32>,
    out: &mut Vec<f64>,
) {
    out.clear();
    out.resize(demands.len(), 0.0);
    order.clear();
    order.extend(0..demands.len() as u32);
    order.sort_unstable_by(|&a, &b| {
        demands[a as usize]
            .total_cmp(&demands[b as usize])
            .then(a.cmp(&b))
    });
    let mut remaining = capacity.max(0.0);
    let mut left = demands.len();
    for (k, &i) in order.iter().enumerate() {
        let d = demands[i as usize].max(0.0);
        let level = remaining / left as f64;
        if d <= level {
            out[i as usize] = d;
            remaining -= d;
            left -= 1;
        } else {
            for &rest in &order[k..] {
                out[rest as usize] = level;
            }
            break;
        }
    }
}

/// An error from the LP solver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LpError(pub String);

impl fmt::Display for LpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "max-min LP: {}", self.0)
    }
}

impl std::error::Error for LpError {}

/// A solution of [`max_min_lp`].
#[derive(Clone, Debug, PartialEq)]
pub struct MaxMinLpSolution {
    /// `fractions[j][k]`: share of time job `j` runs on GPU type `k`.
    pub fractions: Vec<Vec<f64>>,
    /// The optimal objective: the smallest effective GPU share over jobs.
    pub min_share: f64,
}

/// Gavel's max-min fairness LP, heterogeneity-aware (one column per GPU type), solved with the
/// crate's dense two-phase simplex (its pivoting tolerance is 1e-9, so treat results as exact to
/// about 1e-7).
///
/// Inputs: `throughputs[j][k]`, job `j`'s throughput on type `k` (any unit; only ratios within a
/// row matter); `scale[j]`, its GPU count; `capacity[k]`, GPUs of type `k`. Variables: time
/// fractions `X[j][k] ≥ 0`. With `θ[j][k] = throughputs[j][k] / T_j^equal`, where
/// `T_j^equal = Σ_k throughputs[j][k] · capacity[k] / Σ_k capacity[k]` is proportional to the
/// job's throughput when every job gets an equal share of every type (Gavel's `X^equal`, §4.1;
/// its `ProportionalPolicy`), it solves
///
/// ```text
/// maximise t  subject to  scale[j] · Σ_k θ[j][k] · X[j][k] ≥ t    for every job j that can run,
///                         Σ_k X[j][k] ≤ 1                        for every job j,
///                         Σ_j scale[j] · X[j][k] ≤ capacity[k]   for every type k.
/// ```
///
/// That is Gavel's §4.1 objective with unit weights and throughputs scaled by the job's GPU
/// count (as Gavel's implementation does). With one type and
/// unit throughputs it is the agnostic form, whose optimum [`water_fill`] also reaches. A job
/// whose throughputs are all zero gets no constraint and no time.
///
/// **Reduction.** Jobs with the same GPU count and the same normalised throughput row are
/// interchangeable, so the LP is solved over classes of such jobs (one variable per class and
/// type, capacity rows weighted by class sizes), which is exact by symmetry (averaging an
/// optimum over permutations of identical jobs is an optimum). With one GPU type the classes
/// are the distinct GPU counts (a handful), so 1,000 jobs solve in microseconds; with a
/// throughput table the classes are the table's models times the GPU counts (Gavel's: at most
/// 26 × 4). With several types and a distinct throughput row per job nothing reduces.
///
/// Cost: two simplex stages over `c·K + 1` variables and `2c + K` rows for `c` classes, on a
/// dense tableau: about 5-8 ms at 100 classes on two types, 0.1 s at 300, 6 s at 1,000 (the
/// dense method's cost grows with the cube of `c`; one core of this project's 2-core machine).
pub fn max_min_lp(
    throughputs: &[Vec<f64>],
    scale: &[u32],
    capacity: &[u32],
) -> Result<MaxMinLpSolution, LpError> {
    let n = throughputs.len();
    let k_types = capacity.len();
    if scale.len() != n {
        return Err(LpError(format!(
            "{n} throughput rows but {} scale factors",
            scale.len()
        )));
    }
    if let Some(row) = throughputs.iter().find(|r| r.len() != k_types) {
        return Err(LpError(format!(
            "a throughput row has {} entries for {k_types} GPU types",
            row.len()
        )));
    }
    if throughputs
        .iter()
        .flatten()
        .any(|t| !(t.is_finite() && *t >= 0.0))
    {
        return Err(LpError(
            "throughputs must be finite and non-negative".into(),
        ));
    }
    // Normalised rows; jobs with the same GPU count and the same normalised row are
    // interchangeable, so the LP is solved over classes of such jobs (see below).
    let theta = normalised(throughputs, capacity);
    let mut index: BTreeMap<(u32, Vec<u64>), usize> = BTreeMap::new();
    let mut class_of = Vec::with_capacity(n);
    let mut classes: Vec<(u32, usize, f64)> = Vec::new(); // (scale, representative, count)
    for j in 0..n {
        let key = (scale[j], theta[j].iter().map(|t| t.to_bits()).collect());
        let c = *index.entry(key).or_insert_with(|| {
            classes.push((scale[j], j, 0.0));
            classes.len() - 1
        });
        classes[c].2 += 1.0;
        class_of.push(c);
    }
    let (x, min_share) = solve_classes(&classes, &theta, capacity)?;
    Ok(MaxMinLpSolution {
        fractions: class_of.iter().map(|&c| x[c].clone()).collect(),
        min_share,
    })
}

/// `θ[j][k] = throughputs[j][k] / T_j^equal` (see [`max_min_lp`]); a row whose `T^equal` is 0
/// is all zeros.
fn normalised(throughputs: &[Vec<f64>], capacity: &[u32]) -> Vec<Vec<f64>> {
    let total: f64 = capacity.iter().map(|&c| f64::from(c)).sum();
    throughputs
        .iter()
        .map(|row| {
            let equal: f64 = row
                .iter()
                .zip(capacity)
                .map(|(&t, &c)| t * f64::from(c))
                .sum::<f64>()
                / total.max(1.0);
            row.iter()
                .map(|&t| if equal > 0.0 { t / equal } else { 0.0 })
                .collect()
        })
        .collect()
}

/// The max-min LP over classes of identical jobs, `(scale, representative job, count)`: one
/// variable per class and type, the capacity rows weighted by the class sizes. Returns the
/// fractions per class and the optimal smallest share.
///
/// Two stages: the max-min LP proper, then, among its optima, the one with the largest total
/// normalised throughput (every job kept at or above the optimal share, less 1e-9 relative):
/// max-min alone leaves any job above the minimum at an arbitrary level, possibly idling GPUs
/// that nobody else can use. The second stage continues from the first's optimal tableau with
/// the row `t ≥ floor` added (no second phase one). Should it fail, the first stage's solution
/// stands.
///
/// Exact by symmetry: both stages are convex and invariant under permuting identical jobs, so
/// averaging an optimal solution over those permutations gives an optimal solution that is
/// equal within each class.
fn solve_classes(
    classes: &[(u32, usize, f64)],
    theta: &[Vec<f64>],
    capacity: &[u32],
) -> Result<(Vec<Vec<f64>>, f64), LpError> {
    let k_types = capacity.len();
    // Stage one: maximise `t` subject to every share `≥ t`.
    let mut lp = Program::default();
    let t = lp.var(1.0);
    let vars: Vec<Vec<usize>> = classes
        .iter()
        .map(|_| (0..k_types).map(|_| lp.var(0.0)).collect())
        .collect();
    for (c, &(s, rep, _)) in classes.iter().enumerate() {
        let s = f64::from(s);
        let mut row: Vec<(usize, f64)> = (0..k_types)
            .filter(|&k| theta[rep][k] > 0.0)
            .map(|k| (vars[c][k], s * theta[rep][k]))
            .collect();
        if s > 0.0 && !row.is_empty() {
            row.push((t, -1.0));
            lp.row(row, Op::Ge, 0.0);
        }
        // At most the whole time: `Σ_k x ≤ 1` (with one type, the variable's upper bound).
        lp.row(vars[c].iter().map(|&v| (v, 1.0)).collect(), Op::Le, 1.0);
    }
    for (k, &cap) in capacity.iter().enumerate() {
        let row: Vec<(usize, f64)> = classes
            .iter()
            .enumerate()
            .filter(|&(_, &(s, _, _))| s > 0)
            .map(|(c, &(s, _, m))| (vars[c][k], m * f64::from(s)))
            .collect();
        if !row.is_empty() {
            lp.row(row, Op::Le, f64::from(cap));
        }
    }
    // Within 1e-10 of a bound is the bound: the pivots' rounding (a share of 1 − 2⁻⁵²) would
    // otherwise order jobs of equal shares by noise.
    let snap = |v: f64| {
        if v < 1e-10 {
            0.0
        } else if v > 1.0 - 1e-10 {
            1.0
        } else {
            v
        }
    };
    let fractions = |x: &[f64]| -> Vec<Vec<f64>> {
        vars.iter()
            .map(|row| row.iter().map(|&v| snap(x[v])).collect())
            .collect()
    };
    let first = lp.optimum().map_err(LpError)?;
    let (x, best) = first.solution();
    // Stage two, from stage one's optimum: maximise `Σ count · scale · θ · x` with `t` (so
    // every share) at least the optimum less 1e-9 relative.
    let floor = (best * (1.0 - 1e-9) - 1e-12).max(0.0);
    let mut gains = vec![0.0; 1 + classes.len() * k_types];
    for (c, &(s, rep, m)) in classes.iter().enumerate() {
        for k in 0..k_types {
            gains[vars[c][k]] = m * f64::from(s) * theta[rep][k];
        }
    }
    match first.then_maximise(gains, t, floor) {
        Ok(second) => Ok((fractions(&second.solution().0), best)),
        Err(_) => Ok((fractions(&x), best)),
    }
}

/// The LP with one class per job (no symmetry reduction), to cross-check the reduction.
#[cfg(test)]
fn max_min_lp_unreduced(
    throughputs: &[Vec<f64>],
    scale: &[u32],
    capacity: &[u32],
) -> Result<MaxMinLpSolution, LpError> {
    let theta = normalised(throughputs, capacity);
    let classes: Vec<(u32, usize, f64)> = (0..scale.len()).map(|j| (scale[j], j, 1.0)).collect();
    let (fractions, min_share) = solve_classes(&classes, &theta, capacity)?;
    Ok(MaxMinLpSolution {
        fractions,
        min_share,
    })
}

// The check against the unreduced LP (private); the policy's other tests are in tests/it.
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
    #[test]
    fn symmetry_reduction_keeps_the_optimum(
        jobs in prop::collection::vec(
            (prop_oneof![Just(1u32), Just(2), Just(4)], 0usize..3), 1..10),
        caps in (1u32..12, 1u32..12),
    ) {
        // Two GPU types, three "models" with different throughput rows.
        let models = [vec![1.0, 1.0], vec![3.0, 1.0], vec![1.0, 0.0]];
        let tput: Vec<Vec<f64>> = jobs.iter().map(|&(_, m)| models[m].clone()).collect();
        let scale: Vec<u32> = jobs.iter().map(|&(s, _)| s).collect();
        let cap = [caps.0, caps.1];
        let a = max_min_lp(&tput, &scale, &cap).unwrap();
        let b = max_min_lp_unreduced(&tput, &scale, &cap).unwrap();
        prop_assert!((a.min_share - b.min_share).abs() < 1e-6, "{} vs {}", a.min_share, b.min_share);
        for k in 0..2 {
            let used: f64 = a.fractions.iter().zip(&scale).map(|(x, &s)| x[k] * f64::from(s)).sum();
            prop_assert!(used <= f64::from(cap[k]) + 1e-6);
        }
        for (j, x) in a.fractions.iter().enumerate() {
            prop_assert!(x.iter().sum::<f64>() <= 1.0 + 1e-6);
            let equal: f64 = tput[j].iter().zip(&cap).map(|(t, &c)| t * f64::from(c)).sum::<f64>()
                / f64::from(cap[0] + cap[1]);
            if equal == 0.0 {
                continue;
            }
            let eff: f64 = x.iter().zip(&tput[j]).map(|(x, t)| x * t / equal).sum::<f64>() * f64::from(scale[j]);
            prop_assert!(eff >= a.min_share - 1e-6, "job {j} below the optimum");
        }
    }
    }
}
