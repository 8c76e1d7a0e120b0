//! The engine's runs: their report (`Report`), a sweep on a background thread with progress, a
//! recorded run (every engine event, for property tests), and trace reading. `run` and
//! `compare` go through `settings` (every semantics, one path).
//!
//! A scenario given as data is a `blox_scenario::Scenario` parsed from JSON by the Rust
//! deserialiser and checked as the CLI checks a scenario file; runs release the GIL.

use crate::api::{
    merge, plot_jct_cdf, preset, read_traces, run_one_with, write_all_or_nothing,
    write_comparison_csv, write_comparison_json, Applications, Cluster, ComparisonRow, Event,
    JobLog, MetricSink, ModelChoice, Pipeline, PolluxOptions, PolluxPolicyConfig, ReadOptions,
    RunReport, Scenario, Semantics, SimError, Simulator, Sweep, SweepRow, SweepRun, Timeline,
    TraceFormat, UnknownFormat, WorkloadConfig,
};
use crate::components::{guarded, ErrorSlot, Failure, PyRegs};
use crate::errors::{config_error, new_error, sim_error};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// A Python exception for a run's failure.
fn failure_err(py: Python<'_>, f: Failure<SimError>) -> PyErr {
    match f {
        Failure::Run(e) => sim_error(py, &e),
        Failure::Python(p) => p.into_pyerr(py),
    }
}

/// Parse and check a scenario (JSON of `blox_scenario::Scenario`), as the CLI checks a scenario
/// file: an unknown key or a bad value is a `bloxsim.ConfigError` whose `key` names the
/// setting.
pub(crate) fn parse_scenario(py: Python<'_>, json: &str) -> PyResult<Scenario> {
    let s: Scenario =
        serde_json::from_str(json).map_err(|e| config_error(py, &format!("scenario: {e}")))?;
    if let Err(bad) = s.check() {
        let key = bad.key.into_pyobject(py)?.into_any().unbind();
        let detail = bad.message.as_str().into_pyobject(py)?.into_any().unbind();
        return Err(new_error(
            py,
            "ConfigError",
            &format!("{bad}"),
            &[("key", Some(key)), ("detail", Some(detail))],
        ));
    }
    // What the CLI's flag parser checks after `check` (ScenarioArgs::build).
    let checked = s
        .cluster_spec()
        .and_then(|_| s.sim_config().map(|_| ()))
        .and_then(|()| s.topology_model().map(|_| ()))
        .and_then(|()| s.policy_env().map(|_| ()))
        .and_then(|()| s.cluster_events().map(|_| ()));
    checked.map_err(|e| sim_error(py, &e))?;
    Ok(s)
}

/// Check a scenario and return it as JSON with every default filled in.
#[pyfunction]
pub(crate) fn check_scenario(py: Python<'_>, json: &str) -> PyResult<String> {
    let s = parse_scenario(py, json)?;
    serde_json::to_string(&s).map_err(|e| config_error(py, &e.to_string()))
}

/// A component spec in the CLI's form (`load-based:1.2`, `tiresias:queues=2`, `my-las`) as
/// the scenario-file table it stands for (`{"kind": "load-based", "factor": 1.2}`), as JSON,
/// and whether it names a stock component. `role` is `policy`, `placement` or `admission`.
#[pyfunction]
pub(crate) fn component(py: Python<'_>, role: &str, spec: &str) -> PyResult<(String, bool)> {
    let mut s = Scenario::default();
    let bad = |e: crate::api::ConfigError| config_error(py, &format!("{role} `{spec}`: {}", e.0));
    let (value, stock) = match role {
        "policy" => {
            s.policy = spec.parse().map_err(bad)?;
            (serde_json::to_string(&s.policy), !s.policy.is_registered())
        }
        "placement" => {
            s.placement = spec.parse().map_err(bad)?;
            (
                serde_json::to_string(&s.placement),
                !s.placement.is_registered(),
            )
        }
        "admission" => {
            s.admission = spec.parse().map_err(bad)?;
            (
                serde_json::to_string(&s.admission),
                !s.admission.is_registered(),
            )
        }
        other => return Err(config_error(py, &format!("unknown role `{other}`"))),
    };
    Ok((value.map_err(|e| config_error(py, &e.to_string()))?, stock))
}

