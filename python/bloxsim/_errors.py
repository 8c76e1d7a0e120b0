"""The exceptions of ``bloxsim``.

Every error the simulator reports is a :class:`BloxError`; each also derives from the
built-in exception it is most like (``ValueError`` for bad settings, ``RuntimeError`` for runs
that cannot go on, ``OSError`` for files), so existing ``except`` clauses keep working.
"""

from __future__ import annotations

from typing import Optional

__all__ = [
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
]


class BloxError(Exception):
    """Base class of every error ``bloxsim`` raises."""


class ConfigError(BloxError, ValueError):
    """A setting is not valid (an unknown policy, a negative load, a malformed cluster, ...).

    ``key`` is the scenario key the error is about (``"workload.load"``, ``"round_s"``, ...)
    when the simulator named one, ``detail`` what is wrong with its value.
    """

    key: Optional[str] = None
    detail: Optional[str] = None


class InputError(ConfigError):
    """An input file (scenario, trace, node events) is malformed: the message names the file,
    the line and the field."""


class SimulationError(BloxError, RuntimeError):
    """A run could not complete."""


class StalledError(SimulationError):
    """The run cannot make progress (e.g. a job that no placement can ever start)."""


class InvalidDecisionError(SimulationError):
    """A component returned a decision the engine rejects (a GPU given twice, a stop of a job
    that is not running, ...); the message names the component and the round."""


class BloxIOError(BloxError, OSError):
    """Reading or writing a file failed."""


class PolicyError(SimulationError):
    """A component written in Python raised: the run stopped where it was and wrote nothing.

    The original exception, with its traceback, is ``__cause__``. ``component`` is the
    registered name; ``round`` and ``time_s`` say when (both ``None`` when the component failed
    while being built).
    """

    component: Optional[str] = None
    round: Optional[int] = None
    time_s: Optional[float] = None


class SweepError(SimulationError):
    """A run of a sweep failed (the cause is its error); the sweep started no new run after it,
    and runs already written to the output folder stay there (a new sweep resumes)."""


class UnsupportedError(BloxError, NotImplementedError):
    """What was asked for does not exist for this run or is not offered from Python (a Gavel
    run's timeline, the engine scenario of a peer's own simulator, a recorded run under
    ``synergy``); the message says what there is instead."""


for _cls in (
    BloxError,
    ConfigError,
    InputError,
    SimulationError,
    StalledError,
    InvalidDecisionError,
    BloxIOError,
    PolicyError,
    SweepError,
    UnsupportedError,
):
    _cls.__module__ = "bloxsim"
del _cls
