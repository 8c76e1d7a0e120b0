//! Components written in Python: a scheduling policy, a placement or an admission policy as a
//! plain Python object, wrapped in a Rust struct that implements the `blox_core` trait and
//! calls the object with the GIL, registered by name into a `blox_scenario::Registry`.
//!
//! An exception raised by the Python object cannot travel through the engine (the traits
//! return no errors), so the wrapper stores it, with the round and time, in the run's
//! [`ErrorSlot`] and unwinds with an [`Abort`] payload (`resume_unwind`: no panic message). The
//! run's caller catches the unwind ([`guarded`]), and raises the stored exception as a
//! `bloxsim.PolicyError` whose `__cause__` is the original exception (with its traceback).
//! Nothing is written: output files are written only after a run completes.

use crate::api::{
    AdmissionPolicy, Admissions, BoxAdmission, BoxPlacement, BoxScheduling, ComponentSpec,
    ConfigError, Ctx, Decisions, GpuId, JobId, PlacementPolicy, QueuedJob, Registry, Schedule,
    SchedulingPolicy, Seed,
};
use crate::context::{Context, Queue, Rand, Snap};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// The roles a Python component can play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// `schedule(ctx) -> job ids or (job id, GPUs) pairs`.
    Policy,
    /// `place(ctx, schedule) -> {"stop": [...], "start": [(job id, [GPU ids]), ...]}`.
    Placement,
    /// `admit(ctx, queue) -> queue indices, or (admit, reject)`.
    Admission,
}

impl Role {
    fn word(self) -> &'static str {
        match self {
            Role::Policy => "policy",
            Role::Placement => "placement",
            Role::Admission => "admission policy",
        }
    }
    fn method(self) -> &'static str {
        match self {
            Role::Policy => "schedule",
            Role::Placement => "place",
            Role::Admission => "admit",
        }
    }
}

/// What a Python component raised, and where.
#[derive(Debug)]
pub(crate) struct PyFailure {
    /// The exception.
    pub(crate) err: PyErr,
    /// The registered name.
    pub(crate) component: String,
    /// Which role.
    pub(crate) role: Role,
    /// When (`None`: while it was being built).
    pub(crate) at: Option<(u64, f64)>,
}

impl PyFailure {
    /// A `bloxsim.PolicyError` saying which component failed where, caused by the original.
    pub(crate) fn into_pyerr(self, py: Python<'_>) -> PyErr {
        let what = match self.at {
            Some((round, t)) => format!(
                "{}() at round {round} (t = {} s)",
                self.role.method(),
                fmt_secs(t)
            ),
            None => "construction".to_string(),
        };
        let kind = self
            .err
            .get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "exception".into());
        let msg = format!(
            "Python {} `{}` raised {kind} in {what}: {}; the run stopped and wrote nothing",
            self.role.word(),
            self.component,
            self.err.value(py)
        );
        let err = crate::errors::new_error(
            py,
            "PolicyError",
            &msg,
            &[
                (
                    "component",
                    self.component
                        .clone()
                        .into_pyobject(py)
                        .ok()
                        .map(|o| o.into_any().unbind()),
                ),
                (
                    "round",
                    self.at
                        .map(|a| a.0)
                        .into_pyobject(py)
                        .ok()
                        .map(|o| o.into_any().unbind()),
                ),
                (
                    "time_s",
                    self.at
                        .map(|a| a.1)
                        .into_pyobject(py)
                        .ok()
                        .map(|o| o.into_any().unbind()),
                ),
            ],
        );
        err.set_cause(py, Some(self.err));
        err
    }
}

fn fmt_secs(t: f64) -> String {
    if t.fract() == 0.0 {
        format!("{}", t as u64)
    } else {
        format!("{t}")
    }
}

/// Where a run's Python components leave their first exception.
#[derive(Debug, Default)]
pub(crate) struct ErrorSlot(Mutex<Option<PyFailure>>);

impl ErrorSlot {
    fn put(&self, f: PyFailure) {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            *g = Some(f);
        }
    }
    /// The stored failure, if any.
    pub(crate) fn take(&self) -> Option<PyFailure> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// The unwind payload of a run stopped by a Python exception.
pub(crate) struct Abort;

/// How a guarded run ended.
pub(crate) enum Failure<E> {
    /// The run's own error.
    Run(E),
    /// A Python component raised.
    Python(PyFailure),
}

