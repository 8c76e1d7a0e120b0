//! Gavel's allocation policies (GAVEL-SEMANTICS §6): what share of each GPU type each active job
//! should get until the next re-solve.

use super::barrier::{self, JobRow};
use blox_core::ConfigError;
use blox_workload::PyRandom;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// One of Gavel's policies, by Gavel's own command-line name.
///
/// | name | Gavel class (internal name) | allocation | type order shuffled each round |
/// |---|---|---|---|
/// | `fifo` | `FIFOPolicy` (`FIFO`) | sticky job → type, with Gavel's "last available type" quirk | yes |
/// | `fifo_perf` | `FIFOPolicyWithPerf` (`FIFO_Perf`) | job → fastest type with room, re-decided each solve | no |
/// | `max_min_fairness` | `MaxMinFairnessPolicy` (`MaxMinFairness`) | max-min of `s_i/w_i · Σ_w x_iw` | yes |
/// | `max_min_fairness_perf` | `MaxMinFairnessPolicyWithPerf` (`MaxMinFairness_Perf`) | max-min of throughput normalised by the equal split | no |
/// | `finish_time_fairness_perf` | `FinishTimeFairnessPolicyWithPerf` (`FinishTimeFairness_Perf`) | min-max of the finish-time ratio ρ | no |
/// | `max_sum_throughput_perf` | `ThroughputSumWithPerf` | maximise the raw total throughput `Σ T·x` | no |
/// | `min_total_duration_perf` | `MinTotalDuration_Perf` | the shortest horizon all remaining steps fit in (bisection on a feasibility program) | no |
/// | `min_total_duration` | `MinTotalDuration` | the same with every throughput replaced by the job's V100 one | yes |
/// | `finish_time_fairness` | `FinishTimeFairness` | `finish_time_fairness_perf` with every throughput replaced by the job's V100 one | yes |
/// | `isolated` | `Isolated` | the equal split (`isolated_shares`) | yes |
/// | `fifo_packed` | `FIFO_Packing` | `fifo_perf`, then queued jobs join an assigned job of the same scale factor when their normalised co-located throughput exceeds 1.5 | no |
/// | `max_min_fairness_packed` | `MaxMinFairness_Packing` | `max_min_fairness_perf` over single jobs and same-scale-factor pairs | no |
/// | `finish_time_fairness_packed` | `FinishTimeFairness_Packing` | `finish_time_fairness_perf` over singles and pairs | no |
/// | `min_total_duration_packed` | `MinTotalDuration_Packing` | `min_total_duration_perf` over singles and pairs | no |
///
/// The `*_packed` variants (GAVEL-GENERATED §G8.3) also let two jobs of the same scale factor
/// share GPUs at their co-located rates. Gavel's HEAD lays the LP variants' per-job sums out
/// with one reshape that is right only when every job has the same scale factor; with mixed
/// scale factors its rows straddle jobs, and it crashes when the sizes do not divide. This
/// port reproduces HEAD: the same misaligned rows, and the run stops with an error where
/// Gavel would crash.
///
/// Names parse with `_` or `-` (`max-min-fairness-perf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GavelPolicyKind {
    /// `fifo` (GAVEL-SEMANTICS §6.4).
    Fifo,
    /// `fifo_perf` (§6.5).
    FifoPerf,
    /// `max_min_fairness` (§6.2), heterogeneity-agnostic.
    MaxMinFairness,
    /// `max_min_fairness_perf` (§6.1).
    MaxMinFairnessPerf,
    /// `finish_time_fairness_perf` (§6.3).
    FinishTimeFairnessPerf,
    /// `max_sum_throughput_perf` (GAVEL-GENERATED §G8.1).
    MaxSumThroughputPerf,
    /// `min_total_duration_perf` (GAVEL-GENERATED §G8.2).
    MinTotalDurationPerf,
    /// `min_total_duration` (GAVEL-GENERATED §G8.2), heterogeneity-agnostic (needs V100s).
    MinTotalDuration,
    /// `finish_time_fairness` (GAVEL-GENERATED §G8.4), heterogeneity-agnostic (needs V100s).
    FinishTimeFairness,
    /// `isolated` (GAVEL-GENERATED §G8.4): the equal split.
    Isolated,
    /// `fifo_packed` (GAVEL-GENERATED §G8.3): `fifo_perf` plus the 1.5 packing rule.
    FifoPacked,
    /// `max_min_fairness_packed` (GAVEL-GENERATED §G8.3).
    MaxMinFairnessPacked,
    /// `finish_time_fairness_packed` (GAVEL-GENERATED §G8.3).
    FinishTimeFairnessPacked,
    /// `min_total_duration_packed` (GAVEL-GENERATED §G8.3).
    MinTotalDurationPacked,
}

