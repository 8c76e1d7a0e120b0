//! The round protocol, written once: admit → schedule → place → validate → apply.
//!
//! The simulator ([`crate::Simulator`]) and `blox-cluster`'s server both drive their scheduler
//! through a [`Driver`]: the driver calls the components in order, validates what they return
//! (admission indices; stops and starts through `blox-core`'s `Decisions::validate`) and hands
//! the validated decisions to the caller's [`Host`] one by one, in a fixed order. The host owns
//! the state and decides what applying means: the simulator credits time through its time model
//! and moves a virtual clock; the server launches and preempts real processes and records every
//! change durably. The same decisions reach both.
//!
//! # Order
//!
//! [`Driver::admit`]: if the queue is not empty, the admission policy runs; its indices are
//! checked (in range, none listed twice); then [`Host::admit`] for each admitted index in the
//! policy's order, [`Host::reject`] for each rejected one, and [`Host::retire`] once with the
//! indices taken.
//!
//! [`Driver::decide`]: scheduling, then placement, then validation against the host's cluster
//! and job table; then [`Host::decided`] (nothing applied yet), then, for every stop in order,
//! [`Host::keep`] if the stop is undone by a start of the same job on the same GPUs and the
//! caller elides such relaunches, else [`Host::stop`]; then the same for every start
//! ([`Host::keep`] or [`Host::start`]); then [`Host::applied`] with the number of counted stops.

use blox_core::{
    Admissions, Cluster, Ctx, Decisions, GpuId, GpuSet, JobId, JobTable, QueuedJob, Schedule,
    Scheduler, Time, ValidationScratch,
};

/// A component returned an invalid decision.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecisionError {
    /// Which component, e.g. ``admission policy `fifo` ``.
    pub component: String,
    /// When.
    pub time: Time,
    /// What is wrong.
    pub message: String,
}

/// The side of the round protocol that owns the state and applies decisions.
pub trait Host {
    /// The host's error; an invalid decision converts into it.
    type Error: From<DecisionError>;

    /// What components see at `now`.
    fn ctx(&self, now: Time) -> Ctx<'_>;
    /// The admission queue.
    fn queue(&self) -> &[QueuedJob];
    /// The cluster decisions are validated against.
    fn cluster(&self) -> &Cluster;
    /// The active jobs decisions are validated against.
    fn jobs(&self) -> &JobTable;

    /// Admit `queue()[index]` at `now`: give it the next id and put it in the job table.
    fn admit(&mut self, index: usize, now: Time) -> Result<(), Self::Error>;
    /// Reject `queue()[index]` for good.
    fn reject(&mut self, index: usize, now: Time) -> Result<(), Self::Error>;
    /// Drop the queue entries whose `taken` flag is set (admitted or rejected), keeping order.
    fn retire(&mut self, taken: &[bool]);

    /// The validated decisions, before any is applied.
    fn decided(&mut self, _decisions: &Decisions, _now: Time) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Job `id` was both stopped and started on the same GPUs: it keeps running (decided on,
    /// but no change). Called once for its stop and once for its start.
    fn keep(&mut self, id: JobId, now: Time);
    /// Stop running job `id` (free its GPUs in the scheduler's view at once).
    fn stop(&mut self, id: JobId, now: Time) -> Result<(), Self::Error>;
    /// Start (or resume) job `id` on `gpus`.
    fn start(&mut self, id: JobId, gpus: &GpuSet, now: Time) -> Result<(), Self::Error>;
    /// Every decision is applied; `counted` stops were real preemptions.
    fn applied(&mut self, _counted: usize, _now: Time) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Reusable buffers of the round protocol (one per run; no allocation in steady state).
#[derive(Debug, Default)]
pub struct Driver {
    admissions: Admissions,
    schedule: Schedule,
    decisions: Decisions,
    scratch: ValidationScratch,
    taken: Vec<bool>,
    /// The stopped jobs started again on the same GPUs, sorted.
    kept: Vec<JobId>,
    /// Scratch: the starts' job ids with their positions, sorted.
    starts: Vec<(JobId, usize)>,
}

/// What one [`Driver::decide`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Applied {
    /// Stops that were real preemptions.
    pub counted: usize,
    /// Whether any job started (a kept relaunch does not count).
    pub started: bool,
}

impl Driver {
    /// Fresh buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The schedule of the last [`Driver::decide`], in the policy's order (what it asked for
    /// before placement).
    pub fn last_schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Run admission over the host's queue and apply it (see the [module docs](self)).
    pub fn admit<S: Scheduler + ?Sized, H: Host>(
        &mut self,
        scheduler: &mut S,
        host: &mut H,
        now: Time,
    ) -> Result<(), H::Error> {
        let n = host.queue().len();
        if n == 0 {
            return Ok(());
        }
        self.admissions.clear();
        {
            let ctx = host.ctx(now);
            scheduler.admit(&ctx, host.queue(), &mut self.admissions);
        }
        self.taken.clear();
        self.taken.resize(n, false);
        for &i in self.admissions.admit.iter().chain(&self.admissions.reject) {
            if i >= n || std::mem::replace(&mut self.taken[i], true) {
                return Err(DecisionError {
                    component: format!("admission policy `{}`", scheduler.name()),
                    time: now,
                    message: format!(
                        "queue index {i} is out of range or listed twice (queue has {n} jobs)"
                    ),
                }
                .into());
            }
        }
        for &i in &self.admissions.admit {
            host.admit(i, now)?;
        }
        for &i in &self.admissions.reject {
            host.reject(i, now)?;
        }
        host.retire(&self.taken);
        Ok(())
    }

