//! What a Python component sees: [`Context`] (the round's time, the cluster and the active jobs)
//! and [`Queue`] (the jobs waiting for admission), read-only snapshots.
//!
//! The engine's `Ctx` borrows the live state for the length of one call, so a Python object
//! cannot hold it. A snapshot copies the job table into plain column vectors (no Python objects:
//! a few microseconds for a hundred jobs) and turns a column into a Python tuple only when the
//! component asks for it. Per-GPU arrays (owner, node, type) are copied only for placement
//! calls, which need them.

use crate::api::{
    Cluster, ClusterParseError, ClusterSpec, Ctx, GpuId, GpuTypeId, Job, JobId, JobSpec, JobTable,
    NodeId, QueuedJob, Time, PRIORITY_NORMAL,
};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// The active jobs as columns, in id order (the engine's job table).
#[derive(Debug, Default)]
pub(crate) struct JobCols {
    pub(crate) job_id: Vec<u32>,
    arrival_s: Vec<f64>,
    admitted_s: Vec<f64>,
    pub(crate) n_gpus: Vec<u32>,
    work_s: Vec<f64>,
    executed_s: Vec<f64>,
    remaining_s: Vec<f64>,
    attained_gpu_s: Vec<f64>,
    attained_wall_s: Vec<f64>,
    priority: Vec<u32>,
    running: Vec<bool>,
    time_since_scheduled_s: Vec<f64>,
    first_start_s: Vec<Option<f64>>,
    last_start_s: Vec<Option<f64>>,
    preemptions: Vec<u32>,
    class_id: Vec<u32>,
    elastic: Vec<bool>,
    model: Vec<Option<Arc<str>>>,
    tenant: Vec<Option<Arc<str>>>,
    iterations_done: Vec<u64>,
    speedup: Vec<f64>,
    /// GPUs of job `i`: `gpus[gpu_start[i]..gpu_start[i + 1]]`.
    gpus: Vec<u32>,
    gpu_start: Vec<u32>,
}

impl JobCols {
    fn of(table: &JobTable) -> JobCols {
        let n = table.len();
        let mut c = JobCols {
            job_id: Vec::with_capacity(n),
            arrival_s: Vec::with_capacity(n),
            admitted_s: Vec::with_capacity(n),
            n_gpus: Vec::with_capacity(n),
            work_s: Vec::with_capacity(n),
            executed_s: Vec::with_capacity(n),
            remaining_s: Vec::with_capacity(n),
            attained_gpu_s: Vec::with_capacity(n),
            attained_wall_s: Vec::with_capacity(n),
            priority: Vec::with_capacity(n),
            running: Vec::with_capacity(n),
            time_since_scheduled_s: Vec::with_capacity(n),
            first_start_s: Vec::with_capacity(n),
            last_start_s: Vec::with_capacity(n),
            preemptions: Vec::with_capacity(n),
            class_id: Vec::with_capacity(n),
            elastic: Vec::with_capacity(n),
            model: Vec::with_capacity(n),
            tenant: Vec::with_capacity(n),
            iterations_done: Vec::with_capacity(n),
            speedup: Vec::with_capacity(n),
            gpus: Vec::new(),
            gpu_start: Vec::with_capacity(n + 1),
        };
        c.gpu_start.push(0);
        for j in table.iter() {
            c.push(j);
        }
        c
    }

    fn push(&mut self, j: &Job) {
        self.job_id.push(j.id.0);
        self.arrival_s.push(j.arrival().as_secs_f64());
        self.admitted_s.push(j.admitted_at.as_secs_f64());
        self.n_gpus.push(j.n_gpus());
        self.work_s.push(j.spec.work_s);
        self.executed_s.push(j.executed);
        self.remaining_s.push(j.remaining_work());
        self.attained_gpu_s.push(j.attained_gpu_s);
        self.attained_wall_s.push(j.attained_wall_s);
        self.priority.push(j.priority);
        self.running.push(j.is_running());
        self.time_since_scheduled_s
            .push(j.time_since_scheduled.as_secs_f64());
        self.first_start_s
            .push(j.first_start.map(Time::as_secs_f64));
        self.last_start_s.push(j.last_start.map(Time::as_secs_f64));
        self.preemptions.push(j.preemptions);
        self.class_id.push(j.spec.class_id);
        self.elastic.push(j.spec.elastic);
        self.model.push(j.spec.model.clone());
        self.tenant.push(j.spec.tenant.clone());
        self.iterations_done.push(j.iterations_done);
        self.speedup.push(j.speedup);
        self.gpus.extend(j.gpus.iter().map(|g| g.0));
        self.gpu_start.push(self.gpus.len() as u32);
    }

