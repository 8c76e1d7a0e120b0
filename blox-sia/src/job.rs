//! Sia's job model (`job.py`, SIA-SEMANTICS §4): Pollux's progress model evaluated on the
//! trace of the job's current GPU type, slowed by a per-model calibration factor, with one
//! profile and one fitted throughput model per type, the placement-specific batch limits and
//! memory correction, per-model restart delays, and migrations between types.

use std::sync::Arc;

use blox_pollux::goodput::{BatchLimits, GoodputFunction, GradParams, Observation, PerfParams};
use blox_pollux::ModelError;

use crate::model::{restart_delay, slowdown, SiaApp};

/// One job of Sia's model.
#[derive(Debug, Clone)]
pub struct SiaJob {
    /// The workload's job name.
    pub name: String,
    /// Its model's measurements on every type.
    pub app: Arc<SiaApp>,
    /// Arrival, seconds (may carry a fraction).
    pub submission_time: f64,
    /// The workload's `batch_size`: the max batch of the scheduler's goodput estimates (§5.1),
    /// and the fixed batch of a fixed job.
    pub target_batch_size: u64,
    /// The workload's `num_replicas`.
    pub target_num_replicas: u32,
    /// A job with a fixed batch (Gavel's TunedJobs, §4.3.2) instead of a tuned one.
    pub fixed_batch: bool,
    /// The current GPU type (index in the cluster's type order), `None` when not running.
    pub gpu_type: Option<usize>,
    /// GPUs per node of the current allocation, in node-id order; empty when not running.
    pub placement: Vec<u32>,
    /// Per-GPU micro-batch.
    pub atomic_bsz: u64,
    /// Extra accumulation micro-steps per optimizer step.
    pub accum_steps: u32,
    /// Observed `(nodes, replicas, atomic) → (step, sync)` per type, in the order first seen.
    pub profiles: Vec<Vec<Observation>>,
    /// The fitted throughput model per type, once the job has run there.
    pub perf_params: Vec<Option<PerfParams>>,
    /// The gradient statistics last observed (per job, not per type).
    pub grad_params: Option<GradParams>,
    /// Progress in init-batch steps.
    pub progress: f64,
    /// Completed epochs.
    pub epoch: u32,
    /// When the last epoch finished.
    pub completion_time: Option<i64>,
    /// The job's clock (in lockstep with the cluster's).
    pub current_time: i64,
    /// Restart delay still to be served.
    pub rescale_time: i64,
    /// GPU-seconds held, restart delays included.
    pub attained_service: i64,
    /// GPU-seconds spent in restart delays.
    pub wasted_gpu_seconds: i64,
    /// GPU-seconds held outside restart delays (the whole remainder of an interval, even when
    /// the job completes inside it).
    pub used_gpu_seconds: i64,
    /// Restarts after the first allocation, migrations included (`None` before the first).
    pub num_restarts: Option<u32>,
    /// Heterogeneity-unaware (`h_unaware`, SIA-SEMANTICS §7.2, the Pollux baseline): one
    /// profile merged across types (the first observation of a key wins) and one fitted model,
    /// used on every type, instead of one of each per type.
    pub unaware: bool,
    /// The merged profile of an unaware job, in the order first seen.
    pub merged_profile: Vec<Observation>,
    /// The one fitted model of an unaware job.
    pub merged_perf: Option<PerfParams>,
}

impl SiaJob {
    /// A job that has not arrived or run yet.
    pub fn new(name: String, app: Arc<SiaApp>, submission_time: f64) -> SiaJob {
        let types = app.per_type.len();
        SiaJob {
            name,
            app,
            submission_time,
            target_batch_size: 0,
            target_num_replicas: 1,
            fixed_batch: false,
            gpu_type: None,
            placement: Vec::new(),
            atomic_bsz: 0,
            accum_steps: 0,
            profiles: vec![Vec::new(); types],
            perf_params: vec![None; types],
            grad_params: None,
            progress: 0.0,
            epoch: 0,
            completion_time: None,
            current_time: 0,
            rescale_time: 0,
            attained_service: 0,
            wasted_gpu_seconds: 0,
            used_gpu_seconds: 0,
            num_restarts: None,
            unaware: false,
            merged_profile: Vec::new(),
            merged_perf: None,
        }
    }

