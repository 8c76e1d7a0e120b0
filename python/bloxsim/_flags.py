"""Keyword arguments that mirror ``blox-sim``'s flags, turned into a scenario.

Every keyword argument is a flag of ``blox-sim run`` with ``-`` written ``_`` (``--load 1`` is
``load=1``, ``--blox-trace-jobs N`` is ``blox_trace_jobs=N``). They are applied onto a base
scenario (``scenario=`` a ``.toml``/``.json`` file or a dict of scenario keys, else the
defaults) by the rules of the CLI's flag parser (``ScenarioArgs::build`` in
``blox-cli/src/cli.rs``): which workload the flags select, Synergy's defaults under its
semantics, and which setting each flag overrides. The result is a scenario dict that the Rust
scenario deserialiser parses and checks exactly as it checks a scenario file, so a run from
Python and the same command line build the same ``Scenario`` (the parity tests compare the
files byte for byte, ``summary.json``'s ``config`` included).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _native
from ._errors import ConfigError, UnsupportedError

#: The flags of ``blox-sim run`` that become scenario settings (``ScenarioArgs``).
SCENARIO_FLAGS = (
    "scenario",
    "semantics",
    "workload",
    "blox_trace",
    "class_split",
    "node_cpus",
    "node_mem",
    "jobs",
    "durations",
    "gpus",
    "resample",
    "load",
    "blox_trace_jobs",
    "trace",
    "trace_format",
    "skip_bad_lines",
    "cluster",
    "cluster_spec",
    "throughputs",
    "reference_gpu_type",
    "round",
    "admission",
    "placement",
    "topology",
    "throughput",
    "track",
    "seed",
    "preemption_cost",
    "starvation",
    "node_events",
    "failures",
    "autoscale",
    "checkpoint_interval",
    "max_sim_time",
    "decide",
)

#: The Pollux preset's flags (``--semantics pollux`` only).
POLLUX_FLAGS = ("pollux_traces", "interference", "no_interference_avoidance", "generations")

#: The semantics the engine runs (scenario files and sweeps take these).
ENGINE_SEMANTICS = ("blox", "exact", "synergy")

#: Peer semantics the Rust library does not expose yet, and what to use instead.
UNREACHABLE_PEERS = {
    "tiresias": (
        "`tiresias` semantics is not reachable from the Rust library API yet (blox-cli keeps "
        "its Tiresias runner, `TiresiasArgs`, crate-private); run it with the command line: "
        "`blox-sim run --semantics tiresias --trace FILE ...`"
    ),
    "gavel": (
        "`gavel` semantics is not reachable from the Rust library API yet (blox-cli keeps its "
        "Gavel runner, `GavelRun`, crate-private); run it with the command line: "
        "`blox-sim run --semantics gavel --trace FILE --cluster ...`"
    ),
}

#: Defaults of the CLI's flag parser.
DEFAULT_GENERATED_JOBS = 10_000
DEFAULT_LOAD = 8.0
BLOX_TRACE_JOBS = 12_000
SYNERGY_LOAD = 9.0
SYNERGY_CLASS_SPLIT = "20,70,10"
SYNERGY_CLUSTER = "16x8"
SYNERGY_SEED = 42
MAX_GENERATED_JOBS = 10_000_000
MAX_SECONDS = 1e9

#: Scenario keys set by a flag of another name (flag -> key).
_RENAMED = {
    "node_mem": "node_mem_gb",
    "round": "round_s",
    "throughput": "throughput_model",
    "preemption_cost": "preemption_cost_s",
    "starvation": "starvation_s",
    "checkpoint_interval": "checkpoint_interval_s",
    "max_sim_time": "max_sim_time_s",
}

#: The flag that sets each scenario key a check may name (``ScenarioArgs::flag_of``).
_FLAG_OF_KEY = {
    "cluster": ("cluster",),
    "round_s": ("round",),
    "preemption_cost_s": ("preemption_cost", "semantics"),
    "track": ("track",),
    "workload.load": ("load", "resample"),
    "workload.jobs": ("jobs",),
    "workload.trace_jobs": ("blox_trace_jobs",),
    "workload.durations": ("durations",),
    "workload.gpus": ("gpus", "cluster"),
    "workload.format": ("trace_format",),
    "workload.paths": ("trace",),
    "topology": ("topology", "cluster"),
    "max_sim_time_s": ("max_sim_time",),
}


def _bad(flag: str, value: Any, what: str) -> ConfigError:
    negative = isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0
    return ConfigError(f"{flag}={value!r}: must be {what}" + (" (it is negative)" if negative else ""))


def _whole(flag: str, v: Any, what: str, lo: int, hi: int) -> int:
    """A whole number in ``lo..=hi`` (floats with no fraction accepted, as the CLI does)."""
    if isinstance(v, bool):
        raise _bad(flag, v, what)
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, str):
        try:
            v = int(v.strip())
        except ValueError:
            raise _bad(flag, v, what) from None
    if not isinstance(v, int) or not lo <= v <= hi:
        raise _bad(flag, v, what)
    return v


def _real(flag: str, v: Any, what: str, ok) -> float:
    if isinstance(v, bool):
        raise _bad(flag, v, what)
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise _bad(flag, v, what) from None
    if not (math.isfinite(x) and ok(x)):
        raise _bad(flag, v, what)
    return x


def job_count(flag: str, v: Any) -> int:
    return _whole(flag, v, f"a whole number of jobs in 1..={MAX_GENERATED_JOBS}", 1, MAX_GENERATED_JOBS)


def rate(flag: str, v: Any) -> float:
    return _real(flag, v, "a number of jobs per hour > 0", lambda x: x > 0)


def seed_value(flag: str, v: Any) -> int:
    return _whole(flag, v, "a whole number ≥ 0", 0, 2**64 - 1)


_VALIDATORS = {
    "jobs": job_count,
    "blox_trace_jobs": job_count,
    "load": rate,
    "resample": rate,
    "round": lambda f, v: _whole(f, v, "a whole number of seconds ≥ 1", 1, 2**64 // 1000),
    "starvation": lambda f, v: _whole(f, v, "a whole number of seconds ≥ 0", 0, 2**64 // 1000),
    "seed": seed_value,
    "preemption_cost": lambda f, v: _real(
        f, v, f"a number of seconds in 0..={MAX_SECONDS:e}", lambda x: 0 <= x <= MAX_SECONDS
    ),
    "max_sim_time": lambda f, v: _real(
        f, v, f"a number of seconds in (0, {MAX_SECONDS:e}]", lambda x: 0 < x <= MAX_SECONDS
    ),
    "node_cpus": lambda f, v: _whole(f, v, "a whole number of CPUs", 0, 2**32 - 1),
    "node_mem": lambda f, v: _real(f, v, "a number of GB ≥ 0", lambda x: x >= 0),
    "checkpoint_interval": lambda f, v: _real(f, v, "a number of seconds ≥ 0", lambda x: x >= 0),
}


def component(role: str, spec: Any) -> Any:
    """A component given as a CLI spec string (``"load-based:1.2"``) or a scenario table
    (``{"kind": "load-based", "factor": 1.2}``), as the table the scenario holds."""
    if isinstance(spec, Mapping):
        return dict(spec)
    if not isinstance(spec, str):
        raise ConfigError(f"{role}={spec!r}: expected a name such as 'las' or 'load-based:1.2', or a dict with a 'kind'")
    table, _stock = _native.component(role, spec)
    return json.loads(table)


def is_stock(role: str, name: str) -> bool:
    """Whether ``name`` is a stock component of ``role`` (``policy``, ``placement``,
    ``admission``)."""
    try:
        return _native.component(role, name)[1]
    except ConfigError:
        return False


def _paths(v: Any) -> List[str]:
    if isinstance(v, (str, os.PathLike)):
        return [os.fspath(v)]
    return [os.fspath(p) for p in v]


def _frame_trace(df: Any) -> str:
    """A DataFrame of jobs written as a canonical trace file (``job_id,arrival_s,n_gpus,
    duration_s[,model]``) whose name is its content's hash: the same jobs give the same path,
    so runs of it stay byte-identical (the path is in ``summary.json``)."""
    cols = ["job_id", "arrival_s", "n_gpus", "duration_s"]
    frame = df.copy()
    if "job_id" not in frame.columns:
        frame.insert(0, "job_id", range(len(frame)))
    if "duration_s" not in frame.columns and "work_s" in frame.columns:
        frame = frame.rename(columns={"work_s": "duration_s"})
    missing = [c for c in cols[1:] if c not in frame.columns]
    if missing:
        raise ConfigError(f"trace: a DataFrame of jobs needs the columns {cols[1:]} (missing {missing})")
    if "model" in frame.columns:
        cols.append("model")
    text = frame[cols].to_csv(index=False, lineterminator="\n")
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    folder = Path(tempfile.gettempdir()) / "bloxsim-traces"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"jobs-{digest}.csv"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return str(path)


def base_scenario(scenario: Any) -> Dict[str, Any]:
    """The scenario every flag applies to: a file (read as the CLI reads ``--scenario``), a
    dict of scenario keys, or the defaults; every default filled in."""
    if scenario is None:
        return json.loads(_native.check_scenario("{}"))
    if isinstance(scenario, (str, os.PathLike)):
        return json.loads(_native.scenario_from_file(os.fspath(scenario)))
    if isinstance(scenario, Mapping):
        return json.loads(_native.check_scenario(json.dumps(dict(scenario))))
    raise ConfigError(f"scenario={scenario!r}: expected a .toml/.json file or a dict of scenario keys")


def build(kw: Mapping[str, Any]) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """Apply the flags ``kw`` (``SCENARIO_FLAGS``, ``policy``, ``out`` and the Pollux flags)
    as ``blox-sim run`` applies them. Returns the checked scenario dict and, under
    ``semantics="pollux"``, the Pollux preset's options (else ``None``)."""
    unknown = sorted(set(kw) - set(SCENARIO_FLAGS) - set(POLLUX_FLAGS) - {"policy", "out"})
    if unknown:
        raise TypeError(f"unknown keyword argument(s) {unknown}; the flags of `blox-sim run` are {list(SCENARIO_FLAGS) + ['policy', 'out']}")
    f = {k: v for k, v in kw.items() if v is not None}
    for k, check in _VALIDATORS.items():
        if k in f:
            f[k] = check(k, f[k])
    semantics = f.get("semantics")
    pollux = semantics == "pollux"
    if semantics in UNREACHABLE_PEERS:
        raise UnsupportedError(UNREACHABLE_PEERS[semantics])
    if semantics is not None and semantics not in ENGINE_SEMANTICS and not pollux:
        raise ConfigError(
            f"semantics={semantics!r}: unknown semantics (known: blox, exact, synergy, tiresias, gavel, pollux)"
        )
    given_pollux = [k for k in POLLUX_FLAGS if f.get(k) not in (None, False)]
    if given_pollux and not pollux:
        raise ConfigError(f"{', '.join(given_pollux)} apply to semantics='pollux' only")
    if "cluster_spec" in f:
        raise ConfigError("cluster_spec goes with semantics='tiresias'")

    s = base_scenario(f.get("scenario"))
    from_file = f.get("scenario") is not None
    if semantics in ENGINE_SEMANTICS:
        s["semantics"] = semantics
    jobs = f.get("jobs", DEFAULT_GENERATED_JOBS)
    workload = f.get("workload")
    known = ("blox-default", "blox-multigpu-trace", "blox-synthetic", "poisson", "dual-load", "synergy-default")
    if workload is not None and workload not in known:
        raise ConfigError(f"workload={workload!r}: expected one of {', '.join(known)}")
    trace = f.get("trace")
    if trace is not None and hasattr(trace, "columns"):
        trace = _frame_trace(trace)
    old = s.get("workload", {})
    if trace is not None:
        if any(k in f for k in ("workload", "load", "blox_trace_jobs")):
            clash = [k for k in ("workload", "load", "blox_trace_jobs") if k in f][0]
            raise ConfigError(f"trace cannot be combined with {clash} (the jobs come from the trace)")
        paths = _paths(trace)
        fmt = f.get("trace_format", "canonical")
        if "resample" in f:
            s["workload"] = {"kind": "resample", "paths": paths, "format": fmt, "load": f["resample"], "jobs": jobs}
        else:
            s["workload"] = {"kind": "trace", "paths": paths, "format": fmt, "skip_bad_lines": bool(f.get("skip_bad_lines", False))}
    elif "resample" in f:
        raise ConfigError("resample needs trace=FILE")
    elif "trace_format" in f or f.get("skip_bad_lines"):
        raise ConfigError("trace_format and skip_bad_lines need trace=FILE")
    elif workload == "poisson":
        s["workload"] = {
            "kind": "poisson",
            "load": f.get("load", DEFAULT_LOAD),
            "jobs": jobs,
            "durations": f.get("durations", "philly-like"),
            "gpus": str(f.get("gpus", "philly")),
        }
    elif workload == "blox-multigpu-trace":
        if "blox_trace" not in f:
            raise ConfigError("workload='blox-multigpu-trace' needs blox_trace=FILE (a Philly cluster_job_log)")
        s["workload"] = {"kind": "blox-multigpu-trace", "load": f.get("load", DEFAULT_LOAD), "path": os.fspath(f["blox_trace"])}
    elif workload == "blox-synthetic":
        s["workload"] = {"kind": "blox-synthetic", "load": f.get("load", DEFAULT_LOAD)}
    elif (
        workload == "synergy-default"
        or (workload is None and not from_file and s["semantics"] == "synergy")
        or "class_split" in f
    ):
        if old.get("kind") == "synergy-default":
            old_load, old_split = old["load"], old["class_split"]
        else:
            old_load, old_split = SYNERGY_LOAD, SYNERGY_CLASS_SPLIT
        if workload is not None and workload != "synergy-default":
            raise ConfigError("class_split goes with workload='synergy-default'")
        s["workload"] = {
            "kind": "synergy-default",
            "load": f.get("load", old_load),
            "class_split": f.get("class_split", old_split),
        }
    elif workload == "dual-load":
        s["workload"] = {"kind": "dual-load", "load": f.get("load", 9.0), "jobs": jobs}
    elif "durations" in f or "gpus" in f:
        raise ConfigError("durations and gpus go with workload='poisson'")
    elif "blox_trace" in f:
        raise ConfigError("blox_trace goes with workload='blox-multigpu-trace'")
    elif workload is not None or "load" in f or "blox_trace_jobs" in f:
        if old.get("kind") == "blox-default":
            old_load, old_n = old["load"], old["trace_jobs"]
        else:
            old_load, old_n = DEFAULT_LOAD, BLOX_TRACE_JOBS
        s["workload"] = {"kind": "blox-default", "load": f.get("load", old_load), "trace_jobs": f.get("blox_trace_jobs", old_n)}
    # Synergy's own defaults under its semantics, unless a scenario file or a flag says otherwise.
    if s["semantics"] == "synergy" and not from_file:
        s["cluster"] = SYNERGY_CLUSTER
        s["seed"] = SYNERGY_SEED
        s["placement"] = {"kind": "synergy", "mode": "tune"}
    for flag in (
        "cluster",
        "node_cpus",
        "node_mem",
        "throughputs",
        "reference_gpu_type",
        "round",
        "topology",
        "throughput",
        "track",
        "seed",
        "preemption_cost",
        "starvation",
        "node_events",
        "failures",
        "autoscale",
        "checkpoint_interval",
        "decide",
        "max_sim_time",
    ):
        if flag in f:
            v = f[flag]
            if isinstance(v, os.PathLike):
                v = os.fspath(v)
            s[_RENAMED.get(flag, flag)] = v
    for role in ("admission", "placement", "policy"):
        if role in f:
            s[role] = component(role, f[role])
    if "out" in f:
        s["out"] = os.fspath(f["out"])
    try:
        checked = json.loads(_native.check_scenario(json.dumps(s)))
    except ConfigError as e:
        raise _blame(e, f) from None
    popts = None
    if pollux:
        popts = {
            "traces": os.fspath(f["pollux_traces"]) if "pollux_traces" in f else None,
            "interference": float(f.get("interference", 0.0)),
            "no_interference_avoidance": bool(f.get("no_interference_avoidance", False)),
            "generations": f.get("generations"),
        }
    return checked, popts


