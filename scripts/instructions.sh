#!/usr/bin/env bash
# Instructions per operation of the mutation groups of benches/peers.rs,
# counted with callgrind: deterministic where the machine's timings are not.
#
# Usage: scripts/instructions.sh [GROUP...]   (default: insert_reserved insert remove_random churn)
#        scripts/instructions.sh load          (bench `load`: instructions per loaded row)
#
# Each benchmark runs once in criterion's --test mode (N = 16,384) under
# callgrind, counting only inside the bench's never-inlined timed loops
# (`timed_inserts`, `timed_removes`, `churn_pass`): exactly what criterion
# times, making the records and growing included, setup and drop not. The
# count is divided by the group's operations (N inserts, N/2 removals, N
# remove + insert pairs). Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = load ]; then
    # benches/load.rs at 10,000 rows: the allocator and the plain columns,
    # counted inside `timed_load`.
    bin=$(cargo bench --manifest-path benches/Cargo.toml --features serde --bench load --no-run \
        --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "load" and m.get("executable"):
        print(m["executable"])')
    for impl in idtable plain_vecs; do
        out=$(mktemp)
        valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
            --toggle-collect='load::timed_load*' "$bin" --bench --test "^load/$impl/10000\$" 2>"$out" >/dev/null
        total=$(grep 'Collected' "$out" | tail -1 | awk '{print $4}')
        rm -f "$out"
        printf 'load %-12s %8.1f Ir per row\n' "$impl" "$(python3 -c "print($total / 10000)")"
    done
    exit 0
fi

n=16384
groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(insert_reserved insert remove_random churn)
impls=(idtable idtable_24_8 hand_soa dense_slotmap slotmap thunderdome)

cargo bench --manifest-path benches/Cargo.toml --bench peers --no-run 2>/dev/null
bin=$(cargo bench --manifest-path benches/Cargo.toml --bench peers --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "peers" and m.get("executable"):
        print(m["executable"])')

count() { # group, benchmark -> instructions inside the timed loop
    local out
    out=$(mktemp)
    IDTABLE_BENCH_GROUPS="$1" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        --collect-atstart=no --toggle-collect='peers::timed_*' --toggle-collect='peers::churn_pass*' \
        "$bin" --bench --test "^$2\$" 2>"$out" >/dev/null
    grep 'Collected' "$out" | tail -1 | awk '{print $4}'
    rm -f "$out"
}

printf '%-16s' "Ir per op"
for impl in "${impls[@]}"; do printf '%14s' "$impl"; done
printf '\n'
for group in "${groups[@]}"; do
    case "$group" in
        remove_random) ops=$((n / 2)) ;;
        *) ops=$n ;;
    esac
    printf '%-16s' "$group"
    for impl in "${impls[@]}"; do
        total=$(count "$group" "$group/$impl/$n")
        printf '%14s' "$(python3 -c "print(f'{$total / $ops:.1f}')")"
    done
    printf '\n'
done
