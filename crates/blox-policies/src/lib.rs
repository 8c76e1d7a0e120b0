//! # blox-policies
//!
//! Scheduling policies: in what order active jobs get GPUs, and how many each gets. Every
//! policy here depends on `blox-core` only.
//!
//! | component | key (ascending, after the starvation class; ties by lowest id) | cost per round | source |
//! |---|---|---|---|
//! | [`Fifo`] | arrival time | O(n log n) | Blox `fifo.py` |
//! | [`Las`] | attained service (wall-clock s in `blox`, GPU-s in `exact`) | O(n log n) | Blox `las.py`; Nuyens & Wierman 2008 |
//! | [`Srtf`] | remaining time (oracle) | O(n log n) | Blox `srtf.py` |
//! | [`BloxOptimus`] | as SRTF, with Blox's per-load speed-up table | O(n log n) | Blox `optimus.py` @ artifact `0ab0cff` |
//!
//! [`PolicyConfig`] names them for files and the command line. `tiresias` builds [`Las`] in
//! `blox` semantics, because Blox's Tiresias is exactly LAS.
//!
//! ```
//! use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
//!                 SchedulingPolicy, Semantics, Time};
//! use blox_policies::Las;
//!
//! let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
//! let mut jobs = JobTable::new();
//! for (id, served) in [(0, 600.0), (1, 0.0), (2, 600.0)] {
//!     let mut j = Job::new(JobId(id), JobSpec::new(Time::ZERO, 1, 3600.0), Time::ZERO);
//!     j.attained_service = served;
//!     jobs.push(j);
//! }
//! let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), Semantics::Blox, &cluster, &jobs);
//! let mut out = Schedule::default();
//! Las::default().schedule(&ctx, &mut out);
//! let order: Vec<u32> = out.iter().map(|a| a.job.0).collect();
//! assert_eq!(order, vec![1, 0, 2]); // least served first, ties by lowest id
//! ```

mod config;
mod fifo;
mod las;
mod optimus;
mod order;
mod srtf;

pub use config::{PolicyConfig, PolicyEnv};
pub use fifo::Fifo;
pub use las::Las;
pub use optimus::{BloxOptimus, BLOX_OPTIMUS_SPEEDUP};
pub use srtf::Srtf;
