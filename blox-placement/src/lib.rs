//! # blox-placement
//!
//! Placement policies: which GPUs each scheduled job gets, and which running jobs stop for it;
//! the interconnect model they and the throughput model read.
//!
//! | component | what it does | cost per round | source |
//! |---|---|---|---|
//! | [`Scattered`] | after Blox's "Place": lowest free GPUs in node order, victims from the bottom of the schedule, strict order (optionally back-filling) | O(s log n + (j + v)·N) | Blox `placement/placement.py` |
//! | [`FirstFit`] | the lowest-numbered free GPUs, exactly what is needed | O(s log n + (j + v)·N) | classic first fit |
//! | [`Consolidated`] | fewest nodes, best fit (least leftover); optionally waits rather than spreads | O(s log n + (j + v)·N log N) | Tiresias (NSDI 2019) consolidation; Blox's dead `consolidated` branch |
//! | [`ResourceAware`] | GPUs only where the job's CPU and memory share also fits, consolidated | O(s log n + r + (j + v)·N log N) | Synergy (OSDI 2022) |
//! | [`TopologyAware`] | the free set whose ring all-reduce has the highest bottleneck bandwidth, on a [`Topology`] | O(s log n + G·h + (j + v)·D + Σ n·h) | Blox (EuroSys 2024) bandwidth-aware placement; NCCL ring order |
//! | [`PlacementSpeed`] | a [`ThroughputModel`](blox_core::ThroughputModel): compute + all-reduce over the placement's bottleneck bandwidth | O(n·h) per start | Blox model zoo; ring all-reduce cost 2(n−1)/n |
//!
//! s schedule entries, n table jobs, j jobs placed, v victims, r running jobs, N nodes, G GPUs,
//! D topology domains (≈ nodes + racks), h the domain tree's height.
//!
//! The peer simulators' own placements live in their crates (Tiresias' schemes in
//! `blox-tiresias`, Blox's `Place` in `blox-original`).
//!
//! [`PlacementConfig`] names them for files and the command line; [`Topology::resolve`] turns
//! `--topology FILE|SHAPE` into a topology and [`Topology::default_for`] gives the default one
//! for a cluster.
//!
//! ## The shared round loop
//!
//! Every placement here walks the schedule with one shared round loop (Blox's own `Place`,
//! quirks included, is `blox_original::BloxScattered`, which does not). [`FirstFit`],
//! [`Consolidated`], [`TopologyAware`] and [`ResourceAware`] are that loop over their own fit,
//! one generic wrapper (its options and buffers) each; [`Scattered`] runs it with Blox's choice
//! of a victim's GPUs:
//!
//! - **Running jobs** are never moved, except to honour a GPU type (below). A running *elastic* job whose scheduled count differs
//!   from the GPUs it holds is resized, per the [`Allocation`](blox_core::Allocation) contract:
//!   to 0 it stops; to fewer it stops and restarts on the first GPUs of its current set; to
//!   more it keeps its GPUs and gets the extra ones next to them (preempting lower jobs if
//!   needed); when it cannot grow it keeps running as it was. A running job the schedule
//!   leaves out keeps running.
//! - **Waiting jobs** get GPUs from the placement's fit. When none fit (and preemption is on,
//!   the default), running jobs strictly below it in the schedule are stopped from the bottom
//!   up, one at a time, re-trying the fit after each, as Blox's Place does; when it still does
//!   not fit, the victims keep running (rollback). A victim reached later in the same round is
//!   relaunched, on its old GPUs when they are still free (so the engine sees no change;
//!   `Scattered` keeps Blox's lowest-free choice instead).
//! - The first job that cannot be placed ends the walk (strict order), unless **back-filling**
//!   is on.
//! - **Host resources** ([`ResourceAware`] only) are tracked in the plan: a job's CPU and memory
//!   are split equally among its requested GPUs and charged, per GPU it holds, to that GPU's
//!   node; a job with no stated demand takes the node's GPU-proportional share.
//!
//! - **GPU types.** On a cluster of several types, an entry that names one
//!   ([`Allocation::gpu_type`](blox_core::Allocation::gpu_type), as Gavel's heterogeneity-aware
//!   form does) is placed with the plan restricted to that type
//!   ([`FreeGpus::restrict`](blox_core::FreeGpus::restrict)), and only jobs holding GPUs of that
//!   type are candidate victims; a running job on another type is moved when the type has room
//!   (with preemption, if on) and otherwise keeps running where it is.
//!
//! The victim search keeps a cursor across the round, so each schedule entry is a candidate
//! victim at most once per round (plus rolled-back ones).
//!
//! ## Example
//!
//! ```
//! use blox_core::{Cluster, ClusterSpec, Ctx, Decisions, GpuId, Job, JobId, JobSpec, JobTable,
//!                 PlacementPolicy, Schedule, ThroughputModel, Time};
//! use blox_placement::{Consolidated, PlacementSpeed, Scattered, Topology, TopologyAware};
//! use std::sync::Arc;
//!
//! // 2 nodes x 4 GPUs; GPUs 0 and 1 are busy.
//! let mut cluster = Cluster::new(ClusterSpec::uniform(2, 4));
//! let mut jobs = JobTable::new();
//! let mut busy = Job::new(JobId(0), JobSpec::new(Time::ZERO, 2, 600.0), Time::ZERO);
//! busy.gpus.extend([GpuId(0), GpuId(1)]);
//! cluster.allocate(JobId(0), &busy.gpus);
//! jobs.push(busy);
//! jobs.push(Job::new(JobId(1), JobSpec::new(Time::ZERO, 2, 600.0), Time::ZERO));
//! let mut schedule = Schedule::default();
//! schedule.push(JobId(0), 2);
//! schedule.push(JobId(1), 2);
//! let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
//!
//! let gpus = |p: &mut dyn PlacementPolicy| {
//!     let mut out = Decisions::default();
//!     p.place(&ctx, &schedule, &mut out);
//!     out.start[0].1.iter().map(|g| g.0).collect::<Vec<u32>>()
//! };
//! // Scattered takes the lowest free GPUs; consolidated the best-fitting node (2 free on node 0).
//! assert_eq!(gpus(&mut Scattered::new()), vec![2, 3]);
//! assert_eq!(gpus(&mut Consolidated::default()), vec![2, 3]);
//!
//! // The default topology: 300 GB/s inside a node, 25 GB/s between nodes of a rack.
//! let topo = Arc::new(Topology::default_for(cluster.spec()));
//! assert_eq!(topo.ring_bandwidth(&[GpuId(3), GpuId(4)]), 25.0);
//! assert_eq!(gpus(&mut TopologyAware::new(Some(topo.clone()))), vec![2, 3]);
//!
//! // A 4-GPU LSTM job split over two nodes runs at ~78% of its speed inside one node.
//! let mut spec = JobSpec::new(Time::ZERO, 4, 600.0);
//! spec.model = Some("lstm".into());
//! let lstm = Job::new(JobId(2), spec, Time::ZERO);
//! let model = PlacementSpeed::new(Some(topo));
//! let split = [GpuId(2), GpuId(3), GpuId(4), GpuId(5)];
//! let packed = [GpuId(4), GpuId(5), GpuId(6), GpuId(7)];
//! assert_eq!(model.speed(&lstm, &packed, &cluster), 1.0);
//! assert!((model.speed(&lstm, &split, &cluster) - 0.785).abs() < 0.01);
//! ```

mod config;
mod consolidated;
mod first_fit;
mod plan;
mod resource_aware;
mod scattered;
mod throughput;
mod topology;
mod topology_aware;

pub use config::PlacementConfig;
pub use consolidated::Consolidated;
pub use first_fit::FirstFit;
pub use resource_aware::ResourceAware;
pub use scattered::Scattered;
pub use throughput::{
    model_profile, profile_by_name, ModelProfile, PlacementSpeed, DEFAULT_PROFILE, MODEL_ZOO,
};
pub use topology::{
    Fabric, LinkSpec, NodeShape, Topology, TopologyBuilder, TopologyError, TopologySpec,
    VertexKind, VertexSpec, DEFAULT_INTRA_NODE_GB_S,
};
pub use topology_aware::TopologyAware;
