"""Type stubs of ``bloxsim._native``, the Rust extension (pyo3). Use the ``bloxsim`` package."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str
JOB_COLUMNS: List[str]

class Context:
    """The round as a Python component sees it: time, cluster and the active jobs, read-only.

    Job facts are columns in job-id order, each a tuple built when asked for."""

    @property
    def now_s(self) -> float:
        """The current round's time, seconds."""
    @property
    def round(self) -> int:
        """The round number (0, 1, ...)."""
    @property
    def round_s(self) -> float:
        """The round length, seconds."""
    @property
    def total_gpus(self) -> int:
        """GPUs of the cluster."""
    @property
    def free_gpus(self) -> int:
        """GPUs free now."""
    @property
    def available_gpus(self) -> int:
        """GPUs in service."""
    @property
    def n_nodes(self) -> int:
        """Nodes of the cluster."""
    @property
    def gpu_demand(self) -> int:
        """Sum of the GPUs the active jobs request."""
    @property
    def run_seed(self) -> Optional[int]:
        """The run's seed."""
    @property
    def seed(self) -> Optional[int]:
        """This component's own seed (a named stream of the run's seed)."""
    @property
    def random(self) -> Any:
        """A ``random.Random`` seeded with ``seed``, the same object for the whole run."""
    @property
    def job_id(self) -> Tuple[int, ...]:
        """Job ids, ascending."""
    @property
    def arrival_s(self) -> Tuple[float, ...]:
        """Submission times, seconds."""
    @property
    def admitted_s(self) -> Tuple[float, ...]:
        """Admission times, seconds."""
    @property
    def n_gpus(self) -> Tuple[int, ...]:
        """GPUs requested."""
    @property
    def work_s(self) -> Tuple[float, ...]:
        """Service demands, seconds at speed 1 (oracle)."""
    @property
    def executed_s(self) -> Tuple[float, ...]:
        """Work done, seconds at speed 1."""
    @property
    def remaining_s(self) -> Tuple[float, ...]:
        """Work left, seconds at speed 1."""
    @property
    def attained_gpu_s(self) -> Tuple[float, ...]:
        """Attained service, GPU-seconds."""
    @property
    def attained_wall_s(self) -> Tuple[float, ...]:
        """Attained service, wall-clock seconds."""
    @property
    def priority(self) -> Tuple[int, ...]:
        """Starvation class: 999 normally, 1 once starved (order by it first)."""
    @property
    def running(self) -> Tuple[bool, ...]:
        """Whether each job holds GPUs."""
    @property
    def time_since_scheduled_s(self) -> Tuple[float, ...]:
        """Seconds since each job last ran or was decided on."""
    @property
    def first_start_s(self) -> Tuple[Optional[float], ...]:
        """First start times (``None``: never)."""
    @property
    def last_start_s(self) -> Tuple[Optional[float], ...]:
        """Last (re)start times (``None``: never)."""
    @property
    def preemptions(self) -> Tuple[int, ...]:
        """Preemptions so far."""
    @property
    def class_id(self) -> Tuple[int, ...]:
        """Model class ids."""
    @property
    def elastic(self) -> Tuple[bool, ...]:
        """Whether each job may run on another GPU count."""
    @property
    def model(self) -> Tuple[Optional[str], ...]:
        """Model names."""
    @property
    def tenant(self) -> Tuple[Optional[str], ...]:
        """Users or teams."""
    @property
    def iterations_done(self) -> Tuple[int, ...]:
        """Whole iterations done."""
    @property
    def speedup(self) -> Tuple[float, ...]:
        """Host-resource speed-up of each job's latest allocation."""
    @property
    def gpus(self) -> Tuple[Tuple[int, ...], ...]:
        """The GPU ids each job holds."""
    @property
    def jobs(self) -> Tuple["Job", ...]:
        """One light view per active job, in id order."""
    @property
    def free_gpu_ids(self) -> Tuple[int, ...]:
        """Placement calls: free GPU ids, ascending."""
    @property
    def gpu_node(self) -> Tuple[int, ...]:
        """Placement calls: the node of each GPU."""
    @property
    def gpu_owner(self) -> Tuple[Optional[int], ...]:
        """Placement calls: the job holding each GPU."""
    @property
    def gpu_available(self) -> Tuple[bool, ...]:
        """Placement calls: whether each GPU is in service."""
    @property
    def gpu_type(self) -> Tuple[str, ...]:
        """Placement calls: the type name of each GPU."""
    @property
    def node_gpus(self) -> Tuple[int, ...]:
        """Placement calls: GPUs per node."""
    @property
    def node_type(self) -> Tuple[str, ...]:
        """Placement calls: the GPU type of each node."""
    def __len__(self) -> int:
        """Number of active jobs."""
    def __contains__(self, job_id: int) -> bool:
        """Whether a job is active."""
    def col(self, name: str) -> Tuple[Any, ...]:
        """One job column by name."""
    def columns(self) -> Dict[str, Tuple[Any, ...]]:
        """Every job column."""
    def to_pandas(self) -> Any:
        """The active jobs as a pandas DataFrame."""
    def job(self, job_id: int) -> "Job":
        """The active job with this id (KeyError if not active)."""

