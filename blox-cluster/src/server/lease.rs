//! Leases: a launch that has started working may not be preempted before it has run for
//! `--min-run`.
//!
//! The scheduler still decides every round, over the real state, and the driver
//! ([`blox_sim::Driver`]) still validates and hands over every decision. The server, as the
//! driver's [`blox_sim::Host`], plans the round in [`Host::decided`](blox_sim::Host::decided)
//! before anything is applied:
//!
//! - a stop of a job whose live launch is within its lease is *deferred*: the job keeps running
//!   on its GPUs (as a kept relaunch does) and no preemption is recorded;
//! - a start that needs a GPU a deferred job keeps is deferred too: the job waits, and the next
//!   round decides again (by then the lease may have ended);
//! - a running job whose move to other GPUs is deferred that way keeps its current GPUs
//!   instead of stopping, which may defer further starts; the plan repeats until nothing
//!   changes (it only grows, so it ends).
//!
//! Every start that is applied is therefore on GPUs that are free once the applied stops have
//! freed theirs, which is what validation checked for the whole set. A deferred decision is
//! not remembered: the scheduler sees, next round, the jobs as they really are.
//!
//! A lease runs from the moment the launch starts working, not from the moment it was spawned,
//! so that process start-up (interpreter, imports, checkpoint restore) never eats into it: from
//! its `started` line or first progress report, or [`START_ALLOWANCE`] after the launch if it
//! says neither. A launch adopted after a server restart gets a fresh lease from the adoption.
//! Stops that are not the scheduler's (cancels, nodes drained or removed) ignore leases.

use super::{Live, Server};
use crate::Executor;
use blox_core::{Decisions, GpuId, JobId, JobTable, Time};
use std::collections::BTreeSet;

/// How long after its launch a job that reports nothing (no `started` line, no progress) is
/// taken to be working: the same allowance the local backend gives a launch before it signals
/// it regardless.
pub(crate) const START_ALLOWANCE: Time = Time(10_000);

impl Live {
    /// When the launch started working: its first report, or [`START_ALLOWANCE`] after the
    /// launch, whichever is first.
    pub(super) fn working_from(&self) -> Time {
        let fallback = self.launched + START_ALLOWANCE;
        self.working.map_or(fallback, |w| w.min(fallback))
    }
}

/// What the round's plan keeps from being applied.
#[derive(Debug, Default)]
pub(super) struct Deferred {
    /// Running jobs whose stop is not applied: they keep running on their GPUs.
    pub(super) stops: BTreeSet<JobId>,
    /// Jobs whose start is not applied: they wait for the next round.
    pub(super) starts: BTreeSet<JobId>,
}

impl<E: Executor> Server<E> {
    /// Whether job `id` has a live launch (not being stopped) within its lease at `now`.
    fn leased(&self, id: JobId, now: Time) -> bool {
        if self.min_run == Time::ZERO {
            return false;
        }
        self.lives
            .get(&id)
            .is_some_and(|l| !l.stopping && now < l.working_from() + self.min_run)
    }

    /// Plan the round's decisions against the leases (see the [module docs](self)).
    pub(super) fn plan_leases(&mut self, d: &Decisions, now: Time) {
        let mut deferred = std::mem::take(&mut self.deferred);
        plan(d, &self.table, |id| self.leased(id, now), &mut deferred);
        self.deferred = deferred;
    }
}

