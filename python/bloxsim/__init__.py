"""bloxsim: the blox-rs cluster scheduler simulator from Python.

Run what the ``blox-sim`` command line runs, with keyword arguments named after its flags,
and get DataFrames back; write scheduling policies, placements and admission policies as
plain Python classes and use them by name next to the stock (Rust) ones.

>>> import bloxsim
>>> r = bloxsim.run(semantics="blox", policy="las", load=1, track="3000..4000")
>>> r.summary["avg_jct_s"], r.jobs.head(), r.timeline.head()      # doctest: +SKIP
>>> bloxsim.compare(policy="fifo,las,srtf", load=6)                # one row per policy
>>> bloxsim.sweep(policy="fifo,las", load="1..9", seed="1..3")      # one row per run

Every run is the Rust simulator's, by the command line's own path: the keyword arguments are
parsed by the flags ``blox-sim`` derives from the Rust ``RunSettings`` (the same names, defaults,
checks and refusals; ``scenario=`` takes a scenario file or a dict of its keys), prepared for
their semantics and run with the GIL released. Every semantics: ``exact`` (default), ``blox``,
``synergy``, ``pollux`` (the engine's runs and the Pollux preset), and ``tiresias`` and
``gavel`` (the peers' own simulators, job by job, with their own files).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _flags, _native
from ._errors import (
    BloxError,
    BloxIOError,
    ConfigError,
    InputError,
    InvalidDecisionError,
    PolicyError,
    SimulationError,
    StalledError,
    SweepError,
    UnsupportedError,
)
from ._native import Context, Job, Queue
from ._registry import register_admission, register_placement, register_policy, registered, unregister
from ._results import COMPARE_DTYPES, GAVEL_JOBS_DTYPES, JOBS_DTYPES, SWEEP_DTYPES, TIMELINE_DTYPES, Result, frame

__version__: str = _native.__version__

__all__ = [
    "run",
    "compare",
    "sweep",
    "read_trace",
    "scenario",
    "register_policy",
    "register_placement",
    "register_admission",
    "unregister",
    "registered",
    "Result",
    "Context",
    "Job",
    "Queue",
    "OverloadWarning",
    "BloxError",
    "ConfigError",
    "InputError",
    "SimulationError",
    "StalledError",
    "InvalidDecisionError",
    "BloxIOError",
    "PolicyError",
    "SweepError",
    "UnsupportedError",
    "JOBS_DTYPES",
    "GAVEL_JOBS_DTYPES",
    "TIMELINE_DTYPES",
    "COMPARE_DTYPES",
    "SWEEP_DTYPES",
    "TRACE_DTYPES",
]

PathLike = Union[str, "os.PathLike[str]"]


class OverloadWarning(UserWarning):
    """The jobs offer more GPU-seconds per second than the cluster has GPUs (the CLI's
    overload warning): queues grow for the whole run."""


def _registry() -> Dict[str, Dict[str, Any]]:
    return registered()


def scenario(**flags: Any) -> Dict[str, Any]:
    """The engine scenario the flags describe (every default filled in), as scenario-file keys:
    what :func:`run` would run under the engine's semantics (``exact``, ``blox``, ``synergy``)
    or Pollux's. Takes the keyword arguments of :func:`run` (``out`` and ``policy`` included).
    Under ``tiresias`` and ``gavel``, which run their own simulators, there is no such
    scenario: :class:`UnsupportedError`."""
    s, _ = _flags.build(flags)
    return s


def run(
    *,
    policy: Optional[Union[str, Mapping[str, Any]]] = None,
    out: Optional[PathLike] = None,
    **flags: Any,
) -> Result:
    """Run one scenario, as ``blox-sim run`` does, and return its :class:`Result`.

    Keyword arguments are the flags of ``blox-sim run`` with ``_`` for ``-``, parsed by the
    command line's own flags (the Rust ``RunSettings``): ``scenario`` (a ``.toml``/``.json``
    file or a dict of scenario keys; the other arguments override it), ``semantics``
    (``exact``, ``blox``, ``synergy``, ``pollux``, ``tiresias``, ``gavel``, ``sia``), ``workload``,
    ``load``, ``jobs``, ``durations``, ``gpus``, ``trace`` (files, or a DataFrame of jobs with
    ``arrival_s``, ``n_gpus``, ``duration_s``), ``trace_format``, ``resample``, ``cluster``,
    ``cluster_spec`` (tiresias), ``round``, ``admission``, ``policy``, ``placement`` (names as
    on the command line, e.g. ``"load-based:1.2"``, or dicts ``{"kind": ..., ...}``;
    registered Python components included), ``track``, ``seed``, ``preemption_cost``,
    ``starvation``, ``topology``, ``throughput``, ``throughputs``, ``node_events``,
    ``failures``, ``autoscale``, ``checkpoint_interval``, ``max_sim_time``, ``decide``, ...
    and, under ``pollux``, ``pollux_traces``, ``interference``,
    ``no_interference_avoidance``, ``generations``; under ``sia``, ``sia_traces``. A setting the semantics does not take is
    refused (a :class:`ConfigError` naming it and the semantics that take it), never ignored.

    Under ``tiresias`` (a trace, e.g. ``trace_format="tiresias"``, with Tiresias' schedules and
    placement schemes or any engine policy, registered Python ones included) and ``gavel`` (a
    Gavel trace, ``throughputs``, a typed ``cluster`` such as ``"1x4:v100,1x4:p100"``), the
    result holds the peer's own files: ``.jobs`` and ``.summary`` in the peer's columns and
    keys, ``.timeline`` where it has one (tiresias), ``.files()`` every file.

    With ``out``, the run's files are written there as ``--out`` writes them. The GIL is
    released while the simulation runs. A Python component's exception stops the run with a
    :class:`PolicyError` (round, time and the original traceback); a bad setting is a
    :class:`ConfigError` naming the argument.
    """
    kw, base = _flags.native_kwargs({**flags, "policy": policy, "out": out})
    native = _native.run_settings(kw, base, _registry())
    w = native.overload_warning()
    if w:
        warnings.warn(w, OverloadWarning, stacklevel=2)
    return Result(native)


def _dir_name(spec: str) -> str:
    """The CLI's folder name for a run: letters, digits and ``.`` kept, every other run of
    characters one ``-``, none at either end."""
    out = ""
    for c in spec:
        if (c.isascii() and c.isalnum()) or c == ".":
            out += c
        elif out and not out.endswith("-"):
            out += "-"
    return out.rstrip("-") or "run"


def compare(
    policy: Union[str, Sequence[Union[str, Mapping[str, Any]]]] = "fifo,las,srtf",
    *,
    placements: Optional[Union[str, Sequence[Union[str, Mapping[str, Any]]]]] = None,
    class_splits: Optional[Union[str, Sequence[str]]] = None,
    out: Optional[PathLike] = None,
    threads: Optional[int] = None,
    results: bool = False,
    **flags: Any,
) -> Any:
    """Run several policies on the same workload, as ``blox-sim compare`` does, in parallel;
    return one tidy DataFrame with a row per run (its unique ``name``, its settings, then
    ``compare.csv``'s row: see ``COMPARE_DTYPES``; ``name`` is the policy, or
    ``policy+placement`` when several placements are compared, and names the run's folder).

    ``policy`` is a comma list (``"fifo,las,tiresias:queues=2,threshold=3600"``) or a list;
    ``placements`` (each policy runs with each) and ``class_splits`` (``"20,70,10/50,0,50"``,
    with ``workload="synergy-default"``) as on the command line; the other keyword arguments
    are :func:`run`'s, under every semantics (``tiresias`` and ``gavel`` included: their
    policies by their own names or engine ones; a setting a semantics has no value for, such as
    Tiresias' ``seed``, is ``<NA>``). Every run is prepared before any starts, so a bad name
    fails first. With ``out``, writes ``compare.csv``, ``compare.json``, ``jct_cdf.svg`` and
    one folder of files per run, as ``--out`` does (only after every run completed). With
    ``results=True``, returns ``(table, {name: Result})``.
    """
    if "policy" in flags:
        raise TypeError("compare takes the policies as its first argument")
    kw, base = _flags.native_kwargs(flags)
    policies = _flags.split_specs(policy)
    pls: List[Any] = _flags.split_specs(placements) if placements is not None else [None]
    splits: List[Optional[str]] = [None]
    if class_splits is not None:
        try:
            workload = json.loads(_native.settings_scenario(kw, base))["workload"]["kind"]
        except UnsupportedError:
            workload = None
        if workload != "synergy-default":
            raise ConfigError("class_splits goes with workload='synergy-default'")
        splits = [x.strip() for x in class_splits.split("/")] if isinstance(class_splits, str) else list(class_splits)
    several = len(pls) > 1
    runs_kw = []
    for split in splits:
        for pl in pls:
            for p in policies:
                k = dict(kw, policy=p)
                if pl is not None:
                    k["placement"] = pl
                if split is not None:
                    k["class_split"] = split
                runs_kw.append(k)
    natives = _native.run_settings_many(runs_kw, base, _registry(), threads)
    if natives:
        w = natives[0].overload_warning()
        if w:
            warnings.warn(w, OverloadWarning, stacklevel=2)
    runs: List[Result] = []
    rows = []
    labels = []
    for k, n in zip(runs_kw, natives):
        label = n.label()
        settings = json.loads(n.settings())
        settings["semantics"] = n.semantics()  # `pollux`, not the engine semantics it runs on
        peer = isinstance(n, _native.PeerReport)
        name = settings["policy"] if peer else label
        if several and settings["semantics"] != "synergy":
            name = f"{settings['policy']}+{settings['placement']}"
        labels.append(label)
        r = Result(n, name)
        runs.append(r)
        row = {"name": name, **settings, **json.loads(n.comparison_row())}
        if class_splits is not None:
            row["class_split"] = k["class_split"]
        rows.append(row)
    # As the CLI: a label several rows share (a policy under several placements) gives way to
    # the run's name (`fifo+yarn`), so every row says what it is.
    labels = [r["name"] if labels.count(l) > 1 else l for r, l in zip(rows, labels)]
    for row, l in zip(rows, labels):
        row["label"] = l
    dtypes = dict(COMPARE_DTYPES)
    if class_splits is not None:
        dtypes["class_split"] = "string"
    table = frame(rows, dtypes)
    if out is not None:
        d = Path(out)
        for r in runs:
            r.to_dir(d / _dir_name(r.name))
        _native.write_comparison_of(os.fspath(d), [r._native for r in runs], labels)
    if results:
        return table, {r.name: r for r in runs}
    return table


def _progress_bar(total: int, enabled: bool) -> Any:
    """A tqdm bar: the notebook widget in Jupyter when ipywidgets is there, text otherwise."""
    if not enabled:
        return None
    cls = None
    try:
        from IPython import get_ipython  # type: ignore[import-not-found]

        ip = get_ipython()
        if ip is not None and "IPKernelApp" in getattr(ip, "config", {}):
            import importlib.util

            if importlib.util.find_spec("ipywidgets") is not None:
                from tqdm.notebook import tqdm as cls  # type: ignore[no-redef]
    except Exception:  # pragma: no cover - IPython missing or odd
        cls = None
    if cls is None:
        from tqdm.std import tqdm as cls  # type: ignore[no-redef]
    return cls(total=total, unit="run", desc="sweep", file=sys.stderr)


def sweep(
    *,
    semantics: Any = None,
    cluster: Any = None,
    admission: Any = None,
    policy: Any = None,
    placement: Any = None,
    load: Any = None,
    seed: Any = None,
    failures: Any = None,
    out: Optional[PathLike] = None,
    shard: Optional[Union[str, Tuple[int, int]]] = None,
    threads: Optional[int] = None,
    progress: bool = True,
    dry_run: bool = False,
    executor: Any = None,
    **flags: Any,
) -> Any:
    """Run the cross product of settings in parallel (Rust threads), as ``blox-sim sweep``
    does, and return one tidy DataFrame with a row per run (``results.csv``'s columns, see
    ``SWEEP_DTYPES``), in the sweep's order.

    The axes take lists or the CLI's list strings: ``semantics`` (``blox``, ``exact``,
    ``synergy``), ``cluster``, ``admission``, ``policy``, ``placement`` (comma lists; a
    component's ``key=value`` parameters stay with it), ``load`` and ``seed`` (``"1..9"``,
    ``"2,4.5,8"``, a ``range`` or a list of numbers), ``failures`` (``"none;mtbf=50,mttr=1"``
    or a list with ``None``). Any other keyword argument of :func:`run` sets the base
    scenario. With ``out``, each run writes ``OUT/runs/LABEL/`` and the sweep ``results.csv``,
    ``results.json`` and the plots, exactly as the CLI (runs already there are skipped, so an
    interrupted sweep resumes); ``shard="K/N"`` keeps the runs whose index is K mod N.
    ``progress`` shows a tqdm bar (a widget in notebooks). ``dry_run=True`` returns the runs'
    ``(index, label, scenario)`` without running them. The first failed run stops the sweep
    (no new run starts) and is raised as a :class:`SweepError`.

    ``executor``: run each run through ``executor.submit(fn, *args)`` instead of local threads,
    e.g. a ``concurrent.futures.ProcessPoolExecutor``, Dask's ``client.get_executor()``, or a
    submitit ``AutoExecutor``/``SlurmExecutor`` (one Slurm job per run) -- anything whose
    ``submit`` returns futures with ``.result()``. Each run travels as a small picklable task
    (its scenario as JSON, the ``out`` folder, the registered Python components); the table is
    the same as a local sweep's. With ``out``, the workers write ``OUT/runs/LABEL/`` (the folder
    must be shared with them) and this process merges ``results.csv`` at the end. See
    docs/cluster-sweeps.md.
    """
    if executor is not None and threads is not None:
        raise ConfigError("threads is the local sweep's; with executor=..., the executor decides")
    for name, v in (("semantics", semantics),):
        for sem in _flags.as_list(v):
            if sem in ("tiresias", "gavel", "pollux"):
                raise ConfigError(
                    f"`{sem}` is a peer simulator's semantics, taken by run() and compare(); "
                    "sweeps take `blox`, `exact` or `synergy`"
                )
    if "trace" in flags and load is not None:
        raise ConfigError("load cannot be combined with trace (a trace is replayed as it is; use resample)")
    base, popts = _flags.build(flags)
    if popts is not None:
        raise ConfigError("sweeps take `blox`, `exact` or `synergy` semantics")
    seeds = _flags.numbers("seed", seed)
    if any(x < 0 or not float(x).is_integer() for x in seeds):
        raise ConfigError("seed takes whole numbers")
    fails = failures
    if isinstance(fails, str):
        fails = [None if f.strip() == "none" else f.strip() for f in fails.split(";")]
    axes = {
        "semantics": _flags.as_list(semantics),
        "cluster": _flags.as_list(cluster),
        "admission": [_spec_text("admission", x) for x in (_flags.split_specs(admission) if admission is not None else [])],
        "policy": [_spec_text("policy", x) for x in (_flags.split_specs(policy) if policy is not None else [])],
        "placement": [_spec_text("placement", x) for x in (_flags.split_specs(placement) if placement is not None else [])],
        "load": _flags.numbers("load", load),
        "seed": [int(x) for x in seeds],
        "failures": list(fails) if fails is not None else [],
    }
    plan = _native.plan_sweep(json.dumps(base), axes)
    if shard is not None:
        k, n = _shard(shard)
        plan = [p for p in plan if p[0] % n == k]
    if dry_run:
        return [(i, label, json.loads(run)["scenario"]) for i, label, run in plan]
    if executor is not None:
        from . import _executor

        bar = _progress_bar(len(plan), progress)
        try:
            rows = _executor.run_on(executor, plan, None if out is None else os.fspath(out), _registry(), bar)
        finally:
            if bar is not None:
                bar.close()
        return frame(rows, SWEEP_DTYPES)
    handle = _native.start_sweep([p[2] for p in plan], None if out is None else os.fspath(out), threads, _registry())
    bar = _progress_bar(handle.total, progress)
    try:
        while not handle.wait(0.1):
            if bar is not None:
                bar.update(handle.done - bar.n)
        if bar is not None:
            bar.update(handle.done - bar.n)
    except KeyboardInterrupt:
        handle.cancel()
        handle.wait(3600.0)
        raise
    finally:
        if bar is not None:
            bar.close()
    rows_json, _ran, _skipped, _cancelled = handle.result()
    return frame(json.loads(rows_json), SWEEP_DTYPES)


def _spec_text(role: str, spec: Any) -> str:
    """A component as the CLI's spec text (a dict ``{"kind": ...}`` turned into
    ``kind:key=value,...``)."""
    if isinstance(spec, str):
        return spec
    d = dict(spec)
    kind = d.pop("kind")
    if not d:
        return kind
    return f"{kind}:" + ",".join(f"{k}={v}" for k, v in d.items())


def _shard(shard: Union[str, Tuple[int, int]]) -> Tuple[int, int]:
    try:
        if isinstance(shard, str):
            a, b = shard.split("/")
            k, n = int(a), int(b)
        else:
            k, n = shard
    except (TypeError, ValueError):
        raise ConfigError(f"invalid shard {shard!r} (expected 'K/N' with 0 <= K < N, e.g. '0/4')") from None
    if n <= 0 or not 0 <= k < n:
        raise ConfigError(f"invalid shard {shard!r} (expected 'K/N' with 0 <= K < N, e.g. '0/4')")
    return k, n


#: ``read_trace``'s columns and dtypes.
TRACE_DTYPES: Dict[str, str] = {
    "job_id": "int64",
    "arrival_s": "float64",
    "n_gpus": "int64",
    "duration_s": "float64",
    "class_id": "int64",
    "model": "string",
    "source_id": "string",
    "tenant": "string",
    "deadline_s": "float64",
    "cpus": "float64",
    "mem_gb": "float64",
    "elastic": "bool",
}


def read_trace(
    path: Union[PathLike, Sequence[PathLike]],
    format: str = "canonical",
    *,
    skip_bad_lines: bool = False,
    throughputs: Optional[PathLike] = None,
    reference_gpu_type: Optional[str] = None,
) -> Any:
    """Read trace files of one format (merged by arrival), as ``--trace`` reads them, into a
    DataFrame: one row per job, in arrival order (``TRACE_DTYPES``: ``job_id``, ``arrival_s``,
    ``n_gpus``, ``duration_s`` and the optional facts a format gives). Formats: canonical,
    philly, itp, pollux, gavel, tiresias, alibaba2023, helios; gzip is read transparently.
    ``df.attrs`` holds ``bad_lines``, ``bad_line_errors`` and ``filtered`` (rows left out, by
    reason). A malformed line is an :class:`InputError` naming file, line and field (unless
    ``skip_bad_lines``)."""
    import pandas as pd

    paths = [os.fspath(path)] if isinstance(path, (str, os.PathLike)) else [os.fspath(p) for p in path]
    cols, info = _native.read_trace(
        paths, format, skip_bad_lines, None if throughputs is None else os.fspath(throughputs), reference_gpu_type
    )
    df = pd.DataFrame(cols, columns=list(TRACE_DTYPES))
    df = df.astype({c: ("float64" if t == "float64" else t) for c, t in TRACE_DTYPES.items()})
    df.attrs.update(info)
    return df
