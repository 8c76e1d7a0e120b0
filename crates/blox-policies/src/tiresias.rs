use crate::order::{order_by_class_key, ClassKey, ClassKeyBuf};
use blox_core::{ConfigError, Ctx, Job, JobId, Schedule, SchedulingPolicy, Semantics, Time};

/// The original Tiresias simulator's default queue threshold: 3,600 GPU-seconds.
pub const TIRESIAS_THRESHOLD: f64 = 3600.0;

/// Tiresias's discretised two-dimensional least-attained-service scheduler (2D-LAS, Gu et al.,
/// NSDI 2019), with service counted in GPU-seconds.
///
/// - **Service** is the job's GPU time since it was last promoted: `attained_service` in `exact`
///   semantics (the engine counts GPU-seconds), `attained_service × n_gpus` in `blox` semantics
///   (where the engine counts wall-clock seconds), so the policy means the same in both.
/// - **Queues.** `K = thresholds.len() + 1` priority queues; a job is in queue `q`, the number of
///   thresholds at or below its service, so it is **demoted** as soon as its service crosses a
///   threshold. The default is the original simulator's: two queues split at 3,600 GPU-seconds.
/// - **Order**, ascending: starvation class (the engine's), queue, arrival time, id: FIFO
///   within a queue, ties by the lowest id.
/// - **Starvation promotion** (the paper's STARVELIMIT knob, as the original simulator
///   implements it): with `starvation = Some(k)`, a waiting job outside the top queue whose wait
///   since it last ran reaches `k ×` its running time since its last promotion goes back to the
///   top queue, and its service counts from zero again. `None` (the default) never promotes.
///
/// The policy keeps per-job state (service at the last promotion, when it was last seen
/// running) in a vector indexed by [`JobId`]; it is updated at every call, so a call at the same
/// time with the same table is idempotent. "Last seen running" is sampled at each decision, so a
/// wait is measured to the round granularity. The Gittins-index variant of the paper is not
/// implemented.
///
/// Cost per round: O(n log n + n log K) for n active jobs and K queues.
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Semantics, Time};
/// use blox_policies::Tiresias;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // Job 0 (1 GPU) has 3,000 GPU-s: still in the top queue. Job 1 (8 GPUs) has 4,000 GPU-s:
/// // demoted. Job 2 arrived last with no service: top queue, after job 0 (FIFO).
/// for (id, arrival, gpus, served) in [(0, 0, 1, 3000.0), (1, 10, 8, 4000.0), (2, 20, 2, 0.0)] {
///     let mut j = Job::new(JobId(id), JobSpec::new(Time::from_secs(arrival), gpus, 1e6),
///                          Time::from_secs(arrival));
///     j.attained_service = served;
///     jobs.push(j);
/// }
/// let ctx = Ctx::new(Time::from_secs(3600), 12, Time::from_secs(300), Semantics::Exact,
///                    &cluster, &jobs);
/// let mut tiresias = Tiresias::default();
/// let mut out = Schedule::default();
/// tiresias.schedule(&ctx, &mut out);
/// let order: Vec<u32> = out.iter().map(|a| a.job.0).collect();
/// assert_eq!(order, vec![0, 2, 1]);
/// assert_eq!(tiresias.queue_of(JobId(1)), Some(1));
/// ```
#[derive(Clone, Debug)]
pub struct Tiresias {
    thresholds: Vec<f64>,
    starvation: Option<f64>,
    state: Vec<JobState>,
    buf: ClassKeyBuf,
}

/// What Tiresias remembers of a job.
#[derive(Clone, Copy, Debug, Default)]
struct JobState {
    /// GPU-seconds of service at the last promotion (0 before any).
    base: f64,
    /// When it was last seen holding GPUs at a decision.
    last_run: Option<Time>,
    /// Its queue at the last call.
    queue: u32,
}

impl Default for Tiresias {
    fn default() -> Self {
        Tiresias {
            thresholds: vec![TIRESIAS_THRESHOLD],
            starvation: None,
            state: Vec::new(),
            buf: ClassKeyBuf::new(),
        }
    }
}

impl Tiresias {
    /// Tiresias with these queue thresholds in GPU-seconds (strictly increasing, positive and
    /// finite; `K − 1` of them for `K` queues; empty means one queue, i.e. FIFO) and this
    /// starvation multiplier (`None`: no promotion; otherwise positive and finite).
    pub fn new(thresholds: Vec<f64>, starvation: Option<f64>) -> Result<Self, ConfigError> {
        for (i, &t) in thresholds.iter().enumerate() {
            if !(t.is_finite() && t > 0.0) {
                return Err(ConfigError::new(format!(
                    "tiresias: threshold {t} is not a positive number of GPU-seconds"
                )));
            }
            if i > 0 && t <= thresholds[i - 1] {
                return Err(ConfigError::new(format!(
                    "tiresias: thresholds must increase ({} then {t})",
                    thresholds[i - 1]
                )));
            }
        }
        if let Some(k) = starvation {
            if !(k.is_finite() && k > 0.0) {
                return Err(ConfigError::new(format!(
                    "tiresias: starvation multiplier {k} is not a positive number"
                )));
            }
        }
        Ok(Tiresias {
            thresholds,
            starvation,
            ..Tiresias::default()
        })
    }

