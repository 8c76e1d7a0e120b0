//! The Pollux job model and policies as Blox components: a shared state that is the engine's
//! [`IntervalModel`] (driven by `blox_sim::Pollux`), a [`SchedulingPolicy`] that runs one of the
//! artifact's policies on it, and a [`PlacementPolicy`] that turns the policy's node lists into
//! exact GPUs.
//!
//! The three share one [`PolluxShared`] handle: the time model credits progress through it, the
//! policy reads the jobs' fitted models, epochs and restarts from it, and the placement realises
//! the decided allocation. A job's allocation order (which node first) is kept as the policy
//! decided it, because the artifact's step-time lookup depends on it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use blox_core::{
    Ctx, Decisions, GpuId, JobId, JobSpec, PlacementPolicy, Schedule, SchedulingPolicy, Seed, Time,
};

use crate::job::PolluxJob;
use crate::sim::{interference_of, placement_of, JobSetup};
use crate::trace::TraceError;
use crate::workload::{Applications, WorkloadJob};
use crate::IntervalModel;
use crate::{Allocations, RoundInput, RoundPolicy};

/// Cluster shape and knobs the shared model needs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SharedConfig {
    /// Nodes.
    pub nodes: u32,
    /// GPUs per node (the cluster must be uniform).
    pub gpus_per_node: u32,
    /// Goodput lost by a distributed job sharing a node with another distributed job.
    pub interference: f64,
    /// How the workload's tuned columns are used.
    pub setup: JobSetup,
}

impl SharedConfig {
    /// A configuration for `nodes` × `gpus_per_node` GPUs.
    pub fn new(nodes: u32, gpus_per_node: u32, setup: JobSetup) -> SharedConfig {
        SharedConfig {
            nodes,
            gpus_per_node,
            interference: 0.0,
            setup,
        }
    }
}

#[derive(Debug)]
struct State {
    rows: BTreeMap<String, WorkloadJob>,
    apps: Applications,
    config: SharedConfig,
    interval: i64,
    /// By job index (= JobId index).
    jobs: Vec<Option<PolluxJob>>,
    /// Current node lists of running jobs.
    alloc: Allocations,
    /// The last decision's node lists.
    pending: Allocations,
    error: Option<String>,
}

/// The Pollux job model shared by the engine's time model and the Pollux components.
#[derive(Debug, Clone)]
pub struct PolluxShared(Arc<Mutex<State>>);

impl PolluxShared {
    /// A model for the jobs of the workload file `workload` (matched by name to the engine's
    /// jobs through `source_id`), with applications from the trace directory `traces`.
    pub fn new(
        workload: &Path,
        traces: &Path,
        config: SharedConfig,
    ) -> Result<PolluxShared, TraceError> {
        let rows = crate::read_workload(workload)?;
        let mut apps = Applications::new(traces);
        let mut by_name = BTreeMap::new();
        for r in rows {
            apps.get(&r.application).map_err(|e| TraceError {
                path: workload.to_path_buf(),
                line: r.line,
                message: format!("field `application`: {e}"),
            })?;
            by_name.insert(r.name.clone(), r);
        }
        Ok(PolluxShared(Arc::new(Mutex::new(State {
            rows: by_name,
            apps,
            config,
            interval: 60,
            jobs: Vec::new(),
            alloc: Allocations::new(),
            pending: Allocations::new(),
            error: None,
        }))))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the state as it was at the panic; the run is
        // over then anyway.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The jobs' results so far: `(name, completion, restarts)` by job index.
    pub fn completions(&self) -> Vec<(String, Option<i64>, u32)> {
        self.lock()
            .jobs
            .iter()
            .flatten()
            .map(|j| {
                (
                    j.name.clone(),
                    j.completion_time,
                    j.num_restarts.unwrap_or(0),
                )
            })
            .collect()
    }

    fn node_of(&self, st: &State, gpu: GpuId) -> u32 {
        gpu.0 / st.config.gpus_per_node.max(1)
    }
}

impl IntervalModel for PolluxShared {
    fn begin(&mut self, interval: Time) -> Result<(), String> {
        let mut st = self.lock();
        st.interval = (interval.as_millis() / 1000) as i64;
        st.jobs.clear();
        st.alloc.clear();
        st.pending.clear();
        st.error = None;
        Ok(())
    }

