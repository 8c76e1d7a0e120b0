//! [`SimExecutor`]: the simulator's own implementation of `blox-core`'s [`Executor`] trait.
//!
//! Real-cluster mode (`blox-cluster`) drives launches through an [`Executor`]; this one runs
//! them on a virtual clock instead of processes, so a loop written against the trait can be
//! exercised deterministically and fast. Each launch progresses at its job's iteration time on
//! its requested GPUs (speed from any [`ThroughputModel`]), honours a preemption at once by
//! checkpointing the iterations it has done, and resumes from that checkpoint on its next
//! launch. (The simulation engine itself applies decisions directly, which is faster; this type
//! exists for the real-mode loop and for tests of executor-facing code.)

use blox_core::{
    ClusterSpec, ConstantSpeed, ExecError, ExecEvent, Executor, ExitStatus, Inventory, Job, JobId,
    Launch, NodeInfo, ThroughputModel, Time,
};
use std::collections::BTreeMap;
use std::time::Duration;

/// A launch in progress.
#[derive(Clone, Debug)]
struct Running {
    attempt: u32,
    /// Iterations per second on its GPUs.
    rate: f64,
    total: u64,
    started_reported: bool,
    reported: u64,
    stopping: bool,
}

/// A virtual-time [`Executor`]: see the module docs.
#[derive(Debug)]
pub struct SimExecutor<T = ConstantSpeed> {
    inventory: Inventory,
    cluster: blox_core::Cluster,
    throughput: T,
    now: Duration,
    /// Iterations done per job, kept across attempts (the checkpoint).
    done: BTreeMap<JobId, f64>,
    running: BTreeMap<JobId, Running>,
}

impl SimExecutor<ConstantSpeed> {
    /// Fake nodes of a cluster shape, jobs at constant speed 1.0.
    pub fn new(spec: &ClusterSpec) -> Self {
        Self::with_throughput(spec, ConstantSpeed(1.0))
    }
}

impl<T: ThroughputModel> SimExecutor<T> {
    /// Fake nodes of a cluster shape; each launch's speed comes from `throughput`.
    pub fn with_throughput(spec: &ClusterSpec, throughput: T) -> Self {
        let nodes = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(k, n)| {
                NodeInfo::new(
                    format!("sim{k}"),
                    "127.0.0.1",
                    (0..n.gpus).collect(),
                    n.cpus,
                    n.mem_gb,
                )
            })
            .collect();
        SimExecutor {
            inventory: Inventory { nodes },
            cluster: blox_core::Cluster::new(spec.clone()),
            throughput,
            now: Duration::ZERO,
            done: BTreeMap::new(),
            running: BTreeMap::new(),
        }
    }

    /// The virtual time.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Move the virtual clock forward; launches make progress meanwhile.
    pub fn advance(&mut self, by: Duration) {
        let secs = by.as_secs_f64();
        for (job, r) in &self.running {
            if !r.stopping {
                let d = self.done.entry(*job).or_insert(0.0);
                *d = (*d + r.rate * secs).min(r.total as f64);
            }
        }
        self.now += by;
    }

    /// Iterations a job has done so far, across attempts.
    pub fn iterations(&self, job: JobId) -> u64 {
        self.done.get(&job).map_or(0, |d| d.floor() as u64)
    }
}

impl<T: ThroughputModel> Executor for SimExecutor<T> {
    fn inventory(&self) -> &Inventory {
        &self.inventory
    }

    fn launch(&mut self, launch: &Launch<'_>) -> Result<String, ExecError> {
        if self.running.contains_key(&launch.job) {
            return Err(ExecError::new(format!(
                "job {} is already running",
                launch.job
            )));
        }
        if launch.gpus.is_empty() || launch.gpus.iter().any(|g| !self.cluster.contains(*g)) {
            return Err(ExecError::new(format!(
                "job {}: GPUs {:?} do not exist",
                launch.job, launch.gpus
            )));
        }
        // Iterations: as submitted, else one per second of work.
        let total = launch
            .total_iterations
            .unwrap_or_else(|| launch.spec.work_s.ceil().max(1.0) as u64);
        let iteration_s = launch.spec.work_s / total as f64;
        let job = Job::new(launch.job, launch.spec.clone(), Time::ZERO);
        let speed = self.throughput.speed(&job, launch.gpus, &self.cluster);
        if !(speed.is_finite() && speed > 0.0 && iteration_s > 0.0) {
            return Err(ExecError::new(format!(
                "job {}: no progress possible (speed {speed})",
                launch.job
            )));
        }
        if !launch.resume {
            self.done.insert(launch.job, 0.0);
        }
        self.running.insert(
            launch.job,
            Running {
                attempt: launch.attempt,
                rate: speed / iteration_s,
                total,
                started_reported: false,
                reported: u64::MAX,
                stopping: false,
            },
        );
        Ok(format!("sim:{}:{}", launch.job, launch.attempt))
    }

