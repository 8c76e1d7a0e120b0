//! What a component author needs, in one import: `use blox_core::prelude::*;`.
//!
//! The five component traits and the scheduler they make, the view a component decides on
//! ([`Ctx`], [`Job`], [`QueuedJob`]), the decisions it writes ([`Admissions`], [`Schedule`],
//! [`Decisions`], [`Allocation`]), ids and time, closures as components, the fallback
//! combinator and the starvation classes (a policy that orders by priority first ages starved
//! jobs the way every stock policy does).
//!
//! ```
//! use blox_core::prelude::*;
//!
//! /// Fewest GPUs first; starved jobs ahead of the rest and ties by id, as every stock
//! /// policy orders (`order_by_key` sorts by `(priority class, key, id)`).
//! #[derive(Default)]
//! struct FewestGpus(KeyBuf);
//!
//! impl SchedulingPolicy for FewestGpus {
//!     fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
//!         order_by_key(ctx, &mut self.0, out, |j| f64::from(j.n_gpus()));
//!     }
//! }
//! ```

pub use crate::order::{order_by_class_key, order_by_key, ClassKey, ClassKeyBuf, KeyBuf};
pub use crate::{
    admission_fn, placement_fn, policy_fn, AdmissionPolicy, Admissions, Allocation, BoxAdmission,
    BoxPlacement, BoxScheduling, BoxThroughput, Cluster, ClusterSpec, ConfigError, ConstantSpeed,
    Ctx, Decisions, GpuId, Job, JobId, JobSpec, MetricSink, NodeId, Pipeline, PlacementPolicy,
    PlacementPolicyExt, QueuedJob, Schedule, Scheduler, SchedulingPolicy, Seed, ThroughputModel,
    Time, PRIORITY_NORMAL, PRIORITY_STARVED,
};
