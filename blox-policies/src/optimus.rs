use crate::speedup::{Amdahl, Speedup};
use blox_core::{Ctx, Job, JobId, Schedule, SchedulingPolicy};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Optimus's marginal-gain allocation (Peng et al., EuroSys 2018), with oracle remaining work:
/// each round, GPUs go one at a time to the job whose estimated remaining time falls most.
///
/// A job's remaining time on `k` GPUs is `T(k) = remaining_work / s(k)`, where
/// `remaining_work = work_s − executed` (seconds at speed 1.0 on its request: the oracle the
/// Pollux paper calls "Optimus+Oracle"; Optimus itself fits a loss curve) and `s` is the
/// [`Speedup`] model (default [`Amdahl`], `p = 0.95`). `T(0)` is infinite.
///
/// 1. **Minimum allocations.** A job with no GPUs has an infinite remaining time, so the first
///    GPUs it gets make its time fall most of all; among such jobs the one whose time falls to
///    the smallest value goes first. So jobs are taken in ascending
///    `(starvation class, T(min), id)` and each gets its minimum while GPUs remain: its request
///    for a rigid job (rigid jobs get exactly their request or nothing), one GPU for an elastic
///    job (`spec.elastic`). A job that does not fit is skipped and smaller ones behind it may
///    still fit.
/// 2. **Marginal gains.** The GPUs left go one at a time to the elastic job with the largest
///    `T(k) − T(k + 1)` (ties: lowest id), until none are left or no job gains.
///
/// The schedule lists the jobs that got GPUs first, in step-1 order with their counts, then the
/// others with a count of `0` ("should not run now", see [`blox_core::Allocation::n_gpus`]), in
/// the same order. The counts add up to at most the cluster's GPUs. Pair it with the same model
/// as the engine's throughput model (e.g. [`Amdahl`]) so elastic jobs run as fast as planned.
///
/// Simplifications: no parameter servers (GPUs are the only resource), oracle remaining work
/// instead of a fitted convergence curve, and one speed-up curve for every job.
///
/// Cost per round: O(n log n + G log n) for n active jobs and G GPUs.
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Time};
/// use blox_policies::Optimus;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // Two elastic jobs asking for 1 GPU: 10,000 s and 1,000 s of work; one rigid 4-GPU job.
/// for (id, gpus, work, elastic) in [(0, 1, 10_000.0, true), (1, 1, 1_000.0, true),
///                                   (2, 4, 5_000.0, false)] {
///     let mut spec = JobSpec::new(Time::ZERO, gpus, work);
///     spec.elastic = elastic;
///     jobs.push(Job::new(JobId(id), spec, Time::ZERO));
/// }
/// let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
/// let mut out = Schedule::default();
/// Optimus::default().schedule(&ctx, &mut out);
/// let alloc: Vec<(u32, u32)> = out.iter().map(|a| (a.job.0, a.n_gpus)).collect();
/// // Minimums by remaining time (1, 2, 0), then the 2 spare GPUs to the long job, which gains
/// // the most from them.
/// assert_eq!(alloc, vec![(1, 1), (2, 4), (0, 3)]);
/// ```
#[derive(Clone, Debug)]
pub struct Optimus<M = Amdahl> {
    model: M,
    rank: Vec<Cand>,
    alloc: Vec<u32>,
    heap: BinaryHeap<Gain>,
}

/// A candidate in step 1.
#[derive(Clone, Copy, Debug)]
struct Cand {
    priority: u32,
    time_at_min: f64,
    id: JobId,
    pos: usize,
    min: u32,
}

/// A possible next GPU in step 2: largest gain first, then lowest id.
#[derive(Clone, Copy, Debug)]
struct Gain {
    gain: f64,
    id: JobId,
    pos: usize,
}

impl PartialEq for Gain {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Gain {}
impl PartialOrd for Gain {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Gain {
    fn cmp(&self, other: &Self) -> Ordering {
        self.gain
            .total_cmp(&other.gain)
            .then(other.id.cmp(&self.id))
    }
}

impl Default for Optimus {
    fn default() -> Self {
        Optimus::with_model(Amdahl::default())
    }
}

impl<M: Speedup> Optimus<M> {
    /// Optimus planning with this speed-up model.
    pub fn with_model(model: M) -> Self {
        Optimus {
            model,
            rank: Vec::new(),
            alloc: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// The speed-up model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// Estimated remaining time of `job` on `k` GPUs (infinite for `k = 0`).
    pub fn remaining_time(&self, job: &Job, k: u32) -> f64 {
        if k == 0 {
            return f64::INFINITY;
        }
        job.remaining_work() / self.model.relative_speed(job, k)
    }
}

impl<M: Speedup> SchedulingPolicy for Optimus<M> {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let jobs = ctx.jobs;
        let mut free = ctx.cluster.available_gpus();
        self.rank.clear();
        for pos in jobs.slots() {
            let j = jobs.at(pos);
            let min = if j.spec.elastic { 1 } else { j.n_gpus() };
            self.rank.push(Cand {
                priority: j.priority,
                time_at_min: self.remaining_time(j, min),
                id: j.id,
                pos,
                min,
            });
        }
        self.rank.sort_unstable_by(|a, b| {
            a.priority
                .cmp(&b.priority)
                .then(a.time_at_min.total_cmp(&b.time_at_min))
                .then(a.id.cmp(&b.id))
        });
        self.alloc.clear();
        self.alloc.resize(jobs.slot_bound(), 0);
        self.heap.clear();
        for c in &self.rank {
            if c.min <= free {
                free -= c.min;
                self.alloc[c.pos] = c.min;
                let j = jobs.at(c.pos);
                if j.spec.elastic {
                    let gain = self.remaining_time(j, c.min) - self.remaining_time(j, c.min + 1);
                    self.heap.push(Gain {
                        gain,
                        id: c.id,
                        pos: c.pos,
                    });
                }
            }
        }
        while free > 0 {
            let Some(top) = self.heap.pop() else { break };
            if top.gain.is_nan() || top.gain <= 0.0 {
                break;
            }
            free -= 1;
            let k = self.alloc[top.pos] + 1;
            self.alloc[top.pos] = k;
            let j = jobs.at(top.pos);
            self.heap.push(Gain {
                gain: self.remaining_time(j, k) - self.remaining_time(j, k + 1),
                ..top
            });
        }
        out.entries.reserve(jobs.len());
        for c in &self.rank {
            if self.alloc[c.pos] > 0 {
                out.push(c.id, self.alloc[c.pos]);
            }
        }
        for c in &self.rank {
            if self.alloc[c.pos] == 0 {
                out.push(c.id, 0);
            }
        }
    }

    fn name(&self) -> String {
        "optimus".into()
    }
}
