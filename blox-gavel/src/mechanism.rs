//! Gavel's round mechanism (GAVEL-SEMANTICS §3-§5): when the allocation is re-solved, the
//! per-job/per-type time accumulators, priorities and deficits, the per-round type shuffle,
//! the greedy fill and the stale-job drop.
//!
//! The mechanism is clock-agnostic: the time model (`blox-sim`'s `gavel` model) tells it when
//! jobs arrive, what finished micro-tasks credited, and asks it, once per iteration, which
//! `(job, type)` pairs run next.

use super::policy::{GavelPolicy, GavelPolicyKind, SolveJob, SolvePair};
use blox_core::ConfigError;
use blox_workload::{ColocatedThroughputs, PyRandom};
use std::sync::Arc;

/// Gavel's `minimum_time_between_allocation_resets` (constructor default, seconds).
pub const RESET_INTERVAL_S: f64 = 1920.0;
/// Gavel's `MAX_FAILED_ATTEMPTS`: consecutive failed micro-tasks before a job is dropped.
pub const MAX_FAILED_ATTEMPTS: u32 = 5;
/// The GPU types Gavel's trace driver knows, in the order of its round-fill type list.
pub const GAVEL_TYPE_ORDER: [&str; 3] = ["v100", "p100", "k80"];

/// A job as the mechanism knows it (static facts from the trace and the throughput table).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MechJob {
    /// Scale factor (GPUs).
    pub scale_factor: u32,
    /// Priority weight (trace field 7).
    pub weight: f64,
    /// Total steps (an integer in trace mode; a float in generated mode, GAVEL-GENERATED §G3).
    pub total_steps: f64,
    /// Arrival time (s).
    pub arrival: f64,
    /// Throughput (steps/s, whole job) per registered type, alphabetical type order.
    pub throughput: Vec<f64>,
    /// Job type (the throughput key), for the co-located rates of the `*_packed` policies.
    pub job_type: Option<String>,
}

impl MechJob {
    /// A job with these facts (a trace job: integer steps).
    pub fn new(
        scale_factor: u32,
        weight: f64,
        total_steps: u64,
        arrival: f64,
        throughput: Vec<f64>,
    ) -> Self {
        // Trace step counts are far below 2^53, where every integer is an exact f64.
        Self::with_float_steps(
            scale_factor,
            weight,
            total_steps as f64,
            arrival,
            throughput,
        )
    }

    /// A job whose total steps are a float (Gavel's generated jobs, GAVEL-GENERATED §G3).
    pub fn with_float_steps(
        scale_factor: u32,
        weight: f64,
        total_steps: f64,
        arrival: f64,
        throughput: Vec<f64>,
    ) -> Self {
        Self {
            scale_factor,
            weight,
            total_steps,
            arrival,
            throughput,
            job_type: None,
        }
    }

    /// Names the job's type (the throughput table key), which the `*_packed` policies need to
    /// look up its co-located rates.
    pub fn with_job_type(mut self, job_type: impl Into<String>) -> Self {
        self.job_type = Some(job_type.into());
        self
    }
}

/// What runs in a round: a job alone, or (the `*_packed` policies) two jobs sharing GPUs.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    /// Job `job` alone on type `gpu_type`.
    Single {
        /// Job index.
        job: usize,
        /// Registered type index.
        gpu_type: usize,
    },
    /// Jobs `jobs` (lower id first) co-located on type `gpu_type`, running at `throughput`
    /// (steps/s of each, same order).
    Pair {
        /// The two jobs, lower id first.
        jobs: [usize; 2],
        /// Registered type index.
        gpu_type: usize,
        /// Co-located throughput of each member on that type.
        throughput: [f64; 2],
    },
}

impl Placement {
    /// The jobs it runs: one, or a pair's two (lower id first).
    pub fn jobs(&self) -> impl Iterator<Item = usize> + use<> {
        let (a, b) = match *self {
            Placement::Single { job, .. } => (job, None),
            Placement::Pair { jobs: [a, b], .. } => (a, Some(b)),
        };
        std::iter::once(a).chain(b)
    }
}