impl GavelPolicyKind {
    /// The five policies of GAVEL-SEMANTICS (trace mode's reference set, and `bench --gavel`'s).
    pub const ALL: [GavelPolicyKind; 5] = [
        GavelPolicyKind::Fifo,
        GavelPolicyKind::FifoPerf,
        GavelPolicyKind::MaxMinFairness,
        GavelPolicyKind::MaxMinFairnessPerf,
        GavelPolicyKind::FinishTimeFairnessPerf,
    ];

    /// The policies GAVEL-GENERATED §G8 adds.
    pub const MORE: [GavelPolicyKind; 5] = [
        GavelPolicyKind::MaxSumThroughputPerf,
        GavelPolicyKind::MinTotalDurationPerf,
        GavelPolicyKind::MinTotalDuration,
        GavelPolicyKind::FinishTimeFairness,
        GavelPolicyKind::Isolated,
    ];

    /// The space-sharing variants (GAVEL-GENERATED §G8.3).
    pub const PACKED: [GavelPolicyKind; 4] = [
        GavelPolicyKind::FifoPacked,
        GavelPolicyKind::MaxMinFairnessPacked,
        GavelPolicyKind::FinishTimeFairnessPacked,
        GavelPolicyKind::MinTotalDurationPacked,
    ];

    /// Whether this is a space-sharing (`*_packed`) variant: pairs of jobs may share GPUs.
    pub fn is_packed(self) -> bool {
        self.internal_name().contains("Packing")
    }

    /// Whether the policy reads every job's V100 throughput (Gavel's agnostic policies that
    /// use it fail without V100s).
    pub fn needs_v100(self) -> bool {
        matches!(
            self,
            GavelPolicyKind::MinTotalDuration | GavelPolicyKind::FinishTimeFairness
        )
    }

    /// Every policy: [`GavelPolicyKind::ALL`], [`GavelPolicyKind::MORE`], then
    /// [`GavelPolicyKind::PACKED`].
    pub fn every() -> impl Iterator<Item = GavelPolicyKind> {
        Self::ALL.into_iter().chain(Self::MORE).chain(Self::PACKED)
    }

    /// Gavel's command-line name (`max_min_fairness_perf`).
    pub fn as_str(self) -> &'static str {
        match self {
            GavelPolicyKind::Fifo => "fifo",
            GavelPolicyKind::FifoPerf => "fifo_perf",
            GavelPolicyKind::MaxMinFairness => "max_min_fairness",
            GavelPolicyKind::MaxMinFairnessPerf => "max_min_fairness_perf",
            GavelPolicyKind::FinishTimeFairnessPerf => "finish_time_fairness_perf",
            GavelPolicyKind::MaxSumThroughputPerf => "max_sum_throughput_perf",
            GavelPolicyKind::MinTotalDurationPerf => "min_total_duration_perf",
            GavelPolicyKind::MinTotalDuration => "min_total_duration",
            GavelPolicyKind::FinishTimeFairness => "finish_time_fairness",
            GavelPolicyKind::Isolated => "isolated",
            GavelPolicyKind::FifoPacked => "fifo_packed",
            GavelPolicyKind::MaxMinFairnessPacked => "max_min_fairness_packed",
            GavelPolicyKind::FinishTimeFairnessPacked => "finish_time_fairness_packed",
            GavelPolicyKind::MinTotalDurationPacked => "min_total_duration_packed",
        }
    }

    /// The policy object's internal name in Gavel (`policy.name`), which decides the shuffle
    /// and the FIFO skip rule.
    pub fn internal_name(self) -> &'static str {
        match self {
            GavelPolicyKind::Fifo => "FIFO",
            GavelPolicyKind::FifoPerf => "FIFO_Perf",
            GavelPolicyKind::MaxMinFairness => "MaxMinFairness",
            GavelPolicyKind::MaxMinFairnessPerf => "MaxMinFairness_Perf",
            GavelPolicyKind::FinishTimeFairnessPerf => "FinishTimeFairness_Perf",
            GavelPolicyKind::MaxSumThroughputPerf => "ThroughputSumWithPerf",
            GavelPolicyKind::MinTotalDurationPerf => "MinTotalDuration_Perf",
            GavelPolicyKind::MinTotalDuration => "MinTotalDuration",
            GavelPolicyKind::FinishTimeFairness => "FinishTimeFairness",
            GavelPolicyKind::Isolated => "Isolated",
            GavelPolicyKind::FifoPacked => "FIFO_Packing",
            GavelPolicyKind::MaxMinFairnessPacked => "MaxMinFairness_Packing",
            GavelPolicyKind::FinishTimeFairnessPacked => "FinishTimeFairness_Packing",
            GavelPolicyKind::MinTotalDurationPacked => "MinTotalDuration_Packing",
        }
    }

    /// Whether the round fill shuffles the GPU-type order (internal name contains neither
    /// `Perf` nor `Packing`, §5.1).
    pub fn shuffles_types(self) -> bool {
        let n = self.internal_name();
        !n.contains("Perf") && !n.contains("Packing")
    }

    /// Whether the round fill skips entries of priority ≤ 0 (internal name starts with `FIFO`,
    /// §5.3).
    pub fn skips_zero_priority(self) -> bool {
        self.internal_name().starts_with("FIFO")
    }
}

