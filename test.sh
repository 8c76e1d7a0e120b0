#!/usr/bin/env bash
# The project's tests in one command: the Rust workspace's (`cargo test --workspace`, with the
# example policy crate's programs: `--features my-blox-policy/cli`), then the
# Python package's (python/tests, pytest) in a virtual environment under .venv/ (gitignored),
# created here with the package (`uv pip install ./python`, uv installed there by pip) and
# python/requirements-test.txt.
#
#   ./test.sh               everything
#   ./test.sh --python      the Python part only (the workspace's blox-sim binary must exist)
#   ./test.sh -- ARGS...    extra pytest arguments (e.g. -k parity)
#
# Environment: PYTHON (the interpreter that makes the venv, default python3), BLOX_VENV (the
# venv's folder, default .venv), CARGO_TARGET_DIR (shared by cargo and maturin),
# RUSTC_WORKSPACE_WRAPPER (default tools/rustc-test-units.sh: test harnesses at -O0), BLOX_TRACES
# (overrides the repository's traces/ folder), BLOX_SIA_DATA (the fetched Sia data, see
# docs/data.md; without it the Sia tests that need it are listed as not run), MATURIN_PEP517_ARGS (default
# `--profile dev`: the package is built in the dev profile, reusing the dependencies cargo test
# compiled; `--profile python-release`, the package's default, for an optimised build).
set -euo pipefail
cd "$(dirname "$0")"

rust=1
pytest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --python) rust=0 ;;
        --) shift; pytest_args=("$@"); break ;;
        *) echo "usage: $0 [--python] [-- PYTEST_ARGS...]" >&2; exit 2 ;;
    esac
    shift
done

# One selection and feature set for every cargo command here (and in .ci/run's Slurm step): the
# workspace's, with the example policy crate's programs (its `cli` feature, off by default),
# without blox-benches. The benches crate has no tests (`cargo test` builds none of its
# targets); with rusqlite 0.32, selecting it unified criterion's features into the build
# (zerocopy's `derive`, through ciborium's `half`, compiled syn 2 and zerocopy-derive for
# rusqlite's hash map; rusqlite 0.37's map needs no zerocopy). A
# `-p CRATE` command resolves features for that crate alone (without the dev-dependencies'
# features, blox-metrics' `default`) and recompiled most of the workspace a second and third time.
sel=(--workspace --exclude blox-benches --features my-blox-policy/cli)
# Test harnesses compiled without optimisation, the code they test as the profile says
# (tools/rustc-test-units.sh: 55 s less CPU in a cold build, the tests as fast). Exported, so
# maturin's build of the Python package below and CI's later cargo steps use the same wrapper:
# cargo rebuilds the workspace's crates when it changes. A RUSTC_WORKSPACE_WRAPPER already set
# (CI sets this one) is kept.
export RUSTC_WORKSPACE_WRAPPER="${RUSTC_WORKSPACE_WRAPPER:-$PWD/tools/rustc-test-units.sh}"
if [ "$rust" = 1 ]; then
    echo "== cargo test ${sel[*]}"
    TIMEFORMAT='== the Rust tests (build and run) took %U s user + %S s sys CPU, %R s wall'
    time cargo test "${sel[@]}"
    if [ -z "${BLOX_SIA_DATA:-}" ]; then
        # The Sia artifact's data has no licence and is fetched, not shipped (docs/data.md).
        echo "== NOT RUN (BLOX_SIA_DATA is unset; see docs/data.md): these blox-sia, blox-cli and my-blox-policy tests"
        cargo test -q "${sel[@]}" --test it --test my_blox_sim -- --list \
            2>/dev/null | sed -n 's/: test$//p' | grep sia_data_ | sed 's/^/   /' || true
    fi
fi

echo "== Python package (python/): build, install, pytest"
TIMEFORMAT='== the Python part (venv, install, build, pytest) took %U s user + %S s sys CPU, %R s wall'
time {
    venv="${BLOX_VENV:-.venv}"
    if [ ! -x "$venv/bin/python" ]; then
        # Without ensurepip (3 s of CPU): uv installs pip into it below.
        "${PYTHON:-python3}" -m venv --without-pip "$venv"
    fi
    py="$venv/bin/python"
    # uv (from PyPI, pinned), installed into the venv by the interpreter's own pip (`pip --python`,
    # pip >= 22.3), installs the test requirements, pip (for the venv's users) and the package:
    # the same versions as pip resolves, in 1.7 s of CPU instead of pip's 12.6 s (70 packages from
    # a warm cache, 2 cores). Like `pip install --no-compile`, it does not byte-compile them: the
    # tests import a fraction, compiled (and cached) by Python on first import.
    "${PYTHON:-python3}" -m pip --python "$py" install --quiet --disable-pip-version-check "uv==0.13.9"
    uv=("$venv/bin/uv" pip install --quiet --python "$py")
    "${uv[@]}" pip -r python/requirements-test.txt
    # The package, built from this tree every time: --no-cache, as uv would otherwise reuse a wheel
    # it built before when python/pyproject.toml has not changed (maturin keeps cargo's
    # incremental build, in CARGO_TARGET_DIR or target/); it replaces the installed one.
    MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev}" \
        "${uv[@]}" --no-cache --reinstall-package bloxsim ./python

    set +e
    "$py" -m pytest python/tests -q "${pytest_args[@]}"
    status=$?
    set -e
}
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests (exit code 5): the Python suite did not run" >&2
    exit 1
fi
exit "$status"
