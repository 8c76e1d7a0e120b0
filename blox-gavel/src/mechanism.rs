//! Gavel's round mechanism (GAVEL-SEMANTICS §3-§5): when the allocation is re-solved, the
//! per-job/per-type time accumulators, priorities and deficits, the per-round type shuffle,
//! the greedy fill and the stale-job drop.
//!
//! The mechanism is clock-agnostic: the time model (`blox-sim`'s `gavel` model) tells it when
//! jobs arrive, what finished micro-tasks credited, and asks it, once per iteration, which
//! `(job, type)` pairs run next.

use super::policy::{GavelPolicy, GavelPolicyKind, SolveJob};
use blox_core::ConfigError;
use blox_workload::PyRandom;

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
        }
    }
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
            jobs,
        })
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
    }

    fn remove(&mut self, j: usize) {
        self.is_active[j] = false;
        if let Ok(p) = self.active.binary_search(&j) {
            self.active.remove(p);
        }
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

    /// Steps 5 and 6 of an iteration at `clock` (§3-§5): re-solve if due, compute priorities,
    /// shuffle the type order, fill the round greedily and drop stale jobs. Returns the
    /// `(job, type index)` pairs that run this round, in placement order.
    pub fn plan_round(&mut self, clock: f64) -> Vec<(usize, usize)> {
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
        let rows = self.policy.allocate(&solve_jobs, &self.counts);
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
    }

    /// §5.2-§5.4.
    fn fill(&self, order: &[usize]) -> Vec<(usize, usize)> {
        let n = self.types.len();
        let na = self.active.len();
        let mut free: Vec<u32> = self.counts.clone();
        let mut placed = vec![false; na];
        let mut out = Vec::new();
        let fifo = self.policy.kind().skips_zero_priority();
        let mut entries: Vec<(f64, f64, f64, usize)> = Vec::with_capacity(na);
        for &w in order {
            entries.clear();
            for (p, &j) in self.active.iter().enumerate() {
                let share = if self.has_alloc[j] {
                    self.alloc[j * n + w]
                } else {
                    0.0
                };
                entries.push((self.priority[w * na + p], self.deficit[j * n + w], share, p));
            }
            // Descending by (priority, deficit, share), stable: equal keys keep id order.
            entries.sort_by(|a, b| {
                (b.0, b.1, b.2)
                    .partial_cmp(&(a.0, a.1, a.2))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            for &(prio, _, _, p) in &entries {
                if free[w] == 0 {
                    break;
                }
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
                    out.push((j, w));
                }
            }
        }
        out
    }
}