/// Run `f` (a simulation using components of `slot`'s run), turning a Python component's
/// exception into [`Failure::Python`]. Any other panic continues to unwind.
pub(crate) fn guarded<T, E>(
    slot: &ErrorSlot,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, Failure<E>> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => match slot.take() {
            // A component failed but the run went on (cannot happen: failures unwind); be safe.
            Some(p) => Err(Failure::Python(p)),
            None => Ok(v),
        },
        Ok(Err(e)) => match slot.take() {
            Some(p) => Err(Failure::Python(p)),
            None => Err(Failure::Run(e)),
        },
        Err(payload) => match (payload.is::<Abort>(), slot.take()) {
            (true, Some(p)) => Err(Failure::Python(p)),
            _ => resume_unwind(payload),
        },
    }
}

/// The Python components a run may name, by role: `name -> factory`.
#[derive(Debug, Default)]
pub(crate) struct PyRegs {
    entries: Vec<(Role, String, Py<PyAny>)>,
}

impl PyRegs {
    /// From the Python registry: `{"policy": {name: factory}, "placement": {...},
    /// "admission": {...}}`.
    pub(crate) fn from_dict(d: Option<&Bound<'_, PyDict>>) -> PyResult<PyRegs> {
        let mut entries = Vec::new();
        if let Some(d) = d {
            for (role, key) in [
                (Role::Policy, "policy"),
                (Role::Placement, "placement"),
                (Role::Admission, "admission"),
            ] {
                if let Some(m) = d.get_item(key)? {
                    let m = m.cast::<PyDict>()?;
                    for (name, factory) in m.iter() {
                        entries.push((role, name.extract::<String>()?, factory.unbind()));
                    }
                }
            }
        }
        Ok(PyRegs { entries })
    }

    /// Whether no Python component is registered.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A registry of these components for one run with seed `seed`, failing into `slot`.
    pub(crate) fn registry(&self, py: Python<'_>, seed: u64, slot: &Arc<ErrorSlot>) -> Registry {
        let mut reg = Registry::default();
        for (role, name, factory) in &self.entries {
            let b = Builder {
                role: *role,
                name: name.clone(),
                factory: factory.clone_ref(py),
                seed,
                slot: slot.clone(),
            };
            reg = match role {
                Role::Policy => reg.policy(name.clone(), move |spec, _env| {
                    b.build(spec)
                        .map(|c| Box::new(PyPolicy(c)) as BoxScheduling)
                }),
                Role::Placement => reg.placement(name.clone(), move |spec, _topology| {
                    b.build(spec)
                        .map(|c| Box::new(PyPlacement(c)) as BoxPlacement)
                }),
                Role::Admission => reg.admission(name.clone(), move |spec| {
                    b.build(spec)
                        .map(|c| Box::new(PyAdmission(c)) as BoxAdmission)
                }),
            };
        }
        reg
    }
}

/// Builds one Python component for a run.
struct Builder {
    role: Role,
    name: String,
    factory: Py<PyAny>,
    seed: u64,
    slot: Arc<ErrorSlot>,
}

impl Builder {
    /// Call the factory with the spec's parameters (`name:VALUE` as one positional argument,
    /// `name:key=value,...` as keyword arguments, all strings).
    fn build(&self, spec: &ComponentSpec<'_>) -> Result<PyComponent, ConfigError> {
        Python::attach(|py| {
            self.try_build(py, spec).map_err(|err| {
                let msg = format!("Python {} `{}`: {err}", self.role.word(), self.name);
                self.slot.put(PyFailure {
                    err,
                    component: self.name.clone(),
                    role: self.role,
                    at: None,
                });
                ConfigError::new(msg)
            })
        })
    }

    fn try_build(&self, py: Python<'_>, spec: &ComponentSpec<'_>) -> PyResult<PyComponent> {
        let kwargs = PyDict::new(py);
        for (k, v) in &spec.params {
            kwargs.set_item(*k, *v)?;
        }
        let args = match spec.value {
            Some(v) => PyTuple::new(py, [v])?,
            None => PyTuple::empty(py),
        };
        let obj = self.factory.bind(py).call(args, Some(&kwargs))?;
        let method = obj.getattr(self.role.method()).map_err(|_| {
            PyTypeError::new_err(format!(
                "the object `{}` built is not a {}: it has no `{}` method",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
                self.role.word(),
                self.role.method()
            ))
        })?;
        let stream = Seed(self.seed)
            .stream(&format!("python-{}:{}", self.role.word(), self.name))
            .next_u64();
        let random = py.import("random")?.getattr("Random")?.call1((stream,))?;
        Ok(PyComponent {
            method: method.unbind(),
            name: self.name.clone(),
            role: self.role,
            rand: Arc::new(Rand {
                run_seed: self.seed,
                seed: stream,
                random: random.unbind(),
            }),
            slot: self.slot.clone(),
            seen: Vec::new(),
        })
    }
}

