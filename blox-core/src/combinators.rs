//! Small combinators for mixing components without writing a new type.
//!
//! | combinator | what it does | cost per round |
//! |---|---|---|
//! | [`Either`] | one of two components, chosen when built (for every trait) | as the chosen one |
//! | [`OrElse`] (`a.or_else(b)`) | placement fallback: jobs `a` leaves waiting are offered to `b` on the cluster as `a` left it | `a` + `b` + a copy of the cluster and job table when `a` leaves a job waiting |
//! | [`admission_fn`], [`policy_fn`], [`placement_fn`] | a closure as a component | the closure's |
//!
//! Metric sinks compose as tuples (`(JobLog, Timeline)`), `Vec`s and `Option`s directly.
//!
//! ```
//! use blox_core::{placement_fn, policy_fn, Ctx, Decisions, PlacementPolicy, PlacementPolicyExt,
//!                 Schedule, SchedulingPolicy};
//!
//! // Oldest first, as a closure.
//! let mut fifo = policy_fn("oldest-first", |ctx: &Ctx<'_>, out: &mut Schedule| {
//!     let mut jobs: Vec<_> = ctx.jobs.iter().collect();
//!     jobs.sort_by_key(|j| (j.arrival(), j.id));
//!     for j in jobs {
//!         out.push(j.id, j.n_gpus());
//!     }
//! });
//! assert_eq!(fifo.name(), "oldest-first");
//!
//! // A placement that never starts anything, with a fallback that would.
//! let lazy = placement_fn("lazy", |_: &Ctx<'_>, _: &Schedule, _: &mut Decisions| {});
//! let combined = lazy.or_else(placement_fn("other", |_: &Ctx<'_>, _: &Schedule, _: &mut Decisions| {}));
//! assert_eq!(combined.name(), "lazy.or_else(other)");
//! ```

use crate::cluster::Cluster;
use crate::context::Ctx;
use crate::decision::{Admissions, Decisions, Schedule};
use crate::event::Event;
use crate::ids::{GpuId, JobId};
use crate::job::{Job, JobTable, QueuedJob};
use crate::traits::{
    AdmissionPolicy, MetricSink, PlacementPolicy, Scheduler, SchedulingPolicy, ThroughputModel,
};

/// One of two components, chosen when the scheduler is built: lets a runtime choice stay
/// statically dispatched (`Either<Las, Fifo>` instead of a box).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Either<L, R> {
    /// The first kind.
    Left(L),
    /// The second kind.
    Right(R),
}

macro_rules! either_dispatch {
    ($self:ident, $x:ident => $e:expr) => {
        match $self {
            Either::Left($x) => $e,
            Either::Right($x) => $e,
        }
    };
}

impl<L: AdmissionPolicy, R: AdmissionPolicy> AdmissionPolicy for Either<L, R> {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        either_dispatch!(self, x => x.admit(ctx, queue, out))
    }
    fn name(&self) -> String {
        either_dispatch!(self, x => x.name())
    }
    fn reads_progress(&self) -> bool {
        either_dispatch!(self, x => x.reads_progress())
    }
}

impl<L: SchedulingPolicy, R: SchedulingPolicy> SchedulingPolicy for Either<L, R> {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        either_dispatch!(self, x => x.schedule(ctx, out))
    }
    fn schedule_unsettled(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        either_dispatch!(self, x => x.schedule_unsettled(ctx, out))
    }
    fn name(&self) -> String {
        either_dispatch!(self, x => x.name())
    }
    fn reads_progress(&self) -> bool {
        either_dispatch!(self, x => x.reads_progress())
    }
}

impl<L: PlacementPolicy, R: PlacementPolicy> PlacementPolicy for Either<L, R> {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        either_dispatch!(self, x => x.place(ctx, schedule, out))
    }
    fn skips_settled(&self) -> bool {
        either_dispatch!(self, x => x.skips_settled())
    }
    fn name(&self) -> String {
        either_dispatch!(self, x => x.name())
    }
    fn reads_progress(&self) -> bool {
        either_dispatch!(self, x => x.reads_progress())
    }
}

impl<L: ThroughputModel, R: ThroughputModel> ThroughputModel for Either<L, R> {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        either_dispatch!(self, x => x.speed(job, gpus, cluster))
    }
    fn name(&self) -> String {
        either_dispatch!(self, x => x.name())
    }
}

impl<L: MetricSink, R: MetricSink> MetricSink for Either<L, R> {
    fn on_event(&mut self, event: &Event<'_>) {
        either_dispatch!(self, x => x.on_event(event))
    }
    fn on_rounds(&mut self, stretch: &crate::RoundStretch) {
        either_dispatch!(self, x => x.on_rounds(stretch))
    }
}

impl<L: Scheduler, R: Scheduler> Scheduler for Either<L, R> {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        either_dispatch!(self, x => x.admit(ctx, queue, out))
    }
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        either_dispatch!(self, x => x.schedule(ctx, out))
    }
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        either_dispatch!(self, x => x.place(ctx, schedule, out))
    }
    fn name(&self) -> String {
        either_dispatch!(self, x => x.name())
    }
    fn reads_progress(&self) -> bool {
        either_dispatch!(self, x => x.reads_progress())
    }
}

