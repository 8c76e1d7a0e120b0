//! The component traits and the composite [`Scheduler`].
//!
//! Every trait has one or two required methods; the rest have default bodies so methods can be
//! added later without breaking implementors. Every trait is dyn-compatible and is implemented
//! for `Box<T>` and `&mut T`, so a boxed or borrowed component stands wherever a generic one is
//! expected.

use crate::cluster::Cluster;
use crate::context::Ctx;
use crate::decision::{Admissions, Decisions, Schedule};
use crate::event::{Event, RoundStretch};
use crate::ids::GpuId;
use crate::job::{Job, QueuedJob};

/// Decides which arrived jobs enter the job table.
///
/// Called once per round, after arrivals are fetched, with every job waiting in the engine's
/// admission queue (oldest first: carried-over jobs, then this round's arrivals). Jobs it
/// neither admits nor rejects stay queued for the next round. Admitted jobs get ids in the order
/// of [`Admissions::admit`]. Must be deterministic given its inputs and its own state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an admission policy",
    label = "this needs to implement `blox_core::AdmissionPolicy`",
    note = "admission policies live in `blox-admission`, e.g. `AcceptAll` or `LoadBased`"
)]
pub trait AdmissionPolicy {
    /// Fill `out` with the queue indices to admit (in id order) and to reject.
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions);

    /// A short name for tables and error messages.
    fn name(&self) -> String {
        short_type_name::<Self>()
    }

    /// Whether this component reads the progress of running jobs: [`Job::executed`],
    /// [`Job::attained_gpu_s`], [`Job::attained_wall_s`] or [`Job::iterations_done`] of a job
    /// that holds GPUs. Default: `true`.
    ///
    /// A component that never does may say `false`; when every component of a run says so, a
    /// time model may credit running jobs lazily (the exact model then credits a job only when
    /// it stops, with the same result to the bit), and those fields of running jobs are stale
    /// in the table. Waiting jobs' progress is always up to date.
    fn reads_progress(&self) -> bool {
        true
    }
}

/// Orders the active jobs and says how many GPUs each should have.
///
/// Called once per round after admission. The output lists jobs best first; ties must break
/// by the lowest job id, and each implementation documents its key.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scheduling policy",
    label = "this needs to implement `blox_core::SchedulingPolicy`",
    note = "scheduling policies live in `blox-policies`, e.g. `Fifo`, `Las` or `Srtf`"
)]
pub trait SchedulingPolicy {
    /// Fill `out` (already cleared) with active jobs, best first.
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule);

    /// As [`SchedulingPolicy::schedule`], but the schedule may leave out any number of its
    /// leading *settled* entries (see [`Schedule`]): what [`Pipeline`] asks for when its
    /// placement says it decides the same without them ([`PlacementPolicy::skips_settled`]).
    /// A policy that can find where its order stops being settled without walking every job
    /// (FIFO does, from [`crate::JobTable::settled_prefix`]) makes such a round cost the
    /// jobs that changed, not the whole table. Default: the whole schedule.
    fn schedule_unsettled(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        self.schedule(ctx, out);
    }

    /// A short name for tables and error messages.
    fn name(&self) -> String {
        short_type_name::<Self>()
    }

    /// Whether this component reads the progress of running jobs: [`Job::executed`],
    /// [`Job::attained_gpu_s`], [`Job::attained_wall_s`] or [`Job::iterations_done`] of a job
    /// that holds GPUs. Default: `true`.
    ///
    /// A component that never does may say `false`; when every component of a run says so, a
    /// time model may credit running jobs lazily (the exact model then credits a job only when
    /// it stops, with the same result to the bit), and those fields of running jobs are stale
    /// in the table. Waiting jobs' progress is always up to date.
    fn reads_progress(&self) -> bool {
        true
    }
}

/// Chooses GPUs for scheduled jobs, and which running jobs to stop for them.
///
/// Called once per round with the schedule. It plans on a scratch copy of the free map
/// ([`Cluster::free_map`]) and returns stops and starts; the engine validates them (no GPU given
/// twice, none beyond capacity, no unknown job) and applies every stop before any start.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a placement policy",
    label = "this needs to implement `blox_core::PlacementPolicy`",
    note = "placement policies live in `blox-placement`, e.g. `Scattered`"
)]
pub trait PlacementPolicy {
    /// Fill `out` (already cleared) with stops and starts.
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions);

    /// Whether this placement decides exactly the same when a schedule's leading settled
    /// entries are left out (see [`Schedule`]; e.g. a placement that leaves a running job on
    /// what it holds and takes victims only below the job it places). Then [`Pipeline`] asks
    /// its policy for [`SchedulingPolicy::schedule_unsettled`]. Default: `false`.
    fn skips_settled(&self) -> bool {
        false
    }

    /// A short name for tables and error messages.
    fn name(&self) -> String {
        short_type_name::<Self>()
    }

    /// Whether this component reads the progress of running jobs: [`Job::executed`],
    /// [`Job::attained_gpu_s`], [`Job::attained_wall_s`] or [`Job::iterations_done`] of a job
    /// that holds GPUs. Default: `true`.
    ///
    /// A component that never does may say `false`; when every component of a run says so, a
    /// time model may credit running jobs lazily (the exact model then credits a job only when
    /// it stops, with the same result to the bit), and those fields of running jobs are stale
    /// in the table. Waiting jobs' progress is always up to date.
    fn reads_progress(&self) -> bool {
        true
    }
}

