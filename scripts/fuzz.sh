#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for a bounded time, one after another.
#
#     scripts/fuzz.sh [seconds per target]     (default 60)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). When
# either is missing it says so and exits 0, so it can sit in scripts that run
# on machines without them. Crashes are saved under fuzz/artifacts/<target>/;
# the corpus grows under fuzz/corpus/<target>/ (neither is committed). Each
# target's last libFuzzer lines (executions, exec/s, coverage) are printed and
# the full log is kept in fuzz/artifacts/<target>.log.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
case "$seconds" in
    '' | *[!0-9]*)
        echo "usage: scripts/fuzz.sh [seconds per target]" >&2
        exit 2
        ;;
esac

if ! command -v rustup >/dev/null 2>&1; then
    echo "fuzzing SKIPPED: rustup is not installed, so no nightly toolchain can be selected (cargo-fuzz needs one)."
    exit 0
fi
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzzing SKIPPED: no nightly toolchain (cargo-fuzz needs one: 'rustup toolchain install nightly')."
    exit 0
fi
if ! cargo +nightly fuzz --help >/dev/null 2>&1; then
    echo "fuzzing SKIPPED: cargo-fuzz is not installed ('cargo install cargo-fuzz')."
    exit 0
fi

targets=(data_from_bytes data_edits data_map_from_bytes data_map_edits allocator_ops allocator_load soa_map_edits)
mkdir -p fuzz/artifacts
failed=()
for target in "${targets[@]}"; do
    echo "== fuzz $target for ${seconds}s"
    log="fuzz/artifacts/$target.log"
    mkdir -p "fuzz/corpus/$target"
    if cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
        grep -E '^(#[0-9]+[[:space:]]+DONE|Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || tail -n 5 "$log"
    else
        echo "   $target FAILED; see $log and fuzz/artifacts/$target/:"
        grep -E 'panicked at|ERROR: |SUMMARY: |Test unit written to' "$log" | head -n 10
        failed+=("$target")
    fi
done

if ((${#failed[@]})); then
    echo "fuzzing found crashes in: ${failed[*]}"
    exit 1
fi
echo "fuzzing: no crash in ${#targets[@]} targets (${seconds}s each)"
