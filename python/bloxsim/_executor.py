"""Sweeps on any executor: each run shipped to ``executor.submit`` as a small picklable task.

:func:`run_task` is the task, a module-level function so that it pickles by reference (the
worker imports ``bloxsim``); its arguments are plain data: the run as the JSON of its
scenario (a few kB), the output folder as a string, and the registered Python components
(pickled with them: module-level classes by reference, anything else as the executor's pickler
allows).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _native
from ._errors import SweepError


def run_task(run_json: str, out: Optional[str], registry: Optional[Dict[str, Dict[str, Any]]]) -> Optional[str]:
    """Run one sweep run on a worker. With ``out``, write ``OUT/runs/LABEL/`` (skipped when
    already there) and return ``None``; without, return the run's row as JSON."""
    return _native.sweep_task(run_json, out, registry)


def run_on(
    executor: Any,
    plan: Sequence[Tuple[int, str, str]],
    out: Optional[str],
    registry: Dict[str, Dict[str, Any]],
    bar: Any,
) -> List[Dict[str, Any]]:
    """Submit every run of ``plan`` to ``executor`` and wait for all; return the rows in the
    sweep's order (from the folder's merge with ``out``). The first failed run (by index) is
    raised as a :class:`SweepError`, after every other run has ended or been cancelled."""
    submit = getattr(executor, "submit", None)
    if not callable(submit):
        raise TypeError(
            f"executor must have a submit(fn, *args) method returning futures with .result() "
            f"(concurrent.futures, Dask's client.get_executor(), submitit, ...), not {executor!r}"
        )
    if out is not None:
        os.makedirs(out, exist_ok=True)
    reg = registry if any(registry.values()) else None
    futures = [(i, label, submit(run_task, run, out, reg)) for i, label, run in plan]
    rows: List[Dict[str, Any]] = []
    failures: List[Tuple[int, str, BaseException]] = []
    for i, label, f in futures:
        try:
            row = f.result()
        except BaseException as e:  # noqa: BLE001 - reported below, with the run named
            if isinstance(e, KeyboardInterrupt):
                for _, _, g in futures:
                    cancel = getattr(g, "cancel", None)
                    if callable(cancel):
                        cancel()
                raise
            failures.append((i, label, e))
            # Fail fast: runs not started yet are cancelled (the ones running finish).
            for _, _, g in futures:
                cancel = getattr(g, "cancel", None)
                if callable(cancel):
                    try:
                        cancel()
                    except Exception:  # noqa: BLE001 - best effort
                        pass
            continue
        if row is not None:
            rows.append(json.loads(row))
        if bar is not None:
            bar.update(1)
    real = [f for f in failures if not _is_cancellation(f[2])]
    if real or failures:
        i, label, e = min(real or failures, key=lambda f: f[0])
        raise SweepError(
            f"sweep run {i} ({label}) failed ({len(real)} run{'' if len(real) == 1 else 's'} failed, "
            f"{len(failures) - len(real)} cancelled, through {type(executor).__name__}): {e}"
        ) from e
    if out is not None:
        mine = {i for i, _, _ in plan}
        rows = [r for r in json.loads(_native.merge_sweep(out)) if r["index"] in mine]
    rows.sort(key=lambda r: r["index"])
    return rows


def _is_cancellation(e: BaseException) -> bool:
    import concurrent.futures

    return isinstance(e, concurrent.futures.CancelledError) or type(e).__name__ in ("CancelledError", "FutureCancelledError")
