use blox_core::{Ctx, Job, JobId, Schedule, SchedulingPolicy};

/// Greedy finish-time fairness after Themis (Mahajan et al., NSDI 2020): each round, the jobs
/// with the worst `ρ = shared finish time ÷ isolated finish time` get GPUs first.
///
/// **What it is not.** Named `themis` (alias `ftf-greedy`) on the command line, it is a greedy
/// ordering, neither Themis's auction nor Gavel's `finish_time_fairness_perf` (a min–max-ρ
/// convex program): for Gavel's, run `--semantics gavel --policy finish_time_fairness_perf`
/// (`blox-gavel`).
///
/// For job `j` at time `now`, with `N` active jobs on `G` GPUs:
///
/// - **shared finish time** `T_sh = (now − arrival) + remaining_work`: the time it has spent in
///   the cluster so far plus its remaining work at full speed on its request (oracle remaining
///   work, as Themis's agents report an estimate);
/// - **isolated finish time** `T_id = work_s × max(1, n_gpus · N / G)`: its running time alone
///   on a `1/N` share of the cluster (Themis's definition), assuming linear slow-down when that
///   share is smaller than its request.
///
/// A waiting job's `ρ` grows by `1 / T_id` per second, a running job's stays put, so short jobs
/// that wait climb fastest. Order: ascending starvation class, then descending `ρ`, then lowest
/// id; each job is listed with its request and the placement decides who fits.
///
/// Simplification of the paper's auction: no bids, no partial-allocation mechanism and no
/// fairness knob `f`; this is the limit in which every round's GPUs are offered to the jobs in
/// worst-`ρ` order and each takes its request (one app = one job, no placement sensitivity).
///
/// Cost per round: O(n log n).
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Time};
/// use blox_policies::Themis;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 4));
/// let mut jobs = JobTable::new();
/// // A 10,000 s job that ran 1,000 s of its 1,000 s in the cluster, and a 500 s job that has
/// // waited 1,000 s: ρ = 1.0 and 3.0.
/// jobs.push(Job::new(JobId(0), JobSpec::new(Time::ZERO, 1, 10_000.0), Time::ZERO));
/// jobs.get_mut(JobId(0)).unwrap().executed = 1000.0;
/// jobs.push(Job::new(JobId(1), JobSpec::new(Time::ZERO, 1, 500.0), Time::ZERO));
/// let ctx = Ctx::new(Time::from_secs(1000), 3, Time::from_secs(300),
///                    &cluster, &jobs);
/// let mut out = Schedule::default();
/// Themis::default().schedule(&ctx, &mut out);
/// assert_eq!(out.iter().map(|a| a.job.0).collect::<Vec<_>>(), vec![1, 0]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Themis {
    buf: Vec<(u32, f64, JobId, u32)>,
}

/// Themis's finish-time fairness `ρ` of `job` at `ctx.now` (see [`Themis`]); `n_active` jobs
/// share `total_gpus` GPUs. The isolated time counts as at least one second, so a job of no
/// work has a finite `ρ`.
pub fn finish_time_fairness(job: &Job, ctx: &Ctx<'_>, n_active: usize, total_gpus: u32) -> f64 {
    let elapsed = ctx.now.saturating_sub(job.arrival()).as_secs_f64();
    let shared = elapsed + job.remaining_work();
    let share = if total_gpus == 0 {
        1.0
    } else {
        (f64::from(job.n_gpus()) * n_active as f64 / f64::from(total_gpus)).max(1.0)
    };
    let isolated = (job.spec.work_s * share).max(1.0);
    shared / isolated
}

impl SchedulingPolicy for Themis {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let n = ctx.jobs.len();
        let g = ctx.cluster.available_gpus();
        self.buf.clear();
        self.buf.extend(ctx.jobs.iter().map(|j| {
            (
                j.priority,
                finish_time_fairness(j, ctx, n, g),
                j.id,
                j.n_gpus(),
            )
        }));
        self.buf
            .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        out.entries.reserve(n);
        for &(_, _, id, k) in &self.buf {
            out.push(id, k);
        }
    }

    fn name(&self) -> String {
        "themis".into()
    }
}
