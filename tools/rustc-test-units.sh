#!/usr/bin/env bash
# The test command's rustc wrapper (test.sh sets it as RUSTC_WORKSPACE_WRAPPER, so cargo calls it
# for the workspace's own crates only, as `tools/rustc-test-units.sh RUSTC ARGS...`).
#
# It compiles the workspace's test harnesses, the units cargo builds with `--test` (each crate's
# tests/ binaries and its library compiled with its unit tests), without optimisation: where the
# dev profile gives them `-C opt-level=1` (or blox-core's 2), they get `-C opt-level=0`. Likewise
# the example programs that `cargo test` runs (blox-examples' `test = true` examples, plain
# programs without a harness). Everything else is passed to rustc unchanged, so the libraries and
# programs the tests call (blox-runner's simulations, the `blox-sim` binary the command-line
# tests run) keep the profile's level, and a `cargo test --release` (opt-level 3) keeps its own.
# Floating-point results do not depend on the level (no fast-math in Rust), and debug assertions
# and overflow checks are the dev profile's at either level, so every test checks the same thing.
#
# Why: a test harness instantiates the engine's generic code for its own components, which at
# -O1 is most of a cold test build. Measured on 2 cores, cold (`cargo test --no-run` with
# test.sh's selection): 203 s of CPU without this wrapper, 148 s with it; the tests then took as
# long to run (78 and 74 s of CPU). blox-core's unit tests: 4.0 s of CPU to compile at -O2, 1.0 s
# at -O0 (0.1 s to run either way); five of the six examples: 5.4 s at -O1, 1.9 s at -O0 (each
# runs in under 0.1 s either way).
#
# Kept at a level that runs them fast (long simulations or property tests in their own code):
#   blox-synergy's tests/it        the profile's -O1: 2.3 s of CPU to run, 7.3 s at -O0;
#   blox-core's tests/it           -O1 (the profile's -O2 for blox-core): 2.1 s of CPU to run at
#                                  either, 13.3 s at -O0; compiled in 2.8 s instead of 3.7 s;
#   blox-examples' admission_study the profile's -O1: 0.7 s of CPU to run, 2.2 s at -O0.
set -euo pipefail
rustc="$1"
shift
test_unit=0
for a in "$@"; do
    if [ "$a" = "--test" ]; then
        test_unit=1
        break
    fi
done
# The level this unit is compiled at instead of the profile's (empty: the profile's).
level=""
case "$test_unit:${CARGO_PKG_NAME:-}:${CARGO_CRATE_NAME:-}" in
    1:blox-synergy:it) ;;
    1:blox-core:it) level=1 ;;
    1:*) level=0 ;;
    0:blox-examples:blox_examples | 0:blox-examples:admission_study) ;;
    0:blox-examples:*) level=0 ;;
esac
if [ -n "$level" ]; then
    args=()
    for a in "$@"; do
        # Only the dev profile's levels: a release or bench build (opt-level=3) is left alone.
        if [ "$a" = "opt-level=1" ] || [ "$a" = "opt-level=2" ]; then
            a="opt-level=$level"
        fi
        args+=("$a")
    done
    exec "$rustc" "${args[@]}"
fi
exec "$rustc" "$@"
