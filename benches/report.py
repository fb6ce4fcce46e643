#!/usr/bin/env python3
"""Write the results of BENCHMARKS.md, one table and one chart per family of peers, from
criterion's output.

Usage (from the repository root):

    python3 benches/report.py --run              # run every family's benches, then write
    python3 benches/report.py --run --only ecs   # run one family's (or one bench's), then write
    python3 benches/report.py --run --only bench:ecs   # the bench `ecs` alone, not its family
    python3 benches/report.py                    # only write, from benches/target/criterion
    python3 benches/report.py --targets          # print the verdicts of issues 4 and 12's targets

The families and their benches (`RUNS` below has the exact commands, `--run` runs them in this
order):

    slot-maps  peers                                  slotmap, thunderdome, HashMap, floors
    soa        soa_map, shaping (--features rayon)    soa_derive, secondary maps, split columns
    ecs        joins, ecs, reserve (--features ecs),  hecs, legion, bevy_ecs, shipyard
               ecs_suite (--features ecs_default, then --features ecs), add_remove (ecs_default)
    data       data_map, data_component               HashMap<Id, DataComponent>, ...

`--run` records, for every command, when it ran, how long it took and the load average (at the
start, at the end, and sampled every 15 s) in `benches/target/criterion/report-run.json`, and
copies its output to `benches/target/criterion/report-logs/` (the heap tables of `data_map` and
`data_component` are read from there).

Writing reads criterion's results, `benches/target/criterion/**/new/{benchmark,estimates}.json`
(or under `$CARGO_TARGET_DIR`): the median point estimate of every benchmark, divided by its
throughput's elements for the tables. Ratios are idtable's median over the peer's, same run,
same workload. It then rewrites, in BENCHMARKS.md, the regions between `<!-- results:NAME:begin
-->` and `<!-- results:NAME:end -->` (NAME: `run`, then each family), writes one CSV per family,
`benches/chart-FAMILY.csv` (idtable's ratio against each charted peer per workload), and draws
each `benches/chart-FAMILY.svg` from its CSV with

    cargo run --profile bench --manifest-path benches/Cargo.toml --features chart --bin chart -- \\
        benches/chart-FAMILY.csv benches/chart-FAMILY.svg

(plotters, built only under the feature `chart`). A family with no results at all is left as
it is (region, CSV and SVG). If the chart program cannot be built or run, the regions and CSVs
are still written, the script says which SVGs were not redrawn and exits with status 1.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository root
BENCHES = ROOT / "benches"  # the benchmark package
MD = ROOT / "BENCHMARKS.md"
_CARGO_BENCH = ["cargo", "bench", "--manifest-path", "benches/Cargo.toml"]
# Criterion's options for the benches that keep criterion's default times (3 s of warm-up,
# 5 s of measurement per function): shorter, so the whole run fits in about an hour. The
# other benches set their own times per group, which criterion's command line does not change.
SHORT = ["--", "--warm-up-time", "1", "--measurement-time", "3"]

# (name, family, command): every bench of every family, in the order `--run` runs them.
RUNS = [
    ("peers", "slot-maps", _CARGO_BENCH + ["--bench", "peers"]),
    ("soa_map", "soa", _CARGO_BENCH + ["--bench", "soa_map"]),
    ("shaping", "soa", _CARGO_BENCH + ["--features", "rayon", "--bench", "shaping"]),
    ("joins", "ecs", _CARGO_BENCH + ["--bench", "joins"] + SHORT),
    ("ecs", "ecs", _CARGO_BENCH + ["--features", "ecs", "--bench", "ecs"] + SHORT),
    ("reserve", "ecs", _CARGO_BENCH + ["--features", "ecs", "--bench", "reserve"] + SHORT),
    ("ecs_suite default_features", "ecs",
     _CARGO_BENCH + ["--features", "ecs_default", "--bench", "ecs_suite"] + SHORT),
    ("ecs_suite no_default_features", "ecs",
     _CARGO_BENCH + ["--features", "ecs", "--bench", "ecs_suite"] + SHORT),
    ("add_remove default_features", "ecs",
     _CARGO_BENCH + ["--features", "ecs_default", "--bench", "add_remove"] + SHORT),
    ("data_map", "data", _CARGO_BENCH + ["--bench", "data_map"]),
    ("data_component", "data", _CARGO_BENCH + ["--bench", "data_component"]),
]
CHART_COMMAND = ["cargo", "run", "--profile", "bench", "--manifest-path", "benches/Cargo.toml",
                 "--features", "chart", "--bin", "chart", "--"]


# ---------------------------------------------------------------------------------------------
# Running the benches


def criterion_dir() -> Path:
    target = os.environ.get("CARGO_TARGET_DIR")
    return (Path(target) if target else BENCHES / "target") / "criterion"


def run_log_path() -> Path:
    return criterion_dir() / "report-run.json"


def log_path(name: str) -> Path:
    return criterion_dir() / "report-logs" / (name.replace(" ", "-") + ".txt")


def loadavg() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except (OSError, ValueError):
        return []


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def run_one(name: str, cmd: list[str]) -> dict:
    """Runs one bench command, its output copied to the terminal and to its log; samples the
    1-minute load average every 15 s meanwhile."""
    samples: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(15):
            la = loadavg()
            if la:
                samples.append(la[0])

    log = log_path(name)
    log.parent.mkdir(parents=True, exist_ok=True)
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    start, load_start, t0 = utc_now(), loadavg(), time.monotonic()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            out.write(line)
        status = proc.wait()
    done.set()
    sampler.join()
    if status != 0:
        print(f"report: `{' '.join(cmd)}` failed (exit {status})", file=sys.stderr)
    return {
        "name": name,
        "command": " ".join(cmd),
        "start_utc": start,
        "end_utc": utc_now(),
        "seconds": round(time.monotonic() - t0),
        "load_start": load_start,
        "load_end": loadavg(),
        "load_1min_samples": samples,
        "status": status,
    }


def read_run_log() -> list[dict]:
    try:
        return json.loads(run_log_path().read_text())["runs"]
    except (OSError, ValueError, KeyError):
        return []


def selected(name: str, family: str, only: set[str] | None) -> bool:
    """`only` holds families and bench names; `bench:NAME` names a bench alone where a family
    has the same name (`bench:ecs`)."""
    if not only:
        return True
    bench = name.split(" ")[0]
    return (family in only or name in only or bench in only
            or f"bench:{name}" in only or f"bench:{bench}" in only)


def run_benches(only: set[str] | None) -> bool:
    """Runs the benches of `only` (families or bench names; all if None), each command's time and
    load recorded in report-run.json (the entries of benches not run are kept). False if one
    failed."""
    runs, ok = read_run_log(), True
    for name, family, cmd in RUNS:
        if not selected(name, family, only):
            continue
        entry = run_one(name, cmd)
        ok &= entry["status"] == 0
        runs = [r for r in runs if r["name"] != name] + [entry]
        run_log_path().parent.mkdir(parents=True, exist_ok=True)
        run_log_path().write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    return ok


# ---------------------------------------------------------------------------------------------
# Criterion's results


@dataclass
class Result:
    median_ns: float  # per iteration
    elements: int | None  # the throughput's elements per iteration
    mtime: float  # when criterion wrote it

    @property
    def per_element(self) -> float:
        return self.median_ns / self.elements if self.elements else self.median_ns


_RESULTS: dict[tuple[str, str, str], Result] | None = None


def results() -> dict[tuple[str, str, str], Result]:
    """Every `new` result under the criterion directory, by (group, function, value)."""
    global _RESULTS
    if _RESULTS is None:
        _RESULTS = {}
        for bench in criterion_dir().glob("**/new/benchmark.json"):
            try:
                meta = json.loads(bench.read_text())
                est_path = bench.parent / "estimates.json"
                median = float(json.loads(est_path.read_text())["median"]["point_estimate"])
                thr = meta.get("throughput") or {}
                elements = thr.get("Elements") if isinstance(thr, dict) else None
                key = (meta["group_id"], meta.get("function_id") or "", meta.get("value_str") or "")
                _RESULTS[key] = Result(median, elements, est_path.stat().st_mtime)
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return _RESULTS


def get(group: str, function: str, value: str = "") -> Result | None:
    return results().get((group, function, value))


# ---------------------------------------------------------------------------------------------
# The families: what each table and chart shows


@dataclass
class Row:
    """One line of a table: idtable's `base` against each column's function, same group and
    value. `cols` maps a column's key to the function measured in that column."""
    workload: str
    case: str
    group: str
    value: str
    base: str
    cols: dict[str, str]
    chart: bool = True  # drawn in the family's chart too


