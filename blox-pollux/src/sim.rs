//! The Pollux artifact's cluster loop (POLLUX-SEMANTICS §1) as a self-contained simulation:
//! advance every job by one interval, then re-optimise at the boundary and restart every job
//! whose allocation changed. The engine's `pollux` time model drives the same job model; this
//! loop is the reference it is tested against and what the policies' tests run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use blox_core::Seed;

use crate::job::{ModelError, PolluxJob};
use crate::trace::TraceError;
use crate::workload::{Applications, WorkloadJob};
use crate::{Allocations, RoundInput, RoundPolicy};

/// How a workload's tuned columns are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JobSetup {
    /// Elastic jobs whose batch size the agent chooses (ncf keeps its fixed 32,768 batch).
    Adaptive,
    /// Tiresias+TunedJobs: the workload's GPU count and batch.
    TunedGang,
    /// Optimus+TunedJobs: the workload's batch, GPU count chosen by the policy.
    TunedBatch,
}

/// Build the jobs of a workload for `setup`, loading each application from `apps`.
pub fn build_jobs(
    workload_path: &Path,
    rows: &[WorkloadJob],
    apps: &mut Applications,
    setup: JobSetup,
) -> Result<Vec<PolluxJob>, TraceError> {
    let mut jobs = Vec::with_capacity(rows.len());
    let mut names = BTreeSet::new();
    for row in rows {
        if !names.insert(row.name.as_str()) {
            return Err(TraceError {
                path: workload_path.to_path_buf(),
                line: row.line,
                message: format!("field `name`: duplicate job name `{}`", row.name),
            });
        }
        let app = apps.get(&row.application).map_err(|e| TraceError {
            path: workload_path.to_path_buf(),
            line: row.line,
            message: format!("field `application`: {e}"),
        })?;
        let mut job = PolluxJob::new(row.name.clone(), app, row.time);
        match setup {
            JobSetup::Adaptive => {
                if row.application == "ncf" {
                    job.target_batch_size = Some(32_768);
                }
            }
            JobSetup::TunedGang => {
                job.target_num_replicas = Some(row.num_replicas);
                job.target_batch_size = Some(row.batch_size);
                job.agent = false;
            }
            JobSetup::TunedBatch => {
                job.target_batch_size = Some(row.batch_size);
                job.agent = false;
            }
        }
        jobs.push(job);
    }
    Ok(jobs)
}

/// Cluster shape and knobs of a run.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SimConfig {
    /// Nodes.
    pub nodes: u32,
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// Scheduling interval in seconds.
    pub interval: i64,
    /// Goodput lost by a distributed job sharing a node with another distributed job.
    pub interference: f64,
    /// The run's seed (the Pollux policy's genetic search).
    pub seed: Seed,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            nodes: 16,
            gpus_per_node: 4,
            interval: 60,
            interference: 0.0,
            seed: Seed(0),
        }
    }
}

/// GPUs per node, in allocation order, from a list of node ids (one per replica).
pub fn placement_of(alloc: &[u32]) -> Vec<u32> {
    let mut p: Vec<u32> = Vec::new();
    for (i, &n) in alloc.iter().enumerate() {
        if i == 0 || alloc[i - 1] != n {
            p.push(1);
        } else if let Some(last) = p.last_mut() {
            *last += 1;
        }
    }
    p
}

/// Per-job interference factors for the current allocations (§6.6).
pub fn interference_of(
    allocations: &Allocations,
    nodes: u32,
    interference: f64,
) -> BTreeMap<usize, f64> {
    let mut distributed_on = vec![0u32; nodes as usize];
    let spread = |a: &Vec<u32>| a.iter().collect::<BTreeSet<_>>().len() > 1;
    for a in allocations.values().filter(|a| spread(a)) {
        for &n in a.iter().collect::<BTreeSet<_>>() {
            if let Some(c) = distributed_on.get_mut(n as usize) {
                *c += 1;
            }
        }
    }
    allocations
        .iter()
        .map(|(&k, a)| {
            let hit = spread(a)
                && a.iter()
                    .any(|&n| distributed_on.get(n as usize).is_some_and(|&c| c > 1));
            (k, if hit { interference } else { 0.0 })
        })
        .collect()
}

