//! Invariant checkers. Each returns `Ok(())` or a [`Violation`] saying what broke, where.

use crate::record::{Recorded, RecordingSink};
use blox_core::{Ctx, Decisions, JobId, Schedule, Time};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A broken invariant: which one, and a description with the job, GPU or time involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's name, e.g. `placement-valid`.
    pub invariant: &'static str,
    /// What happened.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} violated: {}", self.invariant, self.detail)
    }
}

impl std::error::Error for Violation {}

fn fail(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, detail })
}

/// A schedule lists only active jobs, each at most once, and asks for at most the cluster's GPUs
/// for any one job.
pub fn check_schedule(ctx: &Ctx<'_>, schedule: &Schedule) -> Result<(), Violation> {
    let mut seen = BTreeSet::new();
    for a in schedule.iter() {
        if ctx.jobs.get(a.job).is_none() {
            return fail("schedule-valid", format!("job {} is not active", a.job));
        }
        if !seen.insert(a.job) {
            return fail("schedule-valid", format!("job {} is listed twice", a.job));
        }
        if a.n_gpus > ctx.cluster.total_gpus() {
            return fail(
                "schedule-valid",
                format!(
                    "job {} gets {} GPUs of {}",
                    a.job,
                    a.n_gpus,
                    ctx.cluster.total_gpus()
                ),
            );
        }
    }
    Ok(())
}

/// A schedule is a permutation of the active jobs (every active job listed exactly once).
pub fn check_permutation(ctx: &Ctx<'_>, schedule: &Schedule) -> Result<(), Violation> {
    check_schedule(ctx, schedule)?;
    if schedule.len() != ctx.jobs.len() {
        return fail(
            "schedule-permutation",
            format!(
                "{} entries for {} active jobs",
                schedule.len(),
                ctx.jobs.len()
            ),
        );
    }
    Ok(())
}

/// A placement's decisions are valid against the live state: stops name running jobs once;
/// starts name active jobs not running (unless stopped in the same decision), once, on existing
/// GPUs that are free after the stops and not given twice, and rigid jobs get exactly their
/// request.
pub fn check_placement(ctx: &Ctx<'_>, decisions: &Decisions) -> Result<(), Violation> {
    let mut scratch = blox_core::ValidationScratch::default();
    decisions
        .validate(ctx.cluster, ctx.jobs, &mut scratch)
        .map_err(|detail| Violation {
            invariant: "placement-valid",
            detail,
        })
}

/// Event times never go back.
pub fn check_time_monotone(rec: &RecordingSink) -> Result<(), Violation> {
    let mut last = Time::ZERO;
    for (i, e) in rec.events.iter().enumerate() {
        if e.time() < last {
            return fail(
                "time-monotone",
                format!("event {i} at {} s after one at {} s", e.time(), last),
            );
        }
        last = e.time();
    }
    Ok(())
}