/// Read a scenario file (`.toml` or `.json`) as the CLI does (relative paths taken from its
/// folder, every value checked) and return it as JSON.
#[pyfunction]
pub(crate) fn scenario_from_file(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let s = Scenario::from_file(&path).map_err(|e| sim_error(py, &e))?;
    serde_json::to_string(&s).map_err(|e| config_error(py, &e.to_string()))
}

/// `pollux.json`: which preset and knobs a Pollux run used (as `blox-sim run --semantics
/// pollux --out DIR` writes it).
pub(crate) fn pollux_meta(s: &Scenario, o: &PolluxOptions) -> Option<Vec<u8>> {
    let WorkloadConfig::Trace { paths, .. } = &s.workload else {
        return None;
    };
    let workload = paths.first()?;
    let traces = o
        .traces
        .clone()
        .unwrap_or_else(|| Applications::beside_workload(workload));
    let meta = serde_json::json!({
        "semantics": "pollux",
        "policy": s.policy.to_string(),
        "interval_s": s.round_s,
        "interference": o.interference,
        "interference_avoidance": !o.no_avoidance,
        "generations": o.generations.unwrap_or(PolluxPolicyConfig::default().generations),
        "seed": s.seed,
        "workload": workload.display().to_string(),
        "traces": traces.display().to_string(),
    });
    serde_json::to_vec_pretty(&meta).ok()
}

/// A finished run: the CLI's `RunReport`, and its files.
#[pyclass(module = "bloxsim._native", name = "Report")]
pub(crate) struct Report {
    pub(crate) report: RunReport,
    /// `pollux.json` of a Pollux run.
    pub(crate) pollux_meta: Option<Vec<u8>>,
}

#[pymethods]
impl Report {
    /// The `jobs.csv` bytes.
    fn jobs_csv<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.report.jobs_csv())
    }
    /// The `timeline.csv` bytes.
    fn timeline_csv<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.report.timeline_csv())
    }
    /// The `summary.json` bytes.
    fn summary_json<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.report.summary_json())
    }
    /// The scenario that ran, every default filled in, as JSON.
    fn scenario_json(&self) -> String {
        serde_json::to_string(&self.report.scenario).unwrap_or_default()
    }
    /// The semantics it ran under (`pollux` for the Pollux preset).
    fn semantics(&self) -> String {
        if self.pollux_meta.is_some() {
            "pollux".into()
        } else {
            self.report.scenario.semantics.to_string()
        }
    }
    /// The run's name in tables (the policy, or Synergy's scheduler string).
    fn label(&self) -> String {
        self.report.metrics.label.clone()
    }
    /// The tracked jobs' JCTs, seconds (what the JCT CDF plots).
    fn jcts_s(&self) -> Vec<f64> {
        self.report.metrics.jcts_s.clone()
    }
    /// The CLI's comparison row of this run (`compare.csv`'s columns) as JSON.
    fn comparison_row(&self) -> String {
        serde_json::to_string(&row_of(&self.report)).unwrap_or_default()
    }
    /// The run's settings as a sweep's table names them (`semantics`, `cluster`, `admission`,
    /// `policy`, `placement` in the CLI's spelling, `load`, `seed`) as JSON.
    fn settings(&self) -> String {
        let s = &self.report.scenario;
        serde_json::json!({
            "semantics": s.semantics.to_string(),
            "cluster": s.cluster,
            "admission": s.admission.to_string(),
            "policy": s.policy.to_string(),
            "placement": s.placement.to_string(),
            "load": s.load(),
            "seed": s.seed,
        })
        .to_string()
    }
    /// The engine's counters (`summary.json`'s `run`) as JSON.
    fn outcome_json(&self) -> String {
        serde_json::to_string(&self.report.outcome).unwrap_or_default()
    }
    /// The CLI's overload warning for this run's workload, if the jobs offer more work than
    /// the cluster can do.
    fn overload_warning(&self) -> Option<String> {
        let total = self.report.scenario.cluster_spec().ok()?.total_gpus();
        self.report.workload.overload_warning(total)
    }
    /// Write the run's files into `dir` exactly as `blox-sim run --out DIR` does (`jobs.csv`,
    /// `timeline.csv`, `summary.json`, `fairness.csv`, `jct_cdf.csv`, `timeline.svg`, and
    /// `pollux.json` for a Pollux run), all or nothing. `summary.json` records `dir` as the
    /// scenario's `out`, as the CLI does.
    fn write(&mut self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        let old = self.report.scenario.out.replace(dir.clone());
        let r = self
            .report
            .write(&dir)
            .and_then(|()| match &self.pollux_meta {
                Some(meta) => write_all_or_nothing(&dir, &[("pollux.json", meta.clone())])
                    .map_err(|e| SimError::io(e.path, e.source)),
                None => Ok(()),
            });
        self.report.scenario.out = old;
        r.map_err(|e| sim_error(py, &e))
    }
}

