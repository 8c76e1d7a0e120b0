use blox_core::{ConfigError, Ctx, Job, JobId, Schedule, SchedulingPolicy, Semantics};
use microlp::{ComparisonOp, OptimizationDirection, Problem};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// How [`Gavel`] computes its max-min fair time fractions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MaxMinSolver {
    /// The closed form for one GPU type ([`water_fill`]): O(n log n), exact, unique.
    #[default]
    WaterFilling,
    /// Gavel's linear program ([`max_min_lp`]) solved with `microlp`; re-solved only when the
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

/// Max-min fairness as in Gavel (Narayanan et al., OSDI 2020), heterogeneity-agnostic form for
/// a cluster of one GPU type.
///
/// **Allocation.** Each job `j` asking for `s_j` GPUs gets a time fraction `x_j ∈ [0, 1]` (the
/// share of rounds it should run), chosen so that the GPU shares `s_j·x_j` are max-min fair
/// under `Σ s_j·x_j ≤ G` (G = the cluster's GPUs). As in Gavel's implementation, throughputs are
/// multiplied by the scale factor `s_j`, so a 1-GPU job gets `s_j` times the time of an
/// `s_j`-GPU job at equal throughput. With one type Gavel's LP ([`max_min_lp`]) only pins down
/// the smallest share; the water-filling solution ([`water_fill`], the default solver) is an
/// optimum of that LP and the unique max-min fair one (the tests cross-check it against the LP).
///
/// **Order.** Gavel's priority `x_j / f_j`, where `f_j` is the share of time the job has
/// received: its running time (`attained_service / n_gpus` in `exact` semantics,
/// `attained_service` in `blox` semantics) over the time since it was admitted. A job that has
/// received nothing has infinite priority (zero if its allocation is zero too). Ascending
/// starvation class, then descending priority, then descending `x_j`, then lowest id. Each job
/// is listed with its request; the placement decides who fits.
///
/// Simplifications: "rounds received" is measured as time received since admission (Gavel
/// counts rounds since its last allocation change); all jobs have weight 1 and the same
/// throughput (no per-model throughput table); GPU packing (space sharing) is not modelled.
///
/// Cost per round: O(n log n) with water-filling; with the LP, one solve per change of the active
/// set (see the crate's benches for its cost) plus O(n log n).
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Semantics, Time};
/// use blox_policies::Gavel;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // Three jobs of 1, 4 and 8 GPUs admitted at 0; at t = 1000 s, job 2 has run 1000 s.
/// for (id, gpus) in [(0, 1), (1, 4), (2, 8)] {
///     jobs.push(Job::new(JobId(id), JobSpec::new(Time::ZERO, gpus, 1e5), Time::ZERO));
/// }
/// jobs.get_mut(JobId(2)).unwrap().attained_service = 8.0 * 1000.0;
/// let ctx = Ctx::new(Time::from_secs(1000), 3, Time::from_secs(300), Semantics::Exact,
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
#[derive(Clone, Debug, Default)]
pub struct Gavel {
    solver: MaxMinSolver,
    /// (job, x_j) in id order, as last computed.
    alloc: Vec<(JobId, f64)>,
    /// The active set the allocation was computed for.
    key: Vec<(JobId, u32)>,
    demands: Vec<f64>,
    shares: Vec<f64>,
    scratch: Vec<u32>,
    buf: Vec<(u32, f64, f64, JobId, u32)>,
}

impl Gavel {
    /// Max-min fairness with this solver.
    pub fn new(solver: MaxMinSolver) -> Self {
        Gavel {
            solver,
            ..Gavel::default()
        }
    }

    /// The solver.
    pub fn solver(&self) -> MaxMinSolver {
        self.solver
    }

    /// The time fractions `(job, x_j)` of the last call, in id order.
    pub fn allocation(&self) -> &[(JobId, f64)] {
        &self.alloc
    }

