//! # blox-placement
//!
//! Placement policies: which GPUs each scheduled job gets, and which running jobs stop for it.
//!
//! | component | what it does | cost per round | source |
//! |---|---|---|---|
//! | [`Scattered`] | Blox's "Place": lowest free GPUs in node order, victims from the bottom of the schedule, strict order; Blox's overshoot and failed-preemption quirks in `blox` semantics | O(s + v·N) | Blox `placement/placement.py` |
//!
//! [`PlacementConfig`] names them for files and the command line.
//!
//! ```
//! use blox_core::{Cluster, ClusterSpec, Ctx, Decisions, Job, JobId, JobSpec, JobTable,
//!                 PlacementPolicy, Schedule, Semantics, Time};
//! use blox_placement::Scattered;
//!
//! let cluster = Cluster::new(ClusterSpec::uniform(2, 4));
//! let mut jobs = JobTable::new();
//! jobs.push(Job::new(JobId(0), JobSpec::new(Time::ZERO, 3, 600.0), Time::ZERO));
//! jobs.push(Job::new(JobId(1), JobSpec::new(Time::ZERO, 2, 600.0), Time::ZERO));
//! let mut schedule = Schedule::default();
//! schedule.push(JobId(0), 3);
//! schedule.push(JobId(1), 2);
//! let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), Semantics::Exact, &cluster, &jobs);
//! let mut out = Decisions::default();
//! Scattered::new().place(&ctx, &schedule, &mut out);
//! let gpus: Vec<Vec<u32>> = out.start.iter().map(|(_, g)| g.iter().map(|g| g.0).collect()).collect();
//! assert_eq!(gpus, vec![vec![0, 1, 2], vec![3, 4]]);
//! ```

mod config;
mod scattered;

pub use config::PlacementConfig;
pub use scattered::Scattered;
