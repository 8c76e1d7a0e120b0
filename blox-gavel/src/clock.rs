//! The `gavel` time model: Gavel's trace simulator's clock (GAVEL-SEMANTICS §2), driving
//! Gavel's round mechanism through [`GavelRounds`] ([`GavelMechanism`](crate::GavelMechanism)).
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

use crate::mechanism::Placement;
use blox_core::ThroughputTable;
use blox_workload::GavelTraceJob;
use std::fmt;

/// The GPU types Gavel's trace driver knows (`-c V:P:K`).
pub const GAVEL_GPU_TYPES: [&str; 3] = ["v100", "p100", "k80"];

/// What crediting a finished micro-task did to its job (`_done_callback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MicroTaskOutcome {
    /// Succeeded; the job has steps left.
    Progress,
    /// Succeeded; the job is complete and removed.
    Completed,
    /// Failed (fewer steps than GPUs, or no execution time); nothing credited.
    Failed,
    /// Failed for the fifth time in a row: the job is removed without a JCT.
    Dropped,
}

/// Gavel's scheduler as the clock drives it: the round mechanism and policy (implemented by
/// [`GavelMechanism`](crate::GavelMechanism), or by [`EngineRounds`](crate::EngineRounds) for any engine policy).
///
/// Job indices are trace positions; type indices refer to the registered types, alphabetical.
pub trait GavelRounds {
    /// Admits job `j` (called in id order, at the round boundary at or after its arrival).
    fn admit(&mut self, j: usize);
    /// Credits a finished micro-task of `steps` steps of job `j` on type `w` that executed
    /// for `exec_s` seconds. Called latest finish first, ties by lower id.
    fn credit(&mut self, j: usize, w: usize, steps: u64, exec_s: f64) -> MicroTaskOutcome;
    /// Gavel's forced reset: the next solve is due now.
    fn force_reset(&mut self);
    /// The `(job, type)` pairs that run in the round starting at `clock`.
    fn plan_round(&mut self, clock: f64) -> Vec<(usize, usize)>;
    /// Steps job `j` has completed.
    fn done_steps(&self, j: usize) -> u64;
    /// Whether job `j` is admitted and not yet removed.
    fn is_active(&self, j: usize) -> bool;
    /// Policy solves so far.
    fn solves(&self) -> u64;
    /// What runs in the round starting at `clock`, co-located pairs included (Gavel's
    /// `*_packed` policies); by default the single jobs of [`GavelRounds::plan_round`].
    fn plan(&mut self, clock: f64) -> Vec<Placement> {
        self.plan_round(clock)
            .into_iter()
            .map(|(job, gpu_type)| Placement::Single { job, gpu_type })
            .collect()
    }
    /// Credits a finished co-located micro-task of the pair `a < b` on type `w` (`steps` of
    /// each member, both executed for `exec_s` seconds); what happened to each member. Only
    /// called for pairs [`GavelRounds::plan`] returned.
    fn credit_pair(
        &mut self,
        a: usize,
        b: usize,
        w: usize,
        steps: [u64; 2],
        exec_s: f64,
    ) -> [MicroTaskOutcome; 2] {
        let _ = (a, b, w, steps, exec_s);
        [MicroTaskOutcome::Failed, MicroTaskOutcome::Failed]
    }
    /// A fatal error of the last plan (the run stops with it).
    fn fatal(&self) -> Option<String> {
        None
    }
}

/// Gavel's worker registration (GAVEL-SEMANTICS §1.3): the GPU types with at least one GPU,
/// names matched case-insensitively (lowercased), counts summed per type, alphabetical.
///
/// # Errors
///
/// A type other than v100, p100 and k80 (Gavel's driver has no other), or no GPU at all.
pub fn register_types(cluster: &[(String, u32)]) -> Result<Vec<(String, u32)>, GavelError> {
    let mut reg: Vec<(String, u32)> = Vec::new();
    for (name, count) in cluster {
        let lower = name.to_ascii_lowercase();
        if !GAVEL_GPU_TYPES.contains(&lower.as_str()) {
            return Err(GavelError::Config(format!(
                "GPU type `{name}`: Gavel's simulator knows only v100, p100 and k80"
            )));
        }
        match reg.iter_mut().find(|(t, _)| *t == lower) {
            Some(e) => e.1 += count,
            None => reg.push((lower, *count)),
        }
    }
    reg.retain(|(_, c)| *c > 0);
    if reg.is_empty() {
        return Err(GavelError::Config("the cluster has no GPUs".into()));
    }
    reg.sort();
    Ok(reg)
}

/// A job as the clock needs it: the trace's facts plus its throughput on each registered type.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct GavelJob {
    /// Total steps.
    pub total_steps: u64,
    /// Scale factor.
    pub scale_factor: u32,
    /// Priority weight.
    pub priority_weight: f64,
    /// Arrival (s).
    pub arrival_s: f64,
    /// Steps per second of the whole job on each registered type (alphabetical).
    pub throughput: Vec<f64>,
}

