"""Shared fixtures: the CLI binary to compare against, traces, a clean component registry."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import bloxsim

REPO = Path(__file__).resolve().parents[2]


def _target_dir() -> Path:
    t = os.environ.get("CARGO_TARGET_DIR")
    return Path(t) if t else REPO / "target"


@pytest.fixture(scope="session")
def blox_sim() -> Path:
    """The workspace's `blox-sim` binary (`BLOX_SIM_BIN`, else target/debug or target/release,
    the newest): the CLI the Python results are compared with byte for byte."""
    env = os.environ.get("BLOX_SIM_BIN")
    if env:
        path = Path(env)
        assert path.is_file(), f"BLOX_SIM_BIN={env} is not a file"
        return path
    found = [p for p in (_target_dir() / "debug" / "blox-sim", _target_dir() / "release" / "blox-sim") if p.is_file()]
    assert found, (
        "no blox-sim binary in the workspace target: build it first (`cargo build --bin blox-sim`, "
        "or `cargo test --workspace` as test.sh does) or set BLOX_SIM_BIN"
    )
    return max(found, key=lambda p: p.stat().st_mtime)


@pytest.fixture
def cli(blox_sim: Path):
    """Run `blox-sim ARGS...` in a folder; returns the completed process (stdout, stderr)."""

    def run(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cwd.mkdir(parents=True, exist_ok=True)
        p = subprocess.run([str(blox_sim), *args], cwd=cwd, capture_output=True, text=True)
        if check:
            assert p.returncode == 0, f"blox-sim {' '.join(args)} failed:\n{p.stderr}"
        return p

    return run


@pytest.fixture(scope="session")
def traces() -> Path:
    """The repository's traces (`traces/`; `BLOX_TRACES` overrides it). A test that needs
    them fails when they are missing, as the Rust tests do: none is skipped."""
    env = os.environ.get("BLOX_TRACES")
    path = Path(env) if env else REPO / "traces"
    assert path.is_dir(), f"the trace folder {path} is missing (BLOX_TRACES={env!r})"
    return path


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test starts and ends with no Python component registered."""
    for role, names in bloxsim.registered().items():
        for n in names:
            bloxsim.unregister(n, role)
    yield
    for role, names in bloxsim.registered().items():
        for n in names:
            bloxsim.unregister(n, role)


def same_files(a: Path, b: Path) -> list:
    """Relative paths of the files under `a` (recursively), checked equal to `b`'s byte for byte;
    returns them (fails on the first difference or a missing file)."""
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    other = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert names == other, f"different files: {names} vs {other}"
    for n in names:
        x, y = (a / n).read_bytes(), (b / n).read_bytes()
        assert x == y, f"{n} differs between the CLI and Python"
    return names