    fn gpus_of(&self, i: usize) -> &[u32] {
        &self.gpus[self.gpu_start[i] as usize..self.gpu_start[i + 1] as usize]
    }

    /// Position of job `id` (ids are ascending).
    pub(crate) fn position(&self, id: u32) -> Option<usize> {
        self.job_id.binary_search(&id).ok()
    }
}

/// Names of the job columns, in the order [`Context::columns`] gives them.
pub(crate) const JOB_COLUMNS: [&str; 22] = [
    "job_id",
    "arrival_s",
    "admitted_s",
    "n_gpus",
    "work_s",
    "executed_s",
    "remaining_s",
    "attained_gpu_s",
    "attained_wall_s",
    "priority",
    "running",
    "time_since_scheduled_s",
    "first_start_s",
    "last_start_s",
    "preemptions",
    "class_id",
    "elastic",
    "model",
    "tenant",
    "iterations_done",
    "speedup",
    "gpus",
];

/// Per-GPU and per-node facts, copied for placement calls.
#[derive(Debug, Default)]
struct ClusterCols {
    gpu_node: Vec<u32>,
    /// Owner job id per GPU (`None`: free or out of service).
    gpu_owner: Vec<Option<u32>>,
    gpu_available: Vec<bool>,
    gpu_type: Vec<Arc<str>>,
    node_gpus: Vec<u32>,
    node_type: Vec<Arc<str>>,
}

impl ClusterCols {
    fn of(c: &Cluster) -> ClusterCols {
        let types: Vec<Arc<str>> = (0..c.n_gpu_types())
            .map(|t| Arc::from(c.gpu_type_name(GpuTypeId(t as u32))))
            .collect();
        let total = c.total_gpus();
        let mut cols = ClusterCols::default();
        for g in 0..total {
            let gpu = GpuId(g);
            let node = c.node_of(gpu);
            cols.gpu_node.push(node.0);
            cols.gpu_owner.push(c.owner(gpu).map(|j| j.0));
            cols.gpu_available.push(c.is_available(gpu));
            cols.gpu_type.push(types[c.gpu_type(gpu).index()].clone());
        }
        for (k, n) in c.spec().nodes.iter().enumerate() {
            cols.node_gpus.push(n.gpus);
            let t = c.node_type(NodeId(k as u32));
            cols.node_type.push(types[t.index()].clone());
        }
        cols
    }
}

/// A live state kept for contexts built in Python ([`make_context`]), so that stock Rust
/// components can be run on exactly the same state (`bloxsim.testing`).
pub(crate) struct Live {
    pub(crate) cluster: Cluster,
    pub(crate) jobs: JobTable,
    pub(crate) now: Time,
    pub(crate) round: u64,
    pub(crate) round_len: Time,
}

impl Live {
    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx::new(
            self.now,
            self.round,
            self.round_len,
            &self.cluster,
            &self.jobs,
        )
    }
}

/// Everything a [`Context`] holds.
pub(crate) struct Snap {
    now_s: f64,
    round: u64,
    round_s: f64,
    total_gpus: u32,
    free_gpus: u32,
    available_gpus: u32,
    n_nodes: usize,
    gpu_demand: u64,
    pub(crate) jobs: JobCols,
    cluster: Option<ClusterCols>,
    pub(crate) live: Option<Live>,
}