/// A Python object in one role, with its bound method and random stream.
struct PyComponent {
    method: Py<PyAny>,
    name: String,
    role: Role,
    rand: Arc<Rand>,
    slot: Arc<ErrorSlot>,
    /// Scratch: which table positions a schedule listed.
    seen: Vec<bool>,
}

impl PyComponent {
    /// Store the exception and stop the run (see the module docs).
    fn fail(&self, err: PyErr, ctx: &Ctx<'_>) -> ! {
        self.slot.put(PyFailure {
            err,
            component: self.name.clone(),
            role: self.role,
            at: Some((ctx.round, ctx.now.as_secs_f64())),
        });
        resume_unwind(Box::new(Abort))
    }

    fn context(&self, ctx: &Ctx<'_>) -> Context {
        Context::new(
            Snap::of(ctx, self.role == Role::Placement),
            Some(self.rand.clone()),
        )
    }
}

/// A scheduling policy written in Python.
struct PyPolicy(PyComponent);
/// A placement written in Python.
struct PyPlacement(PyComponent);
/// An admission policy written in Python.
struct PyAdmission(PyComponent);

impl SchedulingPolicy for PyPolicy {
    fn schedule(&mut self, ctx: &Ctx<'_>, out: &mut Schedule) {
        let c = &mut self.0;
        let r = Python::attach(|py| -> PyResult<()> {
            let ret = c.method.bind(py).call1((c.context(ctx),))?;
            fill_schedule(&ret, ctx, out, &mut c.seen)
        });
        if let Err(e) = r {
            self.0.fail(e, ctx);
        }
    }
    fn name(&self) -> String {
        self.0.name.clone()
    }
}

/// Read a policy's return value into `out`: job ids (each on the GPUs it asks for), or
/// `(job_id, n_gpus)` / `(job_id, n_gpus, gpu_type)` tuples, best first.
pub(crate) fn fill_schedule(
    ret: &Bound<'_, PyAny>,
    ctx: &Ctx<'_>,
    out: &mut Schedule,
    seen: &mut Vec<bool>,
) -> PyResult<()> {
    seen.clear();
    seen.resize(ctx.jobs.slot_bound(), false);
    let mut add = |item: &Bound<'_, PyAny>| -> PyResult<()> {
        let (id, n, ty) = if item.is_instance_of::<PyInt>() {
            (item.extract::<u32>()?, None, None)
        } else if let Ok(t) = item.cast::<PyTuple>() {
            match t.len() {
                2 => (
                    t.get_item(0)?.extract::<u32>()?,
                    Some(t.get_item(1)?.extract::<u32>()?),
                    None,
                ),
                3 => (
                    t.get_item(0)?.extract::<u32>()?,
                    Some(t.get_item(1)?.extract::<u32>()?),
                    Some(t.get_item(2)?.extract::<String>()?),
                ),
                k => {
                    return Err(PyTypeError::new_err(format!(
                        "a schedule entry is a job id, (job_id, n_gpus) or (job_id, n_gpus, \
                         gpu_type); got a tuple of {k}"
                    )))
                }
            }
        } else {
            // numpy integers and other integer-likes.
            (
                item.extract::<u32>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "a schedule entry is a job id, (job_id, n_gpus) or (job_id, n_gpus, \
                     gpu_type); got {}",
                        item.repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?,
                None,
                None,
            )
        };
        let Some(pos) = ctx.jobs.slot(JobId(id)) else {
            return Err(PyValueError::new_err(format!(
                "the schedule names job {id}, which is not active"
            )));
        };
        if std::mem::replace(&mut seen[pos], true) {
            return Err(PyValueError::new_err(format!(
                "the schedule lists job {id} twice"
            )));
        }
        let n = n.unwrap_or_else(|| ctx.jobs.row(pos).n_gpus);
        match ty {
            None => out.push(JobId(id), n),
            Some(name) => {
                let t = ctx
                    .cluster
                    .gpu_type_id(&name.to_ascii_lowercase())
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "the schedule names GPU type `{name}`, which the cluster has not"
                        ))
                    })?;
                out.push_on(JobId(id), n, t);
            }
        }
        Ok(())
    };
    if let Ok(list) = ret.cast::<PyList>() {
        for item in list.iter() {
            add(&item)?;
        }
    } else if ret.is_none() || ret.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "schedule() must return a sequence of job ids or (job_id, n_gpus) pairs",
        ));
    } else {
        for item in ret.try_iter()? {
            add(&item?)?;
        }
    }
    Ok(())
}