    /// Schedule, place, validate and apply (see the [module docs](self)). With
    /// `elide_relaunch`, a stop undone by a start of the same job on the same GPUs is no change.
    pub fn decide<S: Scheduler + ?Sized, H: Host>(
        &mut self,
        scheduler: &mut S,
        host: &mut H,
        now: Time,
        elide_relaunch: bool,
    ) -> Result<Applied, H::Error> {
        self.schedule.clear();
        self.decisions.clear();
        {
            let ctx = host.ctx(now);
            scheduler.schedule(&ctx, &mut self.schedule);
            check_pins(&self.schedule, host.cluster()).map_err(|message| DecisionError {
                component: format!("scheduling policy of `{}`", scheduler.name()),
                time: now,
                message,
            })?;
            scheduler.place(&ctx, &self.schedule, &mut self.decisions);
        }
        self.decisions
            .validate(host.cluster(), host.jobs(), &mut self.scratch)
            .map_err(|message| DecisionError {
                component: format!("scheduler `{}`", scheduler.name()),
                time: now,
                message,
            })?;
        let d = &self.decisions;
        self.kept.clear();
        if elide_relaunch && !d.stop.is_empty() && !d.start.is_empty() {
            // The starts by job id, so that each stop finds its job's starts by a search (a
            // placement that restarts every job each round stops and starts them all).
            self.starts.clear();
            self.starts
                .extend(d.start.iter().enumerate().map(|(i, (id, _))| (*id, i)));
            self.starts.sort_unstable();
            for &id in &d.stop {
                let job = host.jobs().get(id).expect("validated");
                let from = self.starts.partition_point(|e| e.0 < id);
                if self.starts[from..]
                    .iter()
                    .take_while(|e| e.0 == id)
                    .any(|e| same_gpus(&d.start[e.1].1, &job.gpus))
                {
                    self.kept.push(id);
                }
            }
            self.kept.sort_unstable();
        }
        host.decided(d, now)?;
        for &id in &d.stop {
            if self.kept.binary_search(&id).is_ok() {
                host.keep(id, now);
            } else {
                host.stop(id, now)?;
            }
        }
        let mut started = false;
        for (id, gpus) in &d.start {
            if self.kept.binary_search(id).is_ok() {
                host.keep(*id, now);
            } else {
                started = true;
                host.start(*id, gpus, now)?;
            }
        }
        let counted = d.stop.len() - self.kept.len();
        host.applied(counted, now)?;
        Ok(Applied { counted, started })
    }
}

/// A schedule may pin a job only to one of the cluster's types that has at least as many GPUs
/// as the job asks for: a job pinned to a smaller type could never start, and the run would
/// stall with every GPU idle instead of naming the component at fault.
fn check_pins(schedule: &Schedule, cluster: &Cluster) -> Result<(), String> {
    for a in &schedule.entries {
        let Some(t) = a.gpu_type else { continue };
        if t.index() >= cluster.n_gpu_types() {
            return Err(format!(
                "job {} is pinned to GPU type #{}, but the cluster has {} types",
                a.job.0,
                t.index(),
                cluster.n_gpu_types()
            ));
        }
        let have = cluster.gpus_of_type(t);
        if have < a.n_gpus {
            return Err(format!(
                "job {} ({} GPUs) is pinned to GPU type `{}`, which has only {have} GPUs: it \
                 could never start there",
                a.job.0,
                a.n_gpus,
                cluster.gpu_type_name(t)
            ));
        }
    }
    Ok(())
}

/// Whether two GPU lists hold the same GPUs, in any order.
fn same_gpus(a: &[GpuId], b: &[GpuId]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a == b {
        return true;
    }
    let mut x: Vec<GpuId> = a.to_vec();
    let mut y: Vec<GpuId> = b.to_vec();
    x.sort_unstable();
    y.sort_unstable();
    x == y
}