/// Which of the validated decisions `d` over `jobs` are not applied, given which running jobs
/// are within their lease (see the [module docs](self)); the result replaces `out`.
pub(super) fn plan(
    d: &Decisions,
    jobs: &JobTable,
    leased: impl Fn(JobId) -> bool,
    out: &mut Deferred,
) {
    out.stops.clear();
    out.starts.clear();
    if d.stop.is_empty() {
        return;
    }
    // A stop undone by a start on the same GPUs is a kept relaunch (the driver elides it): it
    // needs no lease, and its start takes no one's GPUs.
    let kept: BTreeSet<JobId> = d
        .stop
        .iter()
        .copied()
        .filter(|&id| {
            jobs.get(id).is_some_and(|job| {
                d.start
                    .iter()
                    .any(|(s, g)| *s == id && same_gpus(g, &job.gpus))
            })
        })
        .collect();
    let stopped: BTreeSet<JobId> = d
        .stop
        .iter()
        .copied()
        .filter(|id| !kept.contains(id))
        .collect();
    out.stops
        .extend(stopped.iter().copied().filter(|&id| leased(id)));
    if out.stops.is_empty() {
        return;
    }
    loop {
        let blocked: BTreeSet<GpuId> = out
            .stops
            .iter()
            .filter_map(|&id| jobs.get(id))
            .flat_map(|j| j.gpus.iter().copied())
            .collect();
        let mut changed = false;
        for (id, gpus) in &d.start {
            if out.starts.contains(id) || kept.contains(id) {
                continue;
            }
            if out.stops.contains(id) || gpus.iter().any(|g| blocked.contains(g)) {
                out.starts.insert(*id);
                if stopped.contains(id) {
                    // A running job that was to move: it stays where it is.
                    out.stops.insert(*id);
                }
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Whether two GPU lists hold the same GPUs, in any order.
fn same_gpus(a: &[GpuId], b: &[GpuId]) -> bool {
    let mut x = a.to_vec();
    let mut y = b.to_vec();
    x.sort_unstable();
    y.sort_unstable();
    x == y
}

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::{GpuSet, Job, JobSpec};

    fn gpus(g: &[u32]) -> GpuSet {
        g.iter().map(|&g| GpuId(g)).collect()
    }

    /// Jobs 0..=5: 0 on GPU 0, 1 on GPU 1, 2 on GPU 2, the others waiting.
    fn table() -> JobTable {
        let mut t = JobTable::new();
        for i in 0..6 {
            let mut j = Job::new(JobId(i), JobSpec::new(Time::ZERO, 1, 10.0), Time::ZERO);
            if i < 3 {
                j.gpus = gpus(&[i]);
            }
            t.push(j);
        }
        t
    }

    fn ids(s: &BTreeSet<JobId>) -> Vec<u32> {
        s.iter().map(|j| j.0).collect()
    }

    #[test]
    fn a_leased_job_keeps_its_gpus_and_whoever_needed_them_waits() {
        let t = table();
        let mut d = Decisions::default();
        // Swap 0 and 1 out for 3 and 4; only 0 is within its lease.
        d.stop = vec![JobId(0), JobId(1)];
        d.start = vec![(JobId(3), gpus(&[0])), (JobId(4), gpus(&[1]))];
        let mut out = Deferred::default();
        plan(&d, &t, |id| id == JobId(0), &mut out);
        assert_eq!(ids(&out.stops), [0]);
        assert_eq!(ids(&out.starts), [3]);
        // Nobody within a lease: everything applies.
        plan(&d, &t, |_| false, &mut out);
        assert!(out.stops.is_empty() && out.starts.is_empty());
    }

    #[test]
    fn a_move_onto_leased_gpus_keeps_the_mover_where_it_is_and_cascades() {
        let t = table();
        let mut d = Decisions::default();
        // 0 (leased) stops; 1 moves onto GPU 0; 3 takes GPU 1; 2 moves to GPU 3 (free).
        d.stop = vec![JobId(0), JobId(1), JobId(2)];
        d.start = vec![
            (JobId(1), gpus(&[0])),
            (JobId(3), gpus(&[1])),
            (JobId(2), gpus(&[3])),
        ];
        let mut out = Deferred::default();
        plan(&d, &t, |id| id == JobId(0), &mut out);
        assert_eq!(ids(&out.stops), [0, 1], "1 keeps GPU 1 instead of stopping");
        assert_eq!(ids(&out.starts), [1, 3], "so 3 waits too; 2's move applies");
    }

    #[test]
    fn a_kept_relaunch_and_a_leased_job_moving_are_handled() {
        let t = table();
        let mut d = Decisions::default();
        // 0 is "stopped" and restarted on its own GPU (a kept relaunch); 1 (leased) would move
        // to GPU 3.
        d.stop = vec![JobId(0), JobId(1)];
        d.start = vec![(JobId(0), gpus(&[0])), (JobId(1), gpus(&[3]))];
        let mut out = Deferred::default();
        plan(&d, &t, |_| true, &mut out);
        assert_eq!(ids(&out.stops), [1]);
        assert_eq!(ids(&out.starts), [1]);
    }
}