    /// GPUs held.
    pub fn replicas(&self) -> u32 {
        self.placement.iter().sum()
    }

    /// Current total batch: atomic × (accum + 1) × replicas.
    pub fn batch_size(&self) -> u64 {
        u64::from(self.replicas()) * self.atomic_bsz * u64::from(self.accum_steps + 1)
    }

    /// The largest replica count in the job's profile on type `t` (0 if it never ran there).
    pub fn max_profiled_replicas(&self, t: usize) -> u32 {
        self.profiles[t].iter().map(|o| o.0 .1).max().unwrap_or(0)
    }

    /// The largest replica count in an unaware job's merged profile (0 before it ran).
    pub fn max_merged_replicas(&self) -> u32 {
        self.merged_profile
            .iter()
            .map(|o| o.0 .1)
            .max()
            .unwrap_or(0)
    }

    /// The fitted model the job's own batch choice reads on type `t`: the type's own, or the
    /// merged one of an unaware job.
    fn perf_on(&self, t: usize) -> Option<PerfParams> {
        if self.unaware {
            self.merged_perf
        } else {
            self.perf_params[t]
        }
    }

    /// Choose atomic batch and accumulation for `placement` on the current type (§4.3).
    pub fn update_local_bsz(&mut self, placement: &[u32]) {
        let Some(t) = self.gpu_type else {
            return;
        };
        let app = &self.app.per_type[t];
        let nodes = placement.iter().filter(|&&g| g > 0).count() as u32;
        let replicas: u32 = placement.iter().sum();
        if replicas == 0 {
            return;
        }
        // The placement-specific per-GPU maximum (Pollux used the model-wide one).
        let lmax = app.max_local_bsz_at(placement).unwrap_or(app.max_local_bsz);
        let fixed = if self.fixed_batch {
            Some(self.target_batch_size)
        } else if self.perf_on(t).is_none() {
            Some(
                app.init_batch_size
                    .max(app.min_local_bsz * u64::from(replicas)),
            )
        } else {
            None
        };
        let tuned = match (fixed, self.perf_on(t), self.grad_params) {
            (None, Some(perf), Some(grad)) => Some(GoodputFunction {
                perf,
                grad,
                init_batch: app.init_batch_size,
            }),
            _ => None,
        };
        if let Some(gf) = tuned {
            let lim = BatchLimits {
                max_batch: app.max_batch_size,
                min_local: app.min_local_bsz,
                max_local: lmax,
            };
            let (_, atomic, accum) = gf.optimize(nodes, replicas, lim);
            self.atomic_bsz = atomic;
            self.accum_steps = accum;
        } else {
            let b = fixed.unwrap_or(app.init_batch_size);
            let local = (b as f64 / f64::from(replicas) - 1e-8).ceil();
            let mut accum = ((local / lmax as f64 - 1e-8).ceil() - 1.0).max(0.0) as u32;
            if replicas == 1 && b > app.init_batch_size {
                accum = accum.max(1);
            }
            self.accum_steps = accum;
            self.atomic_bsz = (local / f64::from(accum + 1) - 1e-8).ceil() as u64;
        }
        // Memory correction: at most the largest per-GPU batch measured at this GPU count.
        if let Some(m) = app.max_local_bsz_for_replicas(replicas) {
            self.atomic_bsz = self.atomic_bsz.min(m);
        }
        let count = u64::from(replicas) * u64::from(self.accum_steps + 1);
        self.atomic_bsz = self.atomic_bsz.min(app.max_batch_size / count);
    }

    fn update_params(&mut self, t: usize, key: (u32, u32, u64), st: f64, sy: f64, g: GradParams) {
        self.grad_params = Some(g);
        if self.unaware {
            if self.merged_profile.iter().any(|o| o.0 == key) {
                return;
            }
            self.merged_profile.push((key, (st, sy)));
            // The fit reads only the profile and the stopping rule, which every type shares.
            self.merged_perf = Some(self.app.per_type[t].fit_perf_params(&self.merged_profile));
            return;
        }
        if self.profiles[t].iter().any(|o| o.0 == key) {
            return;
        }
        self.profiles[t].push((key, (st, sy)));
        self.perf_params[t] = Some(self.app.per_type[t].fit_perf_params(&self.profiles[t]));
    }