    fn preempt(&mut self, job: JobId, _grace: Duration) -> Result<(), ExecError> {
        match self.running.get_mut(&job) {
            Some(r) => {
                // The simulated job checkpoints what it has done and exits at once.
                r.stopping = true;
                Ok(())
            }
            None => Err(ExecError::new(format!("job {job} is not running"))),
        }
    }

    fn poll(&mut self, out: &mut Vec<ExecEvent>) -> Result<(), ExecError> {
        let mut ended = Vec::new();
        for (&job, r) in &mut self.running {
            if !r.started_reported {
                r.started_reported = true;
                out.push(ExecEvent::Started {
                    job,
                    attempt: r.attempt,
                });
            }
            let done = self.done.get(&job).copied().unwrap_or(0.0);
            let iterations = done.floor() as u64;
            if iterations != r.reported {
                r.reported = iterations;
                out.push(ExecEvent::Progress {
                    job,
                    attempt: r.attempt,
                    iterations,
                });
            }
            if r.stopping {
                ended.push(job);
                out.push(ExecEvent::Exited {
                    job,
                    attempt: r.attempt,
                    status: ExitStatus::Signal(15),
                });
            } else if iterations >= r.total {
                ended.push(job);
                out.push(ExecEvent::Exited {
                    job,
                    attempt: r.attempt,
                    status: ExitStatus::Code(0),
                });
            }
        }
        for job in ended {
            self.running.remove(&job);
        }
        Ok(())
    }

    fn name(&self) -> String {
        "sim".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blox_core::{GpuId, JobSpec};

    fn events(x: &mut SimExecutor) -> Vec<ExecEvent> {
        let mut v = Vec::new();
        x.poll(&mut v).unwrap();
        v
    }

    #[test]
    fn launches_progress_preempt_and_resume_from_the_checkpoint() {
        let mut x = SimExecutor::new(&ClusterSpec::uniform(1, 2));
        assert_eq!(x.inventory().total_gpus(), 2);
        let spec = JobSpec::new(Time::ZERO, 1, 100.0);
        let gpus = [GpuId(1)];
        let l =
            Launch::new(JobId(0), 0, &spec, "train", &gpus, false).with_total_iterations(Some(50));
        assert_eq!(x.launch(&l).unwrap(), "sim:0:0");
        assert!(x.launch(&l).is_err(), "one launch per job at a time");
        let e = events(&mut x);
        assert!(matches!(
            e[0],
            ExecEvent::Started {
                job: JobId(0),
                attempt: 0
            }
        ));
        x.advance(Duration::from_secs(40)); // 2 s per iteration: 20 done
        assert_eq!(x.iterations(JobId(0)), 20);
        x.preempt(JobId(0), Duration::from_secs(5)).unwrap();
        let e = events(&mut x);
        assert!(e
            .iter()
            .any(|e| matches!(e, ExecEvent::Progress { iterations: 20, .. })));
        assert!(e.iter().any(|e| matches!(
            e,
            ExecEvent::Exited {
                status: ExitStatus::Signal(15),
                ..
            }
        )));
        x.advance(Duration::from_secs(100)); // stopped: no progress
        assert_eq!(x.iterations(JobId(0)), 20);
        // Resume: 30 iterations left, 60 s.
        let l =
            Launch::new(JobId(0), 1, &spec, "train", &gpus, true).with_total_iterations(Some(50));
        x.launch(&l).unwrap();
        x.advance(Duration::from_secs(59));
        assert!(!events(&mut x)
            .iter()
            .any(|e| matches!(e, ExecEvent::Exited { .. })));
        x.advance(Duration::from_secs(1));
        let e = events(&mut x);
        assert!(e.iter().any(|e| matches!(
            e,
            ExecEvent::Exited {
                attempt: 1,
                status: ExitStatus::Code(0),
                ..
            }
        )));
        assert!(x.preempt(JobId(0), Duration::ZERO).is_err(), "it has ended");
        assert!(x
            .launch(&Launch::new(JobId(1), 0, &spec, "t", &[GpuId(7)], false))
            .is_err());
    }
}
