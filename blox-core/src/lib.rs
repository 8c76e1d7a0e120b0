//! # blox-core
//!
//! The small, stable heart of the Blox toolkit: the types every scheduler component shares and
//! the traits that make components composable. It depends on no other blox crate, so a policy
//! written against `blox-core` alone plugs into the simulator (`blox-sim`) and into anything
//! else built on these traits.
//!
//! A deep-learning cluster scheduler is a few decisions made again and again:
//!
//! | decision | trait | output (data, never mutation) |
//! |---|---|---|
//! | who may enter | [`AdmissionPolicy`] | [`Admissions`]: queue indices to admit / reject |
//! | in what order, how many GPUs | [`SchedulingPolicy`] | [`Schedule`]: jobs best first, with GPU counts |
//! | which GPUs, whom to preempt | [`PlacementPolicy`] | [`Decisions`]: stops, then starts on exact GPUs |
//! | how fast a job runs where placed | [`ThroughputModel`] | a speed factor |
//! | what to measure | [`MetricSink`] | observes [`Event`]s, and stretches of skipped rounds as one [`RoundStretch`] |
//!
//! A policy author orders jobs with [`order::order_by_key`] (or [`order::order_by_class_key`]):
//! ascending `(starvation class, key, id)`, floats compared totally, no hand-written comparisons.
//!
//! [`Pipeline<A, S, P>`] turns any admission, scheduling and placement policy into a
//! [`Scheduler`], monomorphised at compile time. Small combinators mix parts without new types:
//! [`Either`], placement fallback ([`PlacementPolicyExt::or_else`]), closures
//! ([`policy_fn`], [`placement_fn`], [`admission_fn`]), [`PlacementPolicyExt::or_else`], and tuples of sinks. Every trait is dyn-compatible and forwards
//! through `Box<T>` and `&mut T`; [`BoxPipeline`] is the runtime form.
//!
//! Components read the world through [`Ctx`] (time, [`Cluster`], [`JobTable`]) and cannot change
//! it. Time is an integer ([`Time`], milliseconds). Randomness comes from named streams of one
//! [`Seed`].
//!
//! Clusters may mix GPU types (`"2x8:v100,4x4:k80".parse::<ClusterSpec>()`): a schedule entry can
//! name the type a job should run on ([`Schedule::push_on`]), a [`ThroughputTable`] holds each
//! model's rate on each type, and [`HeteroSpeed`] makes jobs run at their type's speed.
//!
//! ## Example: a policy in a few lines
//!
//! ```
//! use blox_core::{Ctx, Schedule, SchedulingPolicy};
//!
//! /// Biggest jobs first; ties by the lowest id (the table iterates in id order and the sort is
//! /// stable).
//! struct LargestFirst;
//!
//! impl SchedulingPolicy for LargestFirst {
//!     fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
//!         let mut jobs: Vec<_> = ctx.jobs.iter().collect();
//!         jobs.sort_by_key(|j| std::cmp::Reverse(j.n_gpus()));
//!         for j in jobs {
//!             out.push(j.id, j.n_gpus());
//!         }
//!     }
//! }
//!
//! // It is now usable anywhere a `SchedulingPolicy` is, boxed or not.
//! let boxed: blox_core::BoxScheduling = Box::new(LargestFirst);
//! assert_eq!(boxed.name(), "LargestFirst");
//! ```
//!
//! ## Determinism rules
//!
//! Components must be deterministic functions of their inputs and their own state: no wall
//! clock, no hash-map iteration order in a decision, ties broken by the lowest [`JobId`]. Each
//! component documents its tie rule.

mod cluster;
mod combinators;
mod context;
mod decision;
mod event;
mod float;
mod hetero;
mod ids;
mod job;
mod map;
pub mod order;
pub mod prelude;
mod rng;
mod spec;
pub mod spec_form;
mod time;
mod traits;

pub use cluster::{Cluster, ClusterParseError, ClusterSpec, FreeGpus, NodeSpec, DEFAULT_GPU_TYPE};
pub use cluster::{MAX_CLUSTER_GPUS, MAX_CLUSTER_NODES};
pub use combinators::{
    admission_fn, placement_fn, policy_fn, AdmissionFn, Either, OrElse, PlacementFn,
    PlacementPolicyExt, PolicyFn,
};
pub use context::Ctx;
pub use decision::{Admissions, Allocation, Decisions, HostShare, Schedule, ValidationScratch};
pub use event::{Event, NodeChange, RoundSample, RoundStretch};
pub use float::{add_repeated, additions_to_reach};
pub use hetero::{HeteroSpeed, ThroughputTable};
pub use ids::{GpuId, GpuTypeId, JobId, NodeId};
pub use job::{
    GpuSet, Job, JobIter, JobIterMut, JobMut, JobRow, JobSpec, JobTable, ProgressIterMut,
    ProgressMut, QueuedJob, RowIter, SlotIter, PRIORITY_NORMAL, PRIORITY_STARVED,
};
pub use map::FixedMap;
pub use rng::{Seed, StreamRng};
pub use spec::{parse_f64, ComponentSpec, ConfigError};
pub use time::Time;
pub use traits::{
    AdmissionPolicy, BoxAdmission, BoxPipeline, BoxPlacement, BoxScheduler, BoxScheduling, BoxSink,
    BoxThroughput, ConstantSpeed, MetricSink, Pipeline, PlacementPolicy, Scheduler,
    SchedulingPolicy, ThroughputModel,
};
