//! The Pollux job model (POLLUX-SEMANTICS §4): per-job state, crediting an interval with
//! epoch boundaries, batch-size choice for an allocation, and the restart delay.

use std::fmt;
use std::sync::Arc;

use crate::goodput::{BatchLimits, GoodputFunction, GradParams, Observation, PerfParams};
use crate::trace::Application;

/// Seconds a job is stalled after every allocation change, the first included.
pub const RESTART_DELAY: i64 = 30;

/// A failure of the job model: a configuration outside the measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelError {
    /// The job.
    pub job: String,
    /// What was asked.
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "job {}: {}", self.job, self.message)
    }
}

impl std::error::Error for ModelError {}

/// One elastic training job of the Pollux model: its GPUs per node and its batch size are set by
/// the scheduler and its agent, its speed comes from the application's measurements.
#[derive(Debug, Clone)]
pub struct PolluxJob {
    /// The workload's job name (`<app>-<index>`).
    pub name: String,
    /// The application it trains.
    pub app: Arc<Application>,
    /// Arrival, seconds from the start.
    pub submission_time: i64,
    /// A fixed GPU count (Tiresias's TunedJobs), if any.
    pub target_num_replicas: Option<u32>,
    /// A fixed total batch (the baselines, and ncf under Pollux), if any.
    pub target_batch_size: Option<u64>,
    /// When the last epoch finished.
    pub completion_time: Option<i64>,
    /// The job's clock (kept in lockstep with the cluster's).
    pub current_time: i64,
    /// Restart delay still to be served.
    pub rescale_time: i64,
    /// GPUs per node of the current allocation, in allocation order; empty when not running.
    pub placement: Vec<u32>,
    /// Per-GPU micro-batch.
    pub atomic_bsz: u64,
    /// Extra accumulation micro-steps per optimizer step.
    pub accum_steps: u32,
    /// Observed `(nodes, replicas, atomic) → (step, sync)`, in the order first seen.
    pub profile: Vec<Observation>,
    /// The agent's fitted throughput model, once it has observed anything.
    pub perf_params: Option<PerfParams>,
    /// The gradient statistics the agent last observed.
    pub grad_params: Option<GradParams>,
    /// Progress in init-batch steps.
    pub progress: f64,
    /// Completed epochs.
    pub epoch: u32,
    /// GPU-seconds held, restart delays included.
    pub attained_service: i64,
    /// Restarts after the first allocation (`None` before it).
    pub num_restarts: Option<u32>,
    /// Whether the agent refits its throughput model on new observations. The artifact always
    /// does; jobs whose batch and GPU count are fixed never use the fit, so the baselines turn
    /// it off to save time (their decisions do not read it).
    pub agent: bool,
}

impl PolluxJob {
    /// A job that has not arrived or run yet.
    pub fn new(name: String, app: Arc<Application>, submission_time: i64) -> PolluxJob {
        PolluxJob {
            name,
            app,
            submission_time,
            target_num_replicas: None,
            target_batch_size: None,
            completion_time: None,
            current_time: 0,
            rescale_time: 0,
            placement: Vec::new(),
            atomic_bsz: 0,
            accum_steps: 0,
            profile: Vec::new(),
            perf_params: None,
            grad_params: None,
            progress: 0.0,
            epoch: 0,
            attained_service: 0,
            num_restarts: None,
            agent: true,
        }
    }

    /// The largest replica count in the profile (0 before the first observation).
    pub fn max_profiled_replicas(&self) -> u32 {
        self.profile.iter().map(|o| o.0 .1).max().unwrap_or(0)
    }

    /// The application's batch limits.
    pub fn limits(&self) -> BatchLimits {
        BatchLimits {
            max_batch: self.app.max_batch_size,
            min_local: self.app.min_local_bsz,
            max_local: self.app.max_local_bsz,
        }
    }

    /// The agent's goodput function, once a model has been fitted.
    pub fn goodput_fn(&self) -> Option<GoodputFunction> {
        Some(GoodputFunction {
            perf: self.perf_params?,
            grad: self.grad_params?,
            init_batch: self.app.init_batch_size,
        })
    }

    /// Current total batch size.
    pub fn batch_size(&self) -> u64 {
        u64::from(self.replicas()) * self.atomic_bsz * u64::from(self.accum_steps + 1)
    }

    /// GPUs held.
    pub fn replicas(&self) -> u32 {
        self.placement.iter().sum()
    }