pub(crate) fn row_of(r: &RunReport) -> ComparisonRow {
    let mut row = r.metrics.row();
    row.preemptions = r.outcome.preemptions;
    row
}

/// Write `compare.csv`, `compare.json` and `jct_cdf.svg` of these rows (each run's tracked
/// JCTs in `jcts`) into `dir`, as `blox-sim compare --out DIR` does.
pub(crate) fn write_comparison_rows(
    py: Python<'_>,
    dir: &Path,
    rows: &[ComparisonRow],
    jcts: &[Vec<f64>],
) -> PyResult<()> {
    let series: Vec<(&str, &[f64])> = rows
        .iter()
        .zip(jcts)
        .map(|(row, j)| (row.label.as_str(), j.as_slice()))
        .collect();
    let io = |e: std::io::Error| sim_error(py, &SimError::io(dir, e));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut csv = Vec::new();
    write_comparison_csv(&mut csv, rows).map_err(io)?;
    let mut json = Vec::new();
    write_comparison_json(&mut json, rows).map_err(io)?;
    let mut svg = Vec::new();
    plot_jct_cdf(&mut svg, "JCT CDF of the tracked jobs", &series)
        .map_err(|e| config_error(py, &format!("CDF plot: {e}")))?;
    write_all_or_nothing(
        dir,
        &[
            ("compare.csv", csv),
            ("compare.json", json),
            ("jct_cdf.svg", svg),
        ],
    )
    .map_err(|e| sim_error(py, &SimError::io(e.path, e.source)))
}

/// The runs of a sweep, in the CLI's order with its labels: `(index, label, run JSON)` per
/// run. `axes` maps `semantics`, `cluster`, `admission`, `policy`, `placement` to lists of
/// strings, `load` to floats, `seed` to integers and `failures` to strings or `None`.
#[pyfunction]
pub(crate) fn plan_sweep(
    py: Python<'_>,
    base_json: &str,
    axes: &Bound<'_, PyDict>,
) -> PyResult<Vec<(usize, String, String)>> {
    let base = parse_scenario(py, base_json)?;
    let strings = |k: &str| -> PyResult<Vec<String>> {
        Ok(match axes.get_item(k)? {
            Some(v) if !v.is_none() => v.extract()?,
            _ => Vec::new(),
        })
    };
    let cfg = |k: &str, e: String| config_error(py, &format!("{k}: {e}"));
    let sweep = Sweep {
        base,
        settings: Default::default(),
        semantics: strings("semantics")?
            .iter()
            .map(|s| {
                s.parse::<Semantics>()
                    .map(blox_scenario::Model::from)
                    .map_err(|e| cfg("semantics", e))
            })
            .collect::<PyResult<_>>()?,
        clusters: strings("cluster")?,
        admissions: strings("admission")?
            .iter()
            .map(|s| {
                s.parse()
                    .map_err(|e: crate::api::ConfigError| cfg("admission", e.0))
            })
            .collect::<PyResult<_>>()?,
        policies: strings("policy")?
            .iter()
            .map(|s| {
                s.parse()
                    .map_err(|e: crate::api::ConfigError| cfg("policy", e.0))
            })
            .collect::<PyResult<_>>()?,
        placements: strings("placement")?
            .iter()
            .map(|s| {
                s.parse()
                    .map_err(|e: crate::api::ConfigError| cfg("placement", e.0))
            })
            .collect::<PyResult<_>>()?,
        loads: match axes.get_item("load")? {
            Some(v) if !v.is_none() => v.extract()?,
            _ => Vec::new(),
        },
        seeds: match axes.get_item("seed")? {
            Some(v) if !v.is_none() => v.extract()?,
            _ => Vec::new(),
        },
        failures: match axes.get_item("failures")? {
            Some(v) if !v.is_none() => v.extract()?,
            _ => Vec::new(),
        },
        rates: Vec::new(),
    };
    let runs = sweep.runs().map_err(|e| sim_error(py, &e))?;
    runs.iter()
        .map(|r| {
            let scenario = engine_scenario(r).map_err(|e| sim_error(py, &e))?;
            scenario.check().map_err(|bad| {
                config_error(py, &format!("run {} ({}): {bad}", r.index, r.label))
            })?;
            scenario
                .cluster_spec()
                .and_then(|_| scenario.sim_config().map(|_| ()))
                .and_then(|()| scenario.failure_spec().map(|_| ()))
                .map_err(|e| sim_error(py, &e))?;
            let json = serde_json::to_string(r).map_err(|e| config_error(py, &e.to_string()))?;
            Ok((r.index, r.label.clone(), json))
        })
        .collect()
}

