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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_deterministic, check_permutation, run, Table};
    use proptest::prelude::*;

    fn alloc(p: &mut Optimus, t: &Table) -> Vec<(u32, u32)> {
        run(p, t).iter().map(|a| (a.job.0, a.n_gpus)).collect()
    }

    #[test]
    fn rigid_jobs_get_their_request_or_nothing_shortest_first() {
        // 8 GPUs. Remaining: job 0 (4 GPUs) 5000 s, job 1 (8 GPUs) 100 s, job 2 (2 GPUs) 300 s.
        let t = Table::new(8)
            .job(0, 4, 5000.0)
            .job(0, 8, 100.0)
            .job(0, 2, 300.0);
        // Job 1 takes all 8 GPUs; the others wait with 0.
        assert_eq!(
            alloc(&mut Optimus::default(), &t),
            vec![(1, 8), (2, 0), (0, 0)]
        );
        // With 10 GPUs job 2 fits beside job 1; job 0 does not fit in what is left and gets
        // nothing rather than fewer GPUs than it asked for.
        let t = Table::new(10)
            .job(0, 4, 5000.0)
            .job(0, 8, 100.0)
            .job(0, 2, 300.0);
        assert_eq!(
            alloc(&mut Optimus::default(), &t),
            vec![(1, 8), (2, 2), (0, 0)]
        );
    }

    #[test]
    fn spare_gpus_go_to_the_largest_fall_in_remaining_time() {
        // Equal speed-up curves: the job with more remaining work gains more per GPU, until its
        // gain drops below the other's.
        let t = Table::new(6)
            .job(0, 1, 1000.0)
            .elastic()
            .job(0, 1, 4000.0)
            .elastic();
        let got = alloc(&mut Optimus::default(), &t);
        assert_eq!(got, vec![(0, 2), (1, 4)]);
        // Check against brute force over all splits: the chosen split minimises the sum of
        // remaining times.
        let p = Optimus::default();
        let jobs: Vec<&Job> = t.jobs.iter().collect();
        let cost = |a: u32, b: u32| p.remaining_time(jobs[0], a) + p.remaining_time(jobs[1], b);
        let best = (1..6).map(|a| cost(a, 6 - a)).fold(f64::INFINITY, f64::min);
        assert!((cost(2, 4) - best).abs() < 1e-9);
        // Perfect scaling with equal work: ties break by the lowest id.
        let t = Table::new(3)
            .job(0, 1, 1000.0)
            .elastic()
            .job(0, 1, 1000.0)
            .elastic();
        let mut linear = Optimus::with_model(Amdahl::new(1.0).unwrap());
        let got: Vec<(u32, u32)> = run(&mut linear, &t)
            .iter()
            .map(|a| (a.job.0, a.n_gpus))
            .collect();
        assert_eq!(got, vec![(0, 2), (1, 1)]);
    }

    #[test]
    fn finished_work_gains_nothing() {
        let t = Table::new(4)
            .job(0, 1, 100.0)
            .elastic()
            .served(100.0, 100.0);
        assert_eq!(alloc(&mut Optimus::default(), &t), vec![(0, 1)]);
    }

    proptest! {
        #[test]
        fn invariants(t in crate::testing::tables()) {
            let mut p = Optimus::default();
            let out = run(&mut p, &t);
            check_permutation(&out, &t)?;
            let total: u64 = out.iter().map(|a| u64::from(a.n_gpus)).sum();
            prop_assert!(total <= u64::from(t.cluster.total_gpus()), "over capacity: {}", total);
            let mut seen_zero = false;
            for a in out.iter() {
                let j = t.jobs.get(a.job).unwrap();
                if !j.spec.elastic {
                    prop_assert!(a.n_gpus == 0 || a.n_gpus == j.n_gpus(), "rigid job resized");
                }
                prop_assert!(!(seen_zero && a.n_gpus > 0), "allocated jobs come first");
                seen_zero |= a.n_gpus == 0;
            }
            // Work-conserving for elastic jobs: GPUs are left idle only when no elastic job
            // was allocated (Amdahl's gains never reach zero).
            let any_elastic = out.iter().any(|a| a.n_gpus > 0 && t.jobs.get(a.job).unwrap().spec.elastic
                && t.jobs.get(a.job).unwrap().remaining_work() > 0.0);
            if any_elastic {
                prop_assert_eq!(total, u64::from(t.cluster.total_gpus()));
            }
            check_deterministic(Optimus::default, &t, &out)?;
        }
    }
}