@dataclass
class Section:
    """One table (and one heading of the family's chart)."""
    title: str  # the table's heading and the chart's
    base_header: str  # idtable's column
    columns: list[tuple[str, str, bool]]  # (key, header, drawn in the chart)
    rows: list[Row]
    unit: str = "ns/elem"  # or "µs/pass"
    chart_title: str = ""  # the chart's heading, if shorter than the title


@dataclass
class Pair:
    """One line of a table of pairs: `a` against `b`, same group and value."""
    workload: str
    case: str
    group: str
    value: str
    a: str
    b: str


@dataclass
class Family:
    key: str
    title: str
    benches: list[str]  # names in RUNS
    sections: list[Section]
    pairs_title: str = ""
    pairs: list[Pair] = field(default_factory=list)
    extra: object = None  # a function returning more lines for the region


SIZES = [("10000", "10k"), ("1000000", "1M")]
SLOT_PEERS = [("slotmap", "SlotMap"), ("dense_slotmap", "DenseSlotMap"),
              ("thunderdome", "thunderdome"), ("hashmap", "HashMap")]
SLOT_WORKLOADS = ["insert", "insert_reserved", "get_random", "remove_random", "churn",
                  "iter_one_field", "update_two_fields", "iter_after_churn"]
ITER_WORKLOADS = ["iter_one_field", "update_two_fields", "iter_after_churn"]


