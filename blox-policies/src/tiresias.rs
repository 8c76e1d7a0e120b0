use blox_core::order::{order_by_class_key, ClassKey, ClassKeyBuf};
use blox_core::{ConfigError, Ctx, Job, JobId, Schedule, SchedulingPolicy, Time};

/// The original Tiresias simulator's default queue threshold: 3,600 GPU-seconds.
pub const TIRESIAS_THRESHOLD: f64 = 3600.0;

/// Tiresias's discretised two-dimensional least-attained-service scheduler (2D-LAS, Gu et al.,
/// NSDI 2019), with service counted in GPU-seconds.
///
/// - **Service** is the job's GPU time since it was last promoted: `attained_gpu_s` (the time
///   model credits GPU-seconds whatever the model), so the policy means the same under every
///   model.
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
/// wait is measured to the round granularity.
///
/// **Gittins-index variant** (Tiresias-G, [`Tiresias::with_gittins`]): within a queue, jobs are
/// ordered by their Gittins index, highest first, instead of by arrival. With `S` the
/// distribution of job service demand (GPU-seconds: requested GPUs × work) and a quantum `Δ`,
/// a job that has received `a` GPU-seconds has index
/// `G(a) = P(S − a ≤ Δ | S > a) / E[min(S − a, Δ) | S > a]`: the chance of finishing within the
/// next quantum per unit of service spent trying (Gittins 1979; Tiresias §4.2, which uses a
/// static Δ). The distribution is learned online from every job the policy has seen (their
/// service demands, not their progress); a job past every sample gets index 0. Ties in the
/// index break by the lowest id.
///
/// Cost per round: O(n log n + n log K) for n active jobs and K queues.
///
/// ```
/// use blox_core::{Cluster, ClusterSpec, Ctx, Job, JobId, JobSpec, JobTable, Schedule,
///                 SchedulingPolicy, Time};
/// use blox_policies::Tiresias;
///
/// let cluster = Cluster::new(ClusterSpec::uniform(1, 8));
/// let mut jobs = JobTable::new();
/// // Job 0 (1 GPU) has 3,000 GPU-s: still in the top queue. Job 1 (8 GPUs) has 4,000 GPU-s:
/// // demoted. Job 2 arrived last with no service: top queue, after job 0 (FIFO).
/// for (id, arrival, gpus, served) in [(0, 0, 1, 3000.0), (1, 10, 8, 4000.0), (2, 20, 2, 0.0)] {
///     let mut j = Job::new(JobId(id), JobSpec::new(Time::from_secs(arrival), gpus, 1e6),
///                          Time::from_secs(arrival));
///     j.attained_gpu_s = served;
///     jobs.push(j);
/// }
/// let ctx = Ctx::new(Time::from_secs(3600), 12, Time::from_secs(300),
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
    gittins: Option<GittinsDist>,
}

/// The learned service distribution of the Gittins-index variant.
#[derive(Clone, Debug)]
struct GittinsDist {
    delta: f64,
    /// Service demands seen (GPU-seconds), unsorted.
    seen: Vec<f64>,
    /// A sorted snapshot of `seen` and its prefix sums, rebuilt when `seen` has grown by an
    /// eighth (amortised O(log n) per job).
    sorted: Vec<f64>,
    prefix: Vec<f64>,
}

impl GittinsDist {
    fn learn(&mut self, service: f64) {
        self.seen.push(service);
        if self.seen.len() > self.sorted.len() + self.sorted.len() / 8 {
            self.sorted.clone_from(&self.seen);
            self.sorted.sort_by(f64::total_cmp);
            self.prefix.clear();
            self.prefix.push(0.0);
            let mut acc = 0.0;
            for &x in &self.sorted {
                acc += x;
                self.prefix.push(acc);
            }
        }
    }

