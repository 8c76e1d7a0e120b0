"""Components written in Python, registered by name for every run in this process."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Optional, TypeVar, overload

from ._errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])

#: role -> name -> factory
_REGISTRY: Dict[str, Dict[str, Callable[..., Any]]] = {"policy": {}, "placement": {}, "admission": {}}

_METHOD = {"policy": "schedule", "placement": "place", "admission": "admit"}
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


def _register(role: str, name: str, factory: Any) -> Any:
    from . import _flags

    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(
            f"{role} name {name!r}: use letters, digits, '_', '-' and '.' (':' ',' '=' are the "
            "parameter syntax, `name:key=value`)"
        )
    if _flags.is_stock(role, name):
        raise ConfigError(f"{role} name {name!r} is a stock component's: stock names always mean the stock component")
    method = _METHOD[role]
    if isinstance(factory, type):
        if not callable(getattr(factory, method, None)):
            raise TypeError(f"{factory.__name__} has no `{method}` method: it is not a {role}")
        build = factory
    elif callable(getattr(factory, method, None)) and not callable(factory):
        # An instance: the same object serves every run (its state is shared between runs).
        obj = factory

        def build(*args: Any, **kwargs: Any) -> Any:
            if args or kwargs:
                raise ConfigError(f"{role} {name!r} is an instance and takes no parameters")
            return obj

    elif callable(factory):
        build = factory
    else:
        raise TypeError(f"register a class, a factory function or an object with a `{method}` method, not {factory!r}")
    _REGISTRY[role][name] = build
    return factory


@overload
def register_policy(name: str) -> Callable[[F], F]: ...
@overload
def register_policy(name: str, factory: F) -> F: ...
def register_policy(name: str, factory: Optional[Any] = None) -> Any:
    """Register a scheduling policy written in Python under ``name``; it then works wherever a
    stock policy name does (``run``, ``compare``, ``sweep``, scenario dicts and files), mixed
    with Rust components.

    ``factory`` is a class (or a function returning a new object) called once per run, with
    the parameters of ``name:key=value,...`` as keyword arguments (strings; ``name:VALUE`` as
    one positional argument). The object's ``schedule(ctx)`` is called every round with a
    read-only :class:`bloxsim.Context` and returns the jobs to run, best first: job ids (each
    on the GPUs it asks for) or ``(job_id, n_gpus)`` pairs (``(job_id, n_gpus, gpu_type)`` to
    pin a GPU type). Orders should break ties by the lowest job id; ``ctx.random`` is a
    seeded ``random.Random`` for deterministic randomness. Usable as a decorator:
    ``@bloxsim.register_policy("my-las")``.
    """
    if factory is None:
        return lambda f: _register("policy", name, f)
    return _register("policy", name, factory)


@overload
def register_placement(name: str) -> Callable[[F], F]: ...
@overload
def register_placement(name: str, factory: F) -> F: ...
def register_placement(name: str, factory: Optional[Any] = None) -> Any:
    """Register a placement written in Python under ``name`` (see :func:`register_policy`).

    Its ``place(ctx, schedule)`` gets the context (with per-GPU facts: ``ctx.free_gpu_ids``,
    ``ctx.gpu_node``, ``ctx.gpu_owner``, ``ctx.node_gpus``, ...) and the policy's schedule as a
    list of ``(job_id, n_gpus, gpu_type or None)``, and returns ``{"stop": [job ids], "start":
    [(job_id, [gpu ids]), ...]}`` (or a ``(stop, start)`` tuple); the engine validates it (no
    GPU twice, none busy, rigid jobs on exactly their count) and applies every stop first.
    """
    if factory is None:
        return lambda f: _register("placement", name, f)
    return _register("placement", name, factory)


@overload
def register_admission(name: str) -> Callable[[F], F]: ...
@overload
def register_admission(name: str, factory: F) -> F: ...
def register_admission(name: str, factory: Optional[Any] = None) -> Any:
    """Register an admission policy written in Python under ``name`` (see
    :func:`register_policy`).

    Its ``admit(ctx, queue)`` gets the context and the :class:`bloxsim.Queue` of waiting jobs
    (oldest first) and returns the queue indices to admit, in the order they get ids, or
    ``(admit, reject)``; jobs neither admitted nor rejected wait for the next round.
    """
    if factory is None:
        return lambda f: _register("admission", name, f)
    return _register("admission", name, factory)


def unregister(name: str, role: Optional[str] = None) -> None:
    """Forget a registered component (of ``role``, or of every role)."""
    for r in [role] if role else list(_REGISTRY):
        _REGISTRY[r].pop(name, None)


def registered() -> Dict[str, Dict[str, Callable[..., Any]]]:
    """The registered components: ``{"policy": {name: factory}, "placement": ...,
    "admission": ...}`` (a copy)."""
    return {r: dict(m) for r, m in _REGISTRY.items()}