/// A pair of active same-scale-factor jobs (GAVEL-GENERATED §G8.3), lower id first.
#[derive(Clone, Debug)]
struct PairState {
    a: usize,
    b: usize,
    /// Co-located rates `[a's, b's]` per registered type.
    tput: Vec<[f64; 2]>,
    /// Time received per type since the last solve (starts at 0.0, not R/2).
    job_time: Vec<f64>,
    deficit: Vec<f64>,
    alloc: Vec<f64>,
    has_alloc: bool,
}

/// What crediting a finished micro-task did to its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credit {
    /// The micro-task succeeded and the job has steps left.
    Progress,
    /// The micro-task succeeded and the job is complete (removed).
    Completed,
    /// The micro-task failed (fewer steps than GPUs, or no execution time); nothing credited.
    Failed,
    /// The micro-task failed for the fifth time in a row: the job is removed without a JCT.
    Dropped,
}

/// Gavel's scheduler state for one run: accumulators, allocation, priorities, policy.
#[derive(Clone, Debug)]
pub struct GavelMechanism {
    policy: GavelPolicy,
    half_round: f64,
    /// Registered types, alphabetical.
    types: Vec<String>,
    counts: Vec<u32>,
    /// Registered type indices in Gavel's round-fill order (v100, p100, k80).
    fill_order: Vec<usize>,
    shuffler: PyRandom,
    jobs: Vec<MechJob>,
    /// Active job indices, ascending (= admission order).
    active: Vec<usize>,
    is_active: Vec<bool>,
    /// Steps done: integers (exact in f64) in trace mode, the exact float remainder last in
    /// generated mode (GAVEL-GENERATED §G6.4).
    done: Vec<f64>,
    fail: Vec<u32>,
    /// `job_time[j·n + w]`: time received on w since the last solve, plus R/2.
    job_time: Vec<f64>,
    /// `deficit[j·n + w]`.
    deficit: Vec<f64>,
    /// `alloc[j·n + w]`, meaningful where `has_alloc[j]`.
    alloc: Vec<f64>,
    has_alloc: Vec<bool>,
    /// Indices with an entry in the current allocation (to clear them at the next solve).
    alloc_jobs: Vec<usize>,
    type_time: Vec<f64>,
    last_reset: f64,
    need_update: bool,
    solves: u64,
    /// Scratch: priorities of the current iteration, `[w][position in active]`.
    priority: Vec<f64>,
    /// `*_packed` policies: the pairs, in creation order (by later member, then partner).
    pairs: Vec<PairState>,
    /// Scratch: pair priorities, `[w][position in pairs]`.
    pair_priority: Vec<f64>,
    /// Co-located rates (`*_packed` policies).
    colocated: Option<Arc<ColocatedThroughputs>>,
}