    fn recompute(&mut self, jobs: &[Job], gpus: u32) {
        self.demands.clear();
        self.demands
            .extend(jobs.iter().map(|j| f64::from(j.n_gpus())));
        let lp = match self.solver {
            MaxMinSolver::WaterFilling => None,
            MaxMinSolver::Lp => {
                let tput: Vec<Vec<f64>> = jobs.iter().map(|_| vec![1.0]).collect();
                let scale: Vec<u32> = jobs.iter().map(Job::n_gpus).collect();
                max_min_lp(&tput, &scale, &[gpus]).ok()
            }
        };
        self.alloc.clear();
        if let Some(sol) = lp {
            self.alloc.extend(
                jobs.iter()
                    .zip(&sol.fractions)
                    .map(|(j, x)| (j.id, x[0].clamp(0.0, 1.0))),
            );
        } else {
            // Water-filling, also the fallback should the LP solver fail.
            water_fill_into(
                &self.demands,
                f64::from(gpus),
                &mut self.scratch,
                &mut self.shares,
            );
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
    }
}

/// Share of its time since admission a job has spent running, in `[0, 1]`.
pub(crate) fn received_share(job: &Job, ctx: &Ctx<'_>) -> f64 {
    let age = ctx.now.saturating_sub(job.admitted_at).as_secs_f64();
    if age <= 0.0 {
        return 0.0;
    }
    let ran = match ctx.semantics {
        Semantics::Blox => job.attained_service,
        Semantics::Exact => job.attained_service / f64::from(job.n_gpus().max(1)),
    };
    (ran / age).clamp(0.0, 1.0)
}

impl SchedulingPolicy for Gavel {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let jobs = ctx.jobs.as_slice();
        let same = self.key.len() == jobs.len()
            && self
                .key
                .iter()
                .zip(jobs)
                .all(|(&(id, n), j)| id == j.id && n == j.n_gpus());
        if !same || self.alloc.len() != jobs.len() {
            self.key.clear();
            self.key.extend(jobs.iter().map(|j| (j.id, j.n_gpus())));
            self.recompute(jobs, ctx.cluster.total_gpus());
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
        match self.solver {
            MaxMinSolver::WaterFilling => "gavel".into(),
            MaxMinSolver::Lp => "gavel(lp)".into(),
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

/// Gavel's max-min fairness LP, heterogeneity-aware (one column per GPU type), solved with
/// `microlp` (a pure-Rust dual/primal simplex; its pivoting tolerance is 1e-8, so treat results
/// as exact to about 1e-6).
///
/// Inputs: `throughputs[j][k]`, job `j`'s throughput on type `k` (any unit; only ratios within a
/// row matter); `scale[j]`, its GPU count; `capacity[k]`, GPUs of type `k`. Variables: time
/// fractions `X[j][k] ≥ 0`. With `θ[j][k] = throughputs[j][k] / max_k throughputs[j][k]`, it
/// solves
///
/// ```text
/// maximise t  subject to  scale[j] · Σ_k θ[j][k] · X[j][k] ≥ t    for every job j that can run,
///                         Σ_k X[j][k] ≤ 1                        for every job j,
///                         Σ_j scale[j] · X[j][k] ≤ capacity[k]   for every type k.
/// ```
///
/// That is Gavel's §4.1 objective with unit weights, throughputs scaled by the job's GPU count
/// (as Gavel's implementation does) and normalised by the job's best type. With one type and
/// unit throughputs it is the agnostic form, whose optimum [`water_fill`] also reaches. A job
/// whose throughputs are all zero gets no constraint and no time.
///
/// **Reduction.** Jobs with the same GPU count and the same normalised throughput row are
/// interchangeable, so the LP is solved over classes of such jobs (one variable per class and
/// type, capacity rows weighted by class sizes), which is exact by symmetry (averaging an
/// optimum over permutations of identical jobs is an optimum). With one GPU type the classes
/// are the distinct GPU counts (a handful), so 1,000 jobs solve in microseconds; the unreduced
/// LP over 1,000 distinct jobs takes about 0.2 s with `microlp` (2 cores), which is why the
/// reduction exists. With several types and a distinct throughput row per job nothing reduces.
///
/// Cost: one simplex solve over `c·K + 1` variables and about `2c + K` rows for `c` classes.
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
    let theta: Vec<Vec<f64>> = throughputs
        .iter()
        .map(|row| {
            let best = row.iter().copied().fold(0.0, f64::max);
            row.iter()
                .map(|&t| if best > 0.0 { t / best } else { 0.0 })
                .collect()
        })
        .collect();
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

/// The max-min LP over classes of identical jobs, `(scale, representative job, count)`: one
/// variable per class and type, the capacity rows weighted by the class sizes.
///
/// Exact by symmetry: the LP is convex and invariant under permuting identical jobs, so
/// averaging an optimal solution over those permutations gives an optimal solution that is
/// equal within each class.
fn solve_classes(
    classes: &[(u32, usize, f64)],
    theta: &[Vec<f64>],
    capacity: &[u32],
) -> Result<(Vec<Vec<f64>>, f64), LpError> {
    let k_types = capacity.len();
    let mut lp = Problem::new(OptimizationDirection::Maximize);
    let t = lp.add_var(1.0, (0.0, f64::INFINITY));
    let vars: Vec<Vec<microlp::Variable>> = classes
        .iter()
        .map(|_| (0..k_types).map(|_| lp.add_var(0.0, (0.0, 1.0))).collect())
        .collect();
    for (c, &(s, rep, _)) in classes.iter().enumerate() {
        let s = f64::from(s);
        let row: Vec<(microlp::Variable, f64)> = (0..k_types)
            .filter(|&k| theta[rep][k] > 0.0)
            .map(|k| (vars[c][k], s * theta[rep][k]))
            .collect();
        if s > 0.0 && !row.is_empty() {
            let mut row = row;
            row.push((t, -1.0));
            lp.add_constraint(&row[..], ComparisonOp::Ge, 0.0);
        }
        if k_types > 1 {
            let row: Vec<(microlp::Variable, f64)> = vars[c].iter().map(|&v| (v, 1.0)).collect();
            lp.add_constraint(&row[..], ComparisonOp::Le, 1.0);
        }
    }
    for (k, &cap) in capacity.iter().enumerate() {
        let row: Vec<(microlp::Variable, f64)> = classes
            .iter()
            .enumerate()
            .filter(|(_, &(s, _, _))| s > 0)
            .map(|(c, &(s, _, m))| (vars[c][k], m * f64::from(s)))
            .collect();
        if !row.is_empty() {
            lp.add_constraint(&row[..], ComparisonOp::Le, f64::from(cap));
        }
    }
    let sol = lp.solve().map_err(|e| LpError(e.to_string()))?;
    let x = vars
        .iter()
        .map(|row| row.iter().map(|&v| sol[v].clamp(0.0, 1.0)).collect())
        .collect();
    Ok((x, sol.objective()))
}

/// The LP with one class per job (no symmetry reduction), to cross-check the reduction.
#[cfg(test)]
fn max_min_lp_unreduced(
    throughputs: &[Vec<f64>],
    scale: &[u32],
    capacity: &[u32],
) -> Result<MaxMinLpSolution, LpError> {
    let theta: Vec<Vec<f64>> = throughputs
        .iter()
        .map(|row| {
            let best = row.iter().copied().fold(0.0, f64::max);
            row.iter()
                .map(|&t| if best > 0.0 { t / best } else { 0.0 })
                .collect()
        })
        .collect();
    let classes: Vec<(u32, usize, f64)> = (0..scale.len()).map(|j| (scale[j], j, 1.0)).collect();
    let (fractions, min_share) = solve_classes(&classes, &theta, capacity)?;
    Ok(MaxMinLpSolution {
        fractions,
        min_share,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_ordering_policy, order, run, Table};
    use proptest::prelude::*;

    #[test]
    fn water_filling_levels() {
        assert_eq!(water_fill(&[], 8.0), Vec::<f64>::new());
        assert_eq!(water_fill(&[8.0, 8.0], 8.0), vec![4.0, 4.0]);
        assert_eq!(
            water_fill(&[2.0, 1.0, 8.0, 4.0], 8.0),
            vec![2.0, 1.0, 2.5, 2.5]
        );
        assert_eq!(water_fill(&[4.0], 0.0), vec![0.0]);
    }

    #[test]
    fn priority_is_allocation_over_received_share() {
        // 4 GPUs, two 4-GPU jobs: x = 1/2 each. At t = 1000, job 0 has run 800 s (f = 0.8,
        // priority 0.625), job 1 200 s (f = 0.2, priority 2.5): job 1 first.
        let t = Table::new(4)
            .job(0, 4, 1e6)
            .served(3200.0, 800.0)
            .job(0, 4, 1e6)
            .served(800.0, 200.0)
            .at(1000);
        let mut g = Gavel::default();
        assert_eq!(order(&mut g, &t), vec![1, 0]);
        assert_eq!(g.allocation(), &[(JobId(0), 0.5), (JobId(1), 0.5)]);
        // A 1-GPU job alongside: level 1.5; it gets x = 1, the 4-GPU jobs x = 1.5/4.
        let t = t.job(900, 1, 1e6).served(50.0, 50.0);
        let mut g = Gavel::default();
        // Job 2: f = 50/100 = 0.5, priority 2; job 1: 0.375 / 0.2 = 1.875; job 0: 0.47.
        assert_eq!(order(&mut g, &t), vec![2, 1, 0]);
        // Starved jobs first whatever their priority.
        let t = t.starved(0);
        assert_eq!(order(&mut g, &t), vec![0, 2, 1]);
    }

    #[test]
    fn lp_agrees_with_water_filling_on_one_type() {
        let demands = [1u32, 2, 4, 8, 8, 2];
        for cap in [1u32, 4, 8, 16, 40] {
            let tput: Vec<Vec<f64>> = demands.iter().map(|_| vec![1.0]).collect();
            let sol = max_min_lp(&tput, &demands, &[cap]).unwrap();
            let d: Vec<f64> = demands.iter().map(|&s| f64::from(s)).collect();
            let wf = water_fill(&d, f64::from(cap));
            let wf_min = wf.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(
                (sol.min_share - wf_min).abs() < 1e-6,
                "cap {cap}: {sol:?} vs {wf:?}"
            );
            let used: f64 = sol
                .fractions
                .iter()
                .zip(&demands)
                .map(|(x, &s)| x[0] * f64::from(s))
                .sum();
            assert!(used <= f64::from(cap) + 1e-6);
        }
    }

    #[test]
    fn lp_is_heterogeneity_aware() {
        // Two types of 1 GPU each. Job 0 runs 4x faster on type 0 and not at all on type 1;
        // job 1 runs equally on both. Max-min: job 0 takes all of type 0 and job 1 all of type
        // 1, both at their full speed (share 1).
        let sol = max_min_lp(&[vec![4.0, 0.0], vec![1.0, 1.0]], &[1, 1], &[1, 1]).unwrap();
        assert!((sol.min_share - 1.0).abs() < 1e-6, "{sol:?}");
        assert!((sol.fractions[0][0] - 1.0).abs() < 1e-6);
        assert!((sol.fractions[1][1] - 1.0).abs() < 1e-6);
        assert!(max_min_lp(&[vec![1.0]], &[1, 2], &[1]).is_err());
        assert!(max_min_lp(&[vec![f64::NAN]], &[1], &[1]).is_err());
    }

    #[test]
    fn lp_solver_policy_runs_and_respects_capacity() {
        let t = Table::new(8)
            .job(0, 1, 1e6)
            .job(0, 4, 1e6)
            .job(0, 8, 1e6)
            .at(600);
        let mut g = Gavel::new(MaxMinSolver::Lp);
        let out = run(&mut g, &t);
        assert_eq!(out.len(), 3);
        let used: f64 = g
            .allocation()
            .iter()
            .map(|&(id, x)| x * f64::from(t.jobs.get(id).unwrap().n_gpus()))
            .sum();
        assert!(used <= 8.0 + 1e-6);
        let min = g
            .allocation()
            .iter()
            .map(|&(id, x)| x * f64::from(t.jobs.get(id).unwrap().n_gpus()))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (min - 1.0).abs() < 1e-6,
            "the LP's optimum is the smallest share, 1 GPU"
        );
    }

    proptest! {
        #[test]
        fn invariants(t in crate::testing::tables()) {
            check_ordering_policy(Gavel::default, &t)?;
            let mut g = Gavel::default();
            run(&mut g, &t);
            let cap = f64::from(t.cluster.total_gpus());
            let mut used = 0.0;
            for &(id, x) in g.allocation() {
                prop_assert!((0.0..=1.0).contains(&x), "x = {x}");
                used += x * f64::from(t.jobs.get(id).unwrap().n_gpus());
            }
            prop_assert!(used <= cap * (1.0 + 1e-12) + 1e-9, "allocations {used} > {cap}");
        }

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
                let eff: f64 = x.iter().zip(&tput[j]).map(|(x, t)| x * t / tput[j].iter().copied().fold(0.0, f64::max)).sum::<f64>() * f64::from(scale[j]);
                prop_assert!(eff >= a.min_share - 1e-6, "job {j} below the optimum");
            }
        }

        #[test]
        fn lp_optimum_matches_water_filling(
            demands in prop::collection::vec(prop_oneof![Just(1u32), Just(2), Just(4), Just(8)], 1..12),
            cap in 1u32..40,
        ) {
            let tput: Vec<Vec<f64>> = demands.iter().map(|_| vec![1.0]).collect();
            let sol = max_min_lp(&tput, &demands, &[cap]).unwrap();
            let d: Vec<f64> = demands.iter().map(|&s| f64::from(s)).collect();
            let wf = water_fill(&d, f64::from(cap));
            let wf_min = wf.iter().copied().fold(f64::INFINITY, f64::min);
            prop_assert!((sol.min_share - wf_min).abs() < 1e-6);
            let used: f64 = wf.iter().sum();
            prop_assert!(used <= f64::from(cap) + 1e-9);
        }
    }
}