class Job:
    """One active job of a :class:`Context`, read-only."""

    job_id: int
    arrival_s: float
    admitted_s: float
    n_gpus: int
    work_s: float
    executed_s: float
    remaining_s: float
    attained_gpu_s: float
    attained_wall_s: float
    priority: int
    running: bool
    time_since_scheduled_s: float
    first_start_s: Optional[float]
    last_start_s: Optional[float]
    preemptions: int
    class_id: int
    elastic: bool
    model: Optional[str]
    tenant: Optional[str]
    iterations_done: int
    speedup: float
    gpus: Tuple[int, ...]

class Queue:
    """The jobs waiting for admission, oldest first, as columns."""

    seq: Tuple[int, ...]
    arrival_s: Tuple[float, ...]
    n_gpus: Tuple[int, ...]
    work_s: Tuple[float, ...]
    model: Tuple[Optional[str], ...]
    tenant: Tuple[Optional[str], ...]
    def __len__(self) -> int:
        """Jobs waiting."""

class Report:
    """A finished run (the CLI's ``RunReport``)."""

    def jobs_csv(self) -> bytes:
        """``jobs.csv``."""
    def timeline_csv(self) -> bytes:
        """``timeline.csv``."""
    def summary_json(self) -> bytes:
        """``summary.json``."""
    def scenario_json(self) -> str:
        """The scenario that ran."""
    def semantics(self) -> str:
        """The semantics it ran under (``pollux`` for the Pollux preset)."""
    def label(self) -> str:
        """The run's name in tables."""
    def jcts_s(self) -> List[float]:
        """The tracked jobs' JCTs."""
    def comparison_row(self) -> str:
        """``compare.csv``'s row, as JSON."""
    def settings(self) -> str:
        """Semantics, cluster, components, load and seed, as JSON."""
    def outcome_json(self) -> str:
        """The engine's counters, as JSON."""
    def overload_warning(self) -> Optional[str]:
        """The CLI's overload warning, if any."""
    def write(self, dir: str) -> None:
        """Write the CLI's files into ``dir``."""

class PeerReport:
    """A finished run of a peer's own simulator (``tiresias``, ``gavel``): its files as ``blox-sim
    run --out`` writes them, and its statistics in every semantics' columns."""

    def semantics(self) -> str:
        """``tiresias`` or ``gavel``."""
    def file_names(self) -> List[str]:
        """The files' names."""
    def file_bytes(self, name: str) -> Optional[bytes]:
        """One file's bytes."""
    def jobs_csv(self) -> Optional[bytes]:
        """``jobs.csv``."""
    def timeline_csv(self) -> Optional[bytes]:
        """``timeline.csv`` (``None`` under gavel)."""
    def summary_json(self) -> Optional[bytes]:
        """``summary.json``."""
    def label(self) -> str:
        """The run's name in tables."""
    def jcts_s(self) -> List[float]:
        """The completed jobs' JCTs."""
    def comparison_row(self) -> str:
        """``compare.csv``'s row, as JSON."""
    def settings(self) -> str:
        """Semantics, cluster, components, load and seed (``null`` where it has none), as JSON."""
    def end_time_s(self) -> float:
        """When the run ended on its clock."""
    def lines(self) -> List[str]:
        """What ``blox-sim run`` prints under its table."""
    def note(self) -> Optional[str]:
        """Said under a comparison's table (e.g. jobs that never completed)."""
    def overload_warning(self) -> Optional[str]:
        """Always ``None``."""
    def write(self, dir: str) -> None:
        """Write the run's files into ``dir``."""

