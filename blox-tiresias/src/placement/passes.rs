//! Tiresias' placement passes as [`PlacementPolicy`]s for the engine, under the `tiresias`
//! time model: `fifo`'s head-of-line pass over a persistent cluster, and the single-list
//! schedules' re-placement of every runnable job from an emptied cluster (with the memory leak).
//!
//! Tiresias' node choice lives in the [`PeerCluster`] bookkeeping; the engine's GPU ids only
//! need to be consistent (speed is constant), so running jobs keep their engine GPUs and new
//! starts take the lowest free ones.

use super::cluster::{PeerCluster, PeerScheme, Placement};
use super::spec::TiresiasClusterSpec;
use blox_core::{Ctx, Decisions, GpuId, JobId, PlacementPolicy, Schedule};

/// Lowest free GPUs once `stopped` jobs have released theirs, handed out in order.
pub(crate) struct FreeList(Vec<GpuId>);

impl FreeList {
    pub(crate) fn new(ctx: &Ctx<'_>, stopped: &[JobId]) -> Self {
        let mut free: Vec<GpuId> = (0..ctx.cluster.total_gpus())
            .map(GpuId)
            .filter(|&g| ctx.cluster.owner(g).map_or(true, |o| stopped.contains(&o)))
            .collect();
        free.reverse();
        FreeList(free)
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<Vec<GpuId>> {
        if n > self.0.len() {
            return None;
        }
        let mut gpus = self.0.split_off(self.0.len() - n);
        gpus.reverse();
        Some(gpus)
    }
}

/// Per-job placements and the order completions are released in.
#[derive(Clone, Debug)]
struct Book {
    cluster: PeerCluster,
    placements: Vec<Vec<Placement>>,
    /// Jobs believed active, in the order their completions are released.
    order: Vec<JobId>,
}

impl Book {
    fn new(spec: TiresiasClusterSpec, scheme: PeerScheme) -> Self {
        Book {
            cluster: PeerCluster::new(spec, scheme),
            placements: Vec::new(),
            order: Vec::new(),
        }
    }

    /// Give back what jobs that left the table hold, in `order`.
    fn release_completed(&mut self, ctx: &Ctx<'_>) {
        let mut keep = Vec::with_capacity(self.order.len());
        for &id in &self.order {
            if ctx.jobs.get(id).is_some() {
                keep.push(id);
            } else if let Some(p) = self.placements.get_mut(id.index()) {
                // Under `count` the counter is reset by the next `empty` anyway.
                let taken = std::mem::take(p);
                let gpus: i64 = taken.iter().flat_map(|pl| pl.iter().map(|t| t.gpus)).sum();
                self.cluster.release(gpus, &taken);
            }
        }
        self.order = keep;
    }

    fn slot(&mut self, id: JobId) -> &mut Vec<Placement> {
        if self.placements.len() <= id.index() {
            self.placements.resize(id.index() + 1, Vec::new());
        }
        &mut self.placements[id.index()]
    }
}

/// `fifo` (`one_queue_fifo_sim_jobs`): completed jobs give their resources back; then, if any
/// GPU is free, waiting jobs in arrival (id) order are placed by the scheme until the first
/// that does not fit (head-of-line blocking). Running jobs are never stopped.
#[derive(Clone, Debug)]
pub struct PeerFifo {
    book: Book,
    gpus: Vec<i64>,
}

impl PeerFifo {
    /// Tiresias' `fifo` on this cluster with this scheme.
    pub fn new(spec: TiresiasClusterSpec, scheme: PeerScheme) -> Self {
        PeerFifo {
            book: Book::new(spec, scheme),
            gpus: Vec::new(),
        }
    }
}

impl PlacementPolicy for PeerFifo {
    fn place(&mut self, ctx: &Ctx<'_>, _schedule: &Schedule, out: &mut Decisions) {
        // Completions in start order; count releases go by GPUs, so keep each job's count.
        let mut keep = Vec::with_capacity(self.book.order.len());
        for &id in &self.book.order.clone() {
            if ctx.jobs.get(id).is_some() {
                keep.push(id);
            } else {
                let taken = std::mem::take(self.book.slot(id));
                let g = self.gpus.get(id.index()).copied().unwrap_or(0);
                self.book.cluster.release(g, &taken);
            }
        }
        self.book.order = keep;
        if self.book.cluster.free_gpus() <= 0 {
            return;
        }
        let mut free = FreeList::new(ctx, &[]);
        for job in ctx.jobs.iter().filter(|j| !j.is_running()) {
            let g = i64::from(job.spec.n_gpus);
            let Some(p) = self.book.cluster.place(g) else {
                break;
            };
            let Some(gpus) = free.take(job.spec.n_gpus as usize) else {
                break;
            };
            self.book.slot(job.id).push(p);
            if self.gpus.len() <= job.id.index() {
                self.gpus.resize(job.id.index() + 1, 0);
            }
            self.gpus[job.id.index()] = g;
            self.book.order.push(job.id);
            out.start(job.id, &gpus);
        }
    }

    fn name(&self) -> String {
        format!("fifo/{}", self.book.cluster.scheme())
    }
}

/// `sjf`, `shortest`, `shortest-gpu` (`smallest_first_sim_jobs`, `shortest_first_sim_jobs`):
/// completed jobs give their last placement back; the cluster is emptied (GPUs and CPUs, not
/// memory); every job of the schedule, in its order, is offered to the scheme (a running one
/// first drops its placement). Placed jobs run; running jobs that fail are stopped; a failure
/// never stops the scan (back-filling). The schedule must list every active job.
#[derive(Clone, Debug)]
pub struct PeerReplace {
    book: Book,
}

impl PeerReplace {
    /// The single-list pass on this cluster with this scheme.
    pub fn new(spec: TiresiasClusterSpec, scheme: PeerScheme) -> Self {
        PeerReplace {
            book: Book::new(spec, scheme),
        }
    }
}

impl PlacementPolicy for PeerReplace {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        self.book.release_completed(ctx);
        self.book.cluster.empty();
        let mut runs = Vec::new();
        for a in schedule.iter() {
            let Some(job) = ctx.jobs.get(a.job) else {
                continue;
            };
            if job.is_running() {
                self.book.slot(a.job).clear();
            }
            match self.book.cluster.place(i64::from(job.spec.n_gpus)) {
                Some(p) => {
                    self.book.slot(a.job).push(p);
                    if !job.is_running() {
                        runs.push(a.job);
                    }
                }
                None => {
                    if job.is_running() {
                        out.stop.push(a.job);
                    }
                }
            }
        }
        self.book.order = schedule.iter().map(|a| a.job).collect();
        let mut free = FreeList::new(ctx, &out.stop);
        for id in runs {
            let n = ctx.jobs.get(id).map_or(0, |j| j.spec.n_gpus as usize);
            if let Some(gpus) = free.take(n) {
                out.start(id, &gpus);
            }
        }
    }

    fn name(&self) -> String {
        format!("replace/{}", self.book.cluster.scheme())
    }
}