/// The scenario of a sweep run under the engine's semantics (the Python package plans only
/// those).
pub(crate) fn engine_scenario(run: &SweepRun) -> Result<&Scenario, SimError> {
    run.scenario.as_ref().ok_or_else(|| {
        SimError::Config(format!(
            "run {} ({}): a peer's semantics; the Python sweep runs the engine's (exact, blox, \
             synergy)",
            run.index, run.label
        ))
    })
}

/// A sweep's row of a run done in memory (what `merge` computes from its `summary.json`).
pub(crate) fn sweep_row(run: &SweepRun, report: &RunReport) -> SweepRow {
    let s = &report.scenario;
    let summary = &report.summary;
    SweepRow {
        index: run.index,
        label: run.label.clone(),
        semantics: s.semantics.to_string(),
        cluster: s.cluster.to_string(),
        admission: s.admission.to_string(),
        policy: s.policy.to_string(),
        placement: s.placement.to_string(),
        load: s.load(),
        seed: s.seed,
        n_tracked: summary.n_tracked,
        avg_jct_s: summary.avg_jct_s,
        p50_jct_s: summary.p50_jct_s,
        p99_jct_s: summary.p99_jct_s,
        avg_responsiveness_s: summary.avg_responsiveness_s,
        preemptions_total: report.outcome.preemptions,
        makespan_s: summary.makespan_s,
        end_time_s: report.outcome.end_time.as_secs_f64(),
        failure_rate: s.failure_spec().ok().flatten().map(|f| f.rate_per_hour()),
    }
}

/// What a sweep's thread left: rows, failures and counts.
#[derive(Default)]
struct SweepOutcome {
    rows: Vec<SweepRow>,
    failures: Vec<(usize, String, Failure<SimError>)>,
    ran: usize,
    skipped: usize,
    cancelled: usize,
    merge_error: Option<SimError>,
}

#[derive(Default)]
struct SweepState {
    done: AtomicUsize,
    cancel: AtomicBool,
    finished: Mutex<Option<SweepOutcome>>,
    cv: Condvar,
}

/// A sweep running on a background thread (rayon pool); poll it for progress.
#[pyclass(frozen, module = "bloxsim._native", name = "SweepHandle")]
pub(crate) struct SweepHandle {
    state: Arc<SweepState>,
    total: usize,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[pymethods]
impl SweepHandle {
    /// Runs in this sweep.
    #[getter]
    fn total(&self) -> usize {
        self.total
    }
    /// Runs finished so far (ran, skipped, failed or cancelled).
    #[getter]
    fn done(&self) -> usize {
        self.state.done.load(Ordering::Relaxed)
    }
    /// Ask the sweep to start no new run (the ones running finish).
    fn cancel(&self) {
        self.state.cancel.store(true, Ordering::Relaxed);
    }
    /// Wait up to `timeout` seconds (GIL released); whether the sweep has finished.
    fn wait(&self, py: Python<'_>, timeout: f64) -> bool {
        let st = self.state.clone();
        py.detach(move || {
            let g = st.finished.lock().unwrap_or_else(|p| p.into_inner());
            let dur = std::time::Duration::from_secs_f64(timeout.max(0.0));
            let (g, _) = st
                .cv
                .wait_timeout_while(g, dur, |f| f.is_none())
                .unwrap_or_else(|p| p.into_inner());
            g.is_some()
        })
    }
    /// Wait for the end and return `(rows_json, ran, skipped, cancelled)`; raises the first
    /// failed run's error (by index).
    fn result(&self, py: Python<'_>) -> PyResult<(String, usize, usize, usize)> {
        while !self.wait(py, 0.2) {
            py.check_signals()?;
        }
        if let Some(h) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = py.detach(|| h.join());
        }
        let mut g = self
            .state
            .finished
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let o = g
            .take()
            .ok_or_else(|| config_error(py, "the sweep's result was already taken"))?;
        drop(g);
        let n_failed = o.failures.len();
        if let Some((index, label, f)) = o.failures.into_iter().min_by_key(|f| f.0) {
            let e = failure_err(py, f);
            let note = format!(
                "sweep run {index} ({label}) failed ({n_failed} run{} failed; {} ran, {} were \
                 already done, {} not started)",
                if n_failed == 1 { "" } else { "s" },
                o.ran,
                o.skipped,
                o.cancelled
            );
            let wrapped = new_error(py, "SweepError", &format!("{note}: {}", e.value(py)), &[]);
            wrapped.set_cause(py, Some(e));
            return Err(wrapped);
        }
        if let Some(e) = o.merge_error {
            return Err(sim_error(py, &e));
        }
        let rows = serde_json::to_string(&o.rows).map_err(|e| config_error(py, &e.to_string()))?;
        Ok((rows, o.ran, o.skipped, o.cancelled))
    }
}