def slot_rows() -> list[Row]:
    out = []
    for w in SLOT_WORKLOADS:
        for value, label in SIZES:
            cols = {k: k for k, _ in SLOT_PEERS} | {"hand_soa": "hand_soa"}
            if w in ITER_WORKLOADS:
                cols["vec_floor"] = "vec_floor"
            out.append(Row(w, label, w, value, "idtable", cols))
    return out


def soa_derive_rows() -> list[Row]:
    return [Row(w, label, w, value, "idtable", {"soa_derive": "soa_derive", "vec_floor": "vec_floor"})
            for w in ITER_WORKLOADS for value, label in SIZES]


MAP_PEERS = [("secondary_map", "SecondaryMap"), ("sparse_secondary_map", "SparseSecondaryMap"),
             ("hashmap", "HashMap")]


def soa_map_rows() -> list[Row]:
    out = []
    for w in ["map_insert", "map_remove", "map_get", "map_iter_one_column"]:
        for value, label in SIZES:
            for share, share_label in [("all", "all"), ("tenth", "10%")]:
                cols = {k: k for k, _ in MAP_PEERS} | {"soa_map_f32": "soa_map_f32",
                                                       "hand_sparse": "hand_sparse"}
                if w == "map_iter_one_column":
                    cols["vec_floor"] = "vec_floor"
                out.append(Row(w, f"{label} {share_label}", w, f"{value}/{share}", "soa_map", cols))
    cols = {k: k for k, _ in MAP_PEERS} | {"soa_map_f32": "soa_map_f32", "hand_sparse": "hand_sparse"}
    out.append(Row("map_add_remove", "10k all", "map_add_remove", "10000/all", "soa_map", cols))
    return out


def shaping_rows() -> list[Row]:
    out = []
    for value, label in SIZES:
        out.append(Row("x of [f32; 3], split", label, "shape_one_component", value, "split",
                       {"hand_vec": "hand_vec", "unsplit": "unsplit"}))
        out.append(Row("x of [f32; 3], nested", label, "shape_one_component", value, "nested",
                       {"hand_vec": "hand_vec", "unsplit": "unsplit"}))
    out.append(Row("par_chunks_mut", "1M", "shape_par_chunks", "1000000", "par_chunks_mut",
                   {"rayon_vecs": "rayon_vecs"}))
    return out


SOA_PAIRS = [
    *[Pair(f"`{g}`: shaped / flat record", label, g, value, "shaped", "flat")
      for g in ["shape_insert", "shape_get", "shape_remove"] for value, label in SIZES],
    *[Pair("`shape_align`: align_64 / natural", label, "shape_align", value, "align_64", "natural")
      for value, label in SIZES],
    *[Pair("`map_entry`: entry_or_insert / get_mut then insert", f"{label} {sl}", "map_entry",
           f"{value}/{share}", "entry_or_insert", "get_mut_insert")
      for value, label in SIZES for share, sl in [("all", "all"), ("tenth", "10%")]],
]

ECS_NAMES = [("hecs", "hecs"), ("legion", "legion"), ("bevy table", "bevy table"),
             ("bevy sparse set", "bevy sparse set"), ("shipyard", "shipyard")]


def ecs_rows() -> list[Row]:
    out = []
    cols = {k: k for k, _ in ECS_NAMES} | {"idtable by hand": "idtable by hand",
                                           "idtable floor": "idtable floor"}
    for value, label in SIZES:
        for burn in ["50%", "10%"]:
            out.append(Row("one map", f"{label} {burn}", "ecs_one_map", f"{value}/{burn}",
                           "idtable join", cols))
    for value, label in SIZES:
        out.append(Row("status step", label, "ecs_status_step", value, "idtable join", cols))
    # The same loops through a `Group` (one per loop: see `idt::Grouped` in benches/ecs.rs).
    for value, label in SIZES:
        for burn in ["50%", "10%"]:
            out.append(Row("one map, grouped", f"{label} {burn}", "ecs_one_map", f"{value}/{burn}",
                           "idtable grouped", cols))
    for value, label in SIZES:
        out.append(Row("status step, grouped", label, "ecs_status_step", value, "idtable grouped", cols))
    return out


ADD_REMOVE_NAMES = [("hecs", "hecs"), ("legion", "legion"), ("bevy table", "bevy table"),
                    ("bevy sparse set", "bevy sparse set"), ("shipyard", "shipyard")]


def add_remove_rows(build: str, charted: bool) -> list[Row]:
    cols = {k: k for k, _ in ADD_REMOVE_NAMES}
    return [Row(f"add_remove ({form})", "10k", f"add_remove/{build}", "", base, dict(cols), charted)
            for form, base in [("grouped", "idtable grouped"), ("grouped, maps only", "idtable grouped, map only"),
                               ("SoaMap, no group", "idtable SoaMap")]]


