"""Keyword arguments that mirror ``blox-sim``'s flags, handed to the Rust ``RunSettings``.

Every keyword argument is a flag of ``blox-sim run`` with ``-`` written ``_`` (``--load 1`` is
``load=1``, ``--blox-trace-jobs N`` is ``blox_trace_jobs=N``). They are not interpreted here:
the native module parses them with the very flags ``blox-sim`` derives from the Rust
``RunSettings`` (``blox-scenario/src/settings.rs``): the same names, defaults, value checks,
conflicts, the same scenario built (``RunSettings::engine_scenario``) and the same settings
refused under a semantics that does not take them. Errors name the keyword argument
(``load=-3: ...``), not the flag.

What stays here are Python's own conveniences, with no command-line equivalent, turned into
what the command line takes: a DataFrame of jobs as ``trace`` (written to a file named by its
content), path-like values (``os.fspath``), a dict of scenario keys as ``scenario`` (a scenario
given as data), and the list helpers of :func:`bloxsim.sweep`.
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

__all__ = ["native_kwargs", "build", "is_stock", "split_specs", "numbers", "as_list", "UnsupportedError"]


def is_stock(role: str, name: str) -> bool:
    """Whether ``name`` is a stock component of ``role`` (``policy``, ``placement``,
    ``admission``)."""
    try:
        return _native.component(role, name)[1]
    except ConfigError:
        return False


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


def _plain(v: Any) -> Any:
    """A path-like value as its path; a list or tuple of them as a list of paths."""
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, (list, tuple)):
        return [os.fspath(x) if isinstance(x, os.PathLike) else x for x in v]
    return v


def native_kwargs(kw: Mapping[str, Any]) -> Tuple[Dict[str, Any], Optional[str]]:
    """The keyword arguments as the native module takes them, and a scenario given as a dict
    (its JSON, else ``None``): ``None`` values dropped, paths as strings, a DataFrame of jobs
    as its trace file."""
    out: Dict[str, Any] = {}
    base: Optional[str] = None
    for k, v in kw.items():
        if v is None:
            continue
        if k == "scenario":
            if isinstance(v, Mapping):
                base = json.dumps(dict(v))
                continue
            if not isinstance(v, (str, os.PathLike)):
                raise ConfigError(f"scenario={v!r}: expected a .toml/.json file or a dict of scenario keys")
        if k == "trace" and hasattr(v, "columns"):
            v = _frame_trace(v)
        out[k] = _plain(v)
    return out, base


def build(kw: Mapping[str, Any]) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
    """The engine scenario the keyword arguments describe (every default filled in), as
    scenario-file keys, built by the Rust ``RunSettings::engine_scenario``; and, under
    ``semantics="pollux"``, the Pollux preset's knobs given (else ``None``). Tiresias and
    Gavel run their own simulators and have no such scenario (:class:`UnsupportedError`)."""
    k, base = native_kwargs(kw)
    s = json.loads(_native.settings_scenario(k, base))
    popts = None
    if k.get("semantics") == "pollux":
        st = json.loads(_native.settings_json(k))
        popts = {
            "traces": st.get("pollux_traces"),
            "interference": st.get("interference") or 0.0,
            "no_interference_avoidance": bool(st.get("no_interference_avoidance")),
            "generations": st.get("generations"),
        }
    return s, popts


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