impl Snap {
    /// A snapshot of `ctx`; with `cluster`, the per-GPU arrays too.
    pub(crate) fn of(ctx: &Ctx<'_>, cluster: bool) -> Snap {
        Snap {
            now_s: ctx.now.as_secs_f64(),
            round: ctx.round,
            round_s: ctx.round_len.as_secs_f64(),
            total_gpus: ctx.cluster.total_gpus(),
            free_gpus: ctx.cluster.free_gpus(),
            available_gpus: ctx.cluster.available_gpus(),
            n_nodes: ctx.cluster.n_nodes(),
            gpu_demand: ctx.jobs.gpu_demand(),
            jobs: JobCols::of(ctx.jobs),
            cluster: cluster.then(|| ClusterCols::of(ctx.cluster)),
            live: None,
        }
    }
}

/// A component's randomness: the seed of its own stream and a `random.Random` on it.
#[derive(Debug)]
pub(crate) struct Rand {
    pub(crate) run_seed: u64,
    pub(crate) seed: u64,
    pub(crate) random: Py<PyAny>,
}

fn tuple<'py, T, I>(py: Python<'py>, it: I) -> PyResult<Bound<'py, PyTuple>>
where
    I: IntoIterator<Item = T>,
    I::IntoIter: ExactSizeIterator,
    T: IntoPyObject<'py>,
{
    PyTuple::new(py, it)
}

/// The round as a Python component sees it: time, cluster and the active jobs, read-only.
///
/// Job facts are columns in job-id order (`ctx.job_id[i]`, `ctx.attained_gpu_s[i]`, …), built
/// as a tuple when asked for (bind a column to a local name rather than reading it in a loop);
/// `ctx.jobs` gives one light `Job` view per job and `ctx.job(job_id)` one job.
#[pyclass(frozen, module = "bloxsim._native", name = "Context")]
pub(crate) struct Context {
    pub(crate) snap: Arc<Snap>,
    rand: Option<Arc<Rand>>,
}

impl Context {
    pub(crate) fn new(snap: Snap, rand: Option<Arc<Rand>>) -> Context {
        Context {
            snap: Arc::new(snap),
            rand,
        }
    }

    fn cols(&self) -> PyResult<&ClusterCols> {
        self.snap.cluster.as_ref().ok_or_else(|| {
            PyValueError::new_err(
                "per-GPU facts are given to placement calls only (this context is a scheduling \
                 or admission one)",
            )
        })
    }

    fn column<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        let j = &self.snap.jobs;
        Ok(match name {
            "job_id" => tuple(py, j.job_id.iter().copied())?,
            "arrival_s" => tuple(py, j.arrival_s.iter().copied())?,
            "admitted_s" => tuple(py, j.admitted_s.iter().copied())?,
            "n_gpus" => tuple(py, j.n_gpus.iter().copied())?,
            "work_s" => tuple(py, j.work_s.iter().copied())?,
            "executed_s" => tuple(py, j.executed_s.iter().copied())?,
            "remaining_s" => tuple(py, j.remaining_s.iter().copied())?,
            "attained_gpu_s" => tuple(py, j.attained_gpu_s.iter().copied())?,
            "attained_wall_s" => tuple(py, j.attained_wall_s.iter().copied())?,
            "priority" => tuple(py, j.priority.iter().copied())?,
            "running" => tuple(py, j.running.iter().copied())?,
            "time_since_scheduled_s" => tuple(py, j.time_since_scheduled_s.iter().copied())?,
            "first_start_s" => tuple(py, j.first_start_s.iter().copied())?,
            "last_start_s" => tuple(py, j.last_start_s.iter().copied())?,
            "preemptions" => tuple(py, j.preemptions.iter().copied())?,
            "class_id" => tuple(py, j.class_id.iter().copied())?,
            "elastic" => tuple(py, j.elastic.iter().copied())?,
            "model" => tuple(py, j.model.iter().map(|m| m.as_deref()))?,
            "tenant" => tuple(py, j.tenant.iter().map(|m| m.as_deref()))?,
            "iterations_done" => tuple(py, j.iterations_done.iter().copied())?,
            "speedup" => tuple(py, j.speedup.iter().copied())?,
            "gpus" => {
                let mut v = Vec::with_capacity(j.job_id.len());
                for i in 0..j.job_id.len() {
                    v.push(tuple(py, j.gpus_of(i).iter().copied())?);
                }
                tuple(py, v)?
            }
            other => {
                return Err(PyKeyError::new_err(format!(
                    "no job column `{other}` (columns: {})",
                    JOB_COLUMNS.join(", ")
                )))
            }
        })
    }
}