/// Placement fallback, built by [`PlacementPolicyExt::or_else`]: the first placement decides;
/// scheduled jobs it leaves waiting are then offered to the second, which sees the cluster and
/// job table as the first one's decisions leave them (stops applied, starts occupying their
/// GPUs). The two decision lists are concatenated, first's then second's.
///
/// When the first placement leaves no scheduled job waiting, the second is not called.
#[derive(Clone, Debug, Default)]
pub struct OrElse<A, B> {
    first: A,
    second: B,
    rest: Schedule,
    more: Decisions,
}

impl<A: PlacementPolicy, B: PlacementPolicy> PlacementPolicy for OrElse<A, B> {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.first.place(ctx, schedule, out);
        let started = |id: JobId, d: &Decisions| d.start.iter().any(|(j, _)| *j == id);
        let stopped = |id: JobId, d: &Decisions| d.stop.contains(&id);
        self.rest.clear();
        for a in schedule.iter() {
            let Some(job) = ctx.jobs.get(a.job) else {
                continue;
            };
            let running_after = (job.is_running() && !stopped(a.job, out)) || started(a.job, out);
            if !running_after && a.n_gpus > 0 {
                self.rest.entries.push(*a);
            }
        }
        if self.rest.is_empty() {
            return;
        }
        // The cluster and table as the first placement leaves them.
        let mut cluster = ctx.cluster.clone();
        let mut jobs: JobTable = ctx.jobs.clone();
        for &id in &out.stop {
            if let Some(mut j) = jobs.get_mut(id) {
                let gpus = std::mem::take(&mut j.gpus);
                cluster.release(&gpus);
            }
        }
        for (id, gpus) in &out.start {
            if let Some(mut j) = jobs.get_mut(*id) {
                cluster.allocate(*id, gpus);
                j.gpus = gpus.clone();
            }
        }
        let view = Ctx::new(ctx.now, ctx.round, ctx.round_len, &cluster, &jobs);
        self.more.clear();
        self.second.place(&view, &self.rest, &mut self.more);
        out.stop.extend_from_slice(&self.more.stop);
        out.start.append(&mut self.more.start);
    }

    fn name(&self) -> String {
        format!("{}.or_else({})", self.first.name(), self.second.name())
    }

    fn reads_progress(&self) -> bool {
        self.first.reads_progress() || self.second.reads_progress()
    }
}

/// A closure as an [`AdmissionPolicy`]; see [`admission_fn`].
#[derive(Clone, Debug)]
pub struct AdmissionFn<F> {
    name: &'static str,
    f: F,
}

/// Wrap `f(ctx, queue, out)` as an admission policy called `name`.
pub fn admission_fn<F>(name: &'static str, f: F) -> AdmissionFn<F>
where
    F: FnMut(&Ctx<'_>, &[QueuedJob], &mut Admissions),
{
    AdmissionFn { name, f }
}

impl<F: FnMut(&Ctx<'_>, &[QueuedJob], &mut Admissions)> AdmissionPolicy for AdmissionFn<F> {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        (self.f)(ctx, queue, out);
    }
    fn name(&self) -> String {
        self.name.to_string()
    }
}

/// A closure as a [`SchedulingPolicy`]; see [`policy_fn`].
#[derive(Clone, Debug)]
pub struct PolicyFn<F> {
    name: &'static str,
    f: F,
}

/// Wrap `f(ctx, out)` as a scheduling policy called `name`.
pub fn policy_fn<F>(name: &'static str, f: F) -> PolicyFn<F>
where
    F: FnMut(&Ctx<'_>, &mut Schedule),
{
    PolicyFn { name, f }
}

impl<F: FnMut(&Ctx<'_>, &mut Schedule)> SchedulingPolicy for PolicyFn<F> {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        (self.f)(ctx, out);
    }
    fn name(&self) -> String {
        self.name.to_string()
    }
}

/// A closure as a [`PlacementPolicy`]; see [`placement_fn`].
#[derive(Clone, Debug)]
pub struct PlacementFn<F> {
    name: &'static str,
    f: F,
}

/// Wrap `f(ctx, schedule, out)` as a placement policy called `name`.
pub fn placement_fn<F>(name: &'static str, f: F) -> PlacementFn<F>
where
    F: FnMut(&Ctx<'_>, &Schedule, &mut Decisions),
{
    PlacementFn { name, f }
}

impl<F: FnMut(&Ctx<'_>, &Schedule, &mut Decisions)> PlacementPolicy for PlacementFn<F> {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        (self.f)(ctx, schedule, out);
    }
    fn name(&self) -> String {
        self.name.to_string()
    }
}

/// Extension methods for every [`PlacementPolicy`].
pub trait PlacementPolicyExt: PlacementPolicy + Sized {
    /// Offer the jobs this placement leaves waiting to `fallback`; see [`OrElse`].
    fn or_else<B: PlacementPolicy>(self, fallback: B) -> OrElse<Self, B> {
        OrElse {
            first: self,
            second: fallback,
            rest: Schedule::default(),
            more: Decisions::default(),
        }
    }
}
impl<T: PlacementPolicy> PlacementPolicyExt for T {}
