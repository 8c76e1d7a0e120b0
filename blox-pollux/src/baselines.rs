//! The artifact's baselines (POLLUX-SEMANTICS §7): Tiresias+TunedJobs and
//! Optimus+Oracle+TunedJobs, deciding per round under the Pollux job model.

use std::collections::BTreeMap;

use crate::job::{ModelError, PolluxJob};
use crate::{Allocations, RoundInput, RoundPolicy};

/// Free GPUs per node in node order, dropping full nodes (Python's `Counter` subtraction), then
/// allocation by repeatedly taking the node with the most free GPUs (lowest id on ties).
struct FreeGpus(Vec<(u32, u32)>);

impl FreeGpus {
    fn new(nodes: u32, gpus_per_node: u32, used: &Allocations) -> FreeGpus {
        let mut count = vec![0u32; nodes as usize];
        for alloc in used.values() {
            for &n in alloc {
                if let Some(c) = count.get_mut(n as usize) {
                    *c += 1;
                }
            }
        }
        FreeGpus(
            (0..nodes)
                .filter_map(|n| {
                    let free = gpus_per_node.saturating_sub(count[n as usize]);
                    (free > 0).then_some((n, free))
                })
                .collect(),
        )
    }

    fn take(&mut self, want: u32) -> Vec<u32> {
        let mut out = Vec::with_capacity(want as usize);
        while (out.len() as u32) < want {
            // The first maximum, as Python's `max` returns it.
            let Some(best) = self
                .0
                .iter_mut()
                .fold(None::<&mut (u32, u32)>, |b, e| match b {
                    Some(b) if b.1 >= e.1 => Some(b),
                    _ => Some(e),
                })
                .filter(|b| b.1 > 0)
            else {
                break;
            };
            let num = best.1.min(want - out.len() as u32);
            out.extend(std::iter::repeat(best.0).take(num as usize));
            best.1 -= num;
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Running,
    Pending,
}

/// Tiresias with two queues, a 16 GPU-hour demotion threshold, no starvation promotion, FIFO
/// within a queue, gang-scheduled at the workload's tuned GPU count.
#[derive(Debug, Default)]
pub struct Tiresias {
    queue0: Vec<usize>,
    queue1: Vec<usize>,
    status: BTreeMap<usize, Status>,
    last_check: BTreeMap<usize, i64>,
    executed: BTreeMap<usize, i64>,
}

/// Tiresias's demotion threshold in GPU-seconds (16 GPU-hours).
pub const TIRESIAS_THRESHOLD: i64 = 16 * 3600;

impl Tiresias {
    /// A fresh policy.
    pub fn new() -> Tiresias {
        Tiresias::default()
    }
}

impl RoundPolicy for Tiresias {
    fn name(&self) -> &str {
        "tiresias"
    }

    fn optimize(&mut self, input: &RoundInput<'_>) -> Result<Allocations, ModelError> {
        let now = input.now;
        let active: BTreeMap<usize, &PolluxJob> = input.jobs.iter().map(|&(i, j)| (i, j)).collect();
        let want = |i: usize| active[&i].target_num_replicas.unwrap_or(1);
        self.queue0.retain(|k| active.contains_key(k));
        self.queue1.retain(|k| active.contains_key(k));
        self.status.retain(|k, _| active.contains_key(k));
        let mut allocations: Allocations = input
            .prev
            .iter()
            .filter(|(k, _)| active.contains_key(k))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        for &(k, _) in &input.jobs {
            if let std::collections::btree_map::Entry::Vacant(e) = self.status.entry(k) {
                e.insert(Status::Pending);
                self.queue0.push(k);
            }
        }
        for &(k, _) in &input.jobs {
            let last = self.last_check.get(&k).copied().unwrap_or(0);
            let tmp = now - last;
            self.last_check.insert(k, now);
            if self.status[&k] == Status::Running {
                let ex = self.executed.entry(k).or_insert(0);
                *ex += tmp;
                let gputime = *ex * i64::from(want(k));
                if gputime >= TIRESIAS_THRESHOLD {
                    if let Some(pos) = self.queue0.iter().position(|&q| q == k) {
                        self.queue0.remove(pos);
                        self.queue1.push(k);
                    }
                }
            }
        }
        let total = input.nodes * input.gpus_per_node;
        let mut free = total;
        for &k in self.queue0.iter().chain(&self.queue1) {
            if want(k) <= free {
                self.status.insert(k, Status::Running);
                free -= want(k);
            } else {
                self.status.insert(k, Status::Pending);
                allocations.remove(&k);
            }
        }
        let mut gpus = FreeGpus::new(input.nodes, input.gpus_per_node, &allocations);
        for &k in self.queue0.iter().chain(&self.queue1) {
            if self.status[&k] == Status::Running && allocations.get(&k).map_or(true, Vec::is_empty)
            {
                let a = gpus.take(want(k));
                allocations.insert(k, a);
            }
        }
        Ok(allocations)
    }
}

/// Optimus+Oracle+TunedJobs: one GPU each in job order, then GPUs one at a time to the largest
/// marginal reduction of remaining time (true step times on packed placements, remaining
/// iterations from the validation traces).
#[derive(Debug, Default)]
pub struct Optimus;

impl Optimus {
    /// Predicted step time with `n` GPUs on a packed placement (nodes filled to 4), with the
    /// artifact's rule that one GPU always accumulates at least once.
    fn predict(job: &PolluxJob, n: u32) -> Result<f64, ModelError> {
        let app = &job.app;
        let mut placement = Vec::new();
        let mut left = n;
        while left > 0 {
            let g = left.min(4);
            placement.push(g);
            left -= g;
        }
        let batch = job.target_batch_size.unwrap_or(app.init_batch_size) as f64;
        let local = (batch / f64::from(n) - 1e-8).ceil();
        let mut accum = ((local / app.max_local_bsz as f64 - 1e-8).ceil() - 1.0).max(0.0) as u32;
        if n == 1 {
            accum = accum.max(1);
        }
        let mut atomic = (local / f64::from(accum + 1) - 1e-8).ceil() as u64;
        let count = u64::from(n) * u64::from(accum + 1);
        atomic = atomic.min(app.max_batch_size / count);
        let (st, sy) = app
            .step_time(&placement, atomic)
            .ok_or_else(|| ModelError {
                job: job.name.clone(),
                message: format!(
                    "Optimus: no step time for {placement:?} at per-GPU batch {atomic}"
                ),
            })?;
        Ok(st + (st - sy) * f64::from(accum))
    }
}

impl RoundPolicy for Optimus {
    fn name(&self) -> &str {
        "optimus"
    }

    fn optimize(&mut self, input: &RoundInput<'_>) -> Result<Allocations, ModelError> {
        let mut remaining = BTreeMap::new();
        let mut max_replicas = BTreeMap::new();
        for &(k, job) in &input.jobs {
            let app = &job.app;
            let batch = job.target_batch_size.unwrap_or(app.init_batch_size);
            let ce = app.completion_epoch();
            let rem = if ce <= job.epoch {
                1.0
            } else {
                app.iteration(batch, ce) - app.iteration(batch, job.epoch)
            };
            remaining.insert(k, rem);
            let mr = if app.name == "ncf" {
                1
            } else {
                (batch / app.min_local_bsz) as u32
            };
            max_replicas.insert(k, mr);
        }
        let mut num_gpus = i64::from(input.nodes * input.gpus_per_node);
        // Jobs in input order (sorted by min_replicas = 1 for all: a stable no-op).
        let mut num_replicas: Vec<(usize, u32)> = Vec::with_capacity(input.jobs.len());
        let mut gain: Vec<f64> = Vec::with_capacity(input.jobs.len());
        for &(k, job) in &input.jobs {
            if num_gpus < 1 {
                num_replicas.push((k, 0));
                gain.push(0.0);
                continue;
            }
            num_replicas.push((k, 1));
            num_gpus -= 1;
            if 2 > max_replicas[&k] || num_gpus < 1 {
                gain.push(0.0);
            } else {
                gain.push((Optimus::predict(job, 1)? - Optimus::predict(job, 2)?) * remaining[&k]);
            }
        }
        let jobs: Vec<&PolluxJob> = input.jobs.iter().map(|&(_, j)| j).collect();
        while num_gpus > 0 {
            let mut best = 0;
            for i in 1..gain.len() {
                if gain[i] > gain[best] {
                    best = i;
                }
            }
            if gain.is_empty() || gain[best] <= 0.0 {
                break;
            }
            let (k, ref mut n) = num_replicas[best];
            *n += 1;
            let n = *n;
            if n + 1 > max_replicas[&k] || num_gpus < 1 {
                gain[best] = 0.0;
            } else {
                gain[best] = (Optimus::predict(jobs[best], n)?
                    - Optimus::predict(jobs[best], n + 1)?)
                    * remaining[&k];
            }
            num_gpus -= 1;
        }
        let want: BTreeMap<usize, u32> = num_replicas.iter().copied().collect();
        let mut allocations: Allocations = input
            .prev
            .iter()
            .filter(|(k, v)| want.get(k).is_some_and(|&n| v.len() == n as usize))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let mut order = num_replicas.clone();
        order.sort_by_key(|&(_, n)| n);
        let mut gpus = FreeGpus::new(input.nodes, input.gpus_per_node, &allocations);
        for (k, n) in order {
            if n > 0 && allocations.get(&k).map_or(true, Vec::is_empty) {
                allocations.insert(k, gpus.take(n));
            }
        }
        Ok(allocations)
    }
}