# ecs_suite: per form, idtable's function and each ECS's (and the `Vec` floor's). The bench's
# "idtable zip by reference, columns as arguments" is left out: `for_each` runs that loop.
SUITE_FORMS = [
    ("simple_insert", "loop", "idtable insert loop",
     {"hecs": "hecs spawn loop", "legion": "legion push loop", "bevy": "bevy spawn loop",
      "shipyard": "shipyard add_entity loop", "vec": "Vec columns push loop"}, True),
    ("simple_insert", "batch", "idtable collect",
     {"hecs": "hecs spawn_batch", "legion": "legion extend soa", "bevy": "bevy spawn_batch",
      "shipyard": "shipyard bulk_add_entity", "vec": "Vec columns push loop"}, True),
    ("simple_iter", "zip", "idtable zip",
     {"hecs": "hecs", "legion": "legion", "bevy": "bevy", "shipyard": "shipyard",
      "vec": "Vec columns zip"}, True),
    ("simple_iter", "for_each by reference", "idtable for_each by reference",
     {"hecs": "hecs", "legion": "legion", "bevy": "bevy", "shipyard": "shipyard",
      "vec": "Vec columns zip by reference, as arguments"}, True),
    ("simple_iter", "rows", "idtable rows",
     {"hecs": "hecs", "legion": "legion", "bevy": "bevy", "shipyard": "shipyard",
      "vec": "Vec columns zip"}, False),
    ("simple_iter", "flattened", "idtable flattened",
     {"hecs": "hecs", "legion": "legion", "bevy": "bevy", "shipyard": "shipyard",
      "vec": "Vec columns flattened"}, False),
    ("simple_iter", "zip by reference", "idtable zip by reference",
     {"hecs": "hecs", "legion": "legion", "bevy": "bevy", "shipyard": "shipyard",
      "vec": "Vec columns zip by reference"}, False),
]
SUITE_COLUMNS = [("hecs", "hecs", True), ("legion", "legion", True), ("bevy", "bevy_ecs", True),
                 ("shipyard", "shipyard", True), ("vec", "`Vec` columns (floor)", False)]


def suite_rows(build: str, charted: bool) -> list[Row]:
    return [Row(f"{g} ({form})", "10k", f"{g}/{build}", "", base, dict(cols), chart and charted)
            for g, form, base, cols, chart in SUITE_FORMS]


RESERVE_FILL = [("idtable insert", "hecs spawn"),
                ("idtable reserve+fill each", "hecs reserve+insert each"),
                ("idtable reserve all, then fill", "hecs reserve all, then insert"),
                ("idtable reserve_ids, then fill", "hecs reserve_entities, then insert")]
RESERVE_THREADS = [("idtable reserve_id", "hecs reserve_entity"),
                   ("idtable reserve_ids(64)", "hecs reserve_entities(64)")]


def reserve_rows() -> list[Row]:
    out = [Row(f"reserve_fill: {a.removeprefix('idtable ')}", "10k", "reserve_fill", "10000", a,
               {"hecs": b}) for a, b in RESERVE_FILL]
    for threads in [1, 2]:
        for a, b in RESERVE_THREADS:
            out.append(Row(f"reserve_threads: {a.removeprefix('idtable ')}",
                           f"1M, {threads} thread{'s' if threads > 1 else ''}", "reserve_threads",
                           "1000000", f"{a}, {threads} thread(s)", {"hecs": f"{b}, {threads} thread(s)"}))
    return out


# The bench's `join, Driver` forms are not tabled (benches/NOTES.md has their history).
JOIN_PAIRS = [
    *[Pair("`join_one_map`: join / by hand", f"{label} {burn}", "join_one_map", f"{value}/{burn}",
           "join", "by hand") for value, label in SIZES for burn in ["50%", "10%"]],
    *[Pair("`join_status_step`: join / by hand", label, "join_status_step", value, "join", "by hand")
      for value, label in SIZES],
    *[Pair(f"`join_retain`: {form}, join / by hand", label, "join_retain", value, f"{form}, join",
           f"{form}, by hand") for form in ["cure", "thaw"] for value, label in SIZES],
]

DM_HASH, DM_VEC, DM_ONE = ("HashMap<UnitId, DataComponent>", "Vec<DataComponent>", "one DataComponent")


def data_map_rows() -> list[Row]:
    out = []
    for keys in ["1", "8"]:
        out.append(Row("get", f"10k entities, {keys} key{'s' if keys != '1' else ''}", "data_map_get",
                       keys, "DataMap", {"hash": DM_HASH, "vec": DM_VEC, "one": DM_ONE}))
    for label in ["10000 entities, 8 keys", "10000 entities, 64 keys", "100000 entities, 8 keys"]:
        ent, keys = label.split(" entities, ")
        case = f"{int(ent) // 1000}k entities, {keys}"
        out.append(Row("grow_one", case, "data_map_grow_one", label, "DataMap", {"hash": DM_HASH}))
    for keys in ["1", "8"]:
        out.append(Row("save_load", f"10k entities, {keys} key{'s' if keys != '1' else ''}",
                       "data_map_save_load", keys, "DataMap to_bytes + from_bytes",
                       {"hash": f"{DM_HASH} postcard", "vec": f"{DM_VEC} postcard"}))
    return out


def data_component_rows() -> list[Row]:
    out = []
    for op in ["get", "set"]:
        for n in ["4", "16", "64"]:
            cols = {"string": "HashMap<String, enum>", "u32": "HashMap<u32, enum>"}
            if op == "get":
                cols["hashed"] = "DataComponent, key hashed at call"
            out.append(Row(op, f"{n} keys", op, n, "DataComponent", cols))
    return out