impl GavelMechanism {
    /// A mechanism for `jobs` (indexed by trace line) on the registered GPU types `types`
    /// (name and GPU count, alphabetical, every count ≥ 1: Gavel's worker registration,
    /// GAVEL-SEMANTICS §1.3), running `kind` with round length `round_s` and Gavel's `--seed`.
    /// Every job's throughput vector lists the types in that order.
    ///
    /// # Errors
    ///
    /// Types not sorted, duplicated or empty; a type Gavel's driver does not know (v100, p100,
    /// k80); a throughput vector of the wrong length.
    pub fn new(
        kind: GavelPolicyKind,
        types: &[(String, u32)],
        round_s: f64,
        seed: u64,
        jobs: Vec<MechJob>,
    ) -> Result<Self, ConfigError> {
        if types.is_empty() || types.iter().any(|(_, c)| *c == 0) {
            return Err(ConfigError::new(
                "every registered GPU type needs at least one GPU",
            ));
        }
        if types.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(ConfigError::new(
                "registered GPU types must be sorted and distinct",
            ));
        }
        if let Some((t, _)) = types
            .iter()
            .find(|(t, _)| !GAVEL_TYPE_ORDER.contains(&t.as_str()))
        {
            return Err(ConfigError::new(format!(
                "GPU type `{t}`: Gavel's simulator knows only v100, p100 and k80"
            )));
        }
        // Gavel seeds the shuffle with `seed + 5`; the port takes seeds below 2^64.
        let shuffle_seed = seed
            .checked_add(5)
            .ok_or_else(|| ConfigError::new(format!("seed {seed}: must be below 2^64 - 5")))?;
        let reg: Vec<String> = types.iter().map(|(t, _)| t.clone()).collect();
        let counts: Vec<u32> = types.iter().map(|(_, c)| *c).collect();
        let n = reg.len();
        for (i, j) in jobs.iter().enumerate() {
            if j.throughput.len() != n {
                return Err(ConfigError::new(format!(
                    "job {i}: {} throughputs for {n} GPU types",
                    j.throughput.len()
                )));
            }
        }
        let fill_order = GAVEL_TYPE_ORDER
            .iter()
            .filter_map(|t| reg.iter().position(|r| r == t))
            .collect();
        let nj = jobs.len();
        let v100 = reg.iter().position(|t| t == "v100");
        if kind.needs_v100() && v100.is_none() {
            return Err(ConfigError::new(format!(
                "{kind} gives every job its V100 throughput on every type: the cluster needs \
                 V100s (Gavel's policy fails without them)"
            )));
        }
        Ok(Self {
            policy: GavelPolicy::new(kind, seed).with_reference_type(v100),
            half_round: round_s / 2.0,
            types: reg,
            counts,
            fill_order,
            shuffler: PyRandom::new(shuffle_seed),
            active: Vec::new(),
            is_active: vec![false; nj],
            done: vec![0.0; nj],
            fail: vec![0; nj],
            job_time: vec![0.0; nj * n],
            deficit: vec![0.0; nj * n],
            alloc: vec![0.0; nj * n],
            has_alloc: vec![false; nj],
            alloc_jobs: Vec::new(),
            type_time: vec![0.0; n],
            last_reset: 0.0,
            // Registering workers sets the flag (§1.3).
            need_update: true,
            solves: 0,
            priority: Vec::new(),
            pairs: Vec::new(),
            pair_priority: Vec::new(),
            colocated: None,
            jobs,
        })
    }

    /// Gives the `*_packed` policies the table of co-located rates (pairs of jobs whose
    /// types have no entry run at 0 steps/s together, i.e. never).
    pub fn with_colocated(mut self, table: Arc<ColocatedThroughputs>) -> Self {
        self.colocated = Some(table);
        self
    }

    /// A fatal policy error (a `*_packed` LP policy Gavel's HEAD cannot build, see
    /// [`GavelPolicyKind::MaxMinFairnessPacked`]); the run must stop.
    pub fn fatal(&self) -> Option<&str> {
        self.policy.fatal()
    }

    /// Number of live pairs (`*_packed` policies).
    pub fn n_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// Registered type names, alphabetical (index = type index everywhere here).
    pub fn types(&self) -> &[String] {
        &self.types
    }

    /// Number of policy solves so far.
    pub fn solves(&self) -> u64 {
        self.solves
    }

    /// Whether job `j` is admitted and not yet removed.
    pub fn is_active(&self, j: usize) -> bool {
        self.is_active[j]
    }

    /// Number of active jobs.
    pub fn n_active(&self) -> usize {
        self.active.len()
    }

    /// Steps job `j` has completed (a trace job's count is an integer).
    pub fn done_steps(&self, j: usize) -> u64 {
        // Integral in trace mode; truncation only matters for generated jobs, which use
        // `remaining_steps`.
        self.done[j] as u64
    }

    /// Steps job `j` still has to run (`total − done`, a float in generated mode).
    pub fn remaining_steps(&self, j: usize) -> f64 {
        self.jobs[j].total_steps - self.done[j]
    }

    /// Number of jobs known (admitted or not).
    pub fn n_jobs(&self) -> usize {
        self.jobs.len()
    }

    /// Adds a job after construction (generated mode makes jobs as the run reaches them);
    /// returns its index. Admit it with [`GavelMechanism::admit`].
    ///
    /// # Errors
    ///
    /// A throughput vector of the wrong length.
    pub fn push_job(&mut self, job: MechJob) -> Result<usize, ConfigError> {
        let n = self.types.len();
        if job.throughput.len() != n {
            return Err(ConfigError::new(format!(
                "job {}: {} throughputs for {n} GPU types",
                self.jobs.len(),
                job.throughput.len()
            )));
        }
        self.jobs.push(job);
        self.is_active.push(false);
        self.done.push(0.0);
        self.fail.push(0);
        self.job_time.extend(std::iter::repeat(0.0).take(n));
        self.deficit.extend(std::iter::repeat(0.0).take(n));
        self.alloc.extend(std::iter::repeat(0.0).take(n));
        self.has_alloc.push(false);
        Ok(self.jobs.len() - 1)
    }

    /// The static facts of job `j`.
    pub fn job(&self, j: usize) -> &MechJob {
        &self.jobs[j]
    }

    /// Gavel's forced reset (§2 step 1): marks the next solve as due.
    pub fn force_reset(&mut self) {
        self.last_reset = 0.0;
    }

    /// Admits job `j` (`add_job`, §2 step 4). Jobs must be admitted in id order.
    pub fn admit(&mut self, j: usize) {
        let n = self.types.len();
        debug_assert!(self.active.last().map_or(true, |&l| l < j));
        self.active.push(j);
        self.is_active[j] = true;
        self.done[j] = 0.0;
        self.fail[j] = 0;
        for w in 0..n {
            self.job_time[j * n + w] = self.half_round;
            self.deficit[j * n + w] = 0.0;
        }
        self.has_alloc[j] = false;
        self.need_update = true;
        if self.policy.kind().is_packed() {
            // `_populate_job_combination_metadata`: a pair with every active job of the same
            // scale factor, partners in admission order.
            let sf = self.jobs[j].scale_factor;
            let partners: Vec<usize> = self
                .active
                .iter()
                .copied()
                .filter(|&o| o != j && self.jobs[o].scale_factor == sf)
                .collect();
            for o in partners {
                let tput = (0..n).map(|w| self.colocated_rates(o, j, w)).collect();
                self.pairs.push(PairState {
                    a: o,
                    b: j,
                    tput,
                    job_time: vec![0.0; n],
                    deficit: vec![0.0; n],
                    alloc: vec![0.0; n],
                    has_alloc: false,
                });
            }
        }
    }

    /// `file[w][(type a, sf)][(type b, sf)]`, 0 if unknown.
    fn colocated_rates(&self, a: usize, b: usize, w: usize) -> [f64; 2] {
        let (ja, jb) = (&self.jobs[a], &self.jobs[b]);
        match (&self.colocated, &ja.job_type, &jb.job_type) {
            (Some(t), Some(ta), Some(tb)) => t
                .get(&self.types[w], ta, ja.scale_factor, tb, jb.scale_factor)
                .unwrap_or([0.0, 0.0]),
            _ => [0.0, 0.0],
        }
    }

    fn remove(&mut self, j: usize) {
        self.is_active[j] = false;
        if let Ok(p) = self.active.binary_search(&j) {
            self.active.remove(p);
        }
        self.pairs.retain(|p| p.a != j && p.b != j);
        self.need_update = true;
    }

    /// Credits a finished micro-task of `ns` steps of job `j` on type `w` that executed for
    /// `exec` seconds (`_done_callback`, §2 step 3). Call in Gavel's order: latest finish
    /// first, ties by lower job id.
    pub fn credit(&mut self, j: usize, w: usize, ns: u64, exec: f64) -> Credit {
        // Trace step counts are far below 2^53.
        self.credit_steps(j, w, ns as f64, exec)
    }

    /// [`GavelMechanism::credit`] with a float step count (generated mode's last micro-task
    /// runs the fractional remainder). The steps are split over the job's GPUs as Gavel does
    /// (`⌊ns / sf⌋` each, the last GPU the rest); the micro-task fails iff a GPU got no steps
    /// (`ns < sf` for sf ≥ 2, `ns ≤ 0` for one GPU) or it had no execution time.
    pub fn credit_steps(&mut self, j: usize, w: usize, ns: f64, exec: f64) -> Credit {
        let n = self.types.len();
        let sf = f64::from(self.jobs[j].scale_factor);
        let no_steps = if sf >= 2.0 {
            ns < sf
        } else {
            ns.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        };
        if no_steps || exec.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            self.fail[j] += 1;
            self.need_update = true;
            if self.fail[j] >= MAX_FAILED_ATTEMPTS {
                self.remove(j);
                return Credit::Dropped;
            }
            return Credit::Failed;
        }
        self.fail[j] = 0;
        self.done[j] += ns;
        self.job_time[j * n + w] += exec;
        self.type_time[w] += exec;
        if self.done[j] >= self.jobs[j].total_steps {
            self.remove(j);
            return Credit::Completed;
        }
        Credit::Progress
    }

    /// Credits a finished co-located micro-task of the pair `a < b` on type `w`: `ns[i]` steps
    /// of each member, both executed for `exec` seconds (GAVEL-GENERATED §G8.3). The pair's own
    /// time and the type's time are credited once; the members' own per-type times are not.
    /// A failed pair micro-task (a member's GPU share of steps ≤ 0, or no execution time)
    /// counts toward no failure limit; a success does not reset the members' failure counts.
    /// Returns what happened to each member.
    pub fn credit_pair(
        &mut self,
        a: usize,
        b: usize,
        w: usize,
        ns: [f64; 2],
        exec: f64,
    ) -> [Credit; 2] {
        let members = [a, b];
        let no_steps = members.iter().zip(ns).any(|(&m, s)| {
            let sf = f64::from(self.jobs[m].scale_factor);
            if sf >= 2.0 {
                s < sf
            } else {
                s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
            }
        });
        if no_steps || exec.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            self.need_update = true;
            return [Credit::Failed, Credit::Failed];
        }
        for (&m, s) in members.iter().zip(ns) {
            self.done[m] += s;
        }
        if let Some(p) = self.pairs.iter_mut().find(|p| p.a == a && p.b == b) {
            p.job_time[w] += exec;
            self.type_time[w] += exec;
        }
        let mut out = [Credit::Progress; 2];
        for (k, &m) in members.iter().enumerate() {
            if self.done[m] >= self.jobs[m].total_steps {
                self.remove(m);
                out[k] = Credit::Completed;
            }
        }
        out
    }

    /// Steps 5 and 6 of an iteration at `clock` (§3-§5): re-solve if due, compute priorities,
    /// shuffle the type order, fill the round greedily and drop stale jobs. Returns the
    /// `(job, type index)` pairs that run this round, in placement order. (Co-located pairs of
    /// the `*_packed` policies are only in [`GavelMechanism::plan_round_packed`].)
    pub fn plan_round(&mut self, clock: f64) -> Vec<(usize, usize)> {
        self.plan_round_packed(clock)
            .into_iter()
            .filter_map(|p| match p {
                Placement::Single { job, gpu_type } => Some((job, gpu_type)),
                Placement::Pair { .. } => None,
            })
            .collect()
    }

    /// [`GavelMechanism::plan_round`] with the co-located pairs of the `*_packed` policies.
    pub fn plan_round_packed(&mut self, clock: f64) -> Vec<Placement> {
        let due = clock - self.last_reset >= RESET_INTERVAL_S || self.last_reset == 0.0;
        if self.need_update && due {
            self.solve(clock);
        }
        self.update_priorities();
        let mut order = self.fill_order.clone();
        if self.policy.kind().shuffles_types() {
            self.shuffler.shuffle(&mut order);
        }
        self.fill(&order)
    }

    /// `_reset_time_run_so_far` then `_compute_allocation` (§3.3) **[exact order]**.
    fn solve(&mut self, clock: f64) {
        let n = self.types.len();
        let elapsed = clock - self.last_reset;
        for w in 0..n {
            self.type_time[w] = 0.0;
            for &j in &self.active {
                let received = self.job_time[j * n + w] - self.half_round;
                let should = if self.has_alloc[j] {
                    self.alloc[j * n + w] * elapsed
                } else {
                    0.0
                };
                self.deficit[j * n + w] += should - received;
                self.job_time[j * n + w] = self.half_round;
                self.type_time[w] += self.half_round;
            }
            for p in &mut self.pairs {
                let received = p.job_time[w] - self.half_round;
                let should = if p.has_alloc {
                    p.alloc[w] * elapsed
                } else {
                    0.0
                };
                p.deficit[w] += should - received;
                p.job_time[w] = self.half_round;
                self.type_time[w] += self.half_round;
            }
        }
        self.last_reset = clock;
        let solve_jobs: Vec<SolveJob<'_>> = self
            .active
            .iter()
            .map(|&j| {
                let job = &self.jobs[j];
                SolveJob {
                    id: j as u32,
                    scale_factor: job.scale_factor,
                    weight: job.weight,
                    throughput: &job.throughput,
                    remaining_steps: job.total_steps - self.done[j],
                    since_arrival: clock - job.arrival,
                }
            })
            .collect();
        let mut pair_order: Vec<usize> = (0..self.pairs.len()).collect();
        pair_order.sort_by_key(|&q| (self.pairs[q].a, self.pairs[q].b));
        let solve_pairs: Vec<SolvePair<'_>> = pair_order
            .iter()
            .map(|&q| {
                let p = &self.pairs[q];
                SolvePair {
                    members: [
                        self.active.binary_search(&p.a).unwrap_or(0),
                        self.active.binary_search(&p.b).unwrap_or(0),
                    ],
                    throughput: &p.tput,
                }
            })
            .collect();
        let (rows, pair_rows) = if self.policy.kind().is_packed() {
            self.policy
                .allocate_packed(&solve_jobs, &solve_pairs, &self.counts)
        } else {
            (self.policy.allocate(&solve_jobs, &self.counts), Vec::new())
        };
        drop(solve_jobs);
        drop(solve_pairs);
        for (&q, row) in pair_order.iter().zip(pair_rows) {
            let p = &mut self.pairs[q];
            p.has_alloc = true;
            p.alloc.copy_from_slice(&row);
        }
        for &j in &self.alloc_jobs {
            self.has_alloc[j] = false;
        }
        self.alloc_jobs.clear();
        for (&j, row) in self.active.iter().zip(rows) {
            self.has_alloc[j] = true;
            self.alloc[j * n..(j + 1) * n].copy_from_slice(&row);
            self.alloc_jobs.push(j);
        }
        self.solves += 1;
        self.need_update = false;
    }

    /// §4: priority per type and active job.
    fn update_priorities(&mut self) {
        let n = self.types.len();
        let na = self.active.len();
        self.priority.clear();
        self.priority.resize(n * na, 0.0);
        for w in 0..n {
            let tt = self.type_time[w];
            for (p, &j) in self.active.iter().enumerate() {
                let frac = if tt == 0.0 {
                    0.0
                } else {
                    self.job_time[j * n + w] / tt
                };
                let prio = if !self.has_alloc[j] {
                    0.0
                } else {
                    let a = self.alloc[j * n + w];
                    if a == 0.0 || self.jobs[j].throughput[w] == 0.0 {
                        0.0
                    } else if frac > 0.0 {
                        a / frac
                    } else {
                        a * 1e9
                    }
                };
                self.priority[w * na + p] = prio;
            }
        }
        let np = self.pairs.len();
        self.pair_priority.clear();
        self.pair_priority.resize(n * np, 0.0);
        for w in 0..n {
            let tt = self.type_time[w];
            for (q, p) in self.pairs.iter().enumerate() {
                let frac = if tt == 0.0 { 0.0 } else { p.job_time[w] / tt };
                let prio = if !p.has_alloc {
                    0.0
                } else {
                    let a = p.alloc[w];
                    if a == 0.0 || p.tput[w][0] == 0.0 || p.tput[w][1] == 0.0 {
                        0.0
                    } else if frac > 0.0 {
                        a / frac
                    } else {
                        a * 1e9
                    }
                };
                self.pair_priority[w * np + q] = prio;
            }
        }
    }

    /// §5.2-§5.4, with the pairs of the `*_packed` policies (GAVEL-GENERATED §G8.3): each job
    /// is followed in the candidate list by the pairs it created, partners in admission order.
    fn fill(&self, order: &[usize]) -> Vec<Placement> {
        let n = self.types.len();
        let na = self.active.len();
        let np = self.pairs.len();
        let mut free: Vec<u32> = self.counts.clone();
        let mut placed = vec![false; na];
        let mut out = Vec::new();
        let fifo = self.policy.kind().skips_zero_priority();
        // Candidates: `k < na` the active job at position k, `na + q` pair q.
        let mut cands: Vec<usize> = Vec::with_capacity(na + np);
        if np == 0 {
            cands.extend(0..na);
        } else {
            let mut q = 0;
            for p in 0..na {
                cands.push(p);
                let j = self.active[p];
                while q < np && self.pairs[q].b == j {
                    cands.push(na + q);
                    q += 1;
                }
            }
        }
        let pos = |j: usize| self.active.binary_search(&j).unwrap_or(usize::MAX);
        let mut entries: Vec<(f64, f64, f64, usize)> = Vec::with_capacity(cands.len());
        for &w in order {
            entries.clear();
            for &c in &cands {
                if c < na {
                    let j = self.active[c];
                    let share = if self.has_alloc[j] {
                        self.alloc[j * n + w]
                    } else {
                        0.0
                    };
                    entries.push((self.priority[w * na + c], self.deficit[j * n + w], share, c));
                } else {
                    let q = c - na;
                    let p = &self.pairs[q];
                    let share = if p.has_alloc { p.alloc[w] } else { 0.0 };
                    entries.push((self.pair_priority[w * np + q], p.deficit[w], share, c));
                }
            }
            // Descending by (priority, deficit, share), stable: equal keys keep list order.
            entries.sort_by(|a, b| {
                (b.0, b.1, b.2)
                    .partial_cmp(&(a.0, a.1, a.2))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            for &(prio, _, _, c) in &entries {
                if free[w] == 0 {
                    break;
                }
                if c < na {
                    let p = c;
                    let j = self.active[p];
                    let sf = self.jobs[j].scale_factor;
                    if placed[p]
                        || self.jobs[j].throughput[w] <= 0.0
                        || (fifo && prio <= 0.0)
                        || sf > free[w]
                    {
                        continue;
                    }
                    placed[p] = true;
                    free[w] -= sf;
                    // Stale-job drop: placed, but without an allocation entry it does not run.
                    if self.has_alloc[j] {
                        out.push(Placement::Single {
                            job: j,
                            gpu_type: w,
                        });
                    }
                } else {
                    let pr = &self.pairs[c - na];
                    let (pa, pb) = (pos(pr.a), pos(pr.b));
                    let (sa, sb) = (self.jobs[pr.a].scale_factor, self.jobs[pr.b].scale_factor);
                    if placed[pa]
                        || placed[pb]
                        || pr.tput[w][0] <= 0.0
                        || pr.tput[w][1] <= 0.0
                        || (fifo && prio <= 0.0)
                        || sa != sb
                        || sa > free[w]
                    {
                        continue;
                    }
                    free[w] -= sa;
                    placed[pa] = true;
                    placed[pb] = true;
                    if pr.has_alloc {
                        out.push(Placement::Pair {
                            jobs: [pr.a, pr.b],
                            gpu_type: w,
                            throughput: pr.tput[w],
                        });
                    }
                }
            }
        }
        out
    }
}
