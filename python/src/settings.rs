//! Keyword arguments as the Rust `RunSettings`, and runs under every semantics.
//!
//! Python's keyword arguments are `blox-sim run`'s flags with `_` for `-`. They are not
//! interpreted here: each becomes its flag (`load=1` is `--load=1`) and the flags are parsed by
//! the very `clap` arguments `blox-sim` derives from `blox_scenario::RunSettings`, so the value
//! checks, the conflicts (`trace` with `load`) and the requirements (`resample` needs `trace`)
//! are the command line's. The settings are then prepared (`RunSettings::prepare_from`, the one
//! match on the model: engine, Pollux, Tiresias, Gavel) and run (`PeerRun::run`), with the GIL
//! released. Errors come back Python-shaped: a flag `--load` in a Rust message is written as
//! the keyword `load`, `load=VALUE` where it names the value given.

use crate::api::{
    did_you_mean, write_all_or_nothing, ComparisonRow, Finished, Model, Observe, PeerRun, Prepared,
    Registry, RunSettings, Scenario, SimError, TraceFormat,
};
use crate::components::{guarded, ErrorSlot, Failure, PyRegs};
use crate::errors::{config_error, new_error, sim_error_with};
use crate::runs::Report;
use clap::{Args, FromArgMatches};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};
use rayon::prelude::*;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The keyword arguments given: their Python `repr` and their text (as on a command line), by
/// keyword.
#[derive(Default)]
pub(crate) struct Given {
    repr: HashMap<String, String>,
    text: HashMap<String, String>,
}

/// `RunSettings`' flags as a clap command (no binary name, no `--help`).
fn command() -> clap::Command {
    RunSettings::augment_args(
        clap::Command::new("bloxsim")
            .no_binary_name(true)
            .disable_help_flag(true)
            .disable_version_flag(true),
    )
}

/// The keywords `run` takes: every flag of `RunSettings`, `policy` and `out`.
fn keywords(cmd: &clap::Command) -> Vec<String> {
    let mut k: Vec<String> = cmd
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    k.extend(["policy".to_string(), "out".to_string()]);
    k
}

/// A component given as a dict (`{"kind": "load-based", "factor": 1.2}`) as its command-line
/// spec (`load-based:1.2`), read as a scenario file reads the table.
fn dict_spec(py: Python<'_>, role: &str, d: &Bound<'_, PyAny>) -> PyResult<String> {
    let text: String = py
        .import("json")?
        .getattr("dumps")?
        .call1((d,))?
        .extract()?;
    let json = format!("{{\"{role}\": {text}}}");
    let shown = d.repr()?.to_string();
    let s: Scenario = serde_json::from_str(&json)
        .map_err(|e| config_error(py, &format!("{role}={shown}: {e}")))?;
    Ok(match role {
        "policy" => s.policy.to_string(),
        "placement" => s.placement.to_string(),
        _ => s.admission.to_string(),
    })
}

/// One value as command-line text.
fn text_of(py: Python<'_>, key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if matches!(key, "policy" | "placement" | "admission") && v.cast::<PyDict>().is_ok() {
        return dict_spec(py, key, v);
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_string());
    }
    if v.cast::<PyFloat>().is_ok() {
        // `repr` is the shortest round-trip form, which Rust parses back to the same float.
        return Ok(v.repr()?.to_string());
    }
    if let Ok(p) = py
        .import("os")?
        .getattr("fspath")?
        .call1((v,))
        .and_then(|p| p.extract::<String>())
    {
        return Ok(p);
    }
    Ok(v.str()?.to_string())
}