/// Looks up every job's throughput on each registered type: `table[type][(job_type, sf)]`,
/// the exact scale factor only (GAVEL-SEMANTICS §1.2). Zero is a valid rate (never run
/// there).
///
/// # Errors
///
/// [`GavelError::MissingThroughput`] naming the trace line.
pub fn lookup_throughputs(
    jobs: &[GavelTraceJob],
    table: &ThroughputTable,
    types: &[(String, u32)],
) -> Result<Vec<GavelJob>, GavelError> {
    let mut out = Vec::with_capacity(jobs.len());
    for (id, j) in jobs.iter().enumerate() {
        let mut tput = Vec::with_capacity(types.len());
        for (t, _) in types {
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
        out.push(GavelJob {
            total_steps: j.total_steps,
            scale_factor: j.scale_factor,
            priority_weight: j.priority_weight,
            arrival_s: j.arrival_s,
            throughput: tput,
        });
    }
    Ok(out)
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
    /// Pauses: times it had a micro-task in one dispatching iteration and none in the next
    /// while still unfinished (Gavel's simulator does not count them).
    pub preemptions: u64,
}

/// Counts pauses, this project's preemptions under Gavel's model (where a pause is free,
/// GAVEL-SEMANTICS §2): a job that was dispatched a micro-task in one iteration and none in the
/// next while still active. A change of GPU type between consecutive iterations is not a pause.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pauses {
    /// Per job, the last iteration (1-based) it was dispatched in; 0 for never.
    last: Vec<u64>,
    /// The jobs dispatched in the previous iteration.
    prev: Vec<usize>,
    iteration: u64,
}