    /// The true step time of the current configuration and its sync part.
    pub fn true_step_time(&self) -> Result<(f64, f64), ModelError> {
        let t = self.gpu_type.ok_or_else(|| ModelError {
            job: self.name.clone(),
            message: "no GPU type while running".into(),
        })?;
        self.app.per_type[t]
            .step_time(&self.placement, self.atomic_bsz)
            .ok_or_else(|| ModelError {
                job: self.name.clone(),
                message: format!(
                    "no step time for placement {:?} at per-GPU batch {} in the {} traces of \
                     type {} (a placement outside the type's placements file and without \
                     scalability rows of its nodes and GPUs needs the original's 3-D \
                     interpolation, which this port does not have: SIA-SEMANTICS §13.4)",
                    self.placement, self.atomic_bsz, self.app.name, self.app.type_names[t]
                ),
            })
    }

    /// Advance the job by `seconds` under its current placement (§4.1).
    pub fn step(&mut self, mut seconds: i64) -> Result<(), ModelError> {
        let Some(t) = self.gpu_type.filter(|_| !self.placement.is_empty()) else {
            self.current_time += seconds;
            return Ok(());
        };
        let app = self.app.per_type[t].clone();
        let slow = slowdown(&self.app.name);
        let gpus = i64::from(self.replicas());
        let delay = self.rescale_time.min(seconds);
        self.current_time += delay;
        self.attained_service += delay * gpus;
        self.wasted_gpu_seconds += delay * gpus;
        self.rescale_time -= delay;
        seconds -= delay;
        if seconds > 0 && self.completion_time.is_none() {
            self.used_gpu_seconds += seconds * gpus;
        }
        while seconds > 0 && self.completion_time.is_none() {
            let nodes = self.placement.iter().filter(|&&g| g > 0).count() as u32;
            let replicas = self.replicas();
            let batch = self.batch_size();
            let scale = batch as f64 / app.init_batch_size as f64;
            let (st, sy) = self.true_step_time()?;
            let accum_time = st - sy;
            let (sqr, var) = app.grad_stats(batch, self.epoch);
            let gain = (var + sqr) / (var / scale + sqr);
            self.update_params(
                t,
                (nodes, replicas, self.atomic_bsz),
                st,
                sy,
                GradParams { sqr, var },
            );
            let total = st + accum_time * f64::from(self.accum_steps);
            let rate = gain / total / slow;
            let next = app.progress_for(self.epoch + 1);
            if self.progress + rate * (seconds as f64) < next {
                self.progress += rate * seconds as f64;
                self.current_time += seconds;
                self.attained_service += seconds * gpus;
                seconds = 0;
            } else {
                self.epoch += 1;
                let delta = ((next - self.progress) / rate).round_ties_even() as i64;
                let delta = delta.min(seconds);
                if self.epoch > app.completion_epoch() {
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

    fn restart(&mut self, placement: Vec<u32>) {
        self.update_local_bsz(&placement);
        self.placement = placement;
        self.rescale_time = restart_delay(&self.app.name);
        self.num_restarts = Some(self.num_restarts.map_or(0, |n| n + 1));
    }

    /// A new placement on the current type (`reallocate`, §4.4): a non-empty placement that
    /// differs from the current tuple restarts the job; the same tuple costs nothing.
    pub fn reallocate(&mut self, placement: Vec<u32>) {
        if !placement.is_empty() && placement != self.placement {
            // Set first: the batch is chosen for the new placement.
            self.placement = placement.clone();
            self.restart(placement);
        }
    }

    /// A move to another type, or to none (`migrate`, §4.4): a non-empty placement restarts
    /// the job there (its first run there starts from the fixed initial batch, as no model
    /// is fitted on that type yet); an empty one preempts it without changing the counter.
    pub fn migrate(&mut self, gpu_type: Option<usize>, placement: Vec<u32>) {
        self.gpu_type = gpu_type;
        if placement.is_empty() || gpu_type.is_none() {
            self.placement.clear();
            return;
        }
        self.restart(placement);
    }

    /// Whether the job is in a checkpoint-restore delay (`scaling_underway`, §6.2).
    pub fn scaling_underway(&self) -> bool {
        self.rescale_time > 0
    }
}