class SweepHandle:
    """A sweep running on a background thread."""

    @property
    def total(self) -> int:
        """Runs in the sweep."""
    @property
    def done(self) -> int:
        """Runs finished so far."""
    def cancel(self) -> None:
        """Start no new run."""
    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s; whether it finished."""
    def result(self) -> Tuple[str, int, int, int]:
        """``(rows_json, ran, skipped, cancelled)``; raises the first failure."""

def run_settings(
    kwargs: Mapping[str, Any], base_json: Optional[str] = None, registry: Optional[Mapping[str, Any]] = None
) -> Union[Report, PeerReport]:
    """Run keyword arguments (``blox-sim run``'s flags) under their semantics."""
def run_settings_many(
    runs: Sequence[Mapping[str, Any]],
    base_json: Optional[str] = None,
    registry: Optional[Mapping[str, Any]] = None,
    threads: Optional[int] = None,
) -> List[Union[Report, PeerReport]]:
    """Prepare every run, then run them in parallel."""
def settings_scenario(kwargs: Mapping[str, Any], base_json: Optional[str] = None) -> str:
    """The engine scenario the keyword arguments describe, as JSON."""
def settings_json(kwargs: Mapping[str, Any]) -> str:
    """The keyword arguments as the Rust ``RunSettings``, as JSON."""
def write_comparison_of(dir: str, reports: Sequence[Union[Report, PeerReport]], labels: Sequence[str]) -> None:
    """Write ``compare.csv``, ``compare.json``, ``jct_cdf.svg``."""
def check_scenario(json: str) -> str:
    """Check a scenario; every default filled in."""
def component(role: str, spec: str) -> Tuple[str, bool]:
    """A component spec as its scenario table (JSON), and whether it is stock."""
def scenario_from_file(path: str) -> str:
    """Read a scenario file as the CLI does."""
def plan_sweep(base_json: str, axes: Mapping[str, Any]) -> List[Tuple[int, str, str]]:
    """A sweep's runs: ``(index, label, run JSON)``."""
def start_sweep(
    runs: Sequence[str], out: Optional[str] = None, threads: Optional[int] = None, registry: Optional[Mapping[str, Any]] = None
) -> SweepHandle:
    """Start a sweep on a background thread."""
def sweep_task(run: str, out: Optional[str] = None, registry: Optional[Mapping[str, Any]] = None) -> Optional[str]:
    """Run one sweep run (``plan_sweep``'s JSON): into ``out``, or in memory returning its row's JSON."""
def merge_sweep(out: str) -> str:
    """Merge a sweep folder (``results.csv``, ``results.json``) and return its rows as JSON."""
def record(scenario_json: str, registry: Optional[Mapping[str, Any]] = None) -> Tuple[Report, Dict[str, List[Any]]]:
    """Run recording every engine event."""
def read_trace(
    paths: Sequence[str],
    format: str = "canonical",
    skip_bad_lines: bool = False,
    throughputs: Optional[str] = None,
    reference_gpu_type: Optional[str] = None,
) -> Tuple[Dict[str, List[Any]], Dict[str, Any]]:
    """Read trace files as columns."""
def stock_schedule(ctx: Context, policy: str, semantics: str = "exact") -> List[Tuple[int, int]]:
    """A stock policy's schedule on a made context."""
def validate_decisions(ctx: Context, decisions: Any) -> Optional[str]:
    """The engine's validation of placement decisions on a made context."""
def parse_schedule(ctx: Context, value: Any) -> List[Tuple[int, int]]:
    """A policy's return value read as the engine reads it."""
def make_context(
    jobs: Mapping[str, Sequence[Any]],
    cluster: str = "4x4",
    now_s: float = 0.0,
    round: int = 0,
    round_s: float = 300.0,
    seed: Optional[int] = None,
    placement: bool = True,
) -> Context:
    """A context over a real engine state built from columns."""
