//! The `gavel` time model: Gavel's trace simulator's clock (GAVEL-SEMANTICS §2), driving
//! Gavel's round mechanism ([`blox_policies::gavel_osdi::GavelMechanism`]).
//!
//! Each iteration, in this order: stop when no job remains (forcing a re-solve when nothing
//! ran and no arrival is queued); advance the clock to the latest finish of the micro-tasks
//! dispatched last iteration (or jump to the next arrival when none ran); credit those
//! micro-tasks latest finish first (ties by lower id), with execution time measured from the
//! end of the previous busy round; admit arrivals at or before the clock; re-solve if due,
//! compute priorities, shuffle, fill; dispatch micro-tasks of `min(⌊T·R⌋, remaining)` steps
//! that end at `clock + steps / T`.
//!
//! So a round lasts until its slowest micro-task ends, arrivals wait for the round boundary,
//! idle time is jumped over, there is no preemption cost, and a job's JCT is the finish of its
//! last micro-task minus its arrival. A job whose micro-task has fewer steps than GPUs fails
//! and is dropped after five failures (no JCT).

use blox_core::ThroughputTable;
use blox_policies::gavel_osdi::{Credit, GavelMechanism, GavelPolicyKind, MechJob};
use blox_workload::GavelTraceJob;
use std::fmt;

/// A Gavel simulation's settings.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GavelConfig {
    /// The policy.
    pub policy: GavelPolicyKind,
    /// GPU types and counts (one GPU per server; `8x1:v100` is Gavel's `-c 8:0:0`).
    pub cluster: Vec<(String, u32)>,
    /// `--time_per_iteration` (s).
    pub round_s: f64,
    /// `--seed`.
    pub seed: u64,
}

impl GavelConfig {
    /// Settings for `policy` on `cluster` with Gavel's defaults (R = 360 s, seed 0).
    pub fn new(policy: GavelPolicyKind, cluster: Vec<(String, u32)>) -> Self {
        Self {
            policy,
            cluster,
            round_s: 360.0,
            seed: 0,
        }
    }

    /// Sets the round length.
    pub fn with_round(mut self, round_s: f64) -> Self {
        self.round_s = round_s;
        self
    }

    /// Sets the seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// One job's result.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GavelJobResult {
    /// Job id (0-based trace line).
    pub id: usize,
    /// Arrival (s).
    pub arrival: f64,
    /// Finish of its last micro-task (s); `None` if dropped.
    pub finish: Option<f64>,
    /// Gavel's JCT (`finish − arrival`); `None` if dropped.
    pub jct: Option<f64>,
    /// Scale factor.
    pub scale_factor: u32,
    /// GPU types it ran on (successful micro-tasks), alphabetical.
    pub gpu_types: Vec<String>,
    /// Successful micro-tasks.
    pub micro_tasks: u64,
}

/// A Gavel simulation's outcome.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GavelOutcome {
    /// Per job, by id.
    pub jobs: Vec<GavelJobResult>,
    /// Final clock (s).
    pub makespan: f64,
    /// Iterations that dispatched at least one micro-task.
    pub rounds: u64,
    /// Policy solves.
    pub solves: u64,
}

impl GavelOutcome {
    /// Mean JCT over completed jobs (Gavel's `get_average_jct`); `None` if none completed.
    pub fn avg_jct(&self) -> Option<f64> {
        let done: Vec<f64> = self.jobs.iter().filter_map(|j| j.jct).collect();
        (!done.is_empty()).then(|| done.iter().sum::<f64>() / done.len() as f64)
    }

    /// Number of dropped jobs.
    pub fn dropped(&self) -> usize {
        self.jobs.iter().filter(|j| j.jct.is_none()).count()
    }
}

/// Why a Gavel simulation could not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GavelError {
    /// A setting is invalid (cluster types, round length).
    Config(String),
    /// A job has no throughput entry for a registered type.
    MissingThroughput {
        /// Job id.
        job: usize,
        /// 1-based trace line.
        line: u64,
        /// Job type.
        job_type: String,
        /// Scale factor.
        scale_factor: u32,
        /// GPU type.
        gpu_type: String,
    },
    /// Jobs remain that no round can ever run (e.g. zero throughput on every type, or more
    /// GPUs than any type has); Gavel's own loop would spin forever.
    Stuck {
        /// Clock (s).
        clock: f64,
        /// Ids of the jobs left.
        jobs: Vec<usize>,
    },
}

impl fmt::Display for GavelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GavelError::Config(m) => f.write_str(m),
            GavelError::MissingThroughput {
                job,
                line,
                job_type,
                scale_factor,
                gpu_type,
            } => write!(
                f,
                "line {line} (job {job}): field `job_type`: no throughput for (`{job_type}`, \
                 {scale_factor}) on GPU type `{gpu_type}` in the throughput table"
            ),
            GavelError::Stuck { clock, jobs } => write!(
                f,
                "at t = {clock} s no round can run job(s) {jobs:?} (zero throughput on every \
                 GPU type, or more GPUs than any type has); Gavel's simulator would loop forever"
            ),
        }
    }
}

impl std::error::Error for GavelError {}

/// A dispatched micro-task.
#[derive(Clone, Copy, Debug)]
struct MicroTask {
    finish: f64,
    job: usize,
    gpu_type: usize,
    steps: u64,
}