def _blame(e: ConfigError, f: Mapping[str, Any]) -> ConfigError:
    """A check's error blamed on the keyword argument that set the key, else on the scenario
    file, as the CLI blames a flag or a file."""
    key = getattr(e, "key", None)
    detail = getattr(e, "detail", None)
    if key is None or detail is None:
        return e
    flags = [k for k in _FLAG_OF_KEY.get(key, ()) if k in f]
    if key == "workload.load" and "resample" in f:
        flags = ["resample"]
    if flags:
        msg = f"{flags[0]}={f[flags[0]]!r}: {detail}"
    elif f.get("scenario") is not None and not isinstance(f["scenario"], Mapping):
        msg = f"{os.fspath(f['scenario'])}: `{key}`: {detail}"
    else:
        msg = str(e)
    err = type(e)(msg)
    err.key, err.detail = key, detail
    return err


def split_specs(s: Any) -> List[str]:
    """A list of component specs: a list as is, or a comma list where ``key=value`` parameters
    stay with their component (``"tiresias:queues=2,threshold=3600,las"`` gives two)."""
    if not isinstance(s, str):
        return [x if isinstance(x, str) else x for x in s]
    out: List[str] = []
    for part in s.split(","):
        if out and "=" in part and ":" not in part:
            out[-1] += "," + part
        else:
            out.append(part.strip())
    return out