/// One job's result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JobOutcome {
    /// The workload's job name.
    pub name: String,
    /// Arrival.
    pub submission_time: i64,
    /// Completion.
    pub completion_time: i64,
    /// Restarts after the first allocation.
    pub num_restarts: u32,
    /// GPU-seconds held.
    pub attained_service: i64,
}

impl JobOutcome {
    /// Completion minus arrival, seconds.
    pub fn jct(&self) -> i64 {
        self.completion_time - self.submission_time
    }
}

/// The artifact's simulation loop.
#[derive(Debug)]
pub struct PolluxSim {
    /// Every job of the workload, in workload order.
    pub jobs: Vec<PolluxJob>,
    /// Current allocations (job index → node id per replica).
    pub allocations: Allocations,
    /// Simulated time, seconds.
    pub now: i64,
    /// Rounds decided so far.
    pub round: u64,
    config: SimConfig,
}

impl PolluxSim {
    /// A simulation at time 0 with nothing allocated.
    pub fn new(jobs: Vec<PolluxJob>, config: SimConfig) -> PolluxSim {
        PolluxSim {
            jobs,
            allocations: Allocations::new(),
            now: 0,
            round: 0,
            config,
        }
    }

    /// Whether every job has completed.
    pub fn all_complete(&self) -> bool {
        self.jobs.iter().all(|j| j.completion_time.is_some())
    }

    /// One interval: advance every job, then decide at the boundary.
    pub fn step(&mut self, policy: &mut dyn RoundPolicy) -> Result<(), ModelError> {
        let inter = interference_of(
            &self.allocations,
            self.config.nodes,
            self.config.interference,
        );
        for (i, job) in self.jobs.iter_mut().enumerate() {
            job.step(self.config.interval, inter.get(&i).copied().unwrap_or(0.0))?;
        }
        self.now += self.config.interval;
        let active: Vec<(usize, &PolluxJob)> = self
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| self.now >= j.submission_time && j.completion_time.is_none())
            .collect();
        if active.is_empty() {
            return Ok(());
        }
        let live: BTreeSet<usize> = active.iter().map(|a| a.0).collect();
        self.allocations.retain(|k, _| live.contains(k));
        let input = RoundInput {
            now: self.now,
            round: self.round,
            jobs: active,
            prev: &self.allocations,
            nodes: self.config.nodes,
            gpus_per_node: self.config.gpus_per_node,
            seed: self.config.seed,
        };
        let new = policy.optimize(&input)?;
        self.round += 1;
        for (i, job) in self.jobs.iter_mut().enumerate() {
            if new.get(&i) != self.allocations.get(&i) {
                job.reallocate(new.get(&i).map(|a| placement_of(a)).unwrap_or_default());
            }
        }
        self.allocations = new;
        Ok(())
    }

    /// Run to completion (at most `max_rounds` intervals).
    pub fn run(
        &mut self,
        policy: &mut dyn RoundPolicy,
        max_rounds: u64,
    ) -> Result<Vec<JobOutcome>, ModelError> {
        let mut n = 0;
        while !self.all_complete() {
            if n >= max_rounds {
                return Err(ModelError {
                    job: String::new(),
                    message: format!("not complete after {max_rounds} intervals"),
                });
            }
            self.step(policy)?;
            n += 1;
        }
        Ok(self.outcomes())
    }

    /// Results of the completed jobs, in workload order.
    pub fn outcomes(&self) -> Vec<JobOutcome> {
        self.jobs
            .iter()
            .filter_map(|j| {
                Some(JobOutcome {
                    name: j.name.clone(),
                    submission_time: j.submission_time,
                    completion_time: j.completion_time?,
                    num_restarts: j.num_restarts.unwrap_or(0),
                    attained_service: j.attained_service,
                })
            })
            .collect()
    }
}