    fn admitted(&mut self, id: JobId, spec: &JobSpec, now: Time) {
        let mut st = self.lock();
        let idx = id.index();
        if st.jobs.len() <= idx {
            st.jobs.resize_with(idx + 1, || None);
        }
        let name = spec.source_id.as_deref().unwrap_or_default().to_string();
        let Some(row) = st.rows.get(&name).cloned() else {
            st.error.get_or_insert_with(|| {
                format!(
                    "job {} (`{name}`) is not in the Pollux workload",
                    id.index()
                )
            });
            return;
        };
        let app = match st.apps.get(&row.application) {
            Ok(a) => a,
            Err(e) => {
                st.error.get_or_insert_with(|| e.to_string());
                return;
            }
        };
        let mut job = PolluxJob::new(row.name.clone(), app, row.time);
        job.current_time = (now.as_millis() / 1000) as i64;
        match st.config.setup {
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
        st.jobs[idx] = Some(job);
    }

    fn stopped(&mut self, id: JobId, _now: Time) {
        let mut st = self.lock();
        st.alloc.remove(&id.index());
        if let Some(Some(j)) = st.jobs.get_mut(id.index()) {
            j.reallocate(Vec::new());
        }
    }

    fn started(&mut self, id: JobId, gpus: &[GpuId], _now: Time) -> Result<(), String> {
        let mut st = self.lock();
        let idx = id.index();
        let mut want: Vec<u32> = gpus.iter().map(|&g| self.node_of(&st, g)).collect();
        // The decided node list keeps the policy's order; another placement's GPUs are taken
        // in the order given.
        if let Some(p) = st.pending.get(&idx) {
            let (mut a, mut b) = (p.clone(), want.clone());
            a.sort_unstable();
            b.sort_unstable();
            if a == b {
                want = p.clone();
            }
        }
        st.alloc.insert(idx, want.clone());
        match st.jobs.get_mut(idx) {
            Some(Some(j)) => {
                j.reallocate(placement_of(&want));
                Ok(())
            }
            _ => Err(format!("job {idx} started without a Pollux job model")),
        }
    }

    fn advance(&mut self, now: Time, completed: &mut Vec<(JobId, Time)>) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let inter = interference_of(&st.alloc, st.config.nodes, st.config.interference);
        let interval = st.interval;
        let now_s = (now.as_millis() / 1000) as i64;
        for (i, slot) in st.jobs.iter_mut().enumerate() {
            let Some(job) = slot else { continue };
            if job.completion_time.is_some() {
                continue;
            }
            // A job admitted at an earlier boundary is credited for the interval ending now.
            let dt = (now_s - job.current_time).min(interval);
            if dt <= 0 {
                continue;
            }
            if let Err(e) = job.step(dt, inter.get(&i).copied().unwrap_or(0.0)) {
                st.error.get_or_insert_with(|| e.to_string());
                continue;
            }
            if let Some(c) = job.completion_time {
                completed.push((JobId(i as u32), Time::from_secs(c.max(0) as u64)));
            }
        }
        // A job that completed held its GPUs to the end of this interval (its interference
        // counted above, as in the artifact's loop); from the boundary on it holds none, so it
        // interferes with nobody (the artifact's allocations keep only active jobs).
        for &(id, _) in completed.iter() {
            st.alloc.remove(&id.index());
        }
    }

    fn attained_gpu_seconds(&self, id: JobId) -> Option<f64> {
        let st = self.lock();
        st.jobs
            .get(id.index())
            .and_then(Option::as_ref)
            .map(|j| j.attained_service as f64)
    }