impl PlacementPolicy for PyPlacement {
    fn place(&mut self, ctx: &Ctx<'_>, schedule: &Schedule, out: &mut Decisions) {
        let c = &self.0;
        let r = Python::attach(|py| -> PyResult<()> {
            let entries: Vec<(u32, u32, Option<&str>)> = schedule
                .iter()
                .map(|a| {
                    (
                        a.job.0,
                        a.n_gpus,
                        a.gpu_type.map(|t| ctx.cluster.gpu_type_name(t)),
                    )
                })
                .collect();
            let ret = c.method.bind(py).call1((c.context(ctx), entries))?;
            fill_decisions(&ret, out)
        });
        if let Err(e) = r {
            self.0.fail(e, ctx);
        }
    }
    fn name(&self) -> String {
        self.0.name.clone()
    }
}

/// Read a placement's return value: `{"stop": [job ids], "start": [(job_id, [gpu ids]), ...]}`,
/// a `(stop, start)` tuple, or an object with `stop` and `start` attributes.
pub(crate) fn fill_decisions(ret: &Bound<'_, PyAny>, out: &mut Decisions) -> PyResult<()> {
    let (stop, start) = if let Ok(d) = ret.cast::<PyDict>() {
        for k in d.keys() {
            let k: String = k.extract()?;
            if k != "stop" && k != "start" {
                return Err(PyValueError::new_err(format!(
                    "place() returned a dict with key `{k}`; its keys are `stop` and `start`"
                )));
            }
        }
        (d.get_item("stop")?, d.get_item("start")?)
    } else if let Ok(t) = ret.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(PyTypeError::new_err(
                "place() returns {'stop': [...], 'start': [(job_id, [gpu, ...]), ...]} or a \
                 (stop, start) tuple",
            ));
        }
        (Some(t.get_item(0)?), Some(t.get_item(1)?))
    } else if ret.hasattr("start")? {
        (ret.getattr("stop").ok(), Some(ret.getattr("start")?))
    } else {
        return Err(PyTypeError::new_err(
            "place() returns {'stop': [...], 'start': [(job_id, [gpu, ...]), ...]} or a \
             (stop, start) tuple",
        ));
    };
    if let Some(stop) = stop.filter(|s| !s.is_none()) {
        for j in stop.try_iter()? {
            out.stop.push(JobId(j?.extract::<u32>()?));
        }
    }
    if let Some(start) = start.filter(|s| !s.is_none()) {
        let mut gpus: Vec<GpuId> = Vec::new();
        for e in start.try_iter()? {
            let e = e?;
            let (job, gs): (u32, Bound<'_, PyAny>) = e.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a start is (job_id, [gpu ids]); got {}",
                    e.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            gpus.clear();
            for g in gs.try_iter()? {
                gpus.push(GpuId(g?.extract::<u32>()?));
            }
            out.start(JobId(job), &gpus);
        }
    }
    Ok(())
}

impl AdmissionPolicy for PyAdmission {
    fn admit(&mut self, ctx: &Ctx<'_>, queue: &[QueuedJob], out: &mut Admissions) {
        let c = &self.0;
        let r = Python::attach(|py| -> PyResult<()> {
            let ret = c
                .method
                .bind(py)
                .call1((c.context(ctx), Queue::of(queue)))?;
            fill_admissions(&ret, queue.len(), out)
        });
        if let Err(e) = r {
            self.0.fail(e, ctx);
        }
    }
    fn name(&self) -> String {
        self.0.name.clone()
    }
}

/// Read an admission policy's return value: queue indices to admit (in the order they get
/// ids), or `(admit, reject)`, or `{"admit": [...], "reject": [...]}`.
pub(crate) fn fill_admissions(
    ret: &Bound<'_, PyAny>,
    len: usize,
    out: &mut Admissions,
) -> PyResult<()> {
    let indices = |v: &Bound<'_, PyAny>, into: &mut Vec<usize>| -> PyResult<()> {
        for i in v.try_iter()? {
            let i: usize = i?.extract()?;
            if i >= len {
                return Err(PyValueError::new_err(format!(
                    "admission index {i} is past the queue's {len} jobs"
                )));
            }
            into.push(i);
        }
        Ok(())
    };
    if let Ok(d) = ret.cast::<PyDict>() {
        if let Some(a) = d.get_item("admit")? {
            indices(&a, &mut out.admit)?;
        }
        if let Some(r) = d.get_item("reject")? {
            indices(&r, &mut out.reject)?;
        }
        return Ok(());
    }
    if let Ok(t) = ret.cast::<PyTuple>() {
        if t.len() == 2
            && !t.get_item(0)?.is_instance_of::<PyInt>()
            && !t.get_item(1)?.is_instance_of::<PyInt>()
        {
            indices(&t.get_item(0)?, &mut out.admit)?;
            return indices(&t.get_item(1)?, &mut out.reject);
        }
    }
    indices(ret, &mut out.admit)
}
