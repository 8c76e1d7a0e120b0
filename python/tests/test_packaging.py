"""The installed package: typed (PEP 561), an abi3 extension, documented."""

from __future__ import annotations

import inspect
from pathlib import Path

import bloxsim
from bloxsim import _native, testing


def test_typed_and_abi3():
    pkg = Path(bloxsim.__file__).parent
    assert (pkg / "py.typed").is_file()
    assert (pkg / "_native.pyi").is_file()
    assert Path(_native.__file__).name.endswith(".abi3.so"), _native.__file__


def test_everything_public_has_a_docstring():
    missing = []
    for mod in (bloxsim, testing):
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and not (obj.__doc__ or "").strip():
                missing.append(f"{mod.__name__}.{name}")
    for cls in (_native.Context, _native.Job, _native.Queue, _native.Report, _native.SweepHandle):
        for name, member in vars(cls).items():
            if not name.startswith("_") and not (getattr(member, "__doc__", None) or "").strip():
                missing.append(f"{cls.__name__}.{name}")
    assert not missing, missing
