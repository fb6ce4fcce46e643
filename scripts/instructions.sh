#!/usr/bin/env bash
# Instructions per operation of the mutation groups of benches/peers.rs,
# counted with callgrind: deterministic where the machine's timings are not.
#
# Usage: scripts/instructions.sh [GROUP...]   (default: insert_reserved insert remove_random churn)
#        scripts/instructions.sh load          (bench `load`: instructions per loaded row)
#        scripts/instructions.sh shapes        (bench `shapes`: the never-inlined `add` and
#                                               `take` of each container, its timed loops,
#                                               and what they inline; see below)
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

if [ "${1:-}" = shapes ]; then
    # benches/shapes.rs at N = 16,384 (criterion's --test mode: each routine
    # once), for each container (module `shapes::on_<container>`):
    # * Ir per call of the never-inlined `add` (insert, growth of an empty
    #   container included) and `take` (remove returning the record, a random
    #   half of the ids), counted by callgrind inside the function and its
    #   callees, divided by the calls (N and N/2; the bench's checks, which
    #   also call them, are turned off with IDTABLE_SHAPES_CHECK=0);
    #   `add` is also counted into a container created with room for N
    #   (IDTABLE_SHAPES_RESERVED=1): the insert path without growth;
    # * their code size in bytes (`nm -S`; a function that only jumps to
    #   another is shown with its target's size) and their instructions;
    # * Ir per operation of each timed loop (`loop_add_inline`, `loop_add`,
    #   `loop_remove_inline`, `loop_take`, and issue 38's `loop_add_trait`,
    #   `loop_add_method`, `loop_add_closure`, `loop_remove_trait`,
    #   `loop_remove_method`, `loop_remove_closure`), as criterion times them,
    #   and of the insert loops into a container made with room for N;
    # * for every shape that hints inlining (the `#[inline]` wrappers, the
    #   trait's and the `Holder`'s `#[inline]` methods, the closures):
    #   whether the container's insert and remove were inlined into the loop
    #   that runs them (`loop_add_inline`, `loop_remove_inline`,
    #   `loop_add_trait`, `loop_remove_trait`, `loop_add_method`,
    #   `loop_remove_method`, and for the closures the generic helpers
    #   `each_index` and `each_key` that call them): the calls left in them,
    #   to the container's own code or the wrapper, method or closure around
    #   it ("NOT inlined"), or only to growth and panics ("inlined").
    # Needs valgrind and binutils (nm, objdump).
    bin=$(cargo bench --manifest-path benches/Cargo.toml --bench shapes --no-run \
        --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "shapes" and m.get("executable"):
        print(m["executable"])')
    n=16384
    containers=(idtable hand_soa dense_slotmap slotmap)
    symbols=$(mktemp)
    trap 'rm -f "$symbols"' EXIT
    nm -C "$bin" >"$symbols"
    toggles() { # function -> a --toggle-collect for it and for every symbol at its address
        # (the compiler merges functions whose code is the same, e.g. loop_add_method and
        # loop_add_inline when the Holder is laid out as the container: callgrind names the
        # code after one of them)
        python3 -c 'import sys
f, lines = sys.argv[1], [l.rstrip("\n").split(" ", 2) for l in open(sys.argv[2])]
at = {l[0] for l in lines if len(l) == 3 and l[2] == f}
for l in lines:
    if len(l) == 3 and l[0] in at:
        print("--toggle-collect=" + l[2])' "$1" "$symbols"
    }
    count_calls() { # function, benchmark, calls -> Ir per call
        local out total
        local -a toggle
        mapfile -t toggle < <(toggles "$1")
        out=$(mktemp)
        IDTABLE_SHAPES_CHECK=0 IDTABLE_SHAPES_RESERVED=${reserved:-0} valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --collect-atstart=no "${toggle[@]}" "$bin" --bench --test "^$2\$" 2>"$out" >/dev/null
        total=$(grep 'Collected' "$out" | tail -1 | awk '{print $4}')
        rm -f "$out"
        python3 -c "print(f'{$total / $3:.1f}')"
    }
    printf '%-14s %14s %14s %14s\n' "Ir per call" add add_reserved take
    for c in "${containers[@]}"; do
        printf '%-14s %14s %14s %14s\n' "$c" \
            "$(count_calls "shapes::on_$c::add" "insert/never_inlined/$c/$n" $n)" \
            "$(reserved=1 count_calls "shapes::on_$c::add" "insert/never_inlined/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::take" "remove/never_inlined_returned/$c/$n" $((n / 2)))"
    done
    printf '\n'
    printf '%-14s %14s %14s %14s %14s\n' "Ir per op" insert/inline insert/never remove/inline remove/never
    for c in "${containers[@]}"; do
        printf '%-14s %14s %14s %14s %14s\n' "$c" \
            "$(count_calls "shapes::on_$c::loop_add_inline" "insert/inline_wrapper/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::loop_add" "insert/never_inlined/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::loop_remove_inline" "remove/inline_wrapper_in_cache/$c/$n" $((n / 2)))" \
            "$(count_calls "shapes::on_$c::loop_take" "remove/never_inlined_returned/$c/$n" $((n / 2)))"
    done
    printf '(the whole timed loops: the record built, the call, the id kept or the value summed)\n\n'
    printf '%-14s %14s %14s %14s %14s %14s %14s\n' "Ir per op" insert/trait insert/method insert/closure \
        remove/trait remove/method remove/closure
    for c in "${containers[@]}"; do
        printf '%-14s %14s %14s %14s %14s %14s %14s\n' "$c" \
            "$(count_calls "shapes::on_$c::loop_add_trait" "insert/trait_method/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::loop_add_method" "insert/struct_method/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::loop_add_closure" "insert/closure/$c/$n" $n)" \
            "$(count_calls "shapes::on_$c::loop_remove_trait" "remove/trait_method_in_cache/$c/$n" $((n / 2)))" \
            "$(count_calls "shapes::on_$c::loop_remove_method" "remove/struct_method_in_cache/$c/$n" $((n / 2)))" \
            "$(count_calls "shapes::on_$c::loop_remove_closure" "remove/closure_in_cache/$c/$n" $((n / 2)))"
    done
    printf '(issue 38'"'"'s shapes, the same work: the generic loop, the method'"'"'s loop, the closure'"'"'s helper)\n\n'
    printf '%-14s %14s %14s %14s %14s %14s\n' "Ir per insert" inline_wrapper never_inlined trait_method \
        struct_method closure
    for c in "${containers[@]}"; do
        printf '%-14s %14s %14s %14s %14s %14s\n' "$c" \
            "$(reserved=1 count_calls "shapes::on_$c::loop_add_inline" "insert/inline_wrapper/$c/$n" $n)" \
            "$(reserved=1 count_calls "shapes::on_$c::loop_add" "insert/never_inlined/$c/$n" $n)" \
            "$(reserved=1 count_calls "shapes::on_$c::loop_add_trait" "insert/trait_method/$c/$n" $n)" \
            "$(reserved=1 count_calls "shapes::on_$c::loop_add_method" "insert/struct_method/$c/$n" $n)" \
            "$(reserved=1 count_calls "shapes::on_$c::loop_add_closure" "insert/closure/$c/$n" $n)"
    done
    printf '(the insert loops into a container made with room for N: no growth, whose reallocs\n'
    printf ' copy or not as the heap left by the groups before lets them, so the counts above vary)\n\n'
    BIN="$bin" python3 - "${containers[@]}" <<'PY'
import os, re, subprocess, sys
b = os.environ["BIN"]
syms = {}   # demangled name -> (address, size)
by_addr = {}
for line in subprocess.run(["nm", "-S", "-C", b], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"([0-9a-f]+) ([0-9a-f]+) [tTwW] (.*)$", line)
    if m:
        a, s, name = int(m[1], 16), int(m[2], 16), m[3]
        syms.setdefault(name, (a, s))
        by_addr.setdefault(a, (name, s))
got = {}    # GOT slot -> the symbol it points to (calls through the GOT)
for line in subprocess.run(["objdump", "-R", b], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"([0-9a-f]+) R_X86_64_RELATIVE\s+\*ABS\*\+0x([0-9a-f]+)", line)
    if m and int(m[2], 16) in by_addr:
        got[int(m[1], 16)] = by_addr[int(m[2], 16)][0]
def dis(name):
    a, s = syms[name]
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", f"--start-address={a:#x}",
                          f"--stop-address={a + s:#x}", b], capture_output=True, text=True).stdout
    return [l.split("\t", 1)[1] for l in out.splitlines() if re.match(r"\s+[0-9a-f]+:\t", l)]