def numbers(flag: str, v: Any) -> List[float]:
    """``"1..9,12,0.5"`` (the CLI's sweep lists), a range, or a sequence of numbers."""
    if v is None:
        return []
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [float(v)]
    if isinstance(v, range):
        return [float(x) for x in v]
    if not isinstance(v, str):
        return [float(x) for x in v]
    out: List[float] = []
    for item in v.split(","):
        item = item.strip()
        if ".." in item:
            a, b = item.split("..", 1)
            try:
                lo, hi = int(a), int(b)
            except ValueError:
                raise ConfigError(f"{flag}: `{item}` is not a number or an integer range A..B") from None
            if lo > hi:
                raise ConfigError(
                    f"{flag}: the range `{item}` is reversed (its first value is after its last; write {hi}..{lo})"
                )
            if hi - lo + 1 > 10_000:
                raise ConfigError(
                    f"{flag}: the range `{item}` holds {hi - lo + 1} values, more than the 10000 a sweep range may hold"
                )
            out.extend(float(x) for x in range(lo, hi + 1))
        else:
            try:
                x = float(item)
            except ValueError:
                raise ConfigError(f"{flag}: `{item}` is not a number or an integer range A..B") from None
            if not math.isfinite(x):
                raise ConfigError(f"{flag}: `{item}` is not a number or an integer range A..B")
            out.append(x)
    return out


def as_list(v: Any) -> List[Any]:
    """A sweep axis: ``None`` (keep the base), a comma string, or a sequence."""
    if v is None:
        return []
    if isinstance(v, str):
        return [x.strip() for x in v.split(",")]
    if isinstance(v, Sequence):
        return list(v)
    return [v]
