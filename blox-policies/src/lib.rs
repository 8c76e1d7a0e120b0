//! # blox-policies
//!
//! Scheduling policies: in what order active jobs get GPUs, and how many each gets. Every
//! policy here depends on `blox-core` only; Gavel's linear program is solved by the crate's own
//! small dense simplex.
//!
//! | component | what (ascending after the engine's starvation class; ties by lowest id unless said) | cost per round | source |
//! |---|---|---|---|
//! | [`Fifo`] | arrival time | O(n log n) | Blox `fifo.py` |
//! | [`Las`] | attained service in GPU-seconds | O(n log n) | Nuyens & Wierman 2008; Blox `las.py` |
//! | [`Srtf`] | remaining work `work − executed` (oracle) | O(n log n) | Blox `srtf.py` |
//! | [`Sjf`] | total GPU time `n_gpus × work` (oracle); optionally non-preemptive | O(n log n) | Tiresias (NSDI '19) baseline |
//! | [`Tiresias`] | discretised 2D-LAS: queue by GPU-s service (thresholds, default 3,600), FIFO in a queue (or, Tiresias-G, by Gittins index over the learned service distribution), starvation promotion | O(n log n) | Gu et al., NSDI '19 |
//! | [`Optimus`] | marginal gain: GPUs one at a time to the largest fall in remaining time ([`Amdahl`] model); returns GPU counts | O(n log n + G log n) | Peng et al., EuroSys '18 |
//! | [`Gavel`] (`gavel`, alias `gavel-style`; an engine-native adaptation, not Gavel's simulator) | max-min fair time fractions ([`water_fill`], or the LP [`max_min_lp`]), order by allocation ÷ share received (desc.); on several GPU types, the heterogeneity-aware LP over a [`blox_core::ThroughputTable`] and a GPU type per job | O(n log n); LP: one solve per change of the active set (≈ 0.08 ms at 1,000 jobs on one GPU type, after the symmetry reduction) | Narayanan et al., OSDI '20 |
//! | [`Themis`] (`themis`, alias `ftf-greedy`; a greedy order, not Themis's auction nor Gavel's LP) | finish-time fairness ρ = shared ÷ isolated finish time, worst first | O(n log n) | Mahajan et al., NSDI '20 |
//!
//! Each type's docs state its key, its tie rule and its simplifications of the paper.
//!
//! [`PolicyConfig`] names them for files and the command line. No policy knows which time model
//! runs it: each reads the unit-stable job facts it means ([`Job::attained_gpu_s`],
//! [`Job::attained_wall_s`], `executed`). Blox's own versions are types of their own in
//! `blox-original` (`BloxLas`, `BloxSrtf`, `BloxOptimus`), which the `blox` preset picks for
//! `las`, `srtf`, `tiresias` (Blox's Tiresias is exactly its LAS) and `optimus`; the peer
//! simulators' own policies live in their crates (`blox-gavel`, `blox-tiresias`, `blox-synergy`,
//! `blox-pollux`).
//!
//! [`Job::attained_gpu_s`]: blox_core::Job::attained_gpu_s
//! [`Job::attained_wall_s`]: blox_core::Job::attained_wall_s
//!
//! ```
//! use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
//!                 SchedulingPolicy, Time};
//! use blox_policies::Las;
//!
//! let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
//! let mut jobs = JobTable::new();
//! for (id, served) in [(0, 600.0), (1, 0.0), (2, 600.0)] {
//!     let mut j = Job::new(JobId(id), JobSpec::new(Time::ZERO, 1, 3600.0), Time::ZERO);
//!     j.attained_gpu_s = served;
//!     jobs.push(j);
//! }
//! let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
//! let mut out = Schedule::default();
//! Las::default().schedule(&ctx, &mut out);
//! let order: Vec<u32> = out.iter().map(|a| a.job.0).collect();
//! assert_eq!(order, vec![1, 0, 2]); // least served first, ties by lowest id
//! ```

mod config;
mod fifo;
mod gavel;
mod las;
mod optimus;
mod simplex;
mod sjf;
mod speedup;
mod srtf;
mod themis;
mod tiresias;

pub use config::{OptimusParams, PolicyConfig, PolicyEnv, TiresiasParams};
pub use fifo::Fifo;
pub use gavel::{
    max_min_lp, water_fill, Gavel, LpError, MaxMinLpSolution, MaxMinSolver, DEFAULT_REFERENCE_TYPE,
};
pub use las::Las;
pub use optimus::Optimus;
pub use sjf::Sjf;
pub use speedup::{Amdahl, Speedup};
pub use srtf::Srtf;
pub use themis::{finish_time_fairness, Themis};
pub use tiresias::{Tiresias, TIRESIAS_THRESHOLD};
