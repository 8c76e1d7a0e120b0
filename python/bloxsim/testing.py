"""Property testing of scheduling components written in Python (``blox-testkit`` for Python).

Strategies (hypothesis) generate clusters, job tables and live states; checkers mirror
``blox-testkit``'s (``blox-testkit/src/check.rs``) and raise :class:`Violation` (an
``AssertionError``) saying which invariant broke, where:

- on one decision: :func:`check_schedule`, :func:`check_permutation` (a policy orders every
  active job exactly once), :func:`check_placement` (the engine's own validation);
- on a whole recorded run (:func:`record`): :func:`check_conservation`,
  :func:`check_time_monotone`, :func:`check_starvation_free` (a bound on any job's wait),
  :func:`check_work_conserving` (no round ends with a waiting job that fits in the free
  GPUs), and :func:`check_deterministic` (two runs, the same events and files).

>>> from hypothesis import given
>>> from bloxsim import testing as bt
>>> @given(bt.contexts())
... def test_orders_every_job(ctx):
...     bt.check_permutation(ctx, MyLas().schedule(ctx))

Needs ``hypothesis`` (``pip install bloxsim[testing]``) for the strategies; the checkers do
not.
"""

from __future__ import annotations

import json
from collections import namedtuple
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _flags, _native
from ._registry import registered
from ._results import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Violation",
    "Recording",
    "record",
    "make_context",
    "stock_schedule",
    "clusters",
    "jobs",
    "contexts",
    "check_schedule",
    "check_permutation",
    "check_placement",
    "check_time_monotone",
    "check_conservation",
    "check_starvation_free",
    "check_work_conserving",
    "check_deterministic",
]