/// The keyword arguments as `RunSettings` (with `policy` and `out`), parsed by `blox-sim`'s own
/// flags. An unknown keyword is a `TypeError`; a bad value a `ConfigError` naming the keyword.
pub(crate) fn settings_of(
    py: Python<'_>,
    kwargs: &Bound<'_, PyDict>,
) -> PyResult<(RunSettings, Given)> {
    let cmd = command();
    let known = keywords(&cmd);
    let mut unknown = Vec::new();
    let mut args: Vec<OsString> = Vec::new();
    let mut given = Given::default();
    let mut policy = None;
    let mut out = None;
    for (k, v) in kwargs.iter() {
        let key: String = k.extract()?;
        if v.is_none() {
            continue;
        }
        if !known.contains(&key) {
            unknown.push(key);
            continue;
        }
        given.repr.insert(key.clone(), v.repr()?.to_string());
        if key == "policy" {
            let t = text_of(py, &key, &v)?;
            given.text.insert(key, t.clone());
            policy = Some(t);
            continue;
        }
        if key == "out" {
            let t = text_of(py, &key, &v)?;
            given.text.insert(key, t.clone());
            out = Some(PathBuf::from(t));
            continue;
        }
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_id() == key.as_str())
            .expect("a known argument");
        let long = arg.get_long().expect("every setting is a long flag");
        match arg.get_action() {
            clap::ArgAction::SetTrue => {
                let on = v.cast::<PyBool>().map_err(|_| {
                    config_error(
                        py,
                        &format!(
                            "{key}={}: expected True or False",
                            v.repr().map(|r| r.to_string()).unwrap_or_default()
                        ),
                    )
                })?;
                if on.is_true() {
                    args.push(format!("--{long}").into());
                }
                given.text.insert(key, on.is_true().to_string());
            }
            clap::ArgAction::Append => {
                let items: Vec<Bound<'_, PyAny>> =
                    if v.cast::<PyList>().is_ok() || v.cast::<PyTuple>().is_ok() {
                        v.try_iter()?.collect::<PyResult<_>>()?
                    } else {
                        vec![v.clone()]
                    };
                let texts = items
                    .iter()
                    .map(|x| text_of(py, &key, x))
                    .collect::<PyResult<Vec<_>>>()?;
                for t in &texts {
                    args.push(format!("--{long}={t}").into());
                }
                given.text.insert(key, texts.join(","));
            }
            _ => {
                let t = text_of(py, &key, &v)?;
                args.push(format!("--{long}={t}").into());
                given.text.insert(key, t);
            }
        }
    }
    if !unknown.is_empty() {
        unknown.sort();
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        let hints: Vec<String> = unknown
            .iter()
            .filter_map(|u| did_you_mean(u, &names).map(|n| format!("`{u}`: did you mean `{n}`?")))
            .collect();
        return Err(PyTypeError::new_err(format!(
            "unknown keyword argument(s) [{}]{}; the keyword arguments are blox-sim run's flags \
             with `_` for `-`: {}",
            unknown
                .iter()
                .map(|u| format!("'{u}'"))
                .collect::<Vec<_>>()
                .join(", "),
            if hints.is_empty() {
                String::new()
            } else {
                format!(" ({})", hints.join("; "))
            },
            names.join(", ")
        )));
    }
    let matches = match cmd.clone().try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return Err(config_error(py, &clap_message(&cmd, &e, &args, &given))),
    };
    let mut st = RunSettings::from_arg_matches(&matches)
        .map_err(|e| config_error(py, &clap_message(&cmd, &e, &args, &given)))?;
    st.policy = policy;
    st.out = out;
    Ok((st, given))
}

/// The keyword of a flag named in a clap error (`--load <JOBS_PER_HOUR>` is `load`).
fn keyword_of(cmd: &clap::Command, shown: &str) -> String {
    let long = shown
        .trim_start_matches('-')
        .split([' ', '=', '<'])
        .next()
        .unwrap_or_default();
    cmd.get_arguments()
        .find(|a| a.get_long() == Some(long))
        .map_or_else(|| long.replace('-', "_"), |a| a.get_id().to_string())
}