/// Runs Gavel's trace simulation of `jobs` (in trace order) with throughputs from `table`.
///
/// # Errors
///
/// See [`GavelError`].
pub fn simulate(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    cfg: &GavelConfig,
) -> Result<GavelOutcome, GavelError> {
    if !(cfg.round_s > 0.0 && cfg.round_s.is_finite()) {
        return Err(GavelError::Config(format!(
            "round length {} s: must be a positive number",
            cfg.round_s
        )));
    }
    let types = GavelMechanism::registered_types(&cfg.cluster)
        .map_err(|e| GavelError::Config(e.to_string()))?;
    let mut mech_jobs = Vec::with_capacity(jobs.len());
    for (id, j) in jobs.iter().enumerate() {
        let mut tput = Vec::with_capacity(types.len());
        for t in &types {
            let rate = table
                .exact(t, &j.job_type, j.scale_factor)
                .filter(|r| r.is_finite() && *r >= 0.0)
                .ok_or_else(|| GavelError::MissingThroughput {
                    job: id,
                    line: j.line,
                    job_type: j.job_type.clone(),
                    scale_factor: j.scale_factor,
                    gpu_type: t.clone(),
                })?;
            tput.push(rate);
        }
        mech_jobs.push(MechJob::new(
            j.scale_factor,
            j.priority_weight,
            j.total_steps,
            j.arrival_s,
            tput,
        ));
    }
    let mut mech = GavelMechanism::new(cfg.policy, &cfg.cluster, cfg.round_s, cfg.seed, mech_jobs)
        .map_err(|e| GavelError::Config(e.to_string()))?;
    let n_types = types.len();
    let mut results: Vec<GavelJobResult> = jobs
        .iter()
        .enumerate()
        .map(|(id, j)| GavelJobResult {
            id,
            arrival: j.arrival_s,
            finish: None,
            jct: None,
            scale_factor: j.scale_factor,
            gpu_types: Vec::new(),
            micro_tasks: 0,
        })
        .collect();
    let mut ran_on = vec![false; jobs.len() * n_types];

    let mut clock = jobs.first().map_or(0.0, |j| j.arrival_s);
    let mut round_start = 0.0;
    let mut round_end: Option<f64> = None;
    let mut running: Vec<MicroTask> = Vec::new();
    let mut next_arrival = 0usize;
    let mut remaining = jobs.len();
    let mut rounds = 0u64;
    let mut idle_iterations = 0u32;

    loop {
        // 1. Stop test, forced reset.
        if remaining == 0 {
            break;
        }
        if next_arrival >= jobs.len() && running.is_empty() {
            mech.force_reset();
        }
        // 2. Advance the clock.
        let mx = running
            .iter()
            .map(|t| t.finish)
            .fold(f64::NEG_INFINITY, f64::max);
        if !running.is_empty() && mx > 0.0 {
            if let Some(end) = round_end {
                round_start = end;
            }
            round_end = Some(mx);
            clock = mx;
        } else if next_arrival < jobs.len() {
            clock = jobs[next_arrival].arrival_s;
        }
        // 3. Credit, latest finish first, ties by lower job id.
        running.sort_by(|a, b| {
            b.finish
                .partial_cmp(&a.finish)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.job.cmp(&b.job))
        });
        for t in running.drain(..) {
            let exec = t.finish - round_start;
            match mech.credit(t.job, t.gpu_type, t.steps, exec) {
                Credit::Progress => {
                    results[t.job].micro_tasks += 1;
                    ran_on[t.job * n_types + t.gpu_type] = true;
                }
                Credit::Completed => {
                    let r = &mut results[t.job];
                    r.micro_tasks += 1;
                    ran_on[t.job * n_types + t.gpu_type] = true;
                    r.finish = Some(t.finish);
                    r.jct = Some(t.finish - r.arrival);
                    remaining -= 1;
                }
                Credit::Failed => {}
                Credit::Dropped => remaining -= 1,
            }
        }
        // 4. Admit arrivals at or before the clock, in id order.
        while next_arrival < jobs.len() && jobs[next_arrival].arrival_s <= clock {
            mech.admit(next_arrival);
            next_arrival += 1;
        }
        // 5-6. Priorities (maybe a solve), shuffle, fill, stale-job drop.
        let plan = mech.plan_round(clock);
        // 7. Dispatch.
        for (j, w) in plan {
            let t = mech.job(j).throughput[w];
            let left = mech.job(j).total_steps - mech.done_steps(j);
            // Python's int() of a positive float truncates; the product is finite here.
            let full = (t * cfg.round_s) as u64;
            let steps = full.min(left);
            running.push(MicroTask {
                finish: clock + steps as f64 / t,
                job: j,
                gpu_type: w,
                steps,
            });
        }
        if running.is_empty() {
            // Nothing ran: with no arrival left to wait for, two such iterations in a row
            // (the second after the forced re-solve) mean nothing ever will.
            if next_arrival >= jobs.len() && remaining > 0 {
                idle_iterations += 1;
                if idle_iterations >= 3 {
                    let left: Vec<usize> = (0..jobs.len()).filter(|&j| mech.is_active(j)).collect();
                    return Err(GavelError::Stuck { clock, jobs: left });
                }
            }
        } else {
            idle_iterations = 0;
            rounds += 1;
        }
    }
    for (id, r) in results.iter_mut().enumerate() {
        r.gpu_types = (0..n_types)
            .filter(|&w| ran_on[id * n_types + w])
            .map(|w| types[w].clone())
            .collect();
    }
    Ok(GavelOutcome {
        jobs: results,
        makespan: clock,
        rounds,
        solves: mech.solves(),
    })
}
