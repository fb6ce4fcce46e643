#!/usr/bin/env python3
"""Write the `## Allocator vs peers` section of BENCHMARKS.md from criterion's output.

Usage (from the repository root):

    python3 benches/report.py --run   # run the four benchmark commands, then write the section
    python3 benches/report.py         # only rewrite the section from benches/target/criterion

`--run` runs, in this order:

    GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 \\
        IDTABLE_BENCH_ONLY_INSERT=1 cargo bench --manifest-path benches/Cargo.toml --bench peers -- --save-baseline tuned
    cargo bench --manifest-path benches/Cargo.toml --bench peers
    cargo bench --manifest-path benches/Cargo.toml --features serde --bench load
    cargo bench --manifest-path benches/Cargo.toml --features rayon --bench parallel

The benchmarks are a package of their own (benches/Cargo.toml, outside the main workspace),
so criterion writes under benches/target (or $CARGO_TARGET_DIR), every bench target into the
same directory. The script reads `benches/target/criterion/<group>/<impl>/<N>/new/estimates.json`
(median point estimate), `.../tuned/estimates.json` for the insert group under the glibc
tunables, `benches/target/criterion/peers-memory.json` and `load-bytes.json` (written by the
`peers` and `load` benches), and rewrites only the region between `<!-- peers:begin -->` and
`<!-- peers:end -->` of BENCHMARKS.md. The `load` and `parallel` rows of the issue-12 targets come
from those two benches and show "no data" until they have been run. Standard library only.

Both forms then write the chart at the top of BENCHMARKS.md and the README: `benches/chart.csv`
(idtable's median against the fastest peer's per workload and N, from the same criterion
results, see chart_groups) and `benches/chart.svg`, drawn from that CSV by

    cargo run --profile bench --manifest-path benches/Cargo.toml --features chart --bin chart -- \\
        benches/chart.csv benches/chart.svg

(plotters, built only under the feature `chart`). If that program cannot be built or run, the
section and the CSV are still written, the script says that the SVG was not redrawn and exits
with status 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository root
BENCHES = ROOT / "benches"  # the benchmark package
BEGIN = "<!-- peers:begin -->"
END = "<!-- peers:end -->"
HEADING = "## Allocator vs peers"
TUNABLES = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"
COMMAND = "python3 benches/report.py --run"
_CARGO_BENCH = ["cargo", "bench", "--manifest-path", "benches/Cargo.toml"]
# The runs of `--run` after the glibc-tuned `insert` run (which is the first command with
# `IDTABLE_BENCH_ONLY_INSERT=1` and `-- --save-baseline tuned`).
BENCH_COMMANDS = [
    _CARGO_BENCH + ["--bench", "peers"],
    _CARGO_BENCH + ["--features", "serde", "--bench", "load"],
    _CARGO_BENCH + ["--features", "rayon", "--bench", "parallel"],
]

SIZES = [10_000, 1_000_000]
LOAD_SIZES = [1_000, 10_000]
PARALLEL_SIZES = [10_000, 100_000, 1_000_000]
IDT = ["idtable", "idtable_24_8"]
KEYED = IDT + ["hand_soa", "dense_slotmap", "slotmap", "thunderdome", "hashmap"]
ITER = ["vec_floor", "soa_derive"] + KEYED

# group -> (implementations, reference shown in the table, elements per iteration as f(N), what is timed)
GROUPS = {
    "insert": (KEYED, "dense_slotmap", lambda n: n, "N inserts into an empty container (per insert)"),
    "insert_reserved": (KEYED, "dense_slotmap", lambda n: n, "N inserts into a container made with `with_capacity(N)` (per insert; no target, shows the cost of growth)"),
    "extend": (
        ["idtable_collect", "idtable_extend", "vec_floor_extend", "vec_floor_columns"],
        "vec_floor_extend",
        lambda n: n,
        "building a container of the N records `make(0..N)` from an iterator, allocation included: "
        "`collect()` into `idtable` (`idtable_collect`), `extend` into `idtable`'s `with_capacity(N)` "
        "(`idtable_extend`), pushing each record into 8 `Vec`s made with `with_capacity(N)` (`vec_floor_extend`), "
        "and one `extend` per `Vec` from the generator projected on its field (`vec_floor_columns`, no per-row "
        "capacity check: the physical floor) (per element)",
    ),
    "get_random": (KEYED, "dense_slotmap", lambda n: n, "N lookups of `mass` by id in a seeded random order, summed (per lookup)"),
    "iter_one_field": (ITER, "vec_floor", lambda n: n, "sum of `mass` over all live elements (per element)"),
    "update_two_fields": (ITER, "vec_floor", lambda n: n, "`pos += vel * dt` over all live elements (per element)"),
    "remove_random": (KEYED, "dense_slotmap", lambda n: n // 2, "removing N/2 elements in a seeded random order (per removal)"),
    "remove_many": (
        ["idtable_remove_many", "idtable_remove", "idtable_retain", "dense_slotmap_remove"],
        "dense_slotmap_remove",
        lambda n: n // 2,
        "removing the N/2 ids of `remove_random` (same records, same order) from `idtable`: with one "
        "`remove_many(ids)` call (`idtable_remove_many`), with single `remove`s (`idtable_remove`), with "
        "`retain` keeping the rows whose `flags` bit 0 (set on that half when building) is clear "
        "(`idtable_retain`); `dense_slotmap_remove` is single removes from `DenseSlotMap` (per removed element)",
    ),
    "churn": (KEYED, "dense_slotmap", lambda n: n, "N times: remove a random live element, insert a new one (per remove + insert)"),
    "iter_after_churn": (ITER, "vec_floor", lambda n: n, "`iter_one_field` on a container that went through one `churn` pass (per element)"),
}

# Groups of the `load` bench (feature `serde`), at LOAD_SIZES; same tuple shape as GROUPS.
LOAD_GROUPS = {
    "load": (
        ["idtable", "plain_vecs"],
        "plain_vecs",
        lambda n: n,
        "`postcard::from_bytes` of N rows of a `#[soa(serde)]` struct of 4 fields (`pos, vel: [f32; 3], "
        "mass: f32, flags: u32`): into its allocator (`idtable`: id table and columns, checked) and into "
        "`struct { pos, vel, mass, flags }` of `Vec`s holding the same columns (`plain_vecs`) (per row)",
    ),
    "save": (
        ["idtable", "plain_vecs"],
        "plain_vecs",
        lambda n: n,
        "`postcard::to_allocvec` of the same two values (per row)",
    ),
}
# Groups of the `parallel` bench (feature `rayon`), at PARALLEL_SIZES; per particle.
PARALLEL_GROUPS = ["parallel_integrate", "parallel_integrate_fresh"]

# (group, reference, limit, sizes, description); ratio = idtable / reference, target met when ratio <= limit.
TARGETS = [
    ("iter_one_field", "vec_floor", 1.1, SIZES, "≤ 1.1× raw-`Vec` floor"),
    ("update_two_fields", "vec_floor", 1.1, SIZES, "≤ 1.1× raw-`Vec` floor"),
    ("iter_after_churn", "vec_floor", 1.1, SIZES, "≤ 1.1× raw-`Vec` floor"),
    ("get_random", "dense_slotmap", 1.0, SIZES, "≤ 1.0× `DenseSlotMap`"),
    ("get_random", "slotmap", 1.2, SIZES, "≤ 1.2× `SlotMap`"),
    ("get_random", "thunderdome", 1.2, SIZES, "≤ 1.2× thunderdome"),
    ("get_random", "hashmap", 0.2, SIZES, "≥ 5× faster than `HashMap` (≤ 0.2×)"),
    ("insert", "dense_slotmap", 1.0, SIZES, "≤ 1.0× `DenseSlotMap`"),
    ("insert", "slotmap", 1.1, [10_000], "≤ 1.1× `SlotMap` at 10k"),
    ("remove_random", "dense_slotmap", 1.5, [10_000], "≤ 1.5× `DenseSlotMap` at 10k"),
    ("remove_random", "dense_slotmap", 2.0, [1_000_000], "≤ 2.0× `DenseSlotMap` at 1M"),
    ("churn", "dense_slotmap", 1.5, SIZES, "≤ 1.5× `DenseSlotMap`"),
]
MEMORY_LIMITS = {"idtable": 16.0, "idtable_24_8": 8.0}

# The chart (see chart_groups): idtable's median / the fastest peer's, same group, same N.
CHART = BENCHES / "chart.csv"
CHART_SVG = BENCHES / "chart.svg"
CHART_COMMAND = _CARGO_BENCH[:1] + ["run", "--profile", "bench"] + _CARGO_BENCH[2:] + [
    "--features", "chart", "--bin", "chart", "--", "benches/chart.csv", "benches/chart.svg",
]
# The peers users would pick instead of idtable's allocator and of `SoaMap`.
CHART_PEERS = ["dense_slotmap", "slotmap", "thunderdome", "soa_derive", "hashmap"]
CHART_MAP_PEERS = ["secondary_map", "sparse_secondary_map", "hashmap"]
SOA_MAP_GROUPS = ["map_insert", "map_remove", "map_get", "map_iter_one_column"]

# Issue 12: (group, measured implementations, reference, limit, strict, sizes, description);
# ratio = measured / reference per element, target met when ratio <= limit (< limit if strict).
TARGETS_12 = [
    ("insert_reserved", IDT, "slotmap", 1.1, False, SIZES, "≤ 1.1× `SlotMap`"),
    ("insert_reserved", IDT, "hand_soa", 1.1, False, SIZES, "≤ 1.1× `hand_soa`"),
    ("insert", IDT, "dense_slotmap", 1.0, False, SIZES, "≤ 1.0× `DenseSlotMap`"),
    ("remove_random", IDT, "dense_slotmap", 2.0, False, [10_000], "≤ 2.0× `DenseSlotMap` at 10k"),
    ("churn", IDT, "dense_slotmap", 1.5, False, [1_000_000], "≤ 1.5× `DenseSlotMap` at 1M"),
    ("remove_many", ["idtable_remove_many"], "idtable_remove", 0.5, False, [1_000_000],
     "≤ 0.5× idtable's single `remove`s at 1M"),
    ("remove_many", ["idtable_remove_many"], "dense_slotmap_remove", 1.0, True, [1_000_000],
     "< 1.0× `DenseSlotMap`'s single removes at 1M"),
    ("extend", ["idtable_collect", "idtable_extend"], "vec_floor_extend", 1.1, False, [10_000],
     "≤ 1.1× pushing into 8 reserved `Vec`s at 10k"),
    ("load", ["idtable"], "plain_vecs", 1.5, False, LOAD_SIZES, "≤ 1.5× plain `Vec`s (bench `load`)"),
    *[
        (g, ["rows_par_iter_mut"], "columns_rayon_zip", 1.05, False, PARALLEL_SIZES,
         "≤ 1.05× `columns_rayon_zip` (bench `parallel`)")
        for g in PARALLEL_GROUPS
    ],
]


def criterion_dir() -> Path:
    target = os.environ.get("CARGO_TARGET_DIR")
    return (Path(target) if target else BENCHES / "target") / "criterion"


def median_ns(group: str, impl: str, n: int, baseline: str = "new") -> float | None:
    path = criterion_dir() / group / impl / str(n) / baseline / "estimates.json"
    try:
        with open(path) as f:
            return float(json.load(f)["median"]["point_estimate"])
    except (OSError, KeyError, ValueError):
        return None


def estimates(group: str, impl: str, param: str) -> tuple[float, float] | None:
    """Criterion's median ns per element of `group/impl/param` (the iteration's median over the
    group's `Throughput::Elements`) and the mtime of its estimates."""
    path = criterion_dir() / group / impl / param / "new"
    try:
        with open(path / "estimates.json") as f:
            median = float(json.load(f)["median"]["point_estimate"])
        with open(path / "benchmark.json") as f:
            elems = int(json.load(f)["throughput"]["Elements"])
        return median / elems, (path / "estimates.json").stat().st_mtime
    except (OSError, KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def chart_groups() -> list[tuple[str, str, list[str], str, list[tuple[str, str]]]]:
    """Per workload: (group, the idtable container, its peers, the hand-written floor drawn as a
    marker, (label, criterion's parameter directory) per size). The `peers` groups first, then
    the `soa_map` bench's, drawn only where their results exist (`--run` does not run them)."""
    out = []
    for group, (impls, *_) in GROUPS.items():
        if "idtable" in impls:
            peers = [p for p in impls if p in CHART_PEERS]
            floor = "vec_floor" if "vec_floor" in impls else "hand_soa"
            out.append((group, "idtable", peers, floor, [(size_label(n), str(n)) for n in SIZES]))
    for group in SOA_MAP_GROUPS:
        params = [(f"{size_label(n)} {s}", f"{n}_{s}") for n in SIZES for s in ("all", "tenth")]
        out.append((group, "soa_map", CHART_MAP_PEERS, "hand_sparse", params))
    out.append(("map_add_remove", "soa_map", CHART_MAP_PEERS, "hand_sparse", [("10k all", "10000_all")]))
    return out


def chart_rows() -> list[dict]:
    """The chart's rows, one per workload and N measured; the groups missing are named on stderr."""
    rows = []
    for group, idt, peers, floor, params in chart_groups():
        missing = []
        for label, param in params:
            mine = estimates(group, idt, param)
            theirs = [(p, e) for p in peers if (e := estimates(group, p, param)) is not None]
            if mine is None or not theirs:
                missing.append(label)
                continue
            best, (best_ns, _) = min(theirs, key=lambda pe: pe[1][0])
            low = estimates(group, floor, param)
            times = [mine[1], *(e[1] for _, e in theirs)] + ([low[1]] if low else [])
            rows.append({
                "workload": group,
                "n": label,
                "idtable": idt,
                "idtable_ns": mine[0],
                "best_peer": best,
                "best_peer_ns": best_ns,
                "ratio": mine[0] / best_ns,
                "floor": floor,
                "floor_ns": low[0] if low else None,
                "floor_ratio": low[0] / best_ns if low else None,
                "measured_utc": dt.datetime.fromtimestamp(max(times), dt.timezone.utc),
            })
        if missing:
            print(f"chart: no criterion results for `{group}` at {', '.join(missing)}: not drawn",
                  file=sys.stderr)
    # One chart, one run: results older than the `peers` run by more than an hour (a `soa_map`
    # run of another day, say) are left out rather than drawn beside it.
    peers_start = min((r["measured_utc"] for r in rows if r["idtable"] == "idtable"), default=None)
    if peers_start is not None:
        stale = [r for r in rows if r["measured_utc"] < peers_start - dt.timedelta(hours=1)]
        for r in stale:
            print(f"chart: `{r['workload']}` {r['n']} was measured at {r['measured_utc']:%Y-%m-%d %H:%M} UTC, "
                  f"over an hour before this `peers` run: not drawn", file=sys.stderr)
        rows = [r for r in rows if r not in stale]
    return rows


def write_chart_csv(path: Path) -> int:
    """Writes the chart's figures (medians in ns per element); returns the row count."""
    rows = chart_rows()
    cols = ["workload", "n", "idtable", "idtable_ns", "best_peer", "best_peer_ns", "ratio",
            "floor", "floor_ns", "floor_ratio", "measured_utc"]
    out = [",".join(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r[c]
            if v is None:
                cells.append("")
            elif isinstance(v, float):
                cells.append(f"{v:.4g}")
            elif isinstance(v, dt.datetime):
                cells.append(f"{v:%Y-%m-%d %H:%M}")
            else:
                cells.append(str(v))
        out.append(",".join(cells))
    path.write_text("\n".join(out) + "\n")
    return len(rows)


def draw_chart() -> bool:
    """Writes CHART from the criterion results, then CHART_SVG from it; False if the SVG was not drawn."""
    count = write_chart_csv(CHART)
    print(f"wrote {CHART.relative_to(ROOT)} ({count} rows)", file=sys.stderr)
    if count == 0:
        print(f"chart: nothing measured, {CHART_SVG.relative_to(ROOT)} NOT redrawn", file=sys.stderr)
        return False
    print("+", " ".join(CHART_COMMAND), file=sys.stderr)
    try:
        done = subprocess.run(CHART_COMMAND, cwd=ROOT).returncode == 0
    except OSError as e:
        print(f"chart: {e}", file=sys.stderr)
        done = False
    if not done:
        print(
            f"chart: the chart program (plotters, feature `chart`) could not be built or run; "
            f"{CHART_SVG.relative_to(ROOT)} was NOT redrawn and may no longer match "
            f"{CHART.relative_to(ROOT)}. The section of BENCHMARKS.md was written.",
            file=sys.stderr,
        )
    return done


def elements(group: str, n: int) -> int:
    if group in GROUPS:
        return GROUPS[group][2](n)
    if group in LOAD_GROUPS:
        return LOAD_GROUPS[group][2](n)
    return n  # PARALLEL_GROUPS: per particle


def per_element(group: str, impl: str, n: int, baseline: str = "new") -> float | None:
    t = median_ns(group, impl, n, baseline)
    return None if t is None else t / elements(group, n)


def fmt_ns(x: float | None) -> str:
    if x is None:
        return "—"
    if x < 10:
        return f"{x:.2f}"
    if x < 100:
        return f"{x:.1f}"
    return f"{x:.0f}"


def fmt_ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}×"


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def size_label(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def size_list(sizes) -> str:
    return " and ".join(size_label(n) for n in sizes)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = os.cpu_count()
    try:
        cores = int(subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip())
    except (OSError, ValueError):
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) // (1024 * 1024)} GiB RAM"
                break
    except OSError:
        pass
    try:
        rustc = subprocess.run(["rustc", "-V"], capture_output=True, text=True).stdout.strip()
    except OSError:
        rustc = "rustc ?"
    return f"{cores} cores (`nproc`), {cpu}{mem}, {platform.system()} {platform.release()}, {rustc}"


def estimate_times(baseline: str, groups, sizes=SIZES) -> list[float]:
    """The mtimes of the estimates of `groups` at `sizes` under `baseline`."""
    times = []
    for g in groups:
        for n in sizes:
            for p in (criterion_dir() / g).glob(f"*/{n}/{baseline}/estimates.json"):
                times.append(p.stat().st_mtime)
    return times


def peers_minutes() -> str:
    """How long the two `peers` runs took, from their first estimates to their last."""
    times = estimate_times("tuned", ["insert"]) + estimate_times("new", GROUPS)
    return f"{round((max(times) - min(times)) / 60)} minutes" if times else "(no data) minutes"


def measured_date(baseline: str, groups, sizes=SIZES) -> str:
    times = estimate_times(baseline, groups, sizes)
    if not times:
        return "no data"
    lo = dt.datetime.fromtimestamp(min(times), dt.timezone.utc)
    hi = dt.datetime.fromtimestamp(max(times), dt.timezone.utc)
    return f"{lo:%Y-%m-%d %H:%M}–{hi:%H:%M} UTC"


def group_table(group: str, baseline: str = "new", groups=GROUPS, sizes=SIZES) -> list[str]:
    impls, ref, _, what = groups[group]
    head = "| implementation |"
    rule = "| --- |"
    for n in sizes:
        head += f" ns/elem {size_label(n)} | × `{ref}` {size_label(n)} |"
        rule += " ---: | ---: |"
    rows = [head, rule]
    for impl in impls:
        row = f"| `{impl}` |"
        for n in sizes:
            x = per_element(group, impl, n, baseline)
            r = ratio(x, per_element(group, ref, n, baseline))
            row += f" {fmt_ns(x)} | {fmt_ratio(r)} |"
        rows.append(row)
    return [f"Timed: {what}.", ""] + rows


def targets_table() -> tuple[list[str], list[str]]:
    rows = [
        "| workload | target | layout | N | idtable ns/elem | reference ns/elem | ratio | |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    missed = []
    for group, ref, limit, sizes, desc in TARGETS:
        for impl in IDT:
            for n in sizes:
                a = per_element(group, impl, n)
                b = per_element(group, ref, n)
                r = ratio(a, b)
                if r is None:
                    verdict = "no data"
                else:
                    verdict = "met" if r <= limit else "**missed**"
                if verdict != "met":
                    missed.append(f"`{group}` {desc}, `{impl}`, N = {size_label(n)}: {fmt_ratio(r)}")
                rows.append(
                    f"| `{group}` | {desc} | `{impl}` | {size_label(n)} | {fmt_ns(a)} | {fmt_ns(b)} | {fmt_ratio(r)} | {verdict} |"
                )
    return rows, missed


def paired_rows() -> dict[tuple[str, int], dict]:
    """The `parallel` bench's paired measurement, by (group, N); empty if absent."""
    try:
        data = json.load(open(criterion_dir() / "parallel-paired.json"))
    except (OSError, ValueError):
        return {}
    return {(row["group"], row["n"]): row for row in data.get("rows", [])}


def paired_table() -> list[str]:
    paired = paired_rows()
    if not paired:
        return ["(no `parallel-paired.json`: run the `parallel` bench)"]
    rows = [
        "| group | N | pairs | `rows_par_iter_mut` ns/particle | `columns_rayon_zip` ns/particle | median of pair ratios |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for (group, n), row in sorted(paired.items(), key=lambda kv: (PARALLEL_GROUPS.index(kv[0][0]), kv[0][1])):
        rows.append(
            f"| `{group}` | {size_label(n)} | {row['pairs']:,} | {fmt_ns(row['rows_par_iter_mut_ns'] / n)} | "
            f"{fmt_ns(row['columns_rayon_zip_ns'] / n)} | {fmt_ratio(row['ratio'])} |"
        )
    return rows


def targets_12_table() -> tuple[list[str], list[str]]:
    rows = [
        "| workload | target | measured | N | measured ns/elem | reference ns/elem | ratio | |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    missed = []
    paired = paired_rows()
    for group, impls, ref, limit, strict, sizes, desc in TARGETS_12:
        for impl in impls:
            for n in sizes:
                a = per_element(group, impl, n)
                b = per_element(group, ref, n)
                r = ratio(a, b)
                if group in PARALLEL_GROUPS and (group, n) in paired:
                    # The paired measurement: steps of the two variants alternate.
                    row = paired[(group, n)]
                    a, b = row["rows_par_iter_mut_ns"] / n, row["columns_rayon_zip_ns"] / n
                    r = row["ratio"]
                if r is None:
                    verdict = "no data"
                else:
                    verdict = "met" if (r < limit if strict else r <= limit) else "**missed**"
                if verdict != "met":
                    missed.append(f"`{group}` {desc}, `{impl}`, N = {size_label(n)}: {verdict if r is None else fmt_ratio(r)}")
                rows.append(
                    f"| `{group}` | {desc} | `{impl}` | {size_label(n)} | {fmt_ns(a)} | {fmt_ns(b)} | {fmt_ratio(r)} | {verdict} |"
                )
    return rows, missed


def load_bytes_table() -> list[str]:
    path = criterion_dir() / "load-bytes.json"
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        return ["(no `load-bytes.json`: run the `load` bench)"]
    rows = [
        "| N | `idtable` bytes | per row | `plain_vecs` bytes | per row |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in data["rows"]:
        n, a, b = row["n"], row["idtable"], row["plain_vecs"]
        rows.append(f"| {n:,} | {a:,} | {a / n:.1f} | {b:,} | {b / n:.1f} |")
    return rows


def memory_table() -> tuple[list[str], list[str]]:
    path = criterion_dir() / "peers-memory.json"
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        return ["(no `peers-memory.json`: run the bench)"], []
    rows = [
        "| implementation | N | bookkeeping B per live object | target | how it is computed |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    missed = []
    for row in data["rows"]:
        impl, n, b = row["impl"], row["n"], row["bytes_per_live"]
        base = impl.split(" ")[0]
        target = ""
        if base in MEMORY_LIMITS:
            limit = MEMORY_LIMITS[base]
            ok = b <= limit
            target = f"≤ {limit:g} B: {'met' if ok else '**missed**'}"
            if not ok:
                missed.append(f"memory `{impl}` N = {n}: {b:.2f} B > {limit:g} B")
        rows.append(f"| `{impl}` | {n:,} | {b:.2f} | {target} | {row['how']} |")
    return rows, missed


def insert_glibc_table() -> list[str]:
    impls = GROUPS["insert"][0]
    head = "| implementation |"
    rule = "| --- |"
    for n in SIZES:
        lab = size_label(n)
        head += f" default ns {lab} | × dense {lab} | tuned ns {lab} | × dense {lab} |"
        rule += " ---: | ---: | ---: | ---: |"
    rows = [head, rule]
    for impl in impls:
        row = f"| `{impl}` |"
        for n in SIZES:
            for base in ("new", "tuned"):
                x = per_element("insert", impl, n, base)
                r = ratio(x, per_element("insert", "dense_slotmap", n, base))
                row += f" {fmt_ns(x)} | {fmt_ratio(r)} |"
        rows.append(row)
    return rows


def section() -> str:
    now = dt.datetime.now(dt.timezone.utc)
    targets, missed = targets_table()
    targets_12, missed_12 = targets_12_table()
    mem, mem_missed = memory_table()
    out = [
        BEGIN,
        "<!-- Generated by benches/report.py: edit the script, not this region. -->",
        "",
        f"Regenerate: `{COMMAND}` (runs the four commands below, longer than the {peers_minutes()} the two `peers` runs took on the machine below,",
        "then rewrites this region; `python3 benches/report.py` alone rewrites it from `benches/target/criterion`).",
        "Both then redraw the chart at the top of this file from the same results: `benches/chart.csv`, then",
        f"`benches/chart.svg` from it with `{' '.join(CHART_COMMAND)}` (plotters).",
        "",
        "```sh",
        f"GLIBC_TUNABLES={TUNABLES} \\",
        "    IDTABLE_BENCH_ONLY_INSERT=1 cargo bench --manifest-path benches/Cargo.toml --bench peers -- --save-baseline tuned",
        *[" ".join(cmd) for cmd in BENCH_COMMANDS],
        "```",
        "",
        f"* Machine: {machine()}.",
        f"* Measured: {measured_date('new', GROUPS)} (`peers`, full run); `insert` under the glibc tunables "
        f"{measured_date('tuned', ['insert'])}; `load` {measured_date('new', LOAD_GROUPS, LOAD_SIZES)}; "
        f"`parallel` {measured_date('new', PARALLEL_GROUPS, PARALLEL_SIZES)}. Generated {now:%Y-%m-%d %H:%M} UTC.",
        "* The machine is shared and noisy (2 cores, other jobs running during the run). Read the",
        "  **ratios within one run** (medians, same run, same N), not the absolute times: absolute ns are",
        "  printed only so the ratios can be checked.",
        "* Record: 64 bytes, 8 fields (`pos: [f32; 3], vel: [f32; 3], mass, charge, age: f32, flags: u32,",
        "  color: [u8; 4], pad: [u32; 5]`, size asserted at compile time). `idtable` is the derived",
        "  allocator with the default `Id32_32` layout, `idtable_24_8` with `#[soa(id = idtable::Id24_8)]`;",
        "  `dense_slotmap` / `slotmap` are slotmap 1's `DenseSlotMap` / `SlotMap` with `DefaultKey`,",
        "  `thunderdome` is thunderdome 0.6's `Arena`, `hashmap` is `std::collections::HashMap<u64, Record>`",
        "  (default SipHash, keys from a counter), `vec_floor` is one `Vec` per field with no ids (the",
        "  physical floor), `soa_derive` is soa_derive 0.14's `RecordVec`. `hand_soa` is a hand-written",
        "  floor for idtable: its layout (the 8 fields as 8 columns in one allocation with one length and",
        "  capacity, grown by doubling with `realloc`, unchecked column writes) and its `Id32_32` scheme (`u64`",
        "  slots packing `generation << 32 | row`, `u64` dense ids `generation << 32 | slot`, generations from 1",
        "  and incremented on reuse, idtable's FIFO free list threaded through the vacant slots) for this one",
        "  record, no generic code.",
        "* Every implementation sees the same data and the same splitmix64-seeded orders; sums use 4",
        "  independent accumulators; column iteration of the SoA containers goes through the same",
        "  functions (`columns().mass`, `pos.as_flattened_mut()`), so only the layout differs. Setup and",
        "  drop are outside the timed part (`iter_batched`, `BatchSize::LargeInput`). N = 10k: 20 samples;",
        "  N = 1M: 10 samples, flat sampling. Numbers are criterion's median per iteration divided by",
        "  the elements of one iteration.",
        "",
        "### Targets (issue 4)",
        "",
        "Ratio = idtable's median ns per element / the reference's, same run, same N.",
        "",
        *targets,
        "",
    ]
    all_missed = missed + mem_missed
    if all_missed:
        out += ["Missed in this run:", ""] + [f"* {m}" for m in all_missed] + [""]
    else:
        out += ["Every target is met in this run.", ""]
    out += [
        "### Targets (issue 12)",
        "",
        "Ratio = the measured implementation's median ns per element / the reference's, same run, same N.",
        "The `load` rows come from the `load` bench, the `parallel_integrate*` rows (per particle; the",
        "two groups are described under *Parallel integration* below) from the `parallel` bench, each",
        "measured at its own time (dates above); every other row from `peers`. The `parallel_integrate*`",
        "rows are the bench's paired measurement (below, *Paired*): medians of single steps of the two",
        "variants run alternately, and the median of the per-pair ratios as the ratio.",
        "",
        *targets_12,
        "",
    ]
    if missed_12:
        out += ["Missed or not measured in this run (issue 12):", ""] + [f"* {m}" for m in missed_12] + [""]
    else:
        out += ["Every issue-12 target is met in this run.", ""]
    out += [
        "### Paired: `rows_par_iter_mut` against `columns_rayon_zip` (bench `parallel`)",
        "",
        "Criterion times each variant in a stretch of its own; on this shared 2-core machine a slow",
        "stretch lands on one of them, and their ratio moved by ±20% from run to run (criterion's",
        "medians are in *Parallel integration* below). The bench therefore also runs the two in",
        "alternating pairs (which goes first swaps every pair), each step timed alone, for 3 s and at",
        "least 300 pairs per group and size: both steps of a pair meet the same conditions.",
        "",
        *paired_table(),
        "",
    ]
    for group in GROUPS:
        out += [f"### `{group}`", ""] + group_table(group) + [""]
    for group in LOAD_GROUPS:
        out += [f"### `{group}` (bench `load`)", ""]
        out += group_table(group, groups=LOAD_GROUPS, sizes=LOAD_SIZES) + [""]
    out += ["Encoded sizes (postcard):", "", *load_bytes_table(), ""]
    out += [
        "### `insert` with and without the glibc tunables",
        "",
        "Between criterion iterations the filled containers are dropped; glibc returns the freed",
        "memory (large blocks are `mmap`ed, the heap top is trimmed) to the OS, so at N = 1M every",
        "iteration page-faults its columns back in, and how often depends on each container's growth",
        "pattern, not on its insert path. The tuned run sets",
        f"`GLIBC_TUNABLES={TUNABLES}` (no `mmap` for",
        "large blocks, never trim), which keeps the pages mapped. Both are reported; each ratio is",
        "within its own run.",
        "",
        *insert_glibc_table(),
        "",
        "### Memory per live object",
        "",
        "Bookkeeping beyond the 64-byte record (the record itself costs 64 B in every container but",
        "`HashMap`'s buckets), measured after N inserts into an empty container and, for idtable,",
        "after one churn pass. idtable's numbers come from its `id_table()` (`slot_count()`, `len()`,",
        "`free_count()`) and the size of the layout's slot bits and id; `hand_soa`'s from the lengths of",
        "its slot, dense-id and free-queue vectors; the peers' from their documented",
        "layouts (source of slotmap 1.1 and thunderdome 0.6, mirrored with `size_of` of a type of the same",
        "shape; hashbrown's bucket count derived from `capacity()`). Keys the user holds are not counted.",
        "",
        *mem,
        "",
        END,
    ]
    return "\n".join(out)


def write(md: Path) -> None:
    body = section()
    if md.exists():
        text = md.read_text()
    else:
        text = "# Benchmarks\n"
    if BEGIN in text and END in text:
        pre, rest = text.split(BEGIN, 1)
        _, post = rest.split(END, 1)
        text = pre + body + post
    else:
        if not text.endswith("\n"):
            text += "\n"
        text += f"\n{HEADING}\n\n{body}\n"
    md.write_text(text)


def run_benches() -> None:
    env = dict(os.environ, GLIBC_TUNABLES=TUNABLES, IDTABLE_BENCH_ONLY_INSERT="1")
    peers = BENCH_COMMANDS[0]
    cmds = [(peers + ["--", "--save-baseline", "tuned"], env)]
    cmds += [(cmd, dict(os.environ)) for cmd in BENCH_COMMANDS]
    for cmd, e in cmds:
        print("+", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, cwd=ROOT, env=e, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="store_true", help="run the benchmarks first")
    ap.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"), help="file to update")
    ap.add_argument("--print", action="store_true", help="print the section instead of writing it")
    args = ap.parse_args()
    if args.run:
        run_benches()
    if args.print:
        print(section())
        return
    write(Path(args.output))
    print(f"updated {args.output}", file=sys.stderr)
    if not draw_chart():
        sys.exit(1)


if __name__ == "__main__":
    main()