#[pymethods]
impl Context {
    /// Job ids (admission order), ascending.
    #[getter]
    fn job_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "job_id")
    }
    /// Submission times, seconds.
    #[getter]
    fn arrival_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "arrival_s")
    }
    /// Admission times, seconds.
    #[getter]
    fn admitted_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "admitted_s")
    }
    /// GPUs requested.
    #[getter]
    fn n_gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "n_gpus")
    }
    /// Service demand in seconds at speed 1 (an oracle value: SRTF-like policies read it).
    #[getter]
    fn work_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "work_s")
    }
    /// Work done, seconds at speed 1.
    #[getter]
    fn executed_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "executed_s")
    }
    /// Work left (`work_s - executed_s`, at least 0).
    #[getter]
    fn remaining_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "remaining_s")
    }
    /// Attained service in GPU-seconds (exact semantics' LAS key).
    #[getter]
    fn attained_gpu_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "attained_gpu_s")
    }
    /// Attained service in wall-clock seconds (Blox's LAS key).
    #[getter]
    fn attained_wall_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "attained_wall_s")
    }
    /// Starvation class: 999 normally, 1 once a job has waited past the starvation threshold;
    /// order ascending by it first to keep Blox's starvation rule.
    #[getter]
    fn priority<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "priority")
    }
    /// Whether each job holds GPUs now.
    #[getter]
    fn running<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "running")
    }
    /// Seconds since each job last ran or was decided on.
    #[getter]
    fn time_since_scheduled_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "time_since_scheduled_s")
    }
    /// First start times, seconds (`None`: never started).
    #[getter]
    fn first_start_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "first_start_s")
    }
    /// Last (re)start times, seconds (`None`: never started).
    #[getter]
    fn last_start_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "last_start_s")
    }
    /// Preemptions so far.
    #[getter]
    fn preemptions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "preemptions")
    }
    /// Model class ids.
    #[getter]
    fn class_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "class_id")
    }
    /// Whether each job may run on another GPU count than it asked for.
    #[getter]
    fn elastic<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "elastic")
    }
    /// Model names (`None` when the workload gives none).
    #[getter]
    fn model<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "model")
    }
    /// Users or teams (`None` when unknown).
    #[getter]
    fn tenant<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "tenant")
    }
    /// Whole iterations done (workloads that count iterations).
    #[getter]
    fn iterations_done<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "iterations_done")
    }
    /// Host-resource speed-up of the job's latest allocation (1 unless a Synergy-style
    /// placement decided it).
    #[getter]
    fn speedup<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "speedup")
    }
    /// The GPU ids each job holds, one tuple per job (empty when waiting).
    #[getter]
    fn gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, "gpus")
    }
    /// The current round's time, seconds.
    #[getter]
    fn now_s(&self) -> f64 {
        self.snap.now_s
    }
    /// The round number (0, 1, …).
    #[getter]
    fn round(&self) -> u64 {
        self.snap.round
    }
    /// The round length, seconds.
    #[getter]
    fn round_s(&self) -> f64 {
        self.snap.round_s
    }
    /// GPUs of the cluster.
    #[getter]
    fn total_gpus(&self) -> u32 {
        self.snap.total_gpus
    }
    /// GPUs free now (in service and held by no job).
    #[getter]
    fn free_gpus(&self) -> u32 {
        self.snap.free_gpus
    }
    /// GPUs in service (total minus failed or drained ones).
    #[getter]
    fn available_gpus(&self) -> u32 {
        self.snap.available_gpus
    }
    /// Nodes of the cluster.
    #[getter]
    fn n_nodes(&self) -> usize {
        self.snap.n_nodes
    }
    /// Sum of the GPUs the active jobs request.
    #[getter]
    fn gpu_demand(&self) -> u64 {
        self.snap.gpu_demand
    }
    /// The run's seed (the scenario's `seed`).
    #[getter]
    fn run_seed(&self) -> Option<u64> {
        self.rand.as_ref().map(|r| r.run_seed)
    }
    /// This component's own seed: a stream of the run's seed named after the component, so the
    /// same scenario gives the same draws.
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.rand.as_ref().map(|r| r.seed)
    }
    /// A `random.Random` seeded with [`Context.seed`], the same object for the whole run: use it
    /// (not the `random` module) for randomness that keeps runs byte-identical.
    #[getter]
    fn random<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.rand.as_ref().map(|r| r.random.bind(py).clone())
    }

    /// Number of active jobs.
    fn __len__(&self) -> usize {
        self.snap.jobs.job_id.len()
    }

    /// One job column by name (see `JOB_COLUMNS`).
    fn col<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        self.column(py, name)
    }

    /// Every job column, as a dict of tuples.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for c in JOB_COLUMNS {
            d.set_item(c, self.column(py, c)?)?;
        }
        Ok(d)
    }

    /// The active jobs as a pandas DataFrame (one row per job, the columns of `columns()`).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pd = py.import("pandas")?;
        pd.getattr("DataFrame")?.call1((self.columns(py)?,))
    }

    /// One light view per active job, in id order.
    #[getter]
    fn jobs(slf: &Bound<'_, Self>) -> PyResult<Py<PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let n = me.snap.jobs.job_id.len();
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(Py::new(
                py,
                JobView {
                    snap: me.snap.clone(),
                    i,
                },
            )?);
        }
        Ok(PyTuple::new(py, v)?.unbind())
    }

    /// The active job with this id (KeyError if it is not active).
    fn job(&self, job_id: u32) -> PyResult<JobView> {
        match self.snap.jobs.position(job_id) {
            Some(i) => Ok(JobView {
                snap: self.snap.clone(),
                i,
            }),
            None => Err(PyKeyError::new_err(format!("job {job_id} is not active"))),
        }
    }

    /// Whether job `job_id` is active.
    fn __contains__(&self, job_id: u32) -> bool {
        self.snap.jobs.position(job_id).is_some()
    }

    /// Placement calls: the GPU ids that are free now, ascending.
    #[getter]
    fn free_gpu_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let c = self.cols()?;
        let free: Vec<u32> = (0..c.gpu_owner.len() as u32)
            .filter(|&g| c.gpu_owner[g as usize].is_none() && c.gpu_available[g as usize])
            .collect();
        tuple(py, free)
    }
    /// Placement calls: the node of each GPU.
    #[getter]
    fn gpu_node<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.gpu_node.iter().copied())
    }
    /// Placement calls: the job holding each GPU (`None`: free or out of service).
    #[getter]
    fn gpu_owner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.gpu_owner.iter().copied())
    }
    /// Placement calls: whether each GPU is in service.
    #[getter]
    fn gpu_available<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.gpu_available.iter().copied())
    }
    /// Placement calls: the type name of each GPU.
    #[getter]
    fn gpu_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.gpu_type.iter().map(|t| &**t))
    }
    /// Placement calls: GPUs per node.
    #[getter]
    fn node_gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.node_gpus.iter().copied())
    }
    /// Placement calls: the GPU type of each node.
    #[getter]
    fn node_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.cols()?.node_type.iter().map(|t| &**t))
    }

    fn __repr__(&self) -> String {
        format!(
            "Context(round={}, now_s={}, jobs={}, free_gpus={}/{})",
            self.snap.round,
            self.snap.now_s,
            self.snap.jobs.job_id.len(),
            self.snap.free_gpus,
            self.snap.total_gpus
        )
    }
}