/// Start a sweep of these runs (`plan_sweep`'s JSON) on a background thread. With `out`, each
/// run writes `OUT/runs/LABEL/` as `blox-sim sweep` does (a run already there is skipped) and
/// `OUT/results.csv`/`results.json` are merged at the end; without, runs stay in memory.
#[pyfunction]
#[pyo3(signature = (runs, out = None, threads = None, registry = None))]
pub(crate) fn start_sweep(
    py: Python<'_>,
    runs: Vec<String>,
    out: Option<PathBuf>,
    threads: Option<usize>,
    registry: Option<&Bound<'_, PyDict>>,
) -> PyResult<SweepHandle> {
    let runs: Vec<SweepRun> = runs
        .iter()
        .map(|j| serde_json::from_str(j).map_err(|e| config_error(py, &format!("sweep run: {e}"))))
        .collect::<PyResult<_>>()?;
    let regs = Arc::new(PyRegs::from_dict(registry)?);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| config_error(py, &format!("threads: {e}")))?;
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).map_err(|e| sim_error(py, &SimError::io(dir, e)))?;
    }
    let state = Arc::new(SweepState::default());
    let total = runs.len();
    let st = state.clone();
    let thread = std::thread::Builder::new()
        .name("bloxsim-sweep".into())
        .spawn(move || {
            let o = sweep_thread(&pool, &runs, out.as_deref(), &regs, &st);
            *st.finished.lock().unwrap_or_else(|p| p.into_inner()) = Some(o);
            st.cv.notify_all();
        })
        .map_err(|e| config_error(py, &format!("cannot start the sweep's thread: {e}")))?;
    Ok(SweepHandle {
        state,
        total,
        thread: Mutex::new(Some(thread)),
    })
}

enum RunEnd {
    Ran(Option<SweepRow>),
    Skipped,
    Cancelled,
    Failed(Failure<SimError>),
}

