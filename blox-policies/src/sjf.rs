use blox_core::order::{order_by_class_key, ClassKey, ClassKeyBuf};
use blox_core::{Ctx, Job, Schedule, SchedulingPolicy};

/// Shortest job first by total GPU time, with oracle knowledge of each job's service demand.
///
/// Key, ascending after the starvation class: `n_gpus × work_s`, the job's whole demand in
/// GPU-seconds (the "shortest GPU time" baseline of the Tiresias paper), which does not change
/// as the job runs. Ties: lowest id.
///
/// - `preemptive = true` (the default): the order is the key alone, so a newly arrived shorter
///   job ranks above a running longer one and a preempting placement may evict it.
/// - `preemptive = false`: within a starvation class, running jobs come first (among themselves
///   by key), so a placement that only evicts jobs ranked below the one it places never preempts
///   for SJF: classic non-preemptive SJF.
///
/// Cost per round: O(n log n).
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Time};
/// use blox_policies::Sjf;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // (GPUs, seconds): 8 × 100 = 800 GPU-s, 1 × 1000 = 1000 GPU-s, 2 × 300 = 600 GPU-s.
/// for (id, (gpus, work)) in [(8, 100.0), (1, 1000.0), (2, 300.0)].into_iter().enumerate() {
///     jobs.push(Job::new(JobId(id as u32), JobSpec::new(Time::ZERO, gpus, work), Time::ZERO));
/// }
/// let ctx = Ctx::new(Time::ZERO, 0, Time::from_secs(300), &cluster, &jobs);
/// let mut out = Schedule::default();
/// Sjf::default().schedule(&ctx, &mut out);
/// let order: Vec<u32> = out.iter().map(|a| a.job.0).collect();
/// assert_eq!(order, vec![2, 0, 1]);
/// ```
#[derive(Clone, Debug)]
pub struct Sjf {
    preemptive: bool,
    buf: ClassKeyBuf,
}

impl Default for Sjf {
    fn default() -> Self {
        Sjf::new(true)
    }
}

impl Sjf {
    /// SJF; see the type docs for `preemptive`.
    pub fn new(preemptive: bool) -> Self {
        Sjf {
            preemptive,
            buf: ClassKeyBuf::new(),
        }
    }

    /// Whether a shorter job may rank above a running one.
    pub fn preemptive(&self) -> bool {
        self.preemptive
    }
}

/// A job's whole demand in GPU-seconds: `n_gpus × work_s`.
pub(crate) fn gpu_time(job: &Job) -> f64 {
    f64::from(job.n_gpus()) * job.spec.work_s
}

impl SchedulingPolicy for Sjf {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let preemptive = self.preemptive;
        order_by_class_key(ctx, &mut self.buf, out, |j| ClassKey {
            class: u64::from(!preemptive && !j.is_running()),
            value: gpu_time(j),
        });
    }

    fn name(&self) -> String {
        if self.preemptive {
            "sjf".into()
        } else {
            "sjf(non-preemptive)".into()
        }
    }
}