def target(ins):
    m = re.search(r"<(.*)>$", ins)
    if m and "+0x" not in m[1]:
        return m[1]
    m = re.search(r"# ([0-9a-f]+) <", ins)
    return got.get(int(m[1], 16), ins) if m else ins
def short(name):
    while re.search(r"<[^<>]*>", name):
        name = re.sub(r"<[^<>]*>", "", name)
    return "::".join([p for p in name.split("::") if p][-2:])
print(f"{'code size':14} {'add B':>9} {'ins':>5} {'take B':>9} {'ins':>5}")
for c in sys.argv[1:]:
    row = []
    for f in ("add", "take"):
        name = f"shapes::on_{c}::{f}"
        ins = dis(name)
        size = f"{syms[name][1]}"
        if len(ins) <= 2 and ins[0].startswith("jmp"):
            t = target(ins[0])
            size += f"+{syms[t][1]}" if t in syms else ""
            ins = dis(t) if t in syms else ins
        row += [size, str(len(ins))]
    print(f"{c:14} {row[0]:>9} {row[1]:>5} {row[2]:>9} {row[3]:>5}")
print("(B: bytes, `a+b` for a function of a bytes that jumps to one of b; ins: its instructions)")
print()
print("Shapes that hint inlining: calls left in the loops that run insert and remove")
loops = [("inline_wrapper", "loop_add_inline", "loop_remove_inline"),
         ("trait_method", "loop_add_trait", "loop_remove_trait"),
         ("struct_method", "loop_add_method", "loop_remove_method"),
         ("closure", "each_index", "each_key")]
for c in sys.argv[1:]:
    for shape, *fs in loops:
        for f in fs:
            calls = sorted({short(target(x)) for x in dis(f"shapes::on_{c}::{f}") if x.startswith("call")})
            # The container's own insert or remove, or the wrapper, trait
            # method, holder's method or closure around it, left as a call;
            # idtable's `insert_cold` is its cold path (an insert that finds
            # reservations pending, or the table past the line where the free
            # queue's links leave the slots), as growth is, not the insert.
            own = [t for t in calls if re.search(
                r"::((?!settle_)\w*insert(?!_cold)\w*|remove(?!_cold)|add|add_inline|remove_inline|take|discard|spawn|despawn|\{\{closure\}\})$", t)]
            verdict = "NOT inlined: " + ", ".join(own) if own else "inlined"
            same = [g for _, *gs in loops for g in gs
                    if g != f and syms[f"shapes::on_{c}::{g}"][0] == syms[f"shapes::on_{c}::{f}"][0]]
            merged = f" (the same code as {', '.join(same)}: merged)" if same else ""
            print(f"  {c:14} {shape:15} {f:19} {verdict}{merged}; calls: {', '.join(calls) or 'none'}")
PY
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
