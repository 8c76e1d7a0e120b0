#!/usr/bin/env bash
# Fuzz every trace reader for SECONDS each (default 8) with libFuzzer, on the stable toolchain:
# the targets are built with the coverage flags cargo-fuzz passes (sancov, --cfg fuzzing) but no
# sanitizer, which is what needs nightly (the readers are safe Rust: a panic or an abort is the
# failure to catch). Seeds come from seeds/TARGET (committed, read-only); new inputs go to
# corpus/TARGET (ignored by git), crashes to artifacts/TARGET/. Exits non-zero on the first crash.
#
#   bash blox-workload/fuzz/run.sh          # CI: 8 s per target
#   bash blox-workload/fuzz/run.sh 600      # a longer run: 10 min per target
#   TARGETS="canonical itp" bash blox-workload/fuzz/run.sh 60
#
# With cargo-fuzz and a nightly toolchain the same targets also run as
# `cargo +nightly fuzz run canonical corpus/canonical seeds/canonical` (AddressSanitizer on).
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-8}
TARGETS=${TARGETS:-"canonical itp tiresias pollux alibaba2023 helios philly gavel"}
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
    mkdir -p "corpus/$t" "artifacts/$t"
    log="artifacts/$t/last-run.log"
    if ! "$bin_dir/$t" "corpus/$t" "seeds/$t" \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: target $t FAILED; the crashing input is in $(pwd)/artifacts/$t/" >&2
        exit 1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    total=$((total + ${execs:-0}))
    summary+=$(printf '%-12s %10s execs in %s s, corpus %s files\n' "$t" "${execs:-?}" \
        "$SECONDS_EACH" "$(ls "corpus/$t" | wc -l)")$'\n'
done
printf '%s' "$summary"
echo "fuzz: $total execs in all, 0 crashes"