fn sweep_thread(
    pool: &rayon::ThreadPool,
    runs: &[SweepRun],
    out: Option<&Path>,
    regs: &PyRegs,
    st: &SweepState,
) -> SweepOutcome {
    let ends: Vec<RunEnd> = pool.install(|| {
        runs.par_iter()
            .map(|run| {
                let end = if st.cancel.load(Ordering::Relaxed) {
                    RunEnd::Cancelled
                } else {
                    let slot = Arc::new(ErrorSlot::default());
                    let reg = if regs.is_empty() {
                        crate::api::Registry::default()
                    } else {
                        let seed = run.scenario.as_ref().map_or(0, |s| s.seed);
                        Python::attach(|py| regs.registry(py, seed, &slot))
                    };
                    let r = guarded(&slot, || match out {
                        Some(dir) => run_one_with(run, dir, &reg).map(|ran| (ran, None)),
                        None => engine_scenario(run)
                            .and_then(|s| s.run_with(&reg))
                            .map(|rep| (true, Some(sweep_row(run, &rep)))),
                    });
                    match r {
                        Ok((true, row)) => RunEnd::Ran(row),
                        Ok((false, _)) => RunEnd::Skipped,
                        Err(f) => {
                            // Fail fast: start no new run.
                            st.cancel.store(true, Ordering::Relaxed);
                            RunEnd::Failed(f)
                        }
                    }
                };
                st.done.fetch_add(1, Ordering::Relaxed);
                end
            })
            .collect()
    });
    let mut o = SweepOutcome::default();
    for (run, end) in runs.iter().zip(ends) {
        match end {
            RunEnd::Ran(row) => {
                o.ran += 1;
                o.rows.extend(row);
            }
            RunEnd::Skipped => o.skipped += 1,
            RunEnd::Cancelled => o.cancelled += 1,
            RunEnd::Failed(f) => o.failures.push((run.index, run.label.clone(), f)),
        }
    }
    if let Some(dir) = out {
        match merge(dir) {
            Ok(rows) => {
                let mine: std::collections::BTreeSet<usize> =
                    runs.iter().map(|r| r.index).collect();
                o.rows = rows
                    .into_iter()
                    .filter(|r| mine.contains(&r.index))
                    .collect();
            }
            Err(e) => o.merge_error = Some(e),
        }
    }
    o.rows.sort_by_key(|r| r.index);
    o
}

/// Every event of a run, in order, as columns (a copy of the engine's `Event`s).
#[derive(Default)]
struct Recorder {
    kind: Vec<&'static str>,
    time_s: Vec<f64>,
    seq: Vec<Option<u64>>,
    job_id: Vec<Option<u32>>,
    n_gpus: Vec<Option<u32>>,
    arrival_s: Vec<Option<f64>>,
    gpus: Vec<Vec<u32>>,
    free_gpus: Vec<Option<u32>>,
    counted: Vec<Option<bool>>,
}

impl Recorder {
    fn push(&mut self, kind: &'static str, t: crate::api::Time) -> usize {
        self.kind.push(kind);
        self.time_s.push(t.as_secs_f64());
        self.seq.push(None);
        self.job_id.push(None);
        self.n_gpus.push(None);
        self.arrival_s.push(None);
        self.gpus.push(Vec::new());
        self.free_gpus.push(None);
        self.counted.push(None);
        self.kind.len() - 1
    }
}

impl MetricSink for Recorder {
    fn on_event(&mut self, e: &Event<'_>) {
        match *e {
            Event::Arrived { time, seq, spec } => {
                let i = self.push("arrived", time);
                self.seq[i] = Some(seq);
                self.n_gpus[i] = Some(spec.n_gpus);
                self.arrival_s[i] = Some(spec.arrival.as_secs_f64());
            }
            Event::Admitted { time, seq, job } => {
                let i = self.push("admitted", time);
                self.seq[i] = Some(seq);
                self.job_id[i] = Some(job.0);
            }
            Event::Rejected { time, seq } => {
                let i = self.push("rejected", time);
                self.seq[i] = Some(seq);
            }
            Event::Started {
                time, job, gpus, ..
            } => {
                let i = self.push("started", time);
                self.job_id[i] = Some(job.0);
                self.gpus[i] = gpus.iter().map(|g| g.0).collect();
            }
            Event::Preempted { time, job, counted } => {
                let i = self.push("preempted", time);
                self.job_id[i] = Some(job.0);
                self.counted[i] = Some(counted);
            }
            Event::Completed { time, job } => {
                let i = self.push("completed", time);
                self.job_id[i] = Some(job.0);
            }
            Event::Round(s) => {
                let i = self.push("round", s.time);
                self.free_gpus[i] = Some(s.free_gpus);
            }
            Event::End { time } => {
                self.push("end", time);
            }
            _ => {}
        }
    }
}

