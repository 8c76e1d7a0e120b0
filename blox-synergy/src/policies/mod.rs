//! Synergy's scheduling policies (OSDI 2022) with the sort keys Synergy defines, one per file.
//!
//! Source: `msr-fiddle/synergy` `simulator/schedulers/{fifo,srtf,las,ftf}_synergy_new.py` and
//! `jobs/job.py`, as summarised in SYNERGY-SEMANTICS §4. What they share, here:
//!
//! - **A persistent, stably sorted list.** Synergy sorts its runnable-job list *in place* each
//!   round (Python's stable sort), so jobs with equal keys keep the order of the previous round,
//!   not the id order. [`SynergyOrder`] keeps that list: arrivals are appended in id order,
//!   finished jobs dropped, then a stable sort by the key.
//! - **Starvation bump.** After the sort, a job that has not run for more than 1,000 hours
//!   (since its last lease ended, or since arrival if it never ran) gets priority 1 for good and
//!   sorts first from the next round on (keys `(−priority, …)`; FIFO's key has no priority).
//!   At Synergy's loads this never triggers.
//! - **Progress in iterations.** Remaining and total times are `iteration time × iterations`
//!   ([`blox_core::JobSpec::iterations`], [`blox_core::JobSpec::iter_time_s`],
//!   [`blox_core::Job::iterations_done`]); a job without them falls back to its service in
//!   seconds.
//!
//! Every policy lists every active job (the placement walks them all), except
//! [`SynergyLas`], which lists only the jobs whose GPU demands fit the cluster's GPUs in order,
//! as Synergy's LAS does.

mod fifo;
mod ftf;
mod las;
mod srtf;

pub use fifo::SynergyFifo;
pub use ftf::SynergyFtf;
pub use las::SynergyLas;
pub use srtf::SynergySrtf;

use blox_core::{Ctx, Job, JobId, Schedule};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// Synergy's starvation threshold: 1,000 hours without running.
pub const SYNERGY_STARVATION_S: f64 = 1000.0 * 3600.0;

/// The persistent job list every Synergy policy sorts in place.
#[derive(Clone, Debug, Default)]
pub struct SynergyOrder {
    ids: Vec<JobId>,
    next_new: u32,
    bumped: BTreeSet<JobId>,
    keyed: Vec<(f64, f64, JobId)>,
}

impl SynergyOrder {
    /// Bring the list up to date with the table, stably sort it by `(−priority?, key, arrival)`
    /// and push it into `out`. With `use_priority`, bumped jobs sort first.
    pub(crate) fn sort(
        &mut self,
        ctx: &Ctx<'_>,
        use_priority: bool,
        key: impl Fn(&Job) -> f64,
        out: &mut Schedule,
    ) {
        self.ids.retain(|&id| ctx.jobs.get(id).is_some());
        for j in ctx.jobs.iter() {
            if j.id.0 >= self.next_new {
                self.ids.push(j.id);
                self.next_new = j.id.0 + 1;
            }
        }
        self.keyed.clear();
        for &id in &self.ids {
            let j = ctx.jobs.get(id).expect("kept ids are in the table");
            let prio = if use_priority && self.bumped.contains(&id) {
                -1.0
            } else {
                0.0
            };
            self.keyed.push((prio, key(j), id));
        }
        let arrival = |id: JobId| ctx.jobs.get(id).map_or(0, |j| j.spec.arrival.as_millis());
        // Stable: equal keys keep the previous round's order.
        self.keyed.sort_by(|a, b| {
            a.0.partial_cmp(&b.0)
                .unwrap_or(Ordering::Equal)
                .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
                .then(arrival(a.2).cmp(&arrival(b.2)))
        });
        self.ids.clear();
        self.ids.extend(self.keyed.iter().map(|k| k.2));
        for &id in &self.ids {
            let j = ctx.jobs.get(id).expect("kept ids are in the table");
            out.push(id, j.n_gpus());
        }
        // The bump applies from the next round's sort on.
        let round = ctx.round_len.as_secs_f64();
        let now = ctx.now.as_secs_f64();
        for j in ctx.jobs.iter() {
            let since = match j.last_start {
                Some(s) => now - (s.as_secs_f64() + round),
                None => now - j.spec.arrival.as_secs_f64(),
            };
            if since > SYNERGY_STARVATION_S {
                self.bumped.insert(j.id);
            }
        }
    }
}

/// Iterations still to do and seconds per iteration (or the service in seconds and 1).
pub(crate) fn remaining_iterations(j: &Job) -> (f64, f64) {
    match (j.spec.iterations, j.spec.iter_time_s) {
        (Some(n), Some(t)) => (n.saturating_sub(j.iterations_done) as f64, t),
        _ => (j.remaining_work(), 1.0),
    }
}

/// Synergy's `remaining_duration(fair)`: `iteration time × remaining iterations`, divided by
/// the job's current speed-up unless the mechanism is GPU-proportional. The speed-up read is
/// the one its last allocation left ([`blox_core::Job::speedup`]: the ideal one, or 1 after a
/// fall-back to the fair share), because Synergy sorts before it resets speed-ups.
pub(crate) fn remaining_duration(j: &Job, fair: bool) -> f64 {
    let (rem, t) = remaining_iterations(j);
    if fair {
        t * rem
    } else {
        t * rem / j.speedup
    }
}

/// Synergy's `ideal_duration(fair=True)`: iteration time × total iterations.
pub(crate) fn ideal_duration(j: &Job) -> f64 {
    match (j.spec.iterations, j.spec.iter_time_s) {
        (Some(n), Some(t)) => t * n as f64,
        _ => j.spec.work_s,
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule};
    use blox_core::{SchedulingPolicy, Time};

    /// A job with `iters` iterations of `t` seconds, `done` done, arriving at `arr` s.
    pub(crate) fn job(id: u32, arr: u64, iters: u64, t: f64, done: u64, gpus: u32) -> Job {
        let mut s = JobSpec::new(Time::from_secs(arr), gpus, iters as f64 * t);
        s.iterations = Some(iters);
        s.iter_time_s = Some(t);
        s.ideal_speedup = Some(2.0);
        let mut j = Job::new(JobId(id), s, Time::from_secs(arr));
        j.iterations_done = done;
        j.speedup = 2.0;
        j
    }

    pub(crate) fn order(p: &mut dyn SchedulingPolicy, jobs: &JobTable, now: u64) -> Vec<u32> {
        let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
        let ctx = Ctx::new(
            Time::from_secs(now),
            now / 300,
            Time::from_secs(300),
            &cluster,
            jobs,
        );
        let mut out = Schedule::default();
        p.schedule(&ctx, &mut out);
        out.iter().map(|a| a.job.0).collect()
    }
}