/// Conservation: every arrival is admitted at most once and ends completed, rejected, or still
/// queued or active when the run ends (`finished_all` demands that every arrival completed or
/// was rejected). No job completes twice or runs after completing; no GPU is held by two jobs.
// The inserts in these arms have side effects, so they stay out of match guards.
#[allow(clippy::collapsible_match)]
pub fn check_conservation(rec: &RecordingSink, finished_all: bool) -> Result<(), Violation> {
    const NAME: &str = "conservation";
    let mut arrived = BTreeSet::new();
    let mut admitted: BTreeMap<JobId, u64> = BTreeMap::new();
    let mut rejected = BTreeSet::new();
    let mut completed = BTreeSet::new();
    let mut holder: BTreeMap<u32, JobId> = BTreeMap::new();
    let mut holding: BTreeMap<JobId, Vec<u32>> = BTreeMap::new();
    for e in &rec.events {
        match e {
            Recorded::Arrived { seq, .. } => {
                if !arrived.insert(*seq) {
                    return fail(NAME, format!("arrival {seq} reported twice"));
                }
            }
            Recorded::Admitted { seq, job, .. } => {
                if !arrived.contains(seq) || admitted.insert(*job, *seq).is_some() {
                    return fail(
                        NAME,
                        format!("job {job} (arrival {seq}) admitted wrongly or twice"),
                    );
                }
            }
            Recorded::Rejected { seq, .. } => {
                rejected.insert(*seq);
            }
            Recorded::Started { job, gpus, time } => {
                if completed.contains(job) {
                    return fail(
                        NAME,
                        format!("job {job} started at {time} s after completing"),
                    );
                }
                for g in gpus {
                    if let Some(other) = holder.insert(*g, *job) {
                        return fail(
                            NAME,
                            format!(
                                "GPU {g} given to job {job} at {time} s while job {other} holds it"
                            ),
                        );
                    }
                }
                holding.insert(*job, gpus.clone());
            }
            Recorded::Preempted { job, .. } | Recorded::Completed { job, .. } => {
                for g in holding.remove(job).unwrap_or_default() {
                    holder.remove(&g);
                }
                if let Recorded::Completed { job, time } = e {
                    if !completed.insert(*job) {
                        return fail(
                            NAME,
                            format!("job {job} completed twice (again at {time} s)"),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    if finished_all {
        for seq in &arrived {
            let done = rejected.contains(seq)
                || admitted
                    .iter()
                    .any(|(job, s)| s == seq && completed.contains(job));
            if !done {
                return fail(
                    NAME,
                    format!("arrival {seq} neither completed nor was rejected"),
                );
            }
        }
    }
    Ok(())
}

/// Starvation-freedom with a bound: no admitted job waits longer than `bound` in a row, from
/// its arrival or a preemption to its next start (or to the end of the run, if it never starts
/// again before the run ends).
pub fn check_starvation_free(rec: &RecordingSink, bound: Time) -> Result<(), Violation> {
    let mut arrival = BTreeMap::new();
    // Since when each waiting job has waited.
    let mut waiting_since: BTreeMap<JobId, Time> = BTreeMap::new();
    let mut end = Time::ZERO;
    let too_long = |job: JobId, from: Time, to: Time| {
        fail(
            "starvation-free",
            format!(
                "job {job} waited {} s in a row from {from} s (bound {bound} s)",
                to.saturating_sub(from)
            ),
        )
    };
    for e in &rec.events {
        end = end.max(e.time());
        match e {
            Recorded::Arrived {
                seq, arrival: a, ..
            } => {
                arrival.insert(*seq, *a);
            }
            Recorded::Admitted { seq, job, .. } => {
                waiting_since.insert(*job, arrival[seq]);
            }
            Recorded::Started { job, time, .. } => {
                if let Some(from) = waiting_since.remove(job) {
                    if time.saturating_sub(from) > bound {
                        return too_long(*job, from, *time);
                    }
                }
            }
            Recorded::Preempted { job, time } => {
                waiting_since.insert(*job, *time);
            }
            Recorded::Completed { job, .. } => {
                waiting_since.remove(job);
            }
            _ => {}
        }
    }
    if let Some((job, from)) = waiting_since
        .iter()
        .find(|(_, from)| end.saturating_sub(**from) > bound)
    {
        return too_long(*job, *from, end);
    }
    Ok(())
}

/// Work conservation: no round ends with a waiting admitted job that would fit in the free GPUs.
/// Meaningful with the `Exact` time model, whose round sample is taken after decisions apply.
pub fn check_work_conserving(rec: &RecordingSink) -> Result<(), Violation> {
    let mut gpus_of_seq = BTreeMap::new();
    let mut gpus_of = BTreeMap::new();
    let mut waiting: BTreeSet<JobId> = BTreeSet::new();
    for e in &rec.events {
        match e {
            Recorded::Arrived { seq, n_gpus, .. } => {
                gpus_of_seq.insert(*seq, *n_gpus);
            }
            Recorded::Admitted { seq, job, .. } => {
                gpus_of.insert(*job, gpus_of_seq[seq]);
                waiting.insert(*job);
            }
            Recorded::Started { job, .. } | Recorded::Completed { job, .. } => {
                waiting.remove(job);
            }
            Recorded::Preempted { job, .. } => {
                waiting.insert(*job);
            }
            Recorded::Round(s) => {
                if let Some(smallest) = waiting.iter().map(|j| gpus_of[j]).min() {
                    if s.free_gpus >= smallest {
                        return fail(
                            "work-conserving",
                            format!(
                                "at {} s, {} GPUs were free while a job needing {smallest} waited",
                                s.time, s.free_gpus
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Determinism: two runs of `run` give the same recording.
pub fn check_deterministic(mut run: impl FnMut() -> RecordingSink) -> Result<(), Violation> {
    let a = run();
    let b = run();
    if a != b {
        let i = a
            .events
            .iter()
            .zip(&b.events)
            .position(|(x, y)| x != y)
            .unwrap_or(a.events.len().min(b.events.len()));
        return fail(
            "deterministic",
            format!("the runs first differ at event {i}"),
        );
    }
    Ok(())
}
