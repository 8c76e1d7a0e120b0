//! Decisions components return, as data: [`Admissions`], [`Schedule`], [`Decisions`].
//!
//! Each is a caller-owned buffer that the engine clears before every call and reuses across
//! rounds, so a component allocates nothing in the steady state.

use crate::ids::{GpuId, GpuTypeId, JobId};
use crate::job::GpuSet;

/// What an admission policy decided about the admission queue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Admissions {
    /// Indices into the queue slice of jobs to admit, **in the order they get ids**.
    pub admit: Vec<usize>,
    /// Indices into the queue slice of jobs to reject for good.
    pub reject: Vec<usize>,
}

impl Admissions {
    /// Empty both lists.
    pub fn clear(&mut self) {
        self.admit.clear();
        self.reject.clear();
    }
}

/// One entry of a schedule: a job and the GPUs the policy wants it to have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allocation {
    /// The job.
    pub job: JobId,
    /// How many GPUs it should run on. For a rigid job this is its request
    /// ([`crate::JobSpec::n_gpus`]); for an elastic job ([`crate::JobSpec::elastic`]) any count,
    /// where `0` means "should not run now". A placement that supports resizing stops a running
    /// elastic job whose count changed and starts it again on the new count; one that does not
    /// (Blox's "Place") leaves running jobs as they are.
    pub n_gpus: u32,
    /// The GPU type it should run on, for heterogeneity-aware policies (Gavel); `None`: any.
    /// The stock placements place such a job on GPUs of that type only, and move a running job
    /// that holds GPUs of another type when the type has room; Blox's "Place" (`BloxScattered`)
    /// ignores it.
    pub gpu_type: Option<GpuTypeId>,
}

/// A scheduling policy's output: active jobs, best first, each with a GPU count.
///
/// Placements walk it in order. A job the schedule leaves out is not started; whether a running
/// job left out is stopped is the placement's rule (Blox's "Place" never stops one).
///
/// # Settled entries
///
/// An entry is *settled* when its job is settled ([`crate::JobRow::is_settled`]: it runs on
/// exactly the GPUs it requested), it asks for that count and names no GPU type: a placement
/// that leaves running jobs where they are has nothing to do for it. A placement that decides
/// the same without the schedule's leading settled entries says so
/// ([`crate::PlacementPolicy::skips_settled`]); its policy may then leave them out
/// ([`crate::SchedulingPolicy::schedule_unsettled`]), so that a round where only a few jobs
/// arrived or finished costs those jobs, not every running one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Jobs in priority order, best first.
    pub entries: Vec<Allocation>,
}

impl Schedule {
    /// Empty the schedule.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Append a job, to run on any GPU type.
    #[inline]
    pub fn push(&mut self, job: JobId, n_gpus: u32) {
        self.entries.push(Allocation {
            job,
            n_gpus,
            gpu_type: None,
        });
    }

    /// Append a job that should run on GPUs of type `gpu_type`.
    #[inline]
    pub fn push_on(&mut self, job: JobId, n_gpus: u32, gpu_type: GpuTypeId) {
        self.entries.push(Allocation {
            job,
            n_gpus,
            gpu_type: Some(gpu_type),
        });
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Iterate over the entries in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Allocation> {
        self.entries.iter()
    }
}

/// The CPUs and host memory a placement gave a started job, and the speed-up that share gives
/// it (Synergy's allocation mechanisms decide all three together).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct HostShare {
    /// The job.
    pub job: JobId,
    /// CPU cores given, over all its nodes.
    pub cpus: f64,
    /// Host memory given in GB, over all its nodes.
    pub mem_gb: f64,
    /// Progress rate relative to the GPU-proportional share (1.0 at that share).
    pub speedup: f64,
}

impl HostShare {
    /// A share of `cpus` cores and `mem_gb` GB that makes `job` run `speedup` times as fast as
    /// at the GPU-proportional share.
    pub fn new(job: JobId, cpus: f64, mem_gb: f64, speedup: f64) -> Self {
        HostShare {
            job,
            cpus,
            mem_gb,
            speedup,
        }
    }
}

/// A placement's output: jobs to stop, then jobs to start on given GPUs.
///
/// The engine applies every stop before any start. A job may be in both lists (Blox relaunches a
/// victim in the same round when the GPUs allow it).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Decisions {
    /// Running jobs to stop (preempt), in the order chosen.
    pub stop: Vec<JobId>,
    /// Jobs to start, each with the exact GPUs it gets.
    pub start: Vec<(JobId, GpuSet)>,
    /// Host-resource shares of started jobs, for placements that share out CPUs and memory
    /// (at most one per started job; a started job without one gets no host-resource speed-up).
    /// Validation does not read it; time models that credit host-resource speed-ups do.
    pub host: Vec<HostShare>,
}

impl Decisions {
    /// Empty every list.
    pub fn clear(&mut self) {
        self.stop.clear();
        self.start.clear();
        self.host.clear();
    }

