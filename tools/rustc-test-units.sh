#!/usr/bin/env bash
# The test command's rustc wrapper (test.sh sets it as RUSTC_WORKSPACE_WRAPPER, so cargo calls it
# for the workspace's own crates only, as `tools/rustc-test-units.sh RUSTC ARGS...`).
#
# It compiles the workspace's test harnesses, the units cargo builds with `--test` (each crate's
# tests/ binaries and its library compiled with its unit tests), without optimisation: where the
# dev profile gives them `-C opt-level=1`, they get `-C opt-level=0`. Everything else is passed
# to rustc unchanged, so the libraries and programs the tests call (blox-runner's simulations,
# the `blox-sim` binary the command-line tests run) keep the profile's level, and a
# `cargo test --release` keeps its own. Floating-point results do not depend on the level (no
# fast-math in Rust), and debug assertions and overflow checks are the dev profile's at either
# level, so every test checks the same thing.
#
# Why: a test harness instantiates the engine's generic code for its own components, which at
# -O1 is most of a cold test build. Measured on 2 cores, cold (`cargo test --no-run` with
# test.sh's selection): 203 s of CPU without this wrapper, 148 s with it; the tests then took as
# long to run (78 and 74 s of CPU).
#
# Kept at the profile's level (their tests run long simulations in the harness's own code):
#   blox-synergy's tests/it   2.3 s of CPU to run at -O1, 7.3 s at -O0.
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
if [ "$test_unit" = 1 ]; then
    case "${CARGO_PKG_NAME:-}:${CARGO_CRATE_NAME:-}" in
        blox-synergy:it) ;;
        *)
            args=()
            for a in "$@"; do
                if [ "$a" = "opt-level=1" ]; then
                    a="opt-level=0"
                fi
                args+=("$a")
            done
            exec "$rustc" "${args[@]}"
            ;;
    esac
fi
exec "$rustc" "$@"