/// One active job of a [`Context`], read-only.
#[pyclass(frozen, module = "bloxsim._native", name = "Job")]
pub(crate) struct JobView {
    snap: Arc<Snap>,
    i: usize,
}

#[pymethods]
impl JobView {
    /// Job id (admission order).
    #[getter]
    fn job_id(&self) -> u32 {
        self.snap.jobs.job_id[self.i]
    }
    /// Submission time, seconds.
    #[getter]
    fn arrival_s(&self) -> f64 {
        self.snap.jobs.arrival_s[self.i]
    }
    /// Admission time, seconds.
    #[getter]
    fn admitted_s(&self) -> f64 {
        self.snap.jobs.admitted_s[self.i]
    }
    /// GPUs requested.
    #[getter]
    fn n_gpus(&self) -> u32 {
        self.snap.jobs.n_gpus[self.i]
    }
    /// Service demand, seconds at speed 1 (oracle).
    #[getter]
    fn work_s(&self) -> f64 {
        self.snap.jobs.work_s[self.i]
    }
    /// Work done, seconds at speed 1.
    #[getter]
    fn executed_s(&self) -> f64 {
        self.snap.jobs.executed_s[self.i]
    }
    /// Work left, seconds at speed 1.
    #[getter]
    fn remaining_s(&self) -> f64 {
        self.snap.jobs.remaining_s[self.i]
    }
    /// Attained service, GPU-seconds.
    #[getter]
    fn attained_gpu_s(&self) -> f64 {
        self.snap.jobs.attained_gpu_s[self.i]
    }
    /// Attained service, wall-clock seconds.
    #[getter]
    fn attained_wall_s(&self) -> f64 {
        self.snap.jobs.attained_wall_s[self.i]
    }
    /// Starvation class (999 normal, 1 starved).
    #[getter]
    fn priority(&self) -> u32 {
        self.snap.jobs.priority[self.i]
    }
    /// Whether it holds GPUs.
    #[getter]
    fn running(&self) -> bool {
        self.snap.jobs.running[self.i]
    }
    /// Seconds since it last ran or was decided on.
    #[getter]
    fn time_since_scheduled_s(&self) -> f64 {
        self.snap.jobs.time_since_scheduled_s[self.i]
    }
    /// First start, seconds (`None`: never).
    #[getter]
    fn first_start_s(&self) -> Option<f64> {
        self.snap.jobs.first_start_s[self.i]
    }
    /// Last (re)start, seconds (`None`: never).
    #[getter]
    fn last_start_s(&self) -> Option<f64> {
        self.snap.jobs.last_start_s[self.i]
    }
    /// Preemptions so far.
    #[getter]
    fn preemptions(&self) -> u32 {
        self.snap.jobs.preemptions[self.i]
    }
    /// Model class id.
    #[getter]
    fn class_id(&self) -> u32 {
        self.snap.jobs.class_id[self.i]
    }
    /// Whether it may run on another GPU count.
    #[getter]
    fn elastic(&self) -> bool {
        self.snap.jobs.elastic[self.i]
    }
    /// Model name, if known.
    #[getter]
    fn model(&self) -> Option<&str> {
        self.snap.jobs.model[self.i].as_deref()
    }
    /// User or team, if known.
    #[getter]
    fn tenant(&self) -> Option<&str> {
        self.snap.jobs.tenant[self.i].as_deref()
    }
    /// Whole iterations done.
    #[getter]
    fn iterations_done(&self) -> u64 {
        self.snap.jobs.iterations_done[self.i]
    }
    /// Host-resource speed-up of its latest allocation.
    #[getter]
    fn speedup(&self) -> f64 {
        self.snap.jobs.speedup[self.i]
    }
    /// The GPU ids it holds (empty when waiting).
    #[getter]
    fn gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.snap.jobs.gpus_of(self.i).iter().copied())
    }

    fn __repr__(&self) -> String {
        let j = &self.snap.jobs;
        format!(
            "Job(job_id={}, n_gpus={}, arrival_s={}, attained_gpu_s={}, running={})",
            j.job_id[self.i],
            j.n_gpus[self.i],
            j.arrival_s[self.i],
            j.attained_gpu_s[self.i],
            if j.running[self.i] { "True" } else { "False" }
        )
    }
}