/// A clap error as a Python-shaped message naming the keyword and the value given.
fn clap_message(cmd: &clap::Command, e: &clap::Error, args: &[OsString], given: &Given) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let ctx = |k: ContextKind| -> Vec<String> {
        match e.get(k) {
            Some(ContextValue::String(s)) => vec![s.clone()],
            Some(ContextValue::Strings(v)) => v.clone(),
            _ => Vec::new(),
        }
    };
    let shown = |kw: &str| -> String {
        given
            .repr
            .get(kw)
            .map_or_else(|| kw.to_string(), |r| format!("{kw}={r}"))
    };
    match e.kind() {
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let arg = ctx(ContextKind::InvalidArg);
            let kw = keyword_of(cmd, arg.first().map_or("", String::as_str));
            let why = match std::error::Error::source(e) {
                Some(s) => s.to_string(),
                None => {
                    let valid = ctx(ContextKind::ValidValue);
                    format!("expected one of {}", valid.join(", "))
                }
            };
            format!("{}: {why}", shown(&kw))
        }
        ErrorKind::ArgumentConflict => {
            let a = keyword_of(
                cmd,
                ctx(ContextKind::InvalidArg)
                    .first()
                    .map_or("", String::as_str),
            );
            let b = ctx(ContextKind::PriorArg)
                .iter()
                .map(|p| keyword_of(cmd, p))
                .collect::<Vec<_>>();
            format!(
                "{} cannot be combined with {}",
                shown(&a),
                b.iter().map(|k| shown(k)).collect::<Vec<_>>().join(", ")
            )
        }
        ErrorKind::MissingRequiredArgument => {
            let missing: Vec<String> = ctx(ContextKind::InvalidArg)
                .iter()
                .map(|m| keyword_of(cmd, m))
                .collect();
            // Which argument needs it: the one whose removal makes the error go.
            let needs: Vec<String> = given
                .repr
                .keys()
                .filter(|kw| {
                    let prefix = cmd
                        .get_arguments()
                        .find(|a| a.get_id() == kw.as_str())
                        .and_then(|a| a.get_long())
                        .map(|l| format!("--{l}"));
                    let Some(prefix) = prefix else { return false };
                    let rest: Vec<&OsString> = args
                        .iter()
                        .filter(|a| {
                            let a = a.to_string_lossy();
                            a != prefix && !a.starts_with(&format!("{prefix}="))
                        })
                        .collect();
                    rest.len() < args.len() && cmd.clone().try_get_matches_from(rest).is_ok()
                })
                .map(|kw| shown(kw))
                .collect();
            let what = missing
                .iter()
                .map(|m| format!("{m}=..."))
                .collect::<Vec<_>>()
                .join(" and ");
            if needs.is_empty() {
                format!("the arguments given need {what}")
            } else {
                format!("{} needs {what}", needs.join(", "))
            }
        }
        _ => pythonic(&e.to_string(), given),
    }
}