class Violation(AssertionError):
    """A broken invariant: ``invariant`` names it (``"schedule-permutation"``,
    ``"starvation-free"``, ...), ``detail`` says what happened, with the job, GPU or time."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant} violated: {detail}")
        self.invariant = invariant
        self.detail = detail


# ---------------------------------------------------------------------------------------------
# Live states and recorded runs


def make_context(
    jobs: Any,
    cluster: str = "4x4",
    *,
    now_s: float = 0.0,
    round: int = 0,
    round_s: float = 300.0,
    seed: Optional[int] = 1,
) -> _native.Context:
    """A :class:`bloxsim.Context` over a real engine state: ``cluster`` (``"NxG"``) and the
    active jobs ``jobs`` (a DataFrame or a dict of columns: ``job_id``, ``n_gpus``,
    ``work_s`` required; ``arrival_s``, ``attained_gpu_s``, ``attained_wall_s``,
    ``executed_s``, ``priority``, ``gpus`` (a list of GPU ids for a running job), ... optional).
    Placement facts (``free_gpu_ids``, ``gpu_node``, ...) are included; ``ctx.random`` is a
    ``random.Random(seed)``."""
    if hasattr(jobs, "to_dict") and hasattr(jobs, "columns"):
        cols = {c: jobs[c].tolist() for c in jobs.columns}
    else:
        cols = {k: list(v) for k, v in dict(jobs).items()}
    return _native.make_context(cols, cluster, now_s, round, round_s, seed, True)


def stock_schedule(ctx: _native.Context, policy: str, semantics: str = "exact") -> List[Tuple[int, int]]:
    """The schedule a stock (Rust) policy gives on a context made by :func:`make_context`:
    ``(job_id, n_gpus)`` pairs, best first (``semantics="blox"`` builds Blox's versions)."""
    return _native.stock_schedule(ctx, policy, semantics)


Event = namedtuple("Event", ["kind", "time_s", "seq", "job_id", "n_gpus", "arrival_s", "gpus", "free_gpus", "counted"])
"""One recorded engine event (see :class:`Recording`)."""


@dataclass
class Recording:
    """A run with every engine event, in order.

    ``events`` has one row per event: ``kind`` (``arrived``, ``admitted``, ``rejected``,
    ``started``, ``preempted``, ``completed``, ``round``, ``end``), ``time_s`` and the
    event's facts (``seq``, ``job_id``, ``n_gpus``, ``arrival_s``, ``gpus``, ``free_gpus``,
    ``counted``; ``None`` where they do not apply). ``result`` is the run's :class:`Result`.
    """

    result: Result
    events: "pd.DataFrame"
    columns: Dict[str, List[Any]]

    def rows(self) -> Iterable[Any]:
        """The events as named tuples of plain Python values (fast iteration for checkers)."""
        return map(Event._make, zip(*(self.columns[c] for c in Event._fields)))


def record(*, policy: Any = None, **flags: Any) -> Recording:
    """Run a scenario (the keyword arguments of :func:`bloxsim.run`; ``blox`` or ``exact``
    semantics) recording every engine event. The run is composed as ``Scenario::run_with``
    composes it (same presets, registry, throughput model and workload), so its files are
    those :func:`bloxsim.run` gives."""
    import pandas as pd

    s, popts = _flags.build({**flags, "policy": policy})
    if popts is not None:
        raise _flags.UnsupportedError("recorded runs take `blox` or `exact` semantics")
    native, cols = _native.record(json.dumps(s), registered())
    cols = {c: list(v) for c, v in cols.items()}
    events = pd.DataFrame(cols)
    for c in ("seq", "job_id", "n_gpus", "free_gpus"):
        events[c] = events[c].astype("Int64")
    events["arrival_s"] = events["arrival_s"].astype("float64")
    events["kind"] = events["kind"].astype("string")
    return Recording(Result(native), events, cols)


# ---------------------------------------------------------------------------------------------
# Strategies (hypothesis)


def clusters(max_nodes: int = 6, gpus_per_node: Sequence[int] = (1, 2, 4, 8)) -> Any:
    """Clusters of 1..``max_nodes`` alike nodes with a GPU count from ``gpus_per_node``, as
    ``"NxG"`` strings (``blox-testkit``'s ``cluster_spec``)."""
    from hypothesis import strategies as st

    return st.builds(lambda n, g: f"{n}x{g}", st.integers(1, max_nodes), st.sampled_from(list(gpus_per_node)))


def jobs(
    max_jobs: int = 30,
    max_gpus: int = 4,
    *,
    min_jobs: int = 1,
    max_arrival_s: int = 50_000,
    max_duration_s: int = 20_000,
) -> Any:
    """Job tables (DataFrames in the canonical trace form: ``job_id``, ``arrival_s``,
    ``n_gpus``, ``duration_s``), in arrival order: whole-second arrivals in
    0..``max_arrival_s``, 1..``max_duration_s`` s of work, 1..``max_gpus`` GPUs
    (``blox-testkit``'s ``jobs``). Pass one as ``trace=`` to :func:`bloxsim.run`."""
    import pandas as pd
    from hypothesis import strategies as st

    job = st.tuples(st.integers(0, max_arrival_s), st.integers(1, max_duration_s), st.integers(1, max(1, max_gpus)))

    def table(raw: List[Tuple[int, int, int]]) -> "pd.DataFrame":
        raw = sorted(raw, key=lambda j: j[0])
        return pd.DataFrame(
            {
                "job_id": range(len(raw)),
                "arrival_s": [float(a) for a, _, _ in raw],
                "n_gpus": [g for _, _, g in raw],
                "duration_s": [float(w) for _, w, _ in raw],
            }
        )

    return st.lists(job, min_size=max(1, min_jobs), max_size=max(1, max_jobs)).map(table)


def contexts(max_jobs: int = 20, cluster: Any = None, *, seed: int = 1) -> Any:
    """Live states (``blox-testkit``'s ``snapshot``): a :func:`clusters` cluster (or the given
    strategy/string) and up to ``max_jobs`` active jobs, each asking for at most the cluster's
    GPUs, with some attained service, a third of them starved, and each running (on the lowest
    free GPUs) with probability one half when it fits; at t = 3,000 s."""
    from hypothesis import strategies as st

    cl = clusters() if cluster is None else (st.just(cluster) if isinstance(cluster, str) else cluster)

    @st.composite
    def build(draw: Any) -> _native.Context:
        spec = draw(cl)
        n, g = (int(x) for x in spec.split("x"))
        total = n * g
        raw = draw(
            st.lists(
                st.tuples(
                    st.integers(1, total),
                    st.integers(1, 19_999),
                    st.integers(0, 19_999),
                    st.booleans(),
                    st.integers(0, 2),
                ),
                max_size=max(1, max_jobs),
            )
        )
        free = list(range(total))
        cols: Dict[str, List[Any]] = {k: [] for k in ("job_id", "arrival_s", "n_gpus", "work_s", "executed_s", "attained_gpu_s", "attained_wall_s", "priority", "gpus")}
        for i, (gpus, work, served, run, prio) in enumerate(raw):
            cols["job_id"].append(i)
            cols["arrival_s"].append(float(i * 10))
            cols["n_gpus"].append(gpus)
            cols["work_s"].append(float(work))
            cols["executed_s"].append(float(min(served, work)))
            cols["attained_wall_s"].append(float(served))
            cols["attained_gpu_s"].append(float(served * gpus))
            cols["priority"].append(1 if prio == 0 else 999)
            if run and len(free) >= gpus:
                cols["gpus"].append(free[:gpus])
                free = free[gpus:]
            else:
                cols["gpus"].append([])
        return _native.make_context(cols, spec, 3000.0, 10, 300.0, seed, True)

    return build()


# ---------------------------------------------------------------------------------------------
# Checkers on one decision


def _entries(ctx: _native.Context, schedule: Any) -> List[Tuple[int, int]]:
    """A policy's return value as ``(job_id, n_gpus)`` pairs (a bare id asks for the job's own
    count), without the engine's own checks."""
    n_of = dict(zip(ctx.job_id, ctx.n_gpus))
    out = []
    for e in schedule:
        if isinstance(e, tuple):
            out.append((int(e[0]), int(e[1])))
        else:
            out.append((int(e), n_of.get(int(e), 0)))
    return out


def check_schedule(ctx: _native.Context, schedule: Any) -> None:
    """A schedule lists only active jobs, each at most once, and asks for at most the
    cluster's GPUs for any one job."""
    seen = set()
    active = set(ctx.job_id)
    for job, n in _entries(ctx, schedule):
        if job not in active:
            raise Violation("schedule-valid", f"job {job} is not active")
        if job in seen:
            raise Violation("schedule-valid", f"job {job} is listed twice")
        seen.add(job)
        if n > ctx.total_gpus:
            raise Violation("schedule-valid", f"job {job} gets {n} GPUs of {ctx.total_gpus}")


def check_permutation(ctx: _native.Context, schedule: Any) -> None:
    """A schedule is a permutation of the active jobs (every active job exactly once)."""
    entries = list(schedule)
    check_schedule(ctx, entries)
    if len(entries) != len(ctx):
        raise Violation("schedule-permutation", f"{len(entries)} entries for {len(ctx)} active jobs")


def check_placement(ctx: _native.Context, decisions: Any) -> None:
    """A placement's decisions (``{"stop": [...], "start": [(job, [gpus]), ...]}``) are valid
    against the live state, by the engine's own validation: stops name running jobs once;
    starts name active jobs not running (unless stopped too), once, on free GPUs not given
    twice; rigid jobs get exactly their request. ``ctx`` must come from :func:`make_context`
    or :func:`contexts`."""
    err = _native.validate_decisions(ctx, decisions)
    if err is not None:
        raise Violation("placement-valid", err)


# ---------------------------------------------------------------------------------------------
# Checkers on a recorded run


def _fmt(t: float) -> str:
    return f"{int(t)}" if float(t).is_integer() else f"{t}"


def check_time_monotone(rec: Recording) -> None:
    """Event times never go back."""
    last = 0.0
    for i, t in enumerate(rec.events["time_s"].tolist()):
        if t < last:
            raise Violation("time-monotone", f"event {i} at {_fmt(t)} s after one at {_fmt(last)} s")
        last = t


def check_conservation(rec: Recording, finished_all: bool = False) -> None:
    """Every arrival is admitted at most once and ends completed, rejected, or still queued or
    active when the run ends (``finished_all``: every arrival completed or was rejected). No
    job completes twice or runs after completing; no GPU is held by two jobs."""
    arrived: set = set()
    admitted: Dict[int, int] = {}
    rejected: set = set()
    completed: set = set()
    holder: Dict[int, int] = {}
    holding: Dict[int, List[int]] = {}
    for e in rec.rows():
        k = e.kind
        if k == "arrived":
            if e.seq in arrived:
                raise Violation("conservation", f"arrival {e.seq} reported twice")
            arrived.add(e.seq)
        elif k == "admitted":
            if e.seq not in arrived or e.job_id in admitted:
                raise Violation("conservation", f"job {e.job_id} (arrival {e.seq}) admitted wrongly or twice")
            admitted[e.job_id] = e.seq
        elif k == "rejected":
            rejected.add(e.seq)
        elif k == "started":
            if e.job_id in completed:
                raise Violation("conservation", f"job {e.job_id} started at {_fmt(e.time_s)} s after completing")
            for g in e.gpus:
                other = holder.get(g)
                if other is not None:
                    raise Violation(
                        "conservation", f"GPU {g} given to job {e.job_id} at {_fmt(e.time_s)} s while job {other} holds it"
                    )
                holder[g] = e.job_id
            holding[e.job_id] = list(e.gpus)
        elif k in ("preempted", "completed"):
            for g in holding.pop(e.job_id, []):
                holder.pop(g, None)
            if k == "completed":
                if e.job_id in completed:
                    raise Violation("conservation", f"job {e.job_id} completed twice (again at {_fmt(e.time_s)} s)")
                completed.add(e.job_id)
    if finished_all:
        done_seqs = rejected | {s for j, s in admitted.items() if j in completed}
        for seq in sorted(arrived):
            if seq not in done_seqs:
                raise Violation("conservation", f"arrival {seq} neither completed nor was rejected")


def check_starvation_free(rec: Recording, bound_s: float) -> None:
    """No admitted job waits longer than ``bound_s`` seconds in a row, from its arrival or a
    preemption to its next start (or to the end of the run)."""
    arrival: Dict[int, float] = {}
    waiting: Dict[int, float] = {}
    end = 0.0

    def too_long(job: int, start: float, to: float) -> Violation:
        return Violation(
            "starvation-free",
            f"job {job} waited {_fmt(max(0.0, to - start))} s in a row from {_fmt(start)} s (bound {_fmt(bound_s)} s)",
        )

    for e in rec.rows():
        end = max(end, e.time_s)
        k = e.kind
        if k == "arrived":
            arrival[e.seq] = e.arrival_s
        elif k == "admitted":
            waiting[e.job_id] = arrival[e.seq]
        elif k == "started":
            since = waiting.pop(e.job_id, None)
            if since is not None and e.time_s - since > bound_s:
                raise too_long(e.job_id, since, e.time_s)
        elif k == "preempted":
            waiting[e.job_id] = e.time_s
        elif k == "completed":
            waiting.pop(e.job_id, None)
    for job, since in sorted(waiting.items()):
        if end - since > bound_s:
            raise too_long(job, since, end)


def check_work_conserving(rec: Recording) -> None:
    """No round ends with a waiting admitted job that would fit in the free GPUs (meaningful
    under ``exact`` semantics, whose round sample is taken after decisions apply)."""
    gpus_of_seq: Dict[int, int] = {}
    gpus_of: Dict[int, int] = {}
    waiting: set = set()
    for e in rec.rows():
        k = e.kind
        if k == "arrived":
            gpus_of_seq[e.seq] = e.n_gpus
        elif k == "admitted":
            gpus_of[e.job_id] = gpus_of_seq[e.seq]
            waiting.add(e.job_id)
        elif k in ("started", "completed"):
            waiting.discard(e.job_id)
        elif k == "preempted":
            waiting.add(e.job_id)
        elif k == "round" and waiting:
            smallest = min(gpus_of[j] for j in waiting)
            if e.free_gpus >= smallest:
                raise Violation(
                    "work-conserving",
                    f"at {_fmt(e.time_s)} s, {e.free_gpus} GPUs were free while a job needing {smallest} waited",
                )


def check_deterministic(run: Callable[[], Union[Recording, Result]]) -> None:
    """Two calls of ``run`` (returning a :class:`Recording` or a :class:`bloxsim.Result`) give
    the same events and the same ``jobs.csv``, ``timeline.csv`` and ``summary.json``."""
    a, b = run(), run()
    ra = a.result if isinstance(a, Recording) else a
    rb = b.result if isinstance(b, Recording) else b
    if isinstance(a, Recording) and isinstance(b, Recording):
        ea, eb = list(a.rows()), list(b.rows())
        if ea != eb:
            i = next((k for k, (x, y) in enumerate(zip(ea, eb)) if x != y), min(len(ea), len(eb)))
            raise Violation("deterministic", f"the runs first differ at event {i}")
    fa, fb = ra.files(), rb.files()
    for name in fa:
        if fa[name] != fb[name]:
            raise Violation("deterministic", f"the runs' {name} differ")