/// The jobs waiting for admission, oldest first (carried-over jobs, then this round's
/// arrivals), as columns; an admission policy returns indices into it.
#[pyclass(frozen, module = "bloxsim._native", name = "Queue")]
pub(crate) struct Queue {
    seq: Vec<u64>,
    arrival_s: Vec<f64>,
    n_gpus: Vec<u32>,
    work_s: Vec<f64>,
    model: Vec<Option<Arc<str>>>,
    tenant: Vec<Option<Arc<str>>>,
}

impl Queue {
    pub(crate) fn of(q: &[QueuedJob]) -> Queue {
        Queue {
            seq: q.iter().map(|j| j.seq).collect(),
            arrival_s: q.iter().map(|j| j.spec.arrival.as_secs_f64()).collect(),
            n_gpus: q.iter().map(|j| j.spec.n_gpus).collect(),
            work_s: q.iter().map(|j| j.spec.work_s).collect(),
            model: q.iter().map(|j| j.spec.model.clone()).collect(),
            tenant: q.iter().map(|j| j.spec.tenant.clone()).collect(),
        }
    }
}

#[pymethods]
impl Queue {
    /// Arrival sequence numbers (0, 1, … in arrival order).
    #[getter]
    fn seq<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.seq.iter().copied())
    }
    /// Submission times, seconds.
    #[getter]
    fn arrival_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.arrival_s.iter().copied())
    }
    /// GPUs requested.
    #[getter]
    fn n_gpus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.n_gpus.iter().copied())
    }
    /// Service demands, seconds at speed 1 (oracle).
    #[getter]
    fn work_s<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.work_s.iter().copied())
    }
    /// Model names.
    #[getter]
    fn model<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.model.iter().map(|m| m.as_deref()))
    }
    /// Users or teams.
    #[getter]
    fn tenant<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        tuple(py, self.tenant.iter().map(|m| m.as_deref()))
    }
    /// Jobs waiting.
    fn __len__(&self) -> usize {
        self.seq.len()
    }
    fn __repr__(&self) -> String {
        format!("Queue(jobs={})", self.seq.len())
    }
}