    /// Choose atomic batch and accumulation for `placement` (§4.3).
    pub fn update_local_bsz(&mut self, placement: &[u32]) {
        let app = &self.app;
        let nodes = placement.iter().filter(|&&g| g > 0).count() as u32;
        let replicas: u32 = placement.iter().sum();
        if replicas == 0 {
            return;
        }
        let mut batch = self.target_batch_size;
        if batch.is_none() && self.perf_params.is_none() {
            batch = Some(
                app.init_batch_size
                    .max(app.min_local_bsz * u64::from(replicas)),
            );
        }
        match (batch, self.goodput_fn()) {
            (None, Some(gf)) => {
                let (_, atomic, accum) = gf.optimize(nodes, replicas, self.limits());
                self.atomic_bsz = atomic;
                self.accum_steps = accum;
            }
            (b, _) => {
                let b = b.unwrap_or(app.init_batch_size);
                let local = (b as f64 / f64::from(replicas) - 1e-8).ceil();
                let mut accum =
                    ((local / app.max_local_bsz as f64 - 1e-8).ceil() - 1.0).max(0.0) as u32;
                if replicas == 1 && b > app.init_batch_size {
                    accum = accum.max(1);
                }
                self.accum_steps = accum;
                self.atomic_bsz = (local / f64::from(accum + 1) - 1e-8).ceil() as u64;
            }
        }
        let count = u64::from(replicas) * u64::from(self.accum_steps + 1);
        self.atomic_bsz = self.atomic_bsz.min(app.max_batch_size / count);
    }

    fn update_params(&mut self, key: (u32, u32, u64), st: f64, sy: f64, grad: GradParams) {
        self.grad_params = Some(grad);
        if self.profile.iter().any(|o| o.0 == key) {
            return;
        }
        self.profile.push((key, (st, sy)));
        if self.agent {
            self.perf_params = Some(self.app.fit_perf_params(&self.profile));
        }
    }

    /// The true step time of the current configuration with accumulation, and its sync part.
    pub fn true_step_time(&self) -> Result<(f64, f64), ModelError> {
        self.app
            .step_time(&self.placement, self.atomic_bsz)
            .ok_or_else(|| ModelError {
                job: self.name.clone(),
                message: format!(
                    "no step time for placement {:?} at per-GPU batch {} in the {} traces",
                    self.placement, self.atomic_bsz, self.app.name
                ),
            })
    }

    /// Advance the job by `seconds` under its current placement (§4.2), slowed by
    /// `interference` (a fraction of goodput lost).
    pub fn step(&mut self, mut seconds: i64, interference: f64) -> Result<(), ModelError> {
        if self.placement.is_empty() {
            self.current_time += seconds;
            return Ok(());
        }
        let gpus = i64::from(self.replicas());
        let delay = self.rescale_time.min(seconds);
        self.current_time += delay;
        self.attained_service += delay * gpus;
        self.rescale_time -= delay;
        seconds -= delay;
        while seconds > 0 && self.completion_time.is_none() {
            let nodes = self.placement.iter().filter(|&&g| g > 0).count() as u32;
            let replicas = self.replicas();
            let batch = self.batch_size();
            let scale = batch as f64 / self.app.init_batch_size as f64;
            let (st, sy) = self.true_step_time()?;
            let accum_time = st - sy;
            let (sqr, var) = self.app.grad_stats(batch, self.epoch);
            let gain = (var + sqr) / (var / scale + sqr);
            self.update_params(
                (nodes, replicas, self.atomic_bsz),
                st,
                sy,
                GradParams { sqr, var },
            );
            let total = st + accum_time * f64::from(self.accum_steps);
            let rate = gain / total * (1.0 - interference);
            let next = self.app.progress_for(self.epoch + 1);
            if self.progress + rate * (seconds as f64) < next {
                self.progress += rate * seconds as f64;
                self.current_time += seconds;
                self.attained_service += seconds * gpus;
                seconds = 0;
            } else {
                self.epoch += 1;
                let delta = ((next - self.progress) / rate).round_ties_even() as i64;
                let delta = delta.min(seconds);
                if self.epoch > self.app.completion_epoch() {
                    self.completion_time = Some(self.current_time + delta);
                }
                self.progress = next;
                self.current_time += delta;
                self.attained_service += delta * gpus;
                seconds -= delta;
            }
            let p = self.placement.clone();
            self.update_local_bsz(&p);
        }
        self.current_time += seconds;
        Ok(())
    }

    /// Give the job a new allocation (GPUs per node), or take it away (empty): a non-empty one
    /// starts the restart delay and re-chooses the batch size.
    pub fn reallocate(&mut self, placement: Vec<u32>) {
        if placement.is_empty() {
            self.placement.clear();
            self.atomic_bsz = 0;
            return;
        }
        self.update_local_bsz(&placement);
        self.placement = placement;
        self.rescale_time = RESTART_DELAY;
        self.num_restarts = Some(self.num_restarts.map_or(0, |n| n + 1));
    }
}