    /// `G(a)` over the snapshot; 0 past every sample.
    fn index(&self, a: f64) -> f64 {
        let lo = self.sorted.partition_point(|&x| x <= a);
        let hi = self.sorted.partition_point(|&x| x <= a + self.delta);
        let within = (hi - lo) as f64;
        let above = (self.sorted.len() - hi) as f64;
        let spent = (self.prefix[hi] - self.prefix[lo]) - within * a + above * self.delta;
        if lo == self.sorted.len() || spent <= 0.0 {
            0.0
        } else {
            within / spent
        }
    }
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
    /// Its service at the last call (GPU-seconds since the last promotion).
    service: f64,
    /// Whether its demand is in the learned distribution.
    learned: bool,
}

impl Default for Tiresias {
    fn default() -> Self {
        Tiresias {
            thresholds: vec![TIRESIAS_THRESHOLD],
            starvation: None,
            state: Vec::new(),
            buf: ClassKeyBuf::new(),
            gittins: None,
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

    /// The Gittins-index variant with quantum `delta` GPU-seconds (positive and finite); see
    /// the type's docs.
    pub fn with_gittins(mut self, delta: f64) -> Result<Self, ConfigError> {
        if !(delta.is_finite() && delta > 0.0) {
            return Err(ConfigError::new(format!(
                "tiresias: Gittins quantum {delta} is not a positive number of GPU-seconds"
            )));
        }
        self.gittins = Some(GittinsDist {
            delta,
            seen: Vec::new(),
            sorted: Vec::new(),
            prefix: vec![0.0],
        });
        Ok(self)
    }

    /// The Gittins quantum, when the Gittins-index variant is on.
    pub fn gittins_delta(&self) -> Option<f64> {
        self.gittins.as_ref().map(|g| g.delta)
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
    fn update(&mut self, job: &Job, now: Time) -> u32 {
        let idx = job.id.index();
        if idx >= self.state.len() {
            self.state.resize(idx + 1, JobState::default());
        }
        let n = f64::from(job.n_gpus().max(1));
        let total = job.attained_gpu_s;
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
        st.service = service;
        if let (Some(g), false) = (self.gittins.as_mut(), st.learned) {
            st.learned = true;
            g.learn(job.spec.work_s * n);
        }
        queue
    }
}

impl SchedulingPolicy for Tiresias {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let mut buf = std::mem::take(&mut self.buf);
        if self.gittins.is_some() {
            // Learn every job's demand and update queues first, so all indices of a round come
            // from the same distribution.
            for j in ctx.jobs.iter() {
                self.update(j, ctx.now);
            }
            let g = self.gittins.as_ref().expect("checked above");
            let state = &self.state;
            order_by_class_key(ctx, &mut buf, out, |j| {
                let st = &state[j.id.index()];
                ClassKey {
                    class: u64::from(st.queue),
                    value: -g.index(st.service),
                }
            });
        } else {
            order_by_class_key(ctx, &mut buf, out, |j| ClassKey {
                class: u64::from(self.update(j, ctx.now)),
                value: j.arrival().as_millis() as f64,
            });
        }
        self.buf = buf;
    }

    fn name(&self) -> String {
        if self.gittins.is_some() {
            "tiresias-g".into()
        } else {
            "tiresias".into()
        }
    }
}

// The learned distribution is private: its test stays here (the policy's other tests are in
// tests/it, through the public API).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gittins_index_by_hand() {
        // Demands {100, 100, 100, 10000} GPU-s, quantum 200.
        let mut g = GittinsDist {
            delta: 200.0,
            seen: Vec::new(),
            sorted: Vec::new(),
            prefix: vec![0.0],
        };
        for x in [10_000.0, 100.0, 100.0, 100.0] {
            g.learn(x);
        }
        assert_eq!(g.sorted, vec![100.0, 100.0, 100.0, 10_000.0]);
        // a = 0: 3 of 4 end within 200; service spent 3 x 100 + 1 x 200 = 500.
        assert_eq!(g.index(0.0), 3.0 / 500.0);
        // a = 50: 3 of 4 end within 250; spent 3 x 50 + 200 = 350.
        assert_eq!(g.index(50.0), 3.0 / 350.0);
        // a = 150: only the long job is left; it will not end within 200.
        assert_eq!(g.index(150.0), 0.0);
        // Past every sample.
        assert_eq!(g.index(20_000.0), 0.0);
    }
}