    /// Add a start.
    pub fn start(&mut self, job: JobId, gpus: &[GpuId]) {
        self.start.push((job, GpuSet::from_slice(gpus)));
    }
}

/// Scratch space for [`Decisions::validate`], reused across rounds so that validation allocates
/// nothing in the steady state.
#[derive(Clone, Debug, Default)]
pub struct ValidationScratch {
    /// Per table slot: bit 1 = stopped, bit 2 = started; all zero between calls (a call clears
    /// the marks it set), so a round does not clear one per active job.
    marks: Vec<u8>,
    /// One bit per GPU: claimed by a start in this decision (which one is looked up only when a
    /// second start claims it). A bit, not a job id, so that the set stays in the processor's
    /// cache at tens of thousands of GPUs; all zero between calls.
    claimed: Vec<u64>,
}

impl Decisions {
    /// Check the decisions against the live state, before anything is applied: stops name
    /// running jobs, once each; starts name active jobs that are not running (unless stopped in
    /// the same decision), once each, on at least one existing, available GPU that is free once the stops
    /// are applied and not given to another start; rigid jobs get exactly their request.
    ///
    /// The error says what is wrong, naming the job and GPU (e.g. `gives GPU 0 to both job 0
    /// and job 1`). Cost: O(stops + Σ GPUs started), plus O(n) when the table's slots outgrow
    /// the scratch.
    pub fn validate(
        &self,
        cluster: &crate::Cluster,
        jobs: &crate::JobTable,
        scratch: &mut ValidationScratch,
    ) -> Result<(), String> {
        if scratch.marks.len() < jobs.slot_bound() {
            scratch.marks.resize(jobs.slot_bound(), 0);
        }
        let words = (cluster.total_gpus() as usize).div_ceil(64);
        if scratch.claimed.len() != words {
            scratch.claimed = vec![0; words];
        }
        let result = self.validate_with(cluster, jobs, scratch);
        for id in self.stop.iter().chain(self.start.iter().map(|(id, _)| id)) {
            if let Some(m) = jobs.slot(*id).and_then(|p| scratch.marks.get_mut(p)) {
                *m = 0;
            }
        }
        for (_, gpus) in &self.start {
            for g in gpus {
                if let Some(c) = scratch.claimed.get_mut(g.index() / 64) {
                    *c = 0;
                }
            }
        }
        result
    }

    fn validate_with(
        &self,
        cluster: &crate::Cluster,
        jobs: &crate::JobTable,
        scratch: &mut ValidationScratch,
    ) -> Result<(), String> {
        const STOPPED: u8 = 1;
        const STARTED: u8 = 2;
        for &id in &self.stop {
            let Some(pos) = jobs.slot(id) else {
                return Err(format!("stops job {id}, which is not active"));
            };
            if !jobs.row(pos).is_running() {
                return Err(format!("stops job {id}, which is not running"));
            }
            if scratch.marks[pos] & STOPPED != 0 {
                return Err(format!("stops job {id} twice"));
            }
            scratch.marks[pos] |= STOPPED;
        }
        for (k, (id, gpus)) in self.start.iter().enumerate() {
            let Some(pos) = jobs.slot(*id) else {
                return Err(format!("starts job {id}, which is not active"));
            };
            let job = jobs.at(pos);
            if job.is_running() && scratch.marks[pos] & STOPPED == 0 {
                return Err(format!("starts job {id}, which is already running"));
            }
            if scratch.marks[pos] & STARTED != 0 {
                return Err(format!("starts job {id} twice"));
            }
            scratch.marks[pos] |= STARTED;
            if gpus.is_empty() {
                return Err(format!("starts job {id} on no GPU"));
            }
            if !job.spec.elastic && gpus.len() != job.spec.n_gpus as usize {
                return Err(format!(
                    "starts job {id} on {} GPUs but it is a rigid job of {}",
                    gpus.len(),
                    job.spec.n_gpus
                ));
            }
            for &g in gpus {
                if !cluster.contains(g) {
                    return Err(format!("gives job {id} GPU {g}, which does not exist"));
                }
                if !cluster.is_available(g) {
                    return Err(format!(
                        "gives job {id} GPU {g}, which is out of service (node {})",
                        cluster.node_of(g)
                    ));
                }
                if let Some(owner) = cluster.owner(g) {
                    let stopping = jobs
                        .slot(owner)
                        .is_some_and(|p| scratch.marks[p] & STOPPED != 0);
                    if !stopping {
                        return Err(format!("gives job {id} GPU {g}, held by job {owner}"));
                    }
                }
                let (word, bit) = (&mut scratch.claimed[g.index() / 64], 1 << (g.index() % 64));
                if *word & bit != 0 {
                    // Claimed by an earlier start, or earlier in this one's list.
                    let other = self.start[..k]
                        .iter()
                        .find(|(_, earlier)| earlier.contains(&g))
                        .map_or(*id, |(other, _)| *other);
                    return Err(format!("gives GPU {g} to both job {other} and job {id}"));
                }
                *word |= bit;
            }
        }
        Ok(())
    }
}