/// A Rust message with the command line's flags written as Python's keyword arguments:
/// `--load` is `load`; `--flag VALUE` is `flag=VALUE` (`flag=<repr>` for the value given,
/// `flag='name'` for a literal such as a semantics, a workload or a trace format, `flag=FILE`
/// for a placeholder); `--flag: ...` at the head of a message names the value given.
pub(crate) fn pythonic(msg: &str, given: &Given) -> String {
    // Only the run's own flags are keywords; any other `--name` (cargo's `--features` in a
    // build hint, a CLI-only flag) is left as written.
    let cmd = command();
    let mut flags = keywords(&cmd);
    flags.extend(
        cmd.get_arguments()
            .filter_map(|a| a.get_long())
            .map(|l| l.replace('-', "_")),
    );
    let literals: Vec<String> = Model::ALL
        .iter()
        .map(|m| m.name().to_string())
        .chain(TraceFormat::ALL.iter().map(|f| f.name().to_string()))
        .chain(
            [
                "blox-default",
                "blox-multigpu-trace",
                "blox-synthetic",
                "poisson",
                "dual-load",
                "synergy-default",
                "rounds",
                "events",
            ]
            .map(String::from),
        )
        .collect();
    let bytes = msg.as_bytes();
    let mut out = String::with_capacity(msg.len());
    let mut i = 0;
    while i < msg.len() {
        let starts_flag = msg[i..].starts_with("--")
            && bytes.get(i + 2).is_some_and(u8::is_ascii_lowercase)
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'-'));
        if !starts_flag {
            let c = msg[i..].chars().next().expect("in bounds");
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let name_end = msg[i + 2..]
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .map_or(msg.len(), |n| i + 2 + n);
        let kw = msg[i + 2..name_end].trim_end_matches('-').replace('-', "_");
        let name_end = i + 2 + msg[i + 2..name_end].trim_end_matches('-').len();
        if !flags.contains(&kw) {
            out.push_str(&msg[i..name_end]);
            i = name_end;
            continue;
        }
        i = name_end;
        let rest = &msg[i..];
        if rest.starts_with(':') {
            match given.repr.get(&kw) {
                Some(r) => out.push_str(&format!("{kw}={r}")),
                None => out.push_str(&kw),
            }
            continue;
        }
        if let Some(after) = rest.strip_prefix(' ') {
            let tok_len = after
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '`'))
                .unwrap_or(after.len());
            let raw = &after[..tok_len];
            let tok = raw.trim_end_matches([':', '.']);
            let value = if !tok.is_empty() && given.text.get(&kw).is_some_and(|t| t == tok) {
                Some(given.repr[&kw].clone())
            } else if !tok.is_empty()
                && tok
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                && tok.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            {
                Some(tok.to_string())
            } else if !tok.is_empty()
                && (tok.parse::<f64>().is_ok()
                    || (tok.contains("..") && tok.split("..").all(|p| p.parse::<f64>().is_ok())))
            {
                Some(if tok.contains("..") {
                    format!("'{tok}'")
                } else {
                    tok.to_string()
                })
            } else if literals.iter().any(|l| l == tok) {
                Some(format!("'{tok}'"))
            } else {
                None
            };
            if let Some(v) = value {
                let quoted = v.starts_with('\'');
                out.push_str(&format!("{kw}={v}"));
                i += 1 + tok.len();
                // A list of literals after it (`--semantics exact, blox, gavel`): each quoted.
                while let Some(next) = msg[i..].strip_prefix(", ").filter(|_| quoted) {
                    let n = next
                        .find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
                        .unwrap_or(next.len());
                    let word = next[..n].trim_end_matches([':', '.']);
                    if !literals.iter().any(|l| l == word) {
                        break;
                    }
                    out.push_str(&format!(", '{word}'"));
                    i += 2 + word.len();
                }
                continue;
            }
        }
        out.push_str(&kw);
    }
    out
}

/// A Python exception for a run's failure, its message Python-shaped.
fn failure(py: Python<'_>, f: Failure<SimError>, given: &Given) -> PyErr {
    match f {
        Failure::Run(e) => run_error(py, &e, given),
        Failure::Python(p) => p.into_pyerr(py),
    }
}

/// A simulator error as its Python exception, flags written as keywords (file errors as they
/// are).
pub(crate) fn run_error(py: Python<'_>, e: &SimError, given: &Given) -> PyErr {
    let msg = match e {
        SimError::Io { .. } => e.to_string(),
        _ => pythonic(&e.to_string(), given),
    };
    sim_error_with(py, e, &msg)
}

/// A scenario given as data (a dict's JSON), parsed and checked as a scenario file's keys.
fn base_of(py: Python<'_>, base_json: Option<&str>) -> PyResult<Option<Scenario>> {
    base_json
        .map(|j| crate::runs::parse_scenario(py, j))
        .transpose()
}

/// A run prepared: its settings, its registry (Python components seeded by the run's seed).
struct Ready {
    prepared: Prepared,
    registry: Registry,
    slot: Arc<ErrorSlot>,
    /// The folder a peer's files go to when the run has no `out`: made here, removed after.
    scratch: Option<PathBuf>,
}