/// Run a scenario (`blox` or `exact` semantics) recording every engine event, composed as
/// `Scenario::run_with` composes it (the same presets, registry, throughput model, workload
/// and cluster events). Returns the report and the events as a dict of columns.
#[pyfunction]
#[pyo3(signature = (scenario_json, registry = None))]
pub(crate) fn record<'py>(
    py: Python<'py>,
    scenario_json: &str,
    registry: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Report, Bound<'py, PyDict>)> {
    let s = parse_scenario(py, scenario_json)?;
    if !matches!(s.semantics, Semantics::Blox | Semantics::Exact) {
        return Err(new_error(
            py,
            "UnsupportedError",
            &format!(
                "recorded runs take `blox` or `exact` semantics, not `{}`",
                s.semantics
            ),
            &[],
        ));
    }
    let regs = PyRegs::from_dict(registry)?;
    let slot = Arc::new(ErrorSlot::default());
    let reg = regs.registry(py, s.seed, &slot);
    let r = py.detach(|| {
        guarded(&slot, || -> Result<(RunReport, Recorder), SimError> {
            let env = s.policy_env()?;
            let topology = s.topology_model()?;
            let policy = preset::build_policy(s.semantics, &reg, &s.policy, &env)?;
            let scheduler = Pipeline::new(
                reg.build_admission(&s.admission)?,
                policy,
                preset::build_placement(s.semantics, &reg, &s.placement, Some(topology))?,
            );
            let cfg = s.sim_config()?;
            let cluster = s.cluster_spec()?;
            let throughput = s.throughput()?;
            let (mut workload, wreport) = s.load_workload()?;
            let events = s.cluster_events()?;
            let sink = (
                JobLog::with_cluster(&Cluster::new(cluster.clone())),
                Timeline::default(),
                Recorder::default(),
            );
            macro_rules! go {
                ($m:expr) => {{
                    let mut sim =
                        Simulator::new(cfg.with_model($m), cluster, scheduler, throughput, sink);
                    if let Some(e) = events {
                        sim = sim.with_cluster_events(e);
                    }
                    let outcome = sim.run(&mut workload)?;
                    (outcome, sim.into_sink())
                }};
            }
            let (outcome, (log, timeline, rec)) = match cfg.model.clone() {
                ModelChoice::Blox(m) => go!(m),
                ModelChoice::Exact(m) => go!(m),
                _ => return Err(SimError::Config("recorded runs take blox or exact".into())),
            };
            let mut report = s.report(outcome, log, timeline)?;
            report.workload = wreport;
            Ok((report, rec))
        })
    });
    let (report, rec) = r.map_err(|f| failure_err(py, f))?;
    let d = PyDict::new(py);
    d.set_item("kind", rec.kind)?;
    d.set_item("time_s", rec.time_s)?;
    d.set_item("seq", rec.seq)?;
    d.set_item("job_id", rec.job_id)?;
    d.set_item("n_gpus", rec.n_gpus)?;
    d.set_item("arrival_s", rec.arrival_s)?;
    d.set_item("gpus", rec.gpus)?;
    d.set_item("free_gpus", rec.free_gpus)?;
    d.set_item("counted", rec.counted)?;
    Ok((
        Report {
            report,
            pollux_meta: None,
        },
        d,
    ))
}

