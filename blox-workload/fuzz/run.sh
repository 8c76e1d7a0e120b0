#!/usr/bin/env bash
# Fuzz every reader of user input with libFuzzer, on the stable toolchain: the trace readers
# for SECONDS each (default 8), the other targets (scenario files, the flags' value parsers,
# `run`'s command line, node-event files, the server's HTTP request reader) for OTHER_SECONDS
# each (default SECONDS). With `--runs`, each target instead runs a fixed number of inputs
# from a fixed random seed (FUZZ_SEED, default 1) and an empty corpus: how much is fuzzed does
# not depend on the machine's speed or load (libFuzzer is nearly, not exactly, deterministic
# for a seed). CI uses that form; a timed run (or another FUZZ_SEED) explores further. The targets are built with the coverage flags cargo-fuzz passes
# (sancov, --cfg fuzzing) but no sanitizer, which is what needs nightly (the code is safe Rust:
# a panic or an abort is the failure to catch), with debug assertions and overflow checks on.
# Seeds come from seeds/TARGET (committed, read-only); new inputs go to corpus/TARGET (ignored
# by git), crashes to artifacts/TARGET/. Exits non-zero on the first crash.
#
#   bash blox-workload/fuzz/run.sh --runs 60000 40000   # CI: 60,000 inputs per trace reader,
#                                                         # 40,000 per other target, seed 1
#   bash blox-workload/fuzz/run.sh 8 5      # 8 s per trace reader, 5 s per other target
#   bash blox-workload/fuzz/run.sh 600      # a longer run: 10 min per target
#   TARGETS="canonical http_request" bash blox-workload/fuzz/run.sh 60
#
# With cargo-fuzz and a nightly toolchain the same targets also run as
# `cargo +nightly fuzz run canonical corpus/canonical seeds/canonical` (AddressSanitizer on).
set -euo pipefail
cd "$(dirname "$0")"
MODE=time
if [ "${1:-}" = "--runs" ]; then
    MODE=runs
    shift
fi
SECONDS_EACH=${1:-8}
OTHER_SECONDS=${2:-$SECONDS_EACH}
SEED=${FUZZ_SEED:-1}
READERS="canonical itp tiresias pollux alibaba2023 helios philly gavel"
TARGETS=${TARGETS:-"$READERS scenario values cli_args node_events http_request"}
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros (they are not linked with libFuzzer).
cargo build --locked --release --bins --target "$TRIPLE"
# Where cargo put them (CARGO_TARGET_DIR, relative to this folder when relative, or target/).
bin_dir="${CARGO_TARGET_DIR:-target}/$TRIPLE/release"
total=0
summary=""
for t in $TARGETS; do
    secs=$OTHER_SECONDS
    case " $READERS " in *" $t "*) secs=$SECONDS_EACH ;; esac
    mkdir -p "corpus/$t" "artifacts/$t"
    log="artifacts/$t/last-run.log"
    corpus="corpus/$t"
    if [ "$MODE" = runs ]; then
        # An empty corpus of its own, so earlier local runs (kept in corpus/) do not change
        # what is explored.
        corpus=$(mktemp -d)
        # A time bound as well (FUZZ_MAX_SECONDS, default 240 per target), so a run of slow
        # inputs cannot hold CI for ever; the summary shows the execs done either way.
        budget=(-runs="$secs" -seed="$SEED" -max_total_time="${FUZZ_MAX_SECONDS:-240}")
        unit="inputs (seed $SEED)"
    else
        budget=(-max_total_time="$secs")
        unit="s"
    fi
    if ! "$bin_dir/$t" "$corpus" "seeds/$t" \
        "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: target $t FAILED; the crashing input is in $(pwd)/artifacts/$t/" >&2
        exit 1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    total=$((total + ${execs:-0}))
    summary+=$(printf '%-12s %10s execs for %s %s, corpus %s files\n' "$t" "${execs:-?}" \
        "$secs" "$unit" "$(ls "$corpus" | wc -l)")$'\n'
    if [ "$MODE" = runs ]; then rm -rf "$corpus"; fi
done
printf '%s' "$summary"
echo "fuzz: $total execs in all, 0 crashes"
