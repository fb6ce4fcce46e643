#!/usr/bin/env bash
# Times the README's two commands as a newcomer meets them: each in its own
# fresh clone of this repository's HEAD, with a cold target/ (the registry
# cache is whatever this machine has; run `cargo fetch` once first to leave
# downloads out).
#
#     scripts/first_run.sh [runs]        (default 1 run of each)
#
# Prints, per run, the wall-clock time and how many crates cargo compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1}"
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset CARGO_TARGET_DIR

one() { # label, command...
    local label=$1
    shift
    local dir="$work/clone"
    rm -rf "$dir"
    git clone -q "$repo" "$dir"
    local start end
    start=$(date +%s.%N)
    (cd "$dir" && "$@") >"$work/out" 2>"$work/err" || {
        echo "$label: failed"
        tail -20 "$work/err"
        exit 1
    }
    end=$(date +%s.%N)
    printf '%-10s %6.1f s  %3d crates compiled  (%s)\n' "$label" \
        "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$(grep -c '^ *Compiling' "$work/err" || true)" "$*"
}

for _ in $(seq "$runs"); do
    one demo cargo run --release --example particles
    one tests cargo test --workspace
done