/// Read trace files of one format (merged by arrival) as the CLI reads a `--trace`: returns a
/// dict of columns and a dict of what reading found (`bad_lines`, `bad_line_errors`,
/// `filtered`).
#[pyfunction]
#[pyo3(signature = (paths, format = "canonical", skip_bad_lines = false, throughputs = None, reference_gpu_type = None))]
pub(crate) fn read_trace<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    format: &str,
    skip_bad_lines: bool,
    throughputs: Option<PathBuf>,
    reference_gpu_type: Option<String>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let fmt: TraceFormat = format
        .parse()
        .map_err(|e: UnknownFormat| config_error(py, &e.to_string()))?;
    let mut opts = ReadOptions::default()
        .with_skip_bad_lines(skip_bad_lines)
        .with_gavel_throughputs(throughputs);
    if let Some(t) = reference_gpu_type {
        opts = opts.with_gavel_worker_type(t.to_ascii_lowercase());
    }
    let inputs: Vec<(PathBuf, TraceFormat)> = paths.into_iter().map(|p| (p, fmt)).collect();
    let read = py
        .detach(|| read_traces(&inputs, &opts))
        .map_err(|e| sim_error(py, &SimError::from(e)))?;
    let jobs = &read.jobs;
    let d = PyDict::new(py);
    d.set_item("job_id", (0..jobs.len() as u64).collect::<Vec<_>>())?;
    d.set_item(
        "arrival_s",
        jobs.iter()
            .map(|j| j.arrival.as_secs_f64())
            .collect::<Vec<_>>(),
    )?;
    d.set_item("n_gpus", jobs.iter().map(|j| j.n_gpus).collect::<Vec<_>>())?;
    d.set_item(
        "duration_s",
        jobs.iter().map(|j| j.work_s).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "class_id",
        jobs.iter().map(|j| j.class_id).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "model",
        jobs.iter().map(|j| j.model.as_deref()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "source_id",
        jobs.iter()
            .map(|j| j.source_id.as_deref())
            .collect::<Vec<_>>(),
    )?;
    d.set_item(
        "tenant",
        jobs.iter().map(|j| j.tenant.as_deref()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "deadline_s",
        jobs.iter()
            .map(|j| j.deadline.map(|t| t.as_secs_f64()))
            .collect::<Vec<_>>(),
    )?;
    d.set_item("cpus", jobs.iter().map(|j| j.cpus).collect::<Vec<_>>())?;
    d.set_item("mem_gb", jobs.iter().map(|j| j.mem_gb).collect::<Vec<_>>())?;
    d.set_item(
        "elastic",
        jobs.iter().map(|j| j.elastic).collect::<Vec<_>>(),
    )?;
    let info = PyDict::new(py);
    info.set_item("bad_lines", read.bad_line_count)?;
    info.set_item(
        "bad_line_errors",
        read.bad_lines
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
    )?;
    let filtered = PyDict::new(py);
    for (k, v) in &read.filtered {
        filtered.set_item(*k, *v)?;
    }
    info.set_item("filtered", filtered)?;
    Ok((d, info))
}

/// The schedule a stock policy (by its CLI name, built by the `semantics` preset) gives on a
/// context made with `make_context`: `(job_id, n_gpus)` pairs, best first.
#[pyfunction]
#[pyo3(signature = (ctx, policy, semantics = "exact"))]
pub(crate) fn stock_schedule(
    py: Python<'_>,
    ctx: &crate::context::Context,
    policy: &str,
    semantics: &str,
) -> PyResult<Vec<(u32, u32)>> {
    let live =
        ctx.snap.live.as_ref().ok_or_else(|| {
            config_error(py, "stock_schedule takes a context made by make_context")
        })?;
    let s = Scenario {
        semantics: semantics
            .parse()
            .map_err(|e: String| config_error(py, &e))?,
        policy: policy
            .parse()
            .map_err(|e: crate::api::ConfigError| config_error(py, &e.0))?,
        ..Scenario::default()
    };
    let env = s.policy_env().map_err(|e| sim_error(py, &e))?;
    let mut p = preset::build_policy(
        s.semantics,
        &crate::api::Registry::default(),
        &s.policy,
        &env,
    )
    .map_err(|e| config_error(py, &e.0))?;
    let mut out = crate::api::Schedule::default();
    p.schedule(&live.ctx(), &mut out);
    Ok(out.iter().map(|a| (a.job.0, a.n_gpus)).collect())
}

/// Validate a placement's decisions against a context made with `make_context`, as the engine
/// does (`Decisions::validate`): `None` if valid, else what is wrong.
#[pyfunction]
pub(crate) fn validate_decisions(
    py: Python<'_>,
    ctx: &crate::context::Context,
    decisions: &Bound<'_, PyAny>,
) -> PyResult<Option<String>> {
    let live = ctx.snap.live.as_ref().ok_or_else(|| {
        config_error(
            py,
            "validate_decisions takes a context made by make_context",
        )
    })?;
    let mut d = crate::api::Decisions::default();
    crate::components::fill_decisions(decisions, &mut d)?;
    let mut scratch = crate::api::ValidationScratch::default();
    Ok(d.validate(&live.cluster, &live.jobs, &mut scratch).err())
}

/// Read a policy's return value as the engine reads it, on a context made with
/// `make_context`: the `(job_id, n_gpus)` pairs, or the error the run would stop with.
#[pyfunction]
pub(crate) fn parse_schedule(
    py: Python<'_>,
    ctx: &crate::context::Context,
    value: &Bound<'_, PyAny>,
) -> PyResult<Vec<(u32, u32)>> {
    let live =
        ctx.snap.live.as_ref().ok_or_else(|| {
            config_error(py, "parse_schedule takes a context made by make_context")
        })?;
    let mut out = crate::api::Schedule::default();
    let mut seen = Vec::new();
    crate::components::fill_schedule(value, &live.ctx(), &mut out, &mut seen)?;
    Ok(out.iter().map(|a| (a.job.0, a.n_gpus)).collect())
}