/// How fast a job progresses on a set of GPUs, relative to running on its requested GPUs at
/// full speed (1.0). Blox's model is a constant.
///
/// Called by the engine when a job starts or resumes; the speed holds until the job stops.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a throughput model",
    label = "this needs to implement `blox_core::ThroughputModel`",
    note = "the simplest is `blox_core::ConstantSpeed(1.0)`"
)]
pub trait ThroughputModel {
    /// Progress per second of running, in units of [`crate::JobSpec::work_s`]. Must be finite
    /// and positive.
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64;

    /// A short name for tables and error messages.
    fn name(&self) -> String {
        short_type_name::<Self>()
    }
}

/// Observes what happens in a run. Sinks compose as tuples; `()` is the no-op sink.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a metric sink",
    label = "this needs to implement `blox_core::MetricSink`",
    note = "sinks live in `blox-metrics`; `()` ignores every event"
)]
pub trait MetricSink {
    /// Called for every event, in the order events happen.
    fn on_event(&mut self, event: &Event<'_>);

    /// Called once for a stretch of rounds the engine skipped with the state unchanged (see
    /// [`RoundStretch`]), in place of one [`Event::Round`] per round.
    ///
    /// The default hands each round to [`MetricSink::on_event`] as an `Event::Round`, in time
    /// order, so a sink written against `on_event` alone sees exactly the events it always saw
    /// (at O(rounds) cost). A sink that stores or counts rounds should override this to record
    /// the stretch in O(1), as `blox-metrics`' `Timeline` does; one that ignores rounds should
    /// override it to do nothing. Combinators (tuples, `Vec`, `Option`, `Box`, `Either`) forward
    /// it to each part.
    fn on_rounds(&mut self, stretch: &RoundStretch) {
        for s in stretch.samples() {
            self.on_event(&Event::Round(s));
        }
    }
}

/// The composite: a whole scheduler, from admission to placement. [`Pipeline`] builds one from
/// any three components; a researcher may also implement it directly (e.g. a scheduler that
/// switches policies at run time).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scheduler",
    label = "this needs to implement `blox_core::Scheduler`",
    note = "build one from parts with `Pipeline::new(admission, policy, placement)`"
)]
pub trait Scheduler {
    /// Admission step; see [`AdmissionPolicy::admit`].
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions);
    /// Scheduling step; see [`SchedulingPolicy::schedule`].
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule);
    /// Placement step; see [`PlacementPolicy::place`].
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions);

    /// A short description, e.g. `accept-all/las/scattered`.
    fn name(&self) -> String {
        short_type_name::<Self>()
    }

    /// Whether any step reads the progress of running jobs (see
    /// [`SchedulingPolicy::reads_progress`]). Default: `true`.
    fn reads_progress(&self) -> bool {
        true
    }
}

fn short_type_name<T: ?Sized>() -> String {
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base).to_string()
}

/// A [`Scheduler`] made of an admission policy, a scheduling policy and a placement policy.
///
/// Composition is static: `Pipeline<AcceptAll, Las, Scattered>` is monomorphised, with no
/// dynamic dispatch. `Pipeline<BoxAdmission, BoxScheduling, BoxPlacement>` is the runtime form
/// and runs through the same code.
#[derive(Clone, Debug, Default)]
pub struct Pipeline<A, S, P> {
    /// The admission policy.
    pub admission: A,
    /// The scheduling policy.
    pub policy: S,
    /// The placement policy.
    pub placement: P,
}

impl<A, S, P> Pipeline<A, S, P> {
    /// Compose three parts.
    pub fn new(admission: A, policy: S, placement: P) -> Self {
        Pipeline {
            admission,
            policy,
            placement,
        }
    }
}

impl<A: AdmissionPolicy, S: SchedulingPolicy, P: PlacementPolicy> Scheduler for Pipeline<A, S, P> {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        self.admission.admit(ctx, queue, out);
    }
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        if self.placement.skips_settled() {
            self.policy.schedule_unsettled(ctx, out);
        } else {
            self.policy.schedule(ctx, out);
        }
    }
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.placement.place(ctx, schedule, out);
    }
    fn name(&self) -> String {
        format!(
            "{}/{}/{}",
            self.admission.name(),
            self.policy.name(),
            self.placement.name()
        )
    }
    fn reads_progress(&self) -> bool {
        self.admission.reads_progress()
            || self.policy.reads_progress()
            || self.placement.reads_progress()
    }
}