/// A value of column `name` for job `i`, from a Python mapping of sequences.
fn get<'py, T: for<'a> FromPyObject<'a, 'py>>(
    cols: &Bound<'py, PyDict>,
    name: &str,
    i: usize,
    default: T,
) -> PyResult<T> {
    match cols.get_item(name)? {
        None => Ok(default),
        Some(col) => {
            let v = col.get_item(i)?;
            if v.is_none() {
                Ok(default)
            } else {
                v.extract::<T>().map_err(|e| {
                    let e: PyErr = e.into();
                    PyValueError::new_err(format!("column `{name}`, row {i}: {e}"))
                })
            }
        }
    }
}

/// Build a [`Context`] from Python columns (a real engine state: cluster and job table), for
/// property tests and for running stock components on a state made in Python.
///
/// `jobs` maps column names of [`JOB_COLUMNS`] to equal-length sequences; `job_id`, `n_gpus`
/// and `work_s` are required, the rest default (not started, no service). A job with `gpus`
/// holds them (they must be free, of the cluster, and as many as it asks for unless elastic).
#[pyfunction]
#[pyo3(signature = (jobs, cluster = "4x4", now_s = 0.0, round = 0, round_s = 300.0, seed = None, placement = true))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn make_context(
    py: Python<'_>,
    jobs: &Bound<'_, PyDict>,
    cluster: &str,
    now_s: f64,
    round: u64,
    round_s: f64,
    seed: Option<u64>,
    placement: bool,
) -> PyResult<Context> {
    let spec: ClusterSpec = cluster
        .parse()
        .map_err(|e: ClusterParseError| PyValueError::new_err(e.0))?;
    let mut live_cluster = Cluster::new(spec);
    let t = |what: &str, s: f64| {
        Time::from_secs_f64_ceil(s)
            .ok_or_else(|| PyValueError::new_err(format!("{what}: `{s}` is not seconds ≥ 0")))
    };
    let n = match jobs.get_item("job_id")? {
        Some(c) => c.len()?,
        None => return Err(PyValueError::new_err("jobs needs a `job_id` column")),
    };
    let mut table = JobTable::new();
    let mut last: Option<u32> = None;
    for i in 0..n {
        let id: u32 = get(jobs, "job_id", i, 0)?;
        if last.is_some_and(|l| id <= l) {
            return Err(PyValueError::new_err(
                "job ids must be unique and ascending (the job table is in id order)",
            ));
        }
        last = Some(id);
        let n_gpus: u32 = get(jobs, "n_gpus", i, 1)?;
        let work: f64 = get(jobs, "work_s", i, 1.0)?;
        let mut spec = JobSpec::new(
            t("arrival_s", get(jobs, "arrival_s", i, 0.0)?)?,
            n_gpus,
            work,
        );
        spec.class_id = get(jobs, "class_id", i, 0)?;
        spec.elastic = get(jobs, "elastic", i, false)?;
        let model: Option<String> = get(jobs, "model", i, None)?;
        spec.model = model.map(Arc::from);
        let tenant: Option<String> = get(jobs, "tenant", i, None)?;
        spec.tenant = tenant.map(Arc::from);
        let admitted = t(
            "admitted_s",
            get(jobs, "admitted_s", i, spec.arrival.as_secs_f64())?,
        )?;
        let mut job = Job::new(JobId(id), spec, admitted);
        job.executed = get(jobs, "executed_s", i, 0.0)?;
        job.attained_gpu_s = get(jobs, "attained_gpu_s", i, 0.0)?;
        job.attained_wall_s = get(jobs, "attained_wall_s", i, 0.0)?;
        job.priority = get(jobs, "priority", i, PRIORITY_NORMAL)?;
        job.time_since_scheduled = t(
            "time_since_scheduled_s",
            get(jobs, "time_since_scheduled_s", i, 0.0)?,
        )?;
        job.preemptions = get(jobs, "preemptions", i, 0)?;
        let first: Option<f64> = get(jobs, "first_start_s", i, None)?;
        job.first_start = first.map(|s| t("first_start_s", s)).transpose()?;
        let last_start: Option<f64> = get(jobs, "last_start_s", i, None)?;
        job.last_start = last_start.map(|s| t("last_start_s", s)).transpose()?;
        let gpus: Vec<u32> = get(jobs, "gpus", i, Vec::new())?;
        if !gpus.is_empty() {
            let total = live_cluster.total_gpus();
            let ids: Vec<GpuId> = gpus.iter().map(|&g| GpuId(g)).collect();
            for g in &ids {
                if g.0 >= total || live_cluster.owner(*g).is_some() {
                    return Err(PyValueError::new_err(format!(
                        "job {id}: GPU {} is not a free GPU of the {total}-GPU cluster",
                        g.0
                    )));
                }
            }
            if !job.spec.elastic && ids.len() != job.n_gpus() as usize {
                return Err(PyValueError::new_err(format!(
                    "job {id} asks for {} GPUs and holds {}",
                    job.n_gpus(),
                    ids.len()
                )));
            }
            live_cluster.allocate(JobId(id), &ids);
            job.gpus = ids.into_iter().collect();
            if job.first_start.is_none() {
                job.first_start = Some(admitted);
            }
            if job.last_start.is_none() {
                job.last_start = job.first_start;
            }
        }
        table.push(job);
    }
    let live = Live {
        cluster: live_cluster,
        jobs: table,
        now: t("now_s", now_s)?,
        round,
        round_len: t("round_s", round_s)?,
    };
    let mut snap = Snap::of(&live.ctx(), placement);
    snap.live = Some(live);
    let rand = match seed {
        Some(s) => Some(Arc::new(Rand {
            run_seed: s,
            seed: s,
            random: py
                .import("random")?
                .getattr("Random")?
                .call1((s,))?
                .unbind(),
        })),
        None => None,
    };
    Ok(Context::new(snap, rand))
}