    fn error(&self) -> Option<String> {
        self.lock().error.clone()
    }
}

/// Runs one of the artifact's policies ([`crate::PolluxPolicy`], [`crate::Optimus`],
/// [`crate::Tiresias`]) on the shared model each round; the schedule lists every job given GPUs.
pub struct PolluxScheduling {
    shared: PolluxShared,
    policy: Box<dyn RoundPolicy + Send>,
    seed: Seed,
    round: u64,
}

impl PolluxScheduling {
    /// The policy `policy` on `shared`, drawing from `seed`.
    pub fn new(shared: PolluxShared, policy: Box<dyn RoundPolicy + Send>, seed: Seed) -> Self {
        PolluxScheduling {
            shared,
            policy,
            seed,
            round: 0,
        }
    }
}

impl SchedulingPolicy for PolluxScheduling {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let mut guard = self.shared.lock();
        let st = &mut *guard;
        let active: Vec<usize> = ctx.jobs.iter().map(|j| j.id.index()).collect();
        // The artifact's first decision is at the end of the first interval, and it decides
        // nothing when no job is active.
        if ctx.now == Time::ZERO || active.is_empty() {
            st.pending.clear();
            return;
        }
        let prev: Allocations = st
            .alloc
            .iter()
            .filter(|(k, _)| active.contains(k))
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        let jobs: Vec<(usize, &PolluxJob)> = active
            .iter()
            .filter_map(|&i| st.jobs.get(i).and_then(Option::as_ref).map(|j| (i, j)))
            .collect();
        let input = RoundInput {
            now: (ctx.now.as_millis() / 1000) as i64,
            round: self.round,
            jobs,
            prev: &prev,
            nodes: st.config.nodes,
            gpus_per_node: st.config.gpus_per_node,
            seed: self.seed,
        };
        self.round += 1;
        let decided = match self.policy.optimize(&input) {
            Ok(d) => d,
            Err(e) => {
                st.error.get_or_insert_with(|| e.to_string());
                prev.clone()
            }
        };
        for (k, a) in &decided {
            if !a.is_empty() {
                out.push(JobId(*k as u32), a.len() as u32);
            }
        }
        st.pending = decided;
    }

    fn name(&self) -> String {
        self.policy.name().to_string()
    }
}

/// Realises the decided node lists as GPUs: a job whose list changed is stopped (if running) and
/// started on free GPUs of the listed nodes (lowest ids first); others keep theirs.
pub struct PolluxPlacement {
    shared: PolluxShared,
}

impl PolluxPlacement {
    /// The placement for `shared`.
    pub fn new(shared: PolluxShared) -> Self {
        PolluxPlacement { shared }
    }
}

impl PlacementPolicy for PolluxPlacement {
    fn place(&mut self, ctx: &Ctx<'_>, _schedule: &Schedule, out: &mut Decisions) {
        let st = self.shared.lock();
        let gpn = st.config.gpus_per_node.max(1);
        let mut free = ctx.cluster.free_map();
        let mut starts: Vec<(JobId, Vec<u32>)> = Vec::new();
        for job in ctx.jobs.iter() {
            let k = job.id.index();
            let want = st.pending.get(&k).filter(|a| !a.is_empty());
            let have = st.alloc.get(&k).filter(|a| !a.is_empty());
            if want == have {
                continue;
            }
            if job.is_running() {
                out.stop.push(job.id);
                let gpus: Vec<GpuId> = job.gpus.iter().copied().collect();
                free.release(&gpus);
            }
            if let Some(w) = want {
                starts.push((job.id, w.clone()));
            }
        }
        for (id, nodes) in starts {
            let mut gpus: Vec<GpuId> = Vec::with_capacity(nodes.len());
            for &n in &nodes {
                let pick = (n * gpn..(n + 1) * gpn)
                    .map(GpuId)
                    .find(|g| free.is_free(*g) && !gpus.contains(g));
                if let Some(g) = pick {
                    gpus.push(g);
                }
            }
            if gpus.len() == nodes.len() {
                free.occupy(&gpus);
                out.start(id, &gpus);
            }
        }
    }

    fn name(&self) -> String {
        "pollux-placement".into()
    }
}