impl Drop for Ready {
    /// The scratch folder goes with the run, whether it ran, failed or never started.
    fn drop(&mut self) {
        if let Some(d) = &self.scratch {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// A fresh folder under the system's temporary folder.
fn scratch_dir() -> std::io::Result<PathBuf> {
    loop {
        let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("bloxsim-run-{}-{n}", std::process::id()));
        match std::fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Prepare one run (`RunSettings::prepare_from`), GIL released; a peer with no `out` gets a
/// scratch folder for its files.
fn ready(
    py: Python<'_>,
    st: &RunSettings,
    base: Option<&Scenario>,
    regs: &PyRegs,
) -> Result<Ready, Failure<SimError>> {
    let slot = Arc::new(ErrorSlot::default());
    let seed0 = st.seed.unwrap_or(0);
    let reg0 = regs.registry(py, seed0, &slot);
    let mut prepared = py.detach(|| guarded(&slot, || st.prepare_from(base.cloned(), &reg0)))?;
    // Python components draw from the run's seed: the scenario's (a file's, or Synergy's
    // default) under the engine's semantics.
    let registry = match prepared.scenario() {
        Some(s) if s.seed != seed0 && !regs.is_empty() => regs.registry(py, s.seed, &slot),
        _ => reg0,
    };
    let mut scratch = None;
    if prepared.scenario().is_none() && prepared.out().is_none() {
        let d = scratch_dir().map_err(|e| Failure::Run(SimError::io(std::env::temp_dir(), e)))?;
        prepared.set_out(Some(d.clone()));
        scratch = Some(d);
    }
    Ok(Ready {
        prepared,
        registry,
        slot,
        scratch,
    })
}

/// Run a prepared run (no GIL needed), reading a peer's files back (its scratch folder is
/// removed when the `Ready` is dropped).
fn go(r: &Ready) -> Result<Done, Failure<SimError>> {
    guarded(&r.slot, || {
        let f = r.prepared.run(&r.registry, Observe::quiet())?;
        Done::of(f, &r.prepared)
    })
}

/// A finished run as the Python side gets it.
enum Done {
    Engine(Box<Report>),
    Peer(Box<PeerReport>),
}

impl Done {
    fn of(f: Finished, p: &Prepared) -> Result<Done, SimError> {
        let row = f.row();
        match (f.report, p) {
            (Some(report), Prepared::Pollux(s, o)) => Ok(Done::Engine(Box::new(Report {
                pollux_meta: crate::runs::pollux_meta(s, o),
                report,
            }))),
            (Some(report), _) => Ok(Done::Engine(Box::new(Report {
                report,
                pollux_meta: None,
            }))),
            (None, _) => {
                let dir = f.out.clone().ok_or_else(|| {
                    SimError::Config("a peer's run wrote no files (no output folder)".into())
                })?;
                let mut files = Vec::new();
                for name in &f.files {
                    let path = dir.join(name);
                    let bytes = std::fs::read(&path).map_err(|e| SimError::io(&path, e))?;
                    files.push(((*name).to_string(), bytes));
                }
                Ok(Done::Peer(Box::new(PeerReport {
                    model: f.model,
                    label: f.metrics.label.clone(),
                    jcts_s: f.metrics.jcts_s.clone(),
                    row,
                    end_time_s: f.end_time_s,
                    lines: std::iter::once(f.footer.clone())
                        .chain(f.more.iter().cloned())
                        .collect(),
                    note: f.note.clone(),
                    files,
                    settings: settings_row(p),
                })))
            }
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Done::Engine(r) => Py::new(py, *r)?.into_any(),
            Done::Peer(r) => Py::new(py, *r)?.into_any(),
        })
    }
}

/// A peer run's settings as a comparison's table names them.
fn settings_row(p: &Prepared) -> String {
    let v = match p {
        Prepared::Tiresias(t) => serde_json::json!({
            "semantics": "tiresias",
            "cluster": t.cluster.clone().or_else(|| t.cluster_spec.as_ref().map(|p| p.display().to_string())),
            "admission": null,
            "policy": t.policy.clone().unwrap_or_else(|| "fifo".into()),
            "placement": t.placement.clone(),
            "load": null,
            "seed": null,
        }),
        Prepared::Gavel(g) => serde_json::json!({
            "semantics": "gavel",
            "cluster": g.cluster,
            "admission": null,
            "policy": g.policy,
            "placement": null,
            "load": null,
            "seed": g.seed,
        }),
        _ => serde_json::json!({}),
    };
    v.to_string()
}

/// A finished run of a peer simulator with runs of its own (`tiresias`, `gavel`): its
/// statistics in every semantics' columns, and its own files, as `blox-sim run --out` writes
/// them.
#[pyclass(module = "bloxsim._native", name = "PeerReport")]
pub(crate) struct PeerReport {
    model: Model,
    label: String,
    jcts_s: Vec<f64>,
    row: ComparisonRow,
    end_time_s: f64,
    lines: Vec<String>,
    note: Option<String>,
    files: Vec<(String, Vec<u8>)>,
    settings: String,
}

impl PeerReport {
    fn file(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

#[pymethods]
impl PeerReport {
    /// The semantics it ran under.
    fn semantics(&self) -> &'static str {
        self.model.name()
    }
    /// The files' names, in the order the run wrote them.
    fn file_names(&self) -> Vec<String> {
        self.files.iter().map(|(n, _)| n.clone()).collect()
    }
    /// One file's bytes (`None` if the peer writes no such file).
    fn file_bytes<'py>(&self, py: Python<'py>, name: &str) -> Option<Bound<'py, PyBytes>> {
        self.file(name).map(|b| PyBytes::new(py, b))
    }
    /// The `jobs.csv` bytes.
    fn jobs_csv<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.file_bytes(py, "jobs.csv")
    }
    /// The `timeline.csv` bytes, if the peer writes one.
    fn timeline_csv<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.file_bytes(py, "timeline.csv")
    }
    /// The `summary.json` bytes.
    fn summary_json<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.file_bytes(py, "summary.json")
    }
    /// The run's name in tables.
    fn label(&self) -> String {
        self.label.clone()
    }
    /// The completed jobs' JCTs, seconds.
    fn jcts_s(&self) -> Vec<f64> {
        self.jcts_s.clone()
    }
    /// `compare.csv`'s row of this run, as JSON.
    fn comparison_row(&self) -> String {
        serde_json::to_string(&self.row).unwrap_or_default()
    }
    /// The run's settings as a comparison names them, as JSON.
    fn settings(&self) -> String {
        self.settings.clone()
    }
    /// When the run ended on its clock, seconds.
    fn end_time_s(&self) -> f64 {
        self.end_time_s
    }
    /// What `blox-sim run` prints under its table for this run.
    fn lines(&self) -> Vec<String> {
        self.lines.clone()
    }
    /// Said under a comparison's table, e.g. that not every job completed.
    fn note(&self) -> Option<String> {
        self.note.clone()
    }
    /// No overload warning: the peers have none.
    fn overload_warning(&self) -> Option<String> {
        None
    }
    /// Write the run's files into `dir` as `blox-sim run --out DIR` does, all or nothing.
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        let files: Vec<(&str, Vec<u8>)> = self
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        write_all_or_nothing(&dir, &files)
            .map_err(|e| crate::errors::sim_error(py, &SimError::io(e.path, e.source)))
    }
}