def peers_memory() -> list[str]:
    """The table of `peers-memory.json`: bookkeeping bytes per live object."""
    try:
        data = json.loads((criterion_dir() / "peers-memory.json").read_text())
    except (OSError, ValueError):
        return []
    by_impl: dict[str, dict[int, float]] = {}
    for row in data.get("rows", []):
        by_impl.setdefault(row["impl"], {})[row["n"]] = row["bytes_per_live"]
    sizes = sorted({n for v in by_impl.values() for n in v})
    out = [
        "Bookkeeping bytes per live object beyond the 64-byte record, ids held by the user not counted "
        "(`peers-memory.json`, written by the same run):",
        "",
        "| container | " + " | ".join(f"N = {size_label(n)}" for n in sizes) + " |",
        "| --- | " + " | ".join("---:" for _ in sizes) + " |",
    ]
    same_after_churn = True
    for impl, vals in by_impl.items():
        base = impl.removesuffix(" (after churn)")
        if base != impl and by_impl.get(base) == vals:
            continue  # said once below the table
        same_after_churn &= base == impl
        out.append(f"| `{impl}` | " + " | ".join(f"{vals[n]:.2f}" if n in vals else "—" for n in sizes) + " |")
    if same_after_churn and any(i.endswith(" (after churn)") for i in by_impl):
        out += ["", "After churn (N removals, each followed by an insert), idtable's figures are the same."]
    return out + [""]


def heap_tables(log: str, starts: str, skip: tuple[str, ...] = ()) -> list[str]:
    """The Markdown table a bench printed after a line starting with `starts`, from its log,
    without the rows whose second cell starts with one of `skip`."""
    try:
        lines = log_path(log).read_text().splitlines()
    except OSError:
        return []
    for i, line in enumerate(lines):
        if line.startswith(starts):
            table = []
            for t in lines[i + 1:]:
                if not t.startswith("|"):
                    break
                if (parts := t.split("|")) and len(parts) > 2 and parts[2].strip().startswith(skip):
                    continue
                # Type names in code spans: `<DataComponent>` alone would be read as HTML.
                cells = [f" `{c.strip()}` " if "<" in c else c for c in t.split("|")]
                table.append("|".join(cells))
            text = line[0].upper() + line[1:].rstrip(":")
            return [f"{text} (printed by `{log}`, not timed):", "", *table, ""]
    return []


def data_extra() -> list[str]:
    out = heap_tables("data_map", "heap after building", skip=("DataMap, shrink_to_fit", "ratio"))
    out += heap_tables("data_component", "heap bytes per sheet")
    return out


FAMILIES = [
    Family(
        "slot-maps", "Slot maps and arenas", ["peers"],
        [Section("`peers`: a 64-byte record of 8 fields, N inserts, lookups, removals, passes",
                 "idtable",
                 [*[(k, f"`{h}`" if h != "thunderdome" else h, True) for k, h in SLOT_PEERS],
                  ("hand_soa", "`hand_soa` (floor)", False), ("vec_floor", "`Vec` columns (floor)", False)],
                 slot_rows())],
        extra=peers_memory,
    ),
    Family(
        "soa", "SoA crates", ["peers", "soa_map", "shaping"],
        [Section("`peers`: against soa_derive's `RecordVec` (no ids), 64-byte record", "idtable",
                 [("soa_derive", "soa_derive", True), ("vec_floor", "`Vec` columns (floor)", False)],
                 soa_derive_rows()),
         Section("`soa_map`: `SoaMap<Id, Burning>` (two `f32`) keyed by a table's ids, held by all or 10%",
                 "`SoaMap`",
                 [*[(k, f"`{h}`", True) for k, h in MAP_PEERS],
                  ("soa_map_f32", "`SoaMap<Id, f32>`", False), ("hand_sparse", "`hand_sparse` (floor)", False),
                  ("vec_floor", "`Vec<f32>` (floor)", False)],
                 soa_map_rows()),
         Section("`shaping`: one float of a `[f32; 3]` as its own column; `par_chunks_mut`", "idtable",
                 [("hand_vec", "`Vec<f32>` of x (floor)", True), ("unsplit", "unsplit `[f32; 3]` column", False),
                  ("rayon_vecs", "rayon over two `Vec`s", True)],
                 shaping_rows())],
        pairs_title="idtable's column shapes and entries against its own plain forms (ns per element)",
        pairs=SOA_PAIRS,
    ),
    Family(
        "ecs", "ECSs, joins and the public suite",
        ["joins", "ecs", "reserve", "ecs_suite default_features", "ecs_suite no_default_features",
         "add_remove default_features"],
        [Section("`ecs`: a join of a table and `SoaMap`s against each ECS's query, per visited row",
                 "idtable join",
                 [*[(k, h, True) for k, h in ECS_NAMES],
                  ("idtable by hand", "idtable by hand", False), ("idtable floor", "idtable floor", False)],
                 ecs_rows()),
         Section("`ecs_suite`: the public suite's simple_insert and simple_iter, ECSs with default features",
                 "idtable", SUITE_COLUMNS, suite_rows("default_features", True), unit="µs/pass"),
         Section("`ecs_suite`: the same, ECSs without default features",
                 "idtable", SUITE_COLUMNS, suite_rows("no_default_features", False), unit="µs/pass"),
         Section("`add_remove`: the public suite's add_remove, a component added to and removed from "
                 "10,000 entities, ECSs with default features", "idtable",
                 [(k, h, True) for k, h in ADD_REMOVE_NAMES], add_remove_rows("default_features", True),
                 unit="µs/pass"),
         Section("`reserve`: ids reserved from a shared borrow, against hecs", "idtable",
                 [("hecs", "hecs", True)], reserve_rows())],
        pairs_title="`joins`: `join` against the loop written by hand (ns per visited row)",
        pairs=JOIN_PAIRS,
    ),
    Family(
        "data", "Per-entity data", ["data_map", "data_component"],
        [Section("`data_map`: 10,000 entities' data in one `DataMap`, against a `HashMap<UnitId, "
                 "DataComponent>` and a `Vec<DataComponent>`", "`DataMap`",
                 [("hash", "`HashMap<UnitId, DataComponent>`", True), ("vec", "`Vec<DataComponent>`", True),
                  ("one", "one `DataComponent` (key scan alone)", False)],
                 data_map_rows(),
                 chart_title="data_map: DataMap vs HashMap<UnitId, DataComponent>, Vec<DataComponent>"),
         Section("`data_component`: one entity's sheet of keys, against a `HashMap` of an enum of values",
                 "`DataComponent`",
                 [("string", "`HashMap<String, enum>`", True), ("u32", "`HashMap<u32, enum>`", True),
                  ("hashed", "`DataComponent`, key hashed at call", False)],
                 data_component_rows())],
        extra=data_extra,
    ),
]