/// Boxed admission policy, for choices made at run time.
pub type BoxAdmission = Box<dyn AdmissionPolicy + Send>;
/// Boxed scheduling policy, for choices made at run time.
pub type BoxScheduling = Box<dyn SchedulingPolicy + Send>;
/// Boxed placement policy, for choices made at run time.
pub type BoxPlacement = Box<dyn PlacementPolicy + Send>;
/// Boxed throughput model, for choices made at run time.
pub type BoxThroughput = Box<dyn ThroughputModel + Send>;
/// Boxed scheduler, for choices made at run time.
pub type BoxScheduler = Box<dyn Scheduler + Send>;
/// Boxed metric sink.
pub type BoxSink = Box<dyn MetricSink + Send>;
/// The runtime pipeline: every part boxed.
pub type BoxPipeline = Pipeline<BoxAdmission, BoxScheduling, BoxPlacement>;

macro_rules! forward {
    ($tr:ident { $($(#[$m:meta])* fn $f:ident(&mut self $(, $a:ident : $t:ty)*);)* } $($flag:ident)*) => {
        impl<T: $tr + ?Sized> $tr for Box<T> {
            $(fn $f(&mut self $(, $a: $t)*) { (**self).$f($($a),*) })*
            fn name(&self) -> String { (**self).name() }
            fn reads_progress(&self) -> bool { (**self).reads_progress() }
            $(fn $flag(&self) -> bool { (**self).$flag() })*
        }
        impl<T: $tr + ?Sized> $tr for &mut T {
            $(fn $f(&mut self $(, $a: $t)*) { (**self).$f($($a),*) })*
            fn name(&self) -> String { (**self).name() }
            fn reads_progress(&self) -> bool { (**self).reads_progress() }
            $(fn $flag(&self) -> bool { (**self).$flag() })*
        }
    };
}

forward!(AdmissionPolicy { fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions); });
forward!(SchedulingPolicy {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule);
    fn schedule_unsettled(&mut self, ctx: &Ctx<'_>, out: &mut Schedule);
});
forward!(PlacementPolicy { fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions); } skips_settled);
forward!(Scheduler {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions);
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule);
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions);
});

impl<T: ThroughputModel + ?Sized> ThroughputModel for Box<T> {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        (**self).speed(job, gpus, cluster)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<T: ThroughputModel + ?Sized> ThroughputModel for &T {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        (**self).speed(job, gpus, cluster)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<T: ThroughputModel + ?Sized> ThroughputModel for &mut T {
    fn speed(&self, job: &Job, gpus: &[GpuId], cluster: &Cluster) -> f64 {
        (**self).speed(job, gpus, cluster)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

impl<T: MetricSink + ?Sized> MetricSink for Box<T> {
    fn on_event(&mut self, event: &Event<'_>) {
        (**self).on_event(event);
    }
    fn on_rounds(&mut self, stretch: &RoundStretch) {
        (**self).on_rounds(stretch);
    }
}

impl<T: MetricSink + ?Sized> MetricSink for &mut T {
    fn on_event(&mut self, event: &Event<'_>) {
        (**self).on_event(event);
    }
    fn on_rounds(&mut self, stretch: &RoundStretch) {
        (**self).on_rounds(stretch);
    }
}

impl MetricSink for () {
    fn on_event(&mut self, _: &Event<'_>) {}
    fn on_rounds(&mut self, _: &RoundStretch) {}
}

impl<T: MetricSink> MetricSink for Vec<T> {
    fn on_event(&mut self, event: &Event<'_>) {
        for s in self {
            s.on_event(event);
        }
    }
    fn on_rounds(&mut self, stretch: &RoundStretch) {
        for s in self {
            s.on_rounds(stretch);
        }
    }
}

impl<T: MetricSink> MetricSink for Option<T> {
    fn on_event(&mut self, event: &Event<'_>) {
        if let Some(s) = self {
            s.on_event(event);
        }
    }
    fn on_rounds(&mut self, stretch: &RoundStretch) {
        if let Some(s) = self {
            s.on_rounds(stretch);
        }
    }
}

macro_rules! tuple_sink {
    ($($n:tt $t:ident),+) => {
        impl<$($t: MetricSink),+> MetricSink for ($($t,)+) {
            fn on_event(&mut self, event: &Event<'_>) {
                $(self.$n.on_event(event);)+
            }
            fn on_rounds(&mut self, stretch: &RoundStretch) {
                $(self.$n.on_rounds(stretch);)+
            }
        }
    };
}
tuple_sink!(0 A);
tuple_sink!(0 A, 1 B);
tuple_sink!(0 A, 1 B, 2 C);
tuple_sink!(0 A, 1 B, 2 C, 3 D);
tuple_sink!(0 A, 1 B, 2 C, 3 D, 4 E);
tuple_sink!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);

/// Every job runs at the same constant speed, wherever it is placed: Blox's model (1.0), or
/// Blox's Optimus artifact factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantSpeed(pub f64);

impl Default for ConstantSpeed {
    fn default() -> Self {
        ConstantSpeed(1.0)
    }
}

impl ThroughputModel for ConstantSpeed {
    fn speed(&self, _: &Job, _: &[GpuId], _: &Cluster) -> f64 {
        self.0
    }
    fn name(&self) -> String {
        if self.0 == 1.0 {
            "constant".into()
        } else {
            format!("constant({})", self.0)
        }
    }
}