/// Run the keyword arguments `kwargs` (a scenario given as data in `base_json`) under their
/// semantics with the Python components of `registry`, GIL released. Returns a `Report` (the
/// engine's semantics and Pollux) or a `PeerReport` (tiresias, gavel).
#[pyfunction]
#[pyo3(signature = (kwargs, base_json = None, registry = None))]
pub(crate) fn run_settings(
    py: Python<'_>,
    kwargs: &Bound<'_, PyDict>,
    base_json: Option<&str>,
    registry: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let (st, given) = settings_of(py, kwargs)?;
    let base = base_of(py, base_json)?;
    let regs = PyRegs::from_dict(registry)?;
    let r = ready(py, &st, base.as_ref(), &regs).map_err(|f| failure(py, f, &given))?;
    let done = py.detach(|| go(&r)).map_err(|f| failure(py, f, &given))?;
    done.into_py(py)
}

/// Run several keyword-argument sets in parallel (at most `threads` at once; default: every
/// core), every one prepared before any runs (a bad name fails before any run writes); the
/// first failure in order is raised.
#[pyfunction]
#[pyo3(signature = (runs, base_json = None, registry = None, threads = None))]
pub(crate) fn run_settings_many(
    py: Python<'_>,
    runs: Vec<Bound<'_, PyDict>>,
    base_json: Option<&str>,
    registry: Option<&Bound<'_, PyDict>>,
    threads: Option<usize>,
) -> PyResult<Vec<Py<PyAny>>> {
    let base = base_of(py, base_json)?;
    let regs = PyRegs::from_dict(registry)?;
    let mut readies = Vec::with_capacity(runs.len());
    let mut givens = Vec::with_capacity(runs.len());
    for kw in &runs {
        let (st, given) = settings_of(py, kw)?;
        let r = ready(py, &st, base.as_ref(), &regs).map_err(|f| failure(py, f, &given))?;
        readies.push(r);
        givens.push(given);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| config_error(py, &format!("threads: {e}")))?;
    let results: Vec<Result<Done, Failure<SimError>>> =
        py.detach(|| pool.install(|| readies.par_iter().map(go).collect()));
    let mut out = Vec::with_capacity(results.len());
    for (r, given) in results.into_iter().zip(&givens) {
        out.push(r.map_err(|f| failure(py, f, given))?.into_py(py)?);
    }
    Ok(out)
}