impl fmt::Display for GavelPolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GavelPolicyKind {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let norm = s.trim().to_ascii_lowercase().replace('-', "_");
        GavelPolicyKind::every()
            .find(|k| k.as_str() == norm)
            .ok_or_else(|| {
                ConfigError::new(format!(
                    "unknown Gavel policy `{s}` (expected one of fifo, fifo_perf, \
                     max_min_fairness, max_min_fairness_perf, finish_time_fairness_perf, \
                     max_sum_throughput_perf, min_total_duration_perf, min_total_duration, \
                     finish_time_fairness, isolated, fifo_packed, max_min_fairness_packed, \
                     finish_time_fairness_packed, min_total_duration_packed)"
                ))
            })
    }
}

/// One active job as a policy sees it at a solve.
#[derive(Clone, Debug)]
pub struct SolveJob<'a> {
    /// The job's id (trace line); policies keep state by it.
    pub id: u32,
    /// Scale factor (GPUs it needs at once).
    pub scale_factor: u32,
    /// Priority weight (trace field 7).
    pub weight: f64,
    /// Throughput (steps/s of the whole job) on each registered type, alphabetical order.
    pub throughput: &'a [f64],
    /// Steps still to run (a float for generated jobs).
    pub remaining_steps: f64,
    /// Seconds since arrival (`clock − arrival`).
    pub since_arrival: f64,
}

/// One pair of active jobs as a `*_packed` policy sees it at a solve.
#[derive(Clone, Debug)]
pub struct SolvePair<'a> {
    /// Positions of the two members in the solve's job list (lower id first).
    pub members: [usize; 2],
    /// Co-located rates `[first's, second's]` per registered type (alphabetical).
    pub throughput: &'a [[f64; 2]],
}

/// Persistent state of [`GavelPolicyKind::FinishTimeFairnessPerf`] (GAVEL-SEMANTICS §6.3).
#[derive(Clone, Debug, Default)]
pub(crate) struct FtfState {
    pub(crate) cum_iso: BTreeMap<u32, f64>,
    pub(crate) prev_rem: BTreeMap<u32, f64>,
    pub(crate) prev_iso: BTreeMap<u32, f64>,
    /// The finish-time programs' symbolic KKT systems, by sparsity (an exact shortcut: see
    /// [`crate::ecos::KktCache`]).
    pub(crate) kkt: crate::ecos::KktCache,
}

/// A Gavel policy with its state across solves (FIFO's sticky assignment and generator,
/// finish-time fairness's isolated-time bookkeeping).
#[derive(Clone, Debug)]
pub struct GavelPolicy {
    kind: GavelPolicyKind,
    /// FIFO's sticky `job → type index` (alphabetical type order).
    assign: BTreeMap<u32, usize>,
    /// FIFO's `random.Random(seed)`, drawn once per placement attempt.
    rng: PyRandom,
    ftf: FtfState,
    /// The V100's index among the registered types (`min_total_duration` uses every job's
    /// V100 throughput on every type).
    reference_type: Option<usize>,
    /// A `*_packed` LP Gavel's HEAD cannot build (the run stops).
    fatal: Option<String>,
}

impl GavelPolicy {
    /// A policy of `kind`; `seed` is Gavel's `--seed` (FIFO's generator is `Random(seed)`).
    pub fn new(kind: GavelPolicyKind, seed: u64) -> Self {
        Self {
            kind,
            assign: BTreeMap::new(),
            rng: PyRandom::new(seed),
            ftf: FtfState::default(),
            reference_type: None,
            fatal: None,
        }
    }

    /// Names the registered type whose throughput `min_total_duration` gives every type
    /// (Gavel's V100).
    pub fn with_reference_type(mut self, index: Option<usize>) -> Self {
        self.reference_type = index;
        self
    }

    /// Which policy this is.
    pub fn kind(&self) -> GavelPolicyKind {
        self.kind
    }

    /// A fatal error of the last solve (a `*_packed` LP that Gavel's HEAD cannot build).
    pub fn fatal(&self) -> Option<&str> {
        self.fatal.as_deref()
    }