impl Pauses {
    /// One iteration's dispatch: the jobs given a micro-task (pairs' members included). Calls
    /// `paused` for each job of the previous iteration that got none and is still `active`.
    pub(crate) fn dispatch(
        &mut self,
        dispatched: impl IntoIterator<Item = usize>,
        active: impl Fn(usize) -> bool,
        mut paused: impl FnMut(usize),
    ) {
        self.iteration += 1;
        let mut now = Vec::with_capacity(self.prev.len());
        for j in dispatched {
            if j >= self.last.len() {
                self.last.resize(j + 1, 0);
            }
            self.last[j] = self.iteration;
            now.push(j);
        }
        for &j in &self.prev {
            if self.last[j] != self.iteration && active(j) {
                paused(j);
            }
        }
        self.prev = now;
    }
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
    /// A setting is invalid (cluster types, round length, policy).
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

/// A dispatched micro-task (of one job, or of a co-located pair).
#[derive(Clone, Copy, Debug)]
struct MicroTask {
    finish: f64,
    job: usize,
    gpu_type: usize,
    steps: u64,
    /// A pair's second member and its steps.
    partner: Option<(usize, u64)>,
}

impl MicroTask {
    /// Gavel's `JobIdPair` order: single jobs by id before pairs, pairs lexicographically.
    fn id_key(&self) -> (bool, usize, usize) {
        match self.partner {
            None => (false, self.job, 0),
            Some((b, _)) => (true, self.job, b),
        }
    }
}

/// Runs Gavel's trace simulation (GAVEL-SEMANTICS §2) of `jobs` (trace order, with
/// throughputs from [`lookup_throughputs`]) on the registered `types`, with round length
/// `round_s`, driving `mech`.
///
/// # Errors
///
/// [`GavelError::Config`] for a bad round length, [`GavelError::Stuck`] when jobs remain that
/// no round can run.
pub fn simulate<M: GavelRounds>(
    jobs: &[GavelJob],
    types: &[(String, u32)],
    round_s: f64,
    mech: &mut M,
) -> Result<GavelOutcome, GavelError> {
    if !(round_s > 0.0 && round_s.is_finite()) {
        return Err(GavelError::Config(format!(
            "round length {round_s} s: must be a positive number"
        )));
    }
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
            preemptions: 0,
        })
        .collect();
    let mut ran_on = vec![false; jobs.len() * n_types];
    let mut pauses = Pauses::default();

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
                .then(a.id_key().cmp(&b.id_key()))
        });
        for t in running.drain(..) {
            let exec = t.finish - round_start;
            if let Some((b, b_steps)) = t.partner {
                let outcomes = mech.credit_pair(t.job, b, t.gpu_type, [t.steps, b_steps], exec);
                for (m, o) in [t.job, b].into_iter().zip(outcomes) {
                    match o {
                        MicroTaskOutcome::Progress | MicroTaskOutcome::Completed => {
                            let r = &mut results[m];
                            r.micro_tasks += 1;
                            ran_on[m * n_types + t.gpu_type] = true;
                            if o == MicroTaskOutcome::Completed {
                                r.finish = Some(t.finish);
                                r.jct = Some(t.finish - r.arrival);
                                remaining -= 1;
                            }
                        }
                        MicroTaskOutcome::Failed => {}
                        MicroTaskOutcome::Dropped => remaining -= 1,
                    }
                }
                continue;
            }
            match mech.credit(t.job, t.gpu_type, t.steps, exec) {
                MicroTaskOutcome::Progress => {
                    results[t.job].micro_tasks += 1;
                    ran_on[t.job * n_types + t.gpu_type] = true;
                }
                MicroTaskOutcome::Completed => {
                    let r = &mut results[t.job];
                    r.micro_tasks += 1;
                    ran_on[t.job * n_types + t.gpu_type] = true;
                    r.finish = Some(t.finish);
                    r.jct = Some(t.finish - r.arrival);
                    remaining -= 1;
                }
                MicroTaskOutcome::Failed => {}
                MicroTaskOutcome::Dropped => remaining -= 1,
            }
        }
        // 4. Admit arrivals at or before the clock, in id order.
        while next_arrival < jobs.len() && jobs[next_arrival].arrival_s <= clock {
            mech.admit(next_arrival);
            next_arrival += 1;
        }
        // 5-6. Priorities (maybe a solve), shuffle, fill, stale-job drop.
        let plan = mech.plan(clock);
        if let Some(e) = mech.fatal() {
            return Err(GavelError::Config(e));
        }
        pauses.dispatch(
            plan.iter().flat_map(Placement::jobs),
            |j| mech.is_active(j),
            |j| results[j].preemptions += 1,
        );
        // 7. Dispatch.
        let steps_at = |mech: &M, j: usize, t: f64| -> u64 {
            let left = jobs[j].total_steps - mech.done_steps(j);
            // Python's int() of a positive float truncates toward zero, as `as` does.
            let full = (t * round_s) as u64;
            full.min(left)
        };
        for p in plan {
            match p {
                Placement::Single {
                    job: j,
                    gpu_type: w,
                } => {
                    let t = jobs[j].throughput[w];
                    let steps = steps_at(mech, j, t);
                    running.push(MicroTask {
                        finish: clock + steps as f64 / t,
                        job: j,
                        gpu_type: w,
                        steps,
                        partner: None,
                    });
                }
                Placement::Pair {
                    jobs: [a, b],
                    gpu_type: w,
                    throughput: [ta, tb],
                } => {
                    // Each member runs at its co-located rate; the pair ends at the later finish.
                    let (sa, sb) = (steps_at(mech, a, ta), steps_at(mech, b, tb));
                    let finish = (clock + sa as f64 / ta).max(clock + sb as f64 / tb);
                    running.push(MicroTask {
                        finish: finish.max(clock),
                        job: a,
                        gpu_type: w,
                        steps: sa,
                        partner: Some((b, sb)),
                    });
                }
            }
        }
        if running.is_empty() {
            // Nothing ran and no arrival is left to wait for: the forced re-solve comes next;
            // if that round runs nothing either, nothing ever will.
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
            .map(|w| types[w].0.clone())
            .collect();
    }
    Ok(GavelOutcome {
        jobs: results,
        makespan: clock,
        rounds,
        solves: mech.solves(),
    })
}

#[cfg(test)]
mod pause_tests {
    use super::Pauses;

    /// Replays dispatches (jobs per iteration) with the given jobs active throughout until
    /// `done[j]` (the iteration after which job j is finished; 0 for never) and returns the
    /// pauses per job.
    fn replay(n: usize, iterations: &[&[usize]], done: &[usize]) -> Vec<u64> {
        let mut p = Pauses::default();
        let mut count = vec![0; n];
        for (k, jobs) in iterations.iter().enumerate() {
            p.dispatch(
                jobs.iter().copied(),
                |j| done[j] == 0 || k < done[j],
                |j| count[j] += 1,
            );
        }
        count
    }

    #[test]
    fn a_pause_is_a_dispatch_followed_by_none_while_active() {
        // Job 0 runs, waits, runs, runs, waits; job 1 runs in turns and finishes after
        // iteration 3 (0-based), so not running in iteration 4 is not a pause.
        let it: [&[usize]; 5] = [&[0, 1], &[1], &[0], &[0, 1], &[]];
        assert_eq!(replay(2, &it, &[0, 4]), [2, 1]);
        // Never dispatched: never paused. Running every iteration: never paused.
        assert_eq!(replay(3, &[&[1], &[1], &[1]], &[0, 0, 0]), [0, 0, 0]);
        // A job first seen late (ids grow, as in generated mode) is tracked from then on.
        assert_eq!(
            replay(8, &[&[], &[7], &[]], &[0; 8]),
            [0, 0, 0, 0, 0, 0, 0, 1]
        );
    }
}