    /// The queue thresholds, in GPU-seconds.
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }

    /// The starvation multiplier, if promotion is on.
    pub fn starvation(&self) -> Option<f64> {
        self.starvation
    }

    /// The queue (0 = top) the job was in at the last call, if the policy has seen it.
    pub fn queue_of(&self, id: JobId) -> Option<u32> {
        self.state.get(id.index()).map(|s| s.queue)
    }

    /// Update the job's state at `now` and return its queue.
    fn update(&mut self, job: &Job, now: Time, semantics: Semantics) -> u32 {
        let idx = job.id.index();
        if idx >= self.state.len() {
            self.state.resize(idx + 1, JobState::default());
        }
        let n = f64::from(job.n_gpus().max(1));
        let total = match semantics {
            Semantics::Blox => job.attained_service * n,
            Semantics::Exact => job.attained_service,
        };
        let st = &mut self.state[idx];
        if job.is_running() {
            st.last_run = Some(now);
        }
        let mut service = (total - st.base).max(0.0);
        let mut queue = self.thresholds.partition_point(|&t| t <= service) as u32;
        if let (Some(k), false, true) = (self.starvation, job.is_running(), queue > 0) {
            let since = st.last_run.unwrap_or(job.admitted_at);
            let waited = now.saturating_sub(since).as_secs_f64();
            let ran = service / n;
            if waited >= k * ran {
                st.base = total;
                service = 0.0;
                queue = self.thresholds.partition_point(|&t| t <= service) as u32;
            }
        }
        st.queue = queue;
        queue
    }
}

impl SchedulingPolicy for Tiresias {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let mut buf = std::mem::take(&mut self.buf);
        order_by_class_key(ctx, &mut buf, out, |j| ClassKey {
            class: u64::from(self.update(j, ctx.now, ctx.semantics)),
            value: j.arrival().as_millis() as f64,
        });
        self.buf = buf;
    }

    fn name(&self) -> String {
        "tiresias".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_ordering_policy, order, Table};
    use proptest::prelude::*;

    #[test]
    fn demotes_on_crossing_a_threshold_and_is_fifo_within_a_queue() {
        // GPU-s: 3599 (top), 3600 (demoted: the threshold counts), 0 (top), 10 (top).
        let t = Table::new(8)
            .job(0, 1, 1e6)
            .served(3599.0, 3599.0)
            .job(0, 4, 1e6)
            .served(3600.0, 900.0)
            .job(30, 2, 1e6)
            .job(10, 1, 1e6)
            .served(10.0, 10.0);
        let mut p = Tiresias::default();
        assert_eq!(order(&mut p, &t), vec![0, 3, 2, 1]);
        assert_eq!(p.queue_of(JobId(1)), Some(1));
        assert_eq!(p.queue_of(JobId(0)), Some(0));
    }

    #[test]
    fn blox_semantics_scales_wall_clock_service_by_gpus() {
        // 1000 wall-clock s on 4 GPUs = 4000 GPU-s: demoted, unlike under plain LAS.
        let t = Table::new(8)
            .with_semantics(Semantics::Blox)
            .job(0, 4, 1e6)
            .served(1000.0, 1000.0)
            .job(5, 1, 1e6)
            .served(3000.0, 3000.0);
        assert_eq!(order(&mut Tiresias::default(), &t), vec![1, 0]);
    }

    #[test]
    fn k_queues() {
        let mut p = Tiresias::new(vec![100.0, 1000.0], None).unwrap();
        let t = Table::new(8)
            .job(0, 1, 1e6)
            .served(5000.0, 5000.0)
            .job(1, 1, 1e6)
            .served(500.0, 500.0)
            .job(2, 1, 1e6)
            .served(50.0, 50.0);
        assert_eq!(order(&mut p, &t), vec![2, 1, 0]);
        assert!(Tiresias::new(vec![10.0, 10.0], None).is_err());
        assert!(Tiresias::new(vec![-1.0], None).is_err());
        assert!(Tiresias::new(vec![], Some(0.0)).is_err());
        // One queue: FIFO.
        let mut fifo = Tiresias::new(vec![], None).unwrap();
        assert_eq!(order(&mut fifo, &t), vec![0, 1, 2]);
    }

    #[test]
    fn starvation_promotes_back_to_the_top_queue() {
        // Job 0 ran 4000 s on 1 GPU (demoted), last seen running at t = 4000. With k = 1 it
        // is promoted once it has waited 4000 s, i.e. at t = 8000, and then ranks by arrival.
        let mut p = Tiresias::new(vec![3600.0], Some(1.0)).unwrap();
        let base = Table::new(8)
            .job(0, 1, 1e6)
            .served(4000.0, 4000.0)
            .running(0)
            .job(100, 1, 1e6)
            .at(4000);
        assert_eq!(order(&mut p, &base), vec![1, 0]);
        let mut waiting = base.clone();
        waiting.jobs.get_mut(JobId(0)).unwrap().gpus.clear();
        assert_eq!(order(&mut p, &waiting.clone().at(7700)), vec![1, 0]);
        assert_eq!(order(&mut p, &waiting.clone().at(8000)), vec![0, 1]);
        assert_eq!(p.queue_of(JobId(0)), Some(0));
        // Service now counts from the promotion: once running again, it stays on top until
        // 3600 more GPU-s.
        let mut later = waiting.running(0).at(8300);
        later.jobs.get_mut(JobId(0)).unwrap().attained_service = 4000.0 + 3599.0;
        assert_eq!(order(&mut p, &later), vec![0, 1]);
        later.jobs.get_mut(JobId(0)).unwrap().attained_service = 4000.0 + 3600.0;
        assert_eq!(order(&mut p, &later), vec![1, 0]);
    }

    proptest! {
        #[test]
        fn invariants(t in crate::testing::tables()) {
            check_ordering_policy(Tiresias::default, &t)?;
            check_ordering_policy(|| Tiresias::new(vec![500.0, 5000.0], Some(0.5)).unwrap(), &t)?;
        }
    }
}
