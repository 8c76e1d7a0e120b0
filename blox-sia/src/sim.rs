//! Sia's round loop (`Cluster.step`, SIA-SEMANTICS §1.2) and its metrics (§9).

use std::fmt;

use blox_pollux::{ModelError, TraceError};

use crate::cluster::SiaCluster;
use crate::ilp::IlpError;
use crate::job::SiaJob;
use crate::model::SiaApps;
use crate::policy::{placement_tuple, Decision, SiaPolicy};
use crate::workload::SiaWorkloadJob;

/// A failure of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// A trace or workload file.
    Trace(TraceError),
    /// The job model (a configuration outside the measurements).
    Model(ModelError),
    /// The policy's program or placement.
    Policy(IlpError),
    /// The run did not end by the time bound (seconds): how many jobs were unfinished, and the
    /// names of those that never ran (at most five).
    TooLong {
        /// When the bound was passed.
        at: i64,
        /// Jobs unfinished then.
        unfinished: usize,
        /// Jobs that never made progress (the first five by workload order).
        never_ran: Vec<String>,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Trace(e) => e.fmt(f),
            SimError::Model(e) => e.fmt(f),
            SimError::Policy(e) => write!(f, "Sia policy: {e}"),
            SimError::TooLong {
                at,
                unfinished,
                never_ran,
            } => {
                write!(
                    f,
                    "{unfinished} jobs still unfinished at {at} s (the time bound)"
                )?;
                if !never_ran.is_empty() {
                    write!(
                        f,
                        "; some never ran ({}): a policy with fixed GPU counts and batches \
                         (gavel, engine policies) runs a job at the workload's num_replicas \
                         and batch_size, which may fit no GPU type of the cluster",
                        never_ran.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SimError {}

impl From<TraceError> for SimError {
    fn from(e: TraceError) -> Self {
        SimError::Trace(e)
    }
}
impl From<ModelError> for SimError {
    fn from(e: ModelError) -> Self {
        SimError::Model(e)
    }
}
impl From<IlpError> for SimError {
    fn from(e: IlpError) -> Self {
        SimError::Policy(e)
    }
}

/// A policy of Sia's simulator: the decisions for the active jobs (workload indices, in
/// order) at `now`.
pub trait HeteroPolicy {
    /// The policy's name.
    fn name(&self) -> &str;
    /// One decision per active job.
    fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Result<Vec<Decision>, SimError>;
}

impl HeteroPolicy for SiaPolicy {
    fn name(&self) -> &str {
        "sia"
    }
    fn decide(
        &mut self,
        cluster: &SiaCluster,
        jobs: &[SiaJob],
        active: &[usize],
        now: f64,
    ) -> Result<Vec<Decision>, SimError> {
        Ok(SiaPolicy::decide(self, cluster, jobs, active, now)?)
    }
}

/// The jobs of a workload, with their models loaded for the cluster of `apps`; `fixed_batch`
/// for Gavel's TunedJobs.
pub fn build_jobs(
    workload: &[SiaWorkloadJob],
    apps: &mut SiaApps,
    fixed_batch: bool,
) -> Result<Vec<SiaJob>, TraceError> {
    workload
        .iter()
        .map(|r| {
            let app = apps.get(&r.application)?;
            let mut j = SiaJob::new(r.name.clone(), app, r.time);
            j.target_batch_size = r.batch_size;
            j.target_num_replicas = r.num_replicas;
            j.fixed_batch = fixed_batch;
            Ok(j)
        })
        .collect()
}

/// One job's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SiaOutcome {
    /// The workload's job name.
    pub name: String,
    /// Arrival, seconds.
    pub submission_time: f64,
    /// Completion, seconds.
    pub completion_time: i64,
    /// Restarts, migrations included (§9).
    pub restarts: u32,
    /// GPU-seconds of the logged allocations over rounds the job was unfinished (§9).
    pub gpu_seconds: i64,
}

impl SiaOutcome {
    /// Completion − arrival, seconds.
    pub fn jct(&self) -> f64 {
        self.completion_time as f64 - self.submission_time
    }
}

/// The metrics of `utils/print_run_stats.py` for one workload (§9).
#[derive(Debug, Clone, PartialEq)]
pub struct SiaSummary {
    /// Mean JCT, seconds.
    pub avg_jct: f64,
    /// The sorted JCTs at index `int(0.99·n)`, seconds.
    pub p99_jct: f64,
    /// max(arrival + JCT) − min(arrival), seconds.
    pub makespan: f64,
    /// GPU-hours per job (logged allocations × interval).
    pub gpu_hours_per_job: f64,
    /// Restarts per job.
    pub restarts_per_job: f64,
    /// Running + queued unfinished submitted jobs per logged round: mean.
    pub contention_mean: f64,
    /// ... and max.
    pub contention_max: usize,
    /// Rounds logged.
    pub rounds: u64,
}

/// Sia's simulator: the cluster, the jobs, a policy and the clock.
#[derive(Clone)]
pub struct SiaSim<P> {
    /// The cluster.
    pub cluster: SiaCluster,
    /// The jobs, in workload order.
    pub jobs: Vec<SiaJob>,
    /// The policy.
    pub policy: P,
    /// Round length, seconds.
    pub interval: i64,
    /// The clock.
    pub now: i64,
    last: Vec<Decision>,
    gpu_seconds: Vec<i64>,
    contention: Vec<usize>,
}

impl<P: HeteroPolicy> SiaSim<P> {
    /// A run of `jobs` on `cluster` with `policy` and rounds of `interval` seconds.
    pub fn new(cluster: SiaCluster, jobs: Vec<SiaJob>, policy: P, interval: i64) -> Self {
        let n = jobs.len();
        SiaSim {
            cluster,
            jobs,
            policy,
            interval,
            now: 0,
            last: vec![None; n],
            gpu_seconds: vec![0; n],
            contention: Vec::new(),
        }
    }

    /// One round (§1.2).
    pub fn step(&mut self) -> Result<(), SimError> {
        for j in &mut self.jobs {
            j.step(self.interval)?;
        }
        self.now += self.interval;
        let now = self.now as f64;
        let active: Vec<usize> = (0..self.jobs.len())
            .filter(|&j| {
                self.jobs[j].submission_time <= now && self.jobs[j].completion_time.is_none()
            })
            .collect();
        if !active.is_empty() {
            let d = self
                .policy
                .decide(&self.cluster, &self.jobs, &active, now)?;
            for (&j, dec) in active.iter().zip(d) {
                if dec == self.last[j] {
                    continue;
                }
                let job = &mut self.jobs[j];
                let (t, p) = match &dec {
                    Some((t, ids)) => (Some(*t), placement_tuple(ids)),
                    None => (None, Vec::new()),
                };
                if t != job.gpu_type {
                    job.migrate(t, p);
                } else {
                    job.reallocate(p);
                }
                self.last[j] = dec;
            }
        }
        // The log line: contention and the allocations of unfinished jobs.
        let mut contention = 0;
        for (j, job) in self.jobs.iter().enumerate() {
            if job.submission_time <= now && job.completion_time.is_none() {
                contention += 1;
                let gpus = self.last[j].as_ref().map_or(0, |(_, ids)| ids.len() as i64);
                self.gpu_seconds[j] += gpus * self.interval;
            }
        }
        self.contention.push(contention);
        Ok(())
    }

    /// Run until every job has completed, or fail past `max_time` seconds.
    pub fn run(&mut self, max_time: i64) -> Result<(), SimError> {
        while self.jobs.iter().any(|j| j.completion_time.is_none()) {
            if self.now >= max_time {
                let open = || self.jobs.iter().filter(|j| j.completion_time.is_none());
                return Err(SimError::TooLong {
                    at: self.now,
                    unfinished: open().count(),
                    never_ran: open()
                        .filter(|j| j.progress == 0.0)
                        .take(5)
                        .map(|j| j.name.clone())
                        .collect(),
                });
            }
            self.step()?;
        }
        Ok(())
    }

    /// Per-job outcomes (completed jobs, workload order).
    pub fn outcomes(&self) -> Vec<SiaOutcome> {
        self.jobs
            .iter()
            .zip(&self.gpu_seconds)
            .filter_map(|(j, &g)| {
                Some(SiaOutcome {
                    name: j.name.clone(),
                    submission_time: j.submission_time,
                    completion_time: j.completion_time?,
                    restarts: j.num_restarts.unwrap_or(0),
                    gpu_seconds: g,
                })
            })
            .collect()
    }

    /// The §9 metrics of the run so far.
    pub fn summary(&self) -> SiaSummary {
        let out = self.outcomes();
        let n = out.len().max(1) as f64;
        let mut jcts: Vec<f64> = out.iter().map(SiaOutcome::jct).collect();
        jcts.sort_by(f64::total_cmp);
        let p99 = jcts
            .get(((0.99 * jcts.len() as f64) as usize).min(jcts.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0);
        let first = out
            .iter()
            .map(|o| o.submission_time)
            .fold(f64::INFINITY, f64::min);
        let last = out
            .iter()
            .map(|o| o.completion_time as f64)
            .fold(f64::NEG_INFINITY, f64::max);
        SiaSummary {
            avg_jct: jcts.iter().sum::<f64>() / n,
            p99_jct: p99,
            makespan: if out.is_empty() { 0.0 } else { last - first },
            gpu_hours_per_job: out.iter().map(|o| o.gpu_seconds as f64).sum::<f64>() / 3600.0 / n,
            restarts_per_job: out.iter().map(|o| f64::from(o.restarts)).sum::<f64>() / n,
            contention_mean: self.contention.iter().sum::<usize>() as f64
                / self.contention.len().max(1) as f64,
            contention_max: self.contention.iter().copied().max().unwrap_or(0),
            rounds: self.contention.len() as u64,
        }
    }
}
