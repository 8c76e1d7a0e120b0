"""A finished run as Python objects: :class:`Result`, and the typed DataFrames of its files."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

    from . import _native

#: ``jobs.csv``'s columns and their dtypes (``failures`` only in runs with cluster management).
JOBS_DTYPES: Dict[str, str] = {
    "job_id": "int64",
    "arrival_s": "float64",
    "n_gpus": "int64",
    "first_start_s": "float64",
    "completion_s": "float64",
    "jct_s": "float64",
    "preemptions": "int64",
    "tracked": "bool",
    "duration_s": "float64",
    "responded_s": "float64",
    "admitted_s": "float64",
    "model": "string",
    "source_id": "string",
    "gpu_types": "string",
    "failures": "int64",
}

#: ``timeline.csv``'s columns and their dtypes (``available_gpus`` only with cluster
#: management).
TIMELINE_DTYPES: Dict[str, str] = {
    "time_s": "float64",
    "jobs_in_queue": "int64",
    "jobs_running": "int64",
    "free_gpus": "int64",
    "gpu_demand": "int64",
    "preemptions": "int64",
    "jobs_pending_admission": "int64",
    "available_gpus": "int64",
}

#: ``jobs.csv``'s columns and dtypes under ``semantics="gavel"`` (Gavel's own: one row per
#: trace job, times at full precision, ``status`` ``completed`` or ``dropped``).
GAVEL_JOBS_DTYPES: Dict[str, str] = {
    "job_id": "int64",
    "job_type": "string",
    "scale_factor": "int64",
    "total_steps": "int64",
    "arrival_s": "float64",
    "finish_s": "float64",
    "jct_s": "float64",
    "status": "string",
    "gpu_types": "string",
    "micro_tasks": "int64",
    "preemptions": "int64",
}

#: The columns of ``compare()``'s table: the settings of each run, then ``compare.csv``'s
#: statistics. A setting a semantics has none of is missing (``<NA>``/NaN): Tiresias' and
#: Gavel's admission and load, Tiresias' seed (hence the nullable ``Int64``).
COMPARE_DTYPES: Dict[str, str] = {
    "name": "string",
    "label": "string",
    "semantics": "string",
    "cluster": "string",
    "admission": "string",
    "policy": "string",
    "placement": "string",
    "load": "float64",
    "seed": "Int64",
    "n_tracked": "int64",
    "n_completed": "int64",
    "avg_jct_s": "float64",
    "p50_jct_s": "float64",
    "p99_jct_s": "float64",
    "makespan_s": "float64",
    "utilisation": "float64",
    "worst_rho": "float64",
    "preemptions": "int64",
}

#: The columns of ``sweep()``'s table: ``results.csv``'s (``failure_rate`` only in sweeps over
#: failures).
SWEEP_DTYPES: Dict[str, str] = {
    "index": "int64",
    "label": "string",
    "semantics": "string",
    "cluster": "string",
    "admission": "string",
    "policy": "string",
    "placement": "string",
    "load": "float64",
    "seed": "int64",
    "n_tracked": "int64",
    "avg_jct_s": "float64",
    "p50_jct_s": "float64",
    "p99_jct_s": "float64",
    "avg_responsiveness_s": "float64",
    "preemptions_total": "int64",
    "makespan_s": "float64",
    "end_time_s": "float64",
    "failure_rate": "float64",
}


def read_csv(data: bytes, dtypes: Dict[str, str]) -> "pd.DataFrame":
    """A CSV written by the simulator as a DataFrame with the documented dtypes: an empty
    numeric cell ("never") is NaN, an empty text cell is ``<NA>``."""
    import pandas as pd

    header = data.split(b"\n", 1)[0].decode().split(",")
    types = {c: dtypes[c] for c in header if c in dtypes}
    text_cols = [c for c in header if types.get(c) == "string"]
    parse = {c: ("int64" if t == "bool" else "object" if t == "string" else t) for c, t in types.items()}
    df = pd.read_csv(
        io.BytesIO(data),
        dtype={c: (str if t == "object" else t) for c, t in parse.items()},
        keep_default_na=False,
        na_values={c: [""] for c in header if c not in text_cols},
    )
    for c in text_cols:
        col = df[c].astype("string")
        col[col == ""] = pd.NA
        df[c] = col
    for c, t in types.items():
        if t == "bool":
            df[c] = df[c].astype("bool")
    return df


def frame(rows: List[Dict[str, Any]], dtypes: Dict[str, str]) -> "pd.DataFrame":
    """Rows (dicts) as a DataFrame with the documented column order and dtypes; optional
    columns absent from every row are left out."""
    import pandas as pd

    cols = [c for c in dtypes if any(c in r for r in rows)] or [c for c in dtypes if c != "failure_rate"]
    df = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols)
    return df.astype({c: ("float64" if dtypes[c] == "float64" else dtypes[c]) for c in cols})


def _unsupported(msg: str) -> Exception:
    from ._errors import UnsupportedError

    return UnsupportedError(msg)


class Result:
    """One finished run: its jobs, timeline and summary, and its files.

    ``jobs`` and ``timeline`` are DataFrames with the columns of ``jobs.csv`` and
    ``timeline.csv`` (built from the same bytes the CLI writes, with typed columns: ids and
    counts ``int64``, times ``float64`` with NaN for "never", ``tracked`` ``bool``, names
    ``string``); ``summary`` is ``summary.json`` as a dict; :meth:`to_dir` writes the CLI's
    files byte for byte.

    Under ``tiresias`` and ``gavel`` (the peers' own simulators) they are the peer's files, as
    ``blox-sim run --out`` writes them: Tiresias' ``jobs.csv`` (the columns above),
    ``timeline.csv``, ``summary.json`` (its own keys), ``job.csv`` and ``jct_cdf.csv``; Gavel's
    ``jobs.csv`` (``GAVEL_JOBS_DTYPES``) and ``summary.json``, and no timeline.
    """

    def __init__(self, native: Any, name: Optional[str] = None) -> None:
        self._native = native
        self._name = name
        self._jobs: Optional["pd.DataFrame"] = None
        self._timeline: Optional["pd.DataFrame"] = None
        self._summary: Optional[Dict[str, Any]] = None

    @property
    def _peer(self) -> bool:
        return hasattr(self._native, "file_names")

    @property
    def semantics(self) -> str:
        """The semantics the run had: ``exact``, ``blox``, ``synergy``, ``pollux``,
        ``tiresias`` or ``gavel``."""
        return self._native.semantics()

    @property
    def name(self) -> str:
        """The run's name in tables: the policy (with its placement when a comparison varies
        placements), or Synergy's scheduler string under ``synergy`` semantics."""
        return self._name or self._native.label()

    @property
    def jobs(self) -> "pd.DataFrame":
        """``jobs.csv`` as a DataFrame: one row per admitted job, in id order (under
        ``gavel``, Gavel's columns: one row per trace job)."""
        if self._jobs is None:
            dtypes = GAVEL_JOBS_DTYPES if self.semantics == "gavel" else JOBS_DTYPES
            self._jobs = read_csv(self._native.jobs_csv(), dtypes)
        return self._jobs

    @property
    def timeline(self) -> "pd.DataFrame":
        """``timeline.csv`` as a DataFrame: a step function of the cluster's state per round
        (a stretch of alike rounds is its first and last rows). Gavel's simulator keeps no
        timeline: :class:`UnsupportedError` under ``gavel``."""
        if self._timeline is None:
            data = self._native.timeline_csv()
            if data is None:
                raise _unsupported(
                    f"semantics={self.semantics!r} writes no timeline.csv (its files: "
                    f"{', '.join(self._native.file_names())})"
                )
            self._timeline = read_csv(data, TIMELINE_DTYPES)
        return self._timeline

    @property
    def summary(self) -> Dict[str, Any]:
        """``summary.json`` as a dict (``avg_jct_s``, ``statistics``, ``cluster``, ``run``,
        ``workload``, ``config``, ...; under ``tiresias`` and ``gavel``, the peer's keys)."""
        if self._summary is None:
            self._summary = json.loads(self._native.summary_json())
        return self._summary

    @property
    def scenario(self) -> Dict[str, Any]:
        """The scenario that ran (every default filled in), as scenario-file keys (the
        engine's runs and Pollux's; the peers with simulators of their own have none)."""
        if self._peer:
            raise _unsupported(f"semantics={self.semantics!r} runs its own simulator: no engine scenario")
        return json.loads(self._native.scenario_json())

    @property
    def outcome(self) -> Dict[str, Any]:
        """The engine's counters: ``end_time``, ``rounds``, ``rounds_processed``, ``arrived``,
        ``admitted``, ``rejected``, ``completed``, ``preemptions`` (the engine's runs)."""
        if self._peer:
            raise _unsupported(f"semantics={self.semantics!r} runs its own simulator: no engine counters")
        return json.loads(self._native.outcome_json())

    @property
    def avg_jct_s(self) -> float:
        """Mean JCT of the tracked jobs, seconds (NaN if none completed)."""
        v = self.summary.get("avg_jct_s")
        return float("nan") if v is None else float(v)

    @property
    def jcts_s(self) -> "np.ndarray":
        """The tracked jobs' JCTs, seconds, ascending (what a JCT CDF plots)."""
        import numpy as np

        return np.sort(np.asarray(self._native.jcts_s(), dtype="float64"))

    def comparison_row(self) -> Dict[str, Any]:
        """This run's row of ``compare.csv`` (label, counts, JCT statistics, utilisation,
        worst ρ, preemptions)."""
        row = json.loads(self._native.comparison_row())
        row["label"] = self.name
        return row

    def files(self) -> Dict[str, bytes]:
        """The bytes of ``jobs.csv``, ``timeline.csv`` and ``summary.json`` (under
        ``tiresias`` and ``gavel``: every file the peer writes)."""
        if self._peer:
            return {n: self._native.file_bytes(n) for n in self._native.file_names()}
        return {
            "jobs.csv": self._native.jobs_csv(),
            "timeline.csv": self._native.timeline_csv(),
            "summary.json": self._native.summary_json(),
        }

    def to_dir(self, path: Union[str, "os.PathLike[str]"]) -> Path:
        """Write the run's files into ``path`` (created if missing) exactly as ``blox-sim run
        --out PATH`` writes them: ``jobs.csv``, ``timeline.csv``, ``summary.json``,
        ``fairness.csv``, ``jct_cdf.csv``, ``timeline.svg`` (and ``pollux.json`` under
        ``pollux``; the peer's own files under ``tiresias`` and ``gavel``), all or nothing.
        ``summary.json`` records ``path`` as the scenario's ``out``, as the CLI does, so the
        same path gives the same bytes. Returns the path."""
        self._native.write(os.fspath(path))
        return Path(path)

    def __repr__(self) -> str:
        if self._peer:
            row = json.loads(self._native.comparison_row())
            return (
                f"<bloxsim.Result {self.name!r} ({self.semantics}): {row['n_completed']} of "
                f"{row['n_tracked']} jobs completed, avg JCT {row['avg_jct_s'] / 3600:.2f} h, "
                f"{row['preemptions']} preemptions, end {self._native.end_time_s():.0f} s>"
            )
        s = self.summary
        return (
            f"<bloxsim.Result {self.name!r}: {s['n_tracked']} tracked jobs, avg JCT "
            f"{s['avg_jct_s'] / 3600:.2f} h, {s['preemptions_total']} preemptions, end "
            f"{s['end_time_s']:.0f} s>"
        )