/// The engine scenario the keyword arguments describe (every default filled in), as JSON: what
/// `run_settings` would run under the engine's semantics or Pollux's.
#[pyfunction]
#[pyo3(signature = (kwargs, base_json = None))]
pub(crate) fn settings_scenario(
    py: Python<'_>,
    kwargs: &Bound<'_, PyDict>,
    base_json: Option<&str>,
) -> PyResult<String> {
    let (st, given) = settings_of(py, kwargs)?;
    let base = base_of(py, base_json)?;
    let model = st.model().map_err(|e| run_error(py, &e, &given))?;
    if model.engine().is_none() && model != Model::Pollux {
        return Err(new_error(
            py,
            "UnsupportedError",
            &format!(
                "semantics='{model}' runs its own simulator, which has no engine scenario; \
                 bloxsim.run(semantics='{model}', ...) runs it"
            ),
            &[],
        ));
    }
    let mut s = py
        .detach(|| st.engine_scenario_from(base))
        .map_err(|e| run_error(py, &e, &given))?;
    if let Some(p) = &st.policy {
        s.policy = p
            .parse()
            .map_err(|e| config_error(py, &format!("{}: {e}", given_name(&given, "policy"))))?;
    }
    if let Some(o) = &st.out {
        s.out = Some(o.clone());
    }
    serde_json::to_string(&s).map_err(|e| config_error(py, &e.to_string()))
}

fn given_name(given: &Given, kw: &str) -> String {
    given
        .repr
        .get(kw)
        .map_or_else(|| kw.to_string(), |r| format!("{kw}={r}"))
}

/// The keyword arguments as the Rust `RunSettings`, as JSON (the names and values `blox-sim
/// run` would parse from the same flags).
#[pyfunction]
pub(crate) fn settings_json(py: Python<'_>, kwargs: &Bound<'_, PyDict>) -> PyResult<String> {
    let (st, _) = settings_of(py, kwargs)?;
    serde_json::to_string(&st).map_err(|e| config_error(py, &e.to_string()))
}

/// Write `compare.csv`, `compare.json` and `jct_cdf.svg` of these runs (`Report`s or
/// `PeerReport`s) into `dir`, as `blox-sim compare --out DIR` does (rows labelled `labels`).
#[pyfunction]
pub(crate) fn write_comparison_of(
    py: Python<'_>,
    dir: PathBuf,
    reports: Vec<Bound<'_, PyAny>>,
    labels: Vec<String>,
) -> PyResult<()> {
    let mut rows = Vec::with_capacity(reports.len());
    let mut jcts = Vec::with_capacity(reports.len());
    for (r, l) in reports.iter().zip(&labels) {
        let (mut row, j) = if let Ok(e) = r.cast::<Report>() {
            let e = e.borrow();
            (
                crate::runs::row_of(&e.report),
                e.report.metrics.jcts_s.clone(),
            )
        } else {
            let p = r.cast::<PeerReport>()?.borrow();
            (p.row.clone(), p.jcts_s.clone())
        };
        row.label = l.clone();
        rows.push(row);
        jcts.push(j);
    }
    crate::runs::write_comparison_rows(py, &dir, &rows, &jcts)
}