    /// The allocation of a `*_packed` policy for `jobs` (sorted by id) and `pairs` (sorted
    /// lexicographically by member ids): one row per job and one per pair, shares in `[0, 1]`.
    /// Other policies give every pair 0.
    pub fn allocate_packed(
        &mut self,
        jobs: &[SolveJob<'_>],
        pairs: &[SolvePair<'_>],
        counts: &[u32],
    ) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let n = counts.len();
        let (singles, pair_rows) = match self.kind {
            GavelPolicyKind::FifoPacked => {
                let queue = self.fifo_core(jobs, counts, true);
                crate::packed::fifo_pack(&self.assign, queue, jobs, pairs, n)
            }
            GavelPolicyKind::MaxMinFairnessPacked
            | GavelPolicyKind::FinishTimeFairnessPacked
            | GavelPolicyKind::MinTotalDurationPacked => {
                match crate::packed::lp(self.kind, &mut self.ftf, jobs, pairs, counts) {
                    Ok(x) => x,
                    Err(e) => {
                        self.fatal = Some(e);
                        (
                            vec![vec![0.0; n]; jobs.len()],
                            vec![vec![0.0; n]; pairs.len()],
                        )
                    }
                }
            }
            _ => (self.allocate(jobs, counts), vec![vec![0.0; n]; pairs.len()]),
        };
        let clip = |rows: Vec<Vec<f64>>| -> Vec<Vec<f64>> {
            rows.into_iter()
                .map(|r| r.into_iter().map(|v| v.clamp(0.0, 1.0)).collect())
                .collect()
        };
        (clip(singles), clip(pair_rows))
    }

    /// The allocation for `jobs` (sorted by id) on types with `counts` GPUs (alphabetical
    /// order): one row of shares in `[0, 1]` per job, one entry per type.
    pub fn allocate(&mut self, jobs: &[SolveJob<'_>], counts: &[u32]) -> Vec<Vec<f64>> {
        let rows = match self.kind {
            GavelPolicyKind::Fifo => self.fifo(jobs, counts, false),
            GavelPolicyKind::FifoPerf => self.fifo(jobs, counts, true),
            GavelPolicyKind::MaxMinFairness => max_min_agnostic(jobs, counts),
            GavelPolicyKind::MaxMinFairnessPerf => max_min_perf(jobs, counts, &mut self.ftf.kkt),
            GavelPolicyKind::FinishTimeFairnessPerf => self.finish_time_fairness(jobs, counts),
            GavelPolicyKind::MaxSumThroughputPerf => {
                max_sum_throughput(jobs, counts, &mut self.ftf.kkt)
            }
            GavelPolicyKind::MinTotalDurationPerf => {
                min_total_duration(jobs, counts, None, &mut self.ftf.kkt)
            }
            GavelPolicyKind::MinTotalDuration => {
                min_total_duration(jobs, counts, self.reference_type, &mut self.ftf.kkt)
            }
            GavelPolicyKind::FinishTimeFairness => {
                // Gavel's wrapper returns before its inner policy sees an empty job set, so
                // the inner bookkeeping is not cleared then.
                if jobs.is_empty() {
                    return Vec::new();
                }
                let r = self.reference_type.unwrap_or(0);
                let tputs: Vec<Vec<f64>> = jobs
                    .iter()
                    .map(|j| vec![j.throughput[r]; j.throughput.len()])
                    .collect();
                let view: Vec<SolveJob<'_>> = jobs
                    .iter()
                    .zip(&tputs)
                    .map(|(j, t)| SolveJob {
                        throughput: t,
                        ..j.clone()
                    })
                    .collect();
                self.finish_time_fairness(&view, counts)
            }
            GavelPolicyKind::Isolated => isolated_shares(jobs, counts),
            GavelPolicyKind::FifoPacked
            | GavelPolicyKind::MaxMinFairnessPacked
            | GavelPolicyKind::FinishTimeFairnessPacked
            | GavelPolicyKind::MinTotalDurationPacked => {
                return self.allocate_packed(jobs, &[], counts).0;
            }
        };
        // Gavel clips the solver's output to [0, 1]; only noise is removed.
        // They are not rounded: near-ties are ordered by the central path's own offsets, which
        // is how the vectors' ties come out as Gavel's (snapping shares equal to 1e-10 makes
        // g1 `finish_time_fairness_perf` differ).
        rows.into_iter()
            .map(|r| r.into_iter().map(|v| v.clamp(0.0, 1.0)).collect())
            .collect()
    }

    /// GAVEL-SEMANTICS §6.4 (`perf = false`) and §6.5 (`perf = true`).
    fn fifo(&mut self, jobs: &[SolveJob<'_>], counts: &[u32], perf: bool) -> Vec<Vec<f64>> {
        let n = counts.len();
        self.fifo_core(jobs, counts, perf);
        jobs.iter()
            .map(|j| {
                let mut row = vec![0.0; n];
                if let Some(&w) = self.assign.get(&j.id) {
                    row[w] = 1.0;
                }
                row
            })
            .collect()
    }

    /// FIFO's placement into `self.assign`; returns the jobs still queued when it stopped
    /// (the job that fit nowhere is not among them: it was already taken off the queue).
    fn fifo_core(
        &mut self,
        jobs: &[SolveJob<'_>],
        counts: &[u32],
        perf: bool,
    ) -> std::collections::VecDeque<u32> {
        let n = counts.len();
        let mut avail: Vec<i64> = counts.iter().map(|&c| i64::from(c)).collect();
        if perf {
            self.assign.clear();
        }
        let by_id: BTreeMap<u32, &SolveJob<'_>> = jobs.iter().map(|j| (j.id, j)).collect();
        let mut queue: std::collections::VecDeque<u32> = jobs
            .iter()
            .map(|j| j.id)
            .filter(|id| !self.assign.contains_key(id))
            .collect();
        let sticky: Vec<(u32, usize)> = self.assign.iter().map(|(&k, &w)| (k, w)).collect();
        for (k, w) in sticky {
            match by_id.get(&k) {
                Some(job) => avail[w] -= i64::from(job.scale_factor),
                None => {
                    if let Some(&h) = queue.front() {
                        let head = by_id[&h];
                        if i64::from(head.scale_factor) <= avail[w] && head.throughput[w] > 0.0 {
                            queue.pop_front();
                            self.assign.insert(h, w);
                            avail[w] -= i64::from(head.scale_factor);
                        }
                    }
                    self.assign.remove(&k);
                }
            }
        }
        let mut types: Vec<usize> = (0..n).filter(|&w| avail[w] > 0).collect();
        while !types.is_empty() {
            let Some(j) = queue.pop_front() else { break };
            let job = by_id[&j];
            let sf = i64::from(job.scale_factor);
            let cand: Vec<(usize, usize)> = types
                .iter()
                .enumerate()
                .filter(|&(_, &w)| avail[w] >= sf)
                .map(|(i, &w)| (i, w))
                .collect();
            if cand.is_empty() {
                break;
            }
            if perf {
                let mut best = -1.0;
                let mut pick = 0;
                for (c, &(_, w)) in cand.iter().enumerate() {
                    if job.throughput[w] > best {
                        best = job.throughput[w];
                        pick = c;
                    }
                }
                let (orig, w) = cand[pick];
                // As in `fifo`: a job whose best candidate type runs it at 0 steps/s is not
                // assigned this time (and the queue goes on with the next job).
                if job.throughput[w] > 0.0 {
                    self.assign.insert(j, w);
                    avail[w] -= sf;
                    if avail[w] == 0 {
                        types.remove(orig);
                    }
                }
            } else {
                // `cand` is non-empty and far shorter than u32::MAX.
                let idx = self.rng.randbelow(cand.len() as u32) as usize;
                // Gavel's quirk: the type used is the last available one, not cand[idx].
                let w = types[types.len() - 1];
                if job.throughput[w] > 0.0 {
                    self.assign.insert(j, w);
                    avail[w] -= sf;
                    if avail[w] == 0 {
                        types.remove(cand[idx].0);
                    }
                }
            }
        }
        queue
    }

    /// GAVEL-SEMANTICS §6.3.
    fn finish_time_fairness(&mut self, jobs: &[SolveJob<'_>], counts: &[u32]) -> Vec<Vec<f64>> {
        if jobs.is_empty() {
            self.ftf.prev_rem.clear();
            self.ftf.prev_iso.clear();
            return Vec::new();
        }
        let iso_x = isolated_shares(jobs, counts);
        let iso: Vec<f64> = jobs
            .iter()
            .zip(&iso_x)
            .map(|(j, x)| dot(j.throughput, x))
            .collect();
        let mut rows = Vec::with_capacity(jobs.len());
        for j in jobs {
            let cum = self.ftf.cum_iso.entry(j.id).or_insert(0.0);
            if let Some(&prev) = self.ftf.prev_rem.get(&j.id) {
                let steps = prev - j.remaining_steps;
                *cum += steps / self.ftf.prev_iso[&j.id];
            }
        }
        for (j, &iso_i) in jobs.iter().zip(&iso) {
            let rem = j.remaining_steps;
            rows.push(JobRow::FinishTime {
                since: j.since_arrival,
                remaining: rem,
                denominator: self.ftf.cum_iso[&j.id] + rem / iso_i,
            });
        }
        // ECOS's algorithm on cvxpy's cone program: the optimum is rarely unique, and the
        // shares of jobs not at the max ρ are ECOS's pick (crate::ecos).
        let mut solved = crate::ecos::finish_time_fairness(jobs, counts, &rows, &mut self.ftf.kkt);
        if std::env::var_os("BLOX_GAVEL_FTF_DUMP").is_some()
            || std::env::var_os("BLOX_GAVEL_FTF_ORACLE").is_some()
        {
            let problem = crate::ftf_debug::Problem {
                ids: jobs.iter().map(|j| j.id).collect(),
                throughput: jobs.iter().map(|j| j.throughput).collect(),
                scale_factor: jobs.iter().map(|j| j.scale_factor).collect(),
                counts,
                since: jobs.iter().map(|j| j.since_arrival).collect(),
                remaining: jobs.iter().map(|j| j.remaining_steps).collect(),
                cum_iso: jobs.iter().map(|j| self.ftf.cum_iso[&j.id]).collect(),
                iso: iso.clone(),
                denominator: rows
                    .iter()
                    .map(|r| match r {
                        JobRow::FinishTime { denominator, .. } => *denominator,
                        _ => f64::NAN,
                    })
                    .collect(),
            };
            if let Some(answer) = crate::ftf_debug::hook(&problem, solved.as_deref()) {
                solved = answer;
            }
        }
        self.ftf.prev_rem = jobs.iter().map(|j| (j.id, j.remaining_steps)).collect();
        self.ftf.prev_iso = jobs.iter().zip(&iso).map(|(j, &v)| (j.id, v)).collect();
        solved.unwrap_or(iso_x)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Gavel's isolated (equal-split) shares (`IsolatedPolicy`): `(c_w / m) / s_i` per type, the
/// row divided by `max(row sum, 1)`.
pub fn isolated_shares(jobs: &[SolveJob<'_>], counts: &[u32]) -> Vec<Vec<f64>> {
    let m = jobs.len() as f64;
    jobs.iter()
        .map(|j| {
            let mut row: Vec<f64> = counts
                .iter()
                .map(|&c| (f64::from(c) / m) / f64::from(j.scale_factor))
                .collect();
            let sum: f64 = row.iter().sum();
            let div = sum.max(1.0);
            for v in &mut row {
                *v /= div;
            }
            row
        })
        .collect()
}

/// GAVEL-SEMANTICS §6.1: the max-min LP's coefficients, computed as Gavel's numpy computes
/// them, then the solve as Gavel's cvxpy + ECOS makes it ([`crate::ecos`]: the optimum is
/// rarely unique, and which optimal point ECOS stops at decides who runs). On one GPU type
/// every coefficient is `s_i / pw_i` up to rounding (`T·(1/T)`), so jobs of one scale factor
/// and weight tie, and ECOS breaks the ties by its last-digit noise, as in the agnostic
/// policy: there, as there, [`barrier`]'s analytic centre (seeds 0-2, the 8 physical traces
/// on 8 V100s: 15 of 24 average JCTs equal to Gavel's to 3 decimals, mean difference 0.30 %,
/// against 12 and 0.77 % with ECOS's algorithm). No value: the isolated shares.
fn max_min_perf(
    jobs: &[SolveJob<'_>],
    counts: &[u32],
    kkt: &mut crate::ecos::KktCache,
) -> Vec<Vec<f64>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    // The proportional split (`ProportionalPolicy`): `c_w / m` on every type, divided by the
    // row sum (numpy sums a row from 0.0, left to right).
    let m = jobs.len() as f64;
    let split: Vec<f64> = counts.iter().map(|&c| f64::from(c) / m).collect();
    let row_sum = split.iter().fold(0.0, |a, &b| a + b);
    let x_prop: Vec<f64> = split.iter().map(|v| v / row_sum).collect();
    let coef: Vec<Vec<f64>> = jobs
        .iter()
        .map(|j| {
            let prop = j
                .throughput
                .iter()
                .zip(&x_prop)
                .fold(0.0, |a, (t, x)| a + t * x);
            let pw = (1.0 / j.weight) * (1.0 / prop);
            let s = f64::from(j.scale_factor);
            j.throughput.iter().map(|t| (t * pw) * s).collect()
        })
        .collect();
    let solved = if counts.len() == 1 {
        let rows: Vec<JobRow> = coef
            .into_iter()
            .map(|coef| JobRow::Linear { coef })
            .collect();
        barrier::solve(jobs, counts, &rows)
    } else {
        let sf: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
        crate::ecos::max_min(&coef, &sf, counts, kkt)
    };
    solved.unwrap_or_else(|| isolated_shares(jobs, counts))
}

/// GAVEL-SEMANTICS §6.2, the heterogeneity-agnostic `max_min_fairness`: maximise `min_i
/// (s_i / pw_i)·Σ_w x[i][w]`, solved by [`barrier`] (the analytic centre of the optimal face).
/// Every job's split across types is free here, and ECOS picks it by rounding noise (shares
/// equal to 1e-10 across types), which no other solver reproduces; the centre's even split
/// matches Gavel's runs more often than this crate's ECOS does (seeds 0-2, the 8 physical
/// traces on 4:4:4: 19 of 24 average JCTs within 1 % against 15 of 24). No value: the isolated
/// shares.
fn max_min_agnostic(jobs: &[SolveJob<'_>], counts: &[u32]) -> Vec<Vec<f64>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let rows: Vec<JobRow> = jobs
        .iter()
        .map(|j| JobRow::Linear {
            coef: vec![f64::from(j.scale_factor) / j.weight; counts.len()],
        })
        .collect();
    barrier::solve(jobs, counts, &rows).unwrap_or_else(|| isolated_shares(jobs, counts))
}

/// GAVEL-GENERATED §G8.1: maximise `Σ_i Σ_w T[i][w]·x[i][w]` (raw throughputs: no
/// normalisation, scale factor or weight) over the common constraints, solved as Gavel's
/// cvxpy + ECOS solves it ([`crate::ecos`]; the optimum is often not unique). No value: the
/// isolated shares.
fn max_sum_throughput(
    jobs: &[SolveJob<'_>],
    counts: &[u32],
    kkt: &mut crate::ecos::KktCache,
) -> Vec<Vec<f64>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let tputs: Vec<&[f64]> = jobs.iter().map(|j| j.throughput).collect();
    let sf: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
    crate::ecos::max_sum(&tputs, &sf, counts, kkt).unwrap_or_else(|| isolated_shares(jobs, counts))
}

/// GAVEL-GENERATED §G8.2: bisection on the horizon `T_h` of the feasibility program
/// `Σ_w T[i][w]·x[i][w] ≥ rem_i / T_h` (plus the common constraints): lo 100, hi 1e6, halve
/// while `1.05·lo < hi`, keeping the last feasible point; if none, the next decade. A horizon
/// is feasible when Gavel's solver says `optimal`, and the point kept is the one it returns
/// for the constant objective: both come from [`crate::ecos`], ECOS's algorithm on cvxpy's cone
/// program (the program has no unique answer, and ECOS's is not the analytic centre: on the
/// 4:4:4 traces the centre moved average JCTs by up to 15 %). `reference`: replace every
/// throughput by the one on this type (the agnostic `min_total_duration`; `None` with that
/// policy means no V100 is registered and the job's own throughputs are used). No feasible
/// horizon up to 1e18 s: the isolated shares.
fn min_total_duration(
    jobs: &[SolveJob<'_>],
    counts: &[u32],
    reference: Option<usize>,
    kkt: &mut crate::ecos::KktCache,
) -> Vec<Vec<f64>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let tputs: Vec<Vec<f64>> = jobs
        .iter()
        .map(|j| match reference {
            Some(r) => vec![j.throughput[r]; j.throughput.len()],
            None => j.throughput.to_vec(),
        })
        .collect();
    let view: Vec<SolveJob<'_>> = jobs
        .iter()
        .zip(&tputs)
        .map(|(j, t)| SolveJob {
            throughput: t,
            ..j.clone()
        })
        .collect();
    // Gavel's solve at horizon `th`: its point if ECOS says `optimal` (the program's data taken
    // once for every horizon).
    let tput_refs: Vec<&[f64]> = tputs.iter().map(Vec::as_slice).collect();
    let sf: Vec<f64> = jobs.iter().map(|j| f64::from(j.scale_factor)).collect();
    let rem: Vec<f64> = jobs.iter().map(|j| j.remaining_steps).collect();
    let gpus: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let mut ecos_at =
        |th: f64| crate::ecos::min_total_duration(&tput_refs, &sf, &rem, &gpus, th, kkt);
    // The max-min value of `Σ T·x / rem` (every job's steps per second of horizon), which
    // decides most horizons without a solve: the program at `th` is feasible when it exceeds
    // `1 / th`. Where every job runs equally fast on every type (one type, or the agnostic
    // variant) it has a closed form: each job i needs a total share `z / c_i` (c_i = T_i /
    // rem_i), at most 1, and the shares weighted by scale factor fit in the cluster's GPUs:
    // z = min(min_i c_i, N / Σ_i s_i / c_i).
    let uniform = view
        .iter()
        .all(|j| j.throughput.iter().all(|&t| t == j.throughput[0]));
    let per_unit = if uniform {
        let gpus: f64 = counts.iter().map(|&c| f64::from(c)).sum();
        let (mut lowest, mut need) = (f64::INFINITY, 0.0);
        for j in &view {
            let c = j.throughput[0] / j.remaining_steps;
            lowest = lowest.min(c);
            need += f64::from(j.scale_factor) / c;
        }
        Some((lowest.min(gpus / need), 0.0))
    } else {
        // Else a coarse barrier solve of the max-min program at `horizon_search`'s first
        // probe (the estimate's schedule, `barrier::ESTIMATE`: a thousand-fold μ steps, loosely
        // centred): its worst row is within about the coarse gap below the max-min value there.
        let th0 = (100.0f64 + 1.0e6) / 2.0;
        let rows: Vec<JobRow> = view
            .iter()
            .map(|j| JobRow::Linear {
                coef: j
                    .throughput
                    .iter()
                    .map(|t| t * th0 / j.remaining_steps)
                    .collect(),
            })
            .collect();
        barrier::solve_to(&view, counts, &rows, ESTIMATE_GAP, barrier::ESTIMATE).map(|x| {
            let worst = rows
                .iter()
                .zip(&x)
                .map(|(r, xi)| match r {
                    JobRow::Linear { coef } => dot(coef, xi),
                    _ => f64::INFINITY,
                })
                .fold(f64::INFINITY, f64::min);
            (worst / th0, ESTIMATE_ERROR / th0)
        })
    };
    shortcut_search(per_unit, &mut ecos_at)
        .or_else(|| horizon_search(&mut ecos_at))
        .unwrap_or_else(|| isolated_shares(jobs, counts))
}

/// Shares per job and type.
type Shares = Vec<Vec<f64>>;

/// The coarse duality-gap bound of [`min_total_duration`]'s estimate of the max-min value.
pub(crate) const ESTIMATE_GAP: f64 = 1e-6;

/// The error [`min_total_duration`] allows its estimate (of the program at its first probe):
/// a thousand times the gap bound.
pub(crate) const ESTIMATE_ERROR: f64 = 1e3 * ESTIMATE_GAP;

/// How close (relative) to the feasibility threshold a horizon's predicted max-min value must
/// be for [`shortcut_search`] to ask the solver: ECOS's tolerances are 1e-8, so outside this
/// band its answer is the prediction's.
const SOLVE_BAND: f64 = 1e-6;

/// [`horizon_search`] with most horizons decided without a solve: the same horizons probed,
/// the same decisions, the same point kept, or `None` when the shortcut cannot vouch for that
/// (then the caller runs the full search, a solve per horizon).
///
/// The max-min value of `Σ T·x / rem` at horizon `th` is `th` times that at horizon 1 (every
/// requirement `rem / th` scales with `1 / th`); `per_unit` is that value at horizon 1 and a
/// bound on its error. A horizon whose predicted value is clear of 1 by more than the error
/// (times `th`) plus [`SOLVE_BAND`] is decided by the prediction; the others by `solve`
/// (Gavel's solver, whose `optimal` near the threshold is its own). The point kept is `solve`'s
/// at the smallest feasible horizon found; if it is not `optimal` there after all, `None`.
fn shortcut_search(
    per_unit: Option<(f64, f64)>,
    solve: &mut dyn FnMut(f64) -> Option<Shares>,
) -> Option<Shares> {
    let (z1, z1_err) = per_unit?;
    if !(z1.is_finite() && z1 > 0.0 && z1_err.is_finite()) {
        return None;
    }
    // Points solved, by horizon (bit pattern).
    let mut solved: Vec<(u64, Shares)> = Vec::new();
    let found = horizon_search(|th| {
        let predicted = z1 * th;
        let err = z1_err * th + SOLVE_BAND * (1.0 + predicted);
        if predicted - err > 1.0 {
            return Some(th);
        }
        if predicted + err < 1.0 {
            return None;
        }
        let x = solve(th)?;
        solved.push((th.to_bits(), x));
        Some(th)
    })?;
    match solved.iter().position(|(b, _)| *b == found.to_bits()) {
        Some(i) => Some(solved.swap_remove(i).1),
        None => solve(found),
    }
}

/// Gavel's `min_total_duration` search for the smallest horizon `T` whose program is feasible
/// (GAVEL-GENERATED §G8.2): bisection on `[100 s, 10⁶ s]` down to a 5 % bracket, widening by a
/// decade while no horizon fits (1e18 s is far beyond any schedule). The solution at the
/// smallest feasible `T` found, `None` if none is.
pub(crate) fn horizon_search<T>(mut feasible: impl FnMut(f64) -> Option<T>) -> Option<T> {
    let (mut lo, mut hi, mut keep_hi) = (100.0f64, 1.0e6f64, 1.0e6f64);
    let mut best = None;
    while keep_hi <= 1.0e18 {
        while 1.05 * lo < hi {
            let th = (lo + hi) / 2.0;
            match feasible(th) {
                Some(x) => {
                    best = Some(x);
                    hi = th;
                }
                None => lo = th,
            }
        }
        hi = keep_hi * 10.0;
        lo = keep_hi;
        keep_hi *= 10.0;
        if best.is_some() {
            break;
        }
    }
    best
}