# Chart labels of functions whose criterion names say more than the chart needs.
PEER_LABELS = {k: h for k, h in SLOT_PEERS + MAP_PEERS} | {
    "soa_derive": "soa_derive", "hand_vec": "Vec<f32>", "rayon_vecs": "rayon over Vecs",
    DM_HASH: "HashMap", DM_VEC: "Vec", f"{DM_HASH} postcard": "HashMap + postcard",
    f"{DM_VEC} postcard": "Vec + postcard", "HashMap<String, enum>": "HashMap<String, _>",
    "HashMap<u32, enum>": "HashMap<u32, _>",
}


def peer_label(fn: str) -> str:
    """A peer's name in a chart: short where the section's heading says the rest."""
    label = PEER_LABELS.get(fn, fn)
    return re.sub(r", \d thread\(s\)$", "", label)


# ---------------------------------------------------------------------------------------------
# Formatting


def size_label(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def fmt_ns(x: float | None) -> str:
    if x is None:
        return "—"
    if x < 1:
        return f"{x:.3f}"
    if x < 10:
        return f"{x:.2f}"
    if x < 100:
        return f"{x:.1f}"
    return f"{x:,.0f}"


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "—"
    if r < 0.1:
        return f"{r:.3f}×"
    if r < 10:
        return f"{r:.2f}×"
    return f"{r:.0f}×"


def value_of(res: Result, unit: str) -> float:
    return res.median_ns / 1000 if unit == "µs/pass" else res.per_element


def utc(t: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc)


def span_text(times: list[float]) -> str:
    if not times:
        return "no data"
    lo, hi = utc(min(times)), utc(max(times))
    if lo.date() == hi.date():
        return f"{lo:%Y-%m-%d %H:%M}–{hi:%H:%M} UTC"
    return f"{lo:%Y-%m-%d %H:%M} – {hi:%Y-%m-%d %H:%M} UTC"


def section_times(s: Section) -> list[float]:
    times = []
    for row in s.rows:
        for fn in [row.base, *row.cols.values()]:
            if (r := get(row.group, fn, row.value)) is not None:
                times.append(r.mtime)
    return times


def family_times(f: Family) -> list[float]:
    times = [t for s in f.sections for t in section_times(s)]
    for p in f.pairs:
        for fn in (p.a, p.b):
            if (r := get(p.group, fn, p.value)) is not None:
                times.append(r.mtime)
    return times


def section_table(s: Section) -> list[str]:
    unit = "µs per pass" if s.unit == "µs/pass" else "ns per element"
    cols = [(k, h) for k, h, _ in s.columns if any(k in r.cols for r in s.rows)]
    head = f"| workload | case | {s.base_header} |" + "".join(f" {h} |" for _, h in cols)
    rule = "| --- | --- | ---: |" + " ---: |" * len(cols)
    out = [f"#### {s.title} ({unit})", "", head, rule]
    for row in s.rows:
        mine = get(row.group, row.base, row.value)
        cells = [fmt_ns(value_of(mine, s.unit)) if mine else "—"]
        for k, _ in cols:
            fn = row.cols.get(k)
            theirs = get(row.group, fn, row.value) if fn else None
            if theirs is None:
                cells.append("—")
            else:
                r = mine.median_ns / theirs.median_ns if mine else None
                cells.append(f"{fmt_ns(value_of(theirs, s.unit))} ({fmt_ratio(r)})")
        out.append(f"| {row.workload} | {row.case} | " + " | ".join(cells) + " |")
    return out + [""]


def pairs_table(title: str, pairs: list[Pair]) -> list[str]:
    out = [f"#### {title}", "",
           "| workload | case | measured | reference | ratio |", "| --- | --- | ---: | ---: | ---: |"]
    for p in pairs:
        a, b = get(p.group, p.a, p.value), get(p.group, p.b, p.value)
        r = a.median_ns / b.median_ns if a and b else None
        out.append(f"| {p.workload} | {p.case} | {fmt_ns(a.per_element) if a else '—'} | "
                   f"{fmt_ns(b.per_element) if b else '—'} | {fmt_ratio(r)} |")
    return out + [""]


def commands(f: Family) -> list[str]:
    cmds = [" ".join(cmd) for name, _, cmd in RUNS if name in f.benches]
    return ["```sh", *cmds, "```", ""]


def family_region(f: Family) -> list[str]:
    out = [
        "<!-- Generated by benches/report.py: edit the script, not this region. -->",
        "",
        f"Measured {span_text(family_times(f))} by:",
        *commands(f),
    ]
    for s in f.sections:
        out += section_table(s)
    if f.pairs:
        out += pairs_table(f.pairs_title, f.pairs)
    if f.extra:
        out += f.extra()
    return out


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
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
    return f"{os.cpu_count()} cores, {cpu}{mem}, {platform.system()}, {rustc}"


def run_region() -> list[str]:
    runs = read_run_log()
    out = ["<!-- Generated by benches/report.py: edit the script, not this region. -->", ""]
    out += [f"Machine: {machine()}.", ""]
    if not runs:
        return out + ["(No `report-run.json`: the benches were not run through `--run`.)"]
    order = [name for name, _, _ in RUNS]
    runs = sorted(runs, key=lambda r: order.index(r["name"]) if r["name"] in order else len(order))
    out += ["| bench | started (UTC) | minutes | load average (1 min): at the start → at the end; "
            "median and range of samples every 15 s |",
            "| --- | --- | ---: | --- |"]
    for r in runs:
        samples = r.get("load_1min_samples") or []
        med = (f"; {statistics.median(samples):.1f}, {min(samples):.1f}–{max(samples):.1f}"
               if samples else "")
        start = r["load_start"][0] if r.get("load_start") else float("nan")
        end = r["load_end"][0] if r.get("load_end") else float("nan")
        failed = "" if r.get("status", 0) == 0 else f" **failed (exit {r['status']})**"
        out.append(f"| `{r['name']}`{failed} | {r['start_utc']} | {r['seconds'] / 60:.1f} | "
                   f"{start:.2f} → {end:.2f}{med} |")
    return out


# ---------------------------------------------------------------------------------------------
# Charts


CSV_COLUMNS = ["family", "section", "workload", "n", "idtable", "idtable_ns", "peer", "peer_ns",
               "ratio", "per", "measured_utc"]


def chart_csv(f: Family) -> tuple[str, int]:
    """The family's chart data: idtable's ratio against each charted peer per workload."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    count = 0
    for s in f.sections:
        heading = (s.chart_title or s.title).replace("`", "")
        for row in s.rows:
            if not row.chart:
                continue
            mine = get(row.group, row.base, row.value)
            if mine is None:
                continue
            for k, header, charted in s.columns:
                fn = row.cols.get(k)
                theirs = get(row.group, fn, row.value) if fn and charted else None
                if theirs is None:
                    continue
                label = peer_label(fn)
                w.writerow([
                    f.title, heading, row.workload, row.case, row.base,
                    f"{value_of(mine, s.unit):.4g}", label, f"{value_of(theirs, s.unit):.4g}",
                    f"{mine.median_ns / theirs.median_ns:.4g}",
                    "pass" if s.unit == "µs/pass" else "element",
                    f"{utc(max(mine.mtime, theirs.mtime)):%Y-%m-%d %H:%M}",
                ])
                count += 1
    return buf.getvalue(), count


def chart_paths(f: Family) -> tuple[Path, Path]:
    return BENCHES / f"chart-{f.key}.csv", BENCHES / f"chart-{f.key}.svg"


def draw(f: Family) -> bool:
    csv_path, svg_path = chart_paths(f)
    cmd = CHART_COMMAND + [str(csv_path.relative_to(ROOT)), str(svg_path.relative_to(ROOT))]
    print("+", " ".join(cmd), file=sys.stderr)
    try:
        return subprocess.run(cmd, cwd=ROOT).returncode == 0
    except OSError as e:
        print(f"chart: {e}", file=sys.stderr)
        return False


# ---------------------------------------------------------------------------------------------
# Writing


def replace_region(text: str, name: str, lines: list[str]) -> str:
    begin, end = f"<!-- results:{name}:begin -->", f"<!-- results:{name}:end -->"
    if begin not in text or end not in text:
        print(f"report: BENCHMARKS.md has no region `{name}`: not written", file=sys.stderr)
        return text
    pre, rest = text.split(begin, 1)
    _, post = rest.split(end, 1)
    return pre + begin + "\n" + "\n".join(lines).rstrip("\n") + "\n" + end + post


def write(md: Path) -> bool:
    text = md.read_text()
    text = replace_region(text, "run", run_region())
    drawn = True
    for f in FAMILIES:
        if not family_times(f):
            print(f"report: no results for family `{f.key}`: its region and chart left as they are",
                  file=sys.stderr)
            continue
        text = replace_region(text, f.key, family_region(f))
        data, count = chart_csv(f)
        csv_path, svg_path = chart_paths(f)
        csv_path.write_text(data)
        print(f"wrote {csv_path.relative_to(ROOT)} ({count} rows)", file=sys.stderr)
        if count and not draw(f):
            print(f"chart: {svg_path.relative_to(ROOT)} was NOT redrawn and may no longer match "
                  f"{csv_path.relative_to(ROOT)}", file=sys.stderr)
            drawn = False
    md.write_text(text)
    print(f"updated {md}", file=sys.stderr)
    return drawn


# ---------------------------------------------------------------------------------------------
# The targets of issues 4 and 12 (their history is in benches/NOTES.md)

IDT = ["idtable", "idtable_24_8"]
# (group, measured, reference, limit, strict, sizes, description): met when measured /
# reference per element is <= limit (< limit if strict).
TARGETS = [
    *[(g, IDT, "vec_floor", 1.1, False, ["10000", "1000000"], "≤ 1.1× raw-`Vec` floor (issue 4)")
      for g in ITER_WORKLOADS],
    ("get_random", IDT, "dense_slotmap", 1.0, False, ["10000", "1000000"], "≤ 1.0× `DenseSlotMap` (issue 4)"),
    ("get_random", IDT, "slotmap", 1.2, False, ["10000", "1000000"], "≤ 1.2× `SlotMap` (issue 4)"),
    ("get_random", IDT, "thunderdome", 1.2, False, ["10000", "1000000"], "≤ 1.2× thunderdome (issue 4)"),
    ("get_random", IDT, "hashmap", 0.2, False, ["10000", "1000000"], "≤ 0.2× `HashMap` (issue 4)"),
    ("insert", IDT, "dense_slotmap", 1.0, False, ["10000", "1000000"], "≤ 1.0× `DenseSlotMap` (issues 4, 12)"),
    ("insert", IDT, "slotmap", 1.1, False, ["10000"], "≤ 1.1× `SlotMap` at 10k (issue 4)"),
    ("remove_random", IDT, "dense_slotmap", 1.5, False, ["10000"], "≤ 1.5× `DenseSlotMap` at 10k (issue 4)"),
    ("remove_random", IDT, "dense_slotmap", 2.0, False, ["1000000"], "≤ 2.0× `DenseSlotMap` at 1M (issue 4)"),
    ("churn", IDT, "dense_slotmap", 1.5, False, ["10000", "1000000"], "≤ 1.5× `DenseSlotMap` (issues 4, 12)"),
    ("insert_reserved", IDT, "slotmap", 1.1, False, ["10000", "1000000"], "≤ 1.1× `SlotMap` (issue 12)"),
    ("insert_reserved", IDT, "hand_soa", 1.1, False, ["10000", "1000000"], "≤ 1.1× `hand_soa` (issue 12)"),
    ("remove_many", ["idtable_remove_many"], "idtable_remove", 0.5, False, ["1000000"],
     "≤ 0.5× single `remove`s at 1M (issue 12)"),
    ("remove_many", ["idtable_remove_many"], "dense_slotmap_remove", 1.0, True, ["1000000"],
     "< 1.0× `DenseSlotMap`'s single removes at 1M (issue 12)"),
    ("extend", ["idtable_collect", "idtable_extend"], "vec_floor_extend", 1.1, False, ["10000"],
     "≤ 1.1× pushing into 8 reserved `Vec`s at 10k (issue 12)"),
]


def targets() -> list[str]:
    out = ["| workload | target | measured | N | ratio | verdict |", "| --- | --- | --- | --- | ---: | --- |"]
    for group, impls, ref, limit, strict, sizes, desc in TARGETS:
        for impl in impls:
            for n in sizes:
                a, b = get(group, impl, n), get(group, ref, n)
                r = a.per_element / b.per_element if a and b else None
                verdict = "no data" if r is None else (
                    "met" if (r < limit if strict else r <= limit) else "**missed**")
                out.append(f"| `{group}` | {desc} | `{impl}` | {size_label(int(n))} | {fmt_ratio(r)} | {verdict} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="store_true", help="run the benches first")
    ap.add_argument("--only", default="", help="with --run: only these families or benches (comma-separated)")
    ap.add_argument("--output", default=str(MD), help="the file whose regions are rewritten")
    ap.add_argument("--targets", action="store_true", help="print the verdicts of issues 4 and 12's targets")
    args = ap.parse_args()
    if args.targets:
        print("\n".join(targets()))
        return
    only = {x for x in args.only.split(",") if x} or None
    ran = run_benches(only) if args.run else True
    drawn = write(Path(args.output))
    if not (ran and drawn):
        sys.exit(1)


if __name__ == "__main__":
    main()
