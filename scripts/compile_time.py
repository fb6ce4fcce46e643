#!/usr/bin/env python3
"""Compile time of `#[derive(SoaAllocator)]` against soa_derive's `#[derive(StructOfArray)]`.

Generates two crates in a temporary directory outside the repository, each with
100 structs of 8 fields and one small `pub fn` per struct that uses the generated
types, builds each once to compile its dependencies (not timed), then times:

* clean:        `cargo clean -p <crate>` then `cargo build` (dependencies stay built),
* incremental:  append a comment to the crate's `src/lib.rs`, then `cargo build`.

Runs alternate between the two crates so that load on the (shared) machine hits
both alike. The medians, the ratio and the target go into benches/NOTES.md between
`<!-- compile-time:begin -->` and `<!-- compile-time:end -->` (appended under
`## Compile time` at the end of the file if the markers are absent).

    python3 scripts/compile_time.py                 # debug, 5 runs
    python3 scripts/compile_time.py --runs 9 --release
    python3 scripts/compile_time.py --no-write      # print the region, leave benches/NOTES.md alone
    python3 scripts/compile_time.py --serde --no-write               # idtable's structs #[soa(serde)]
    python3 scripts/compile_time.py --serde --no-write --idtable DIR # another checkout of idtable
    python3 scripts/compile_time.py --nested        # nested fields against soa_derive's #[nested_soa]
    python3 scripts/compile_time.py --parts-only    # #[soa(parts_only)] against the full derive

`--serde` marks idtable's 100 structs `#[soa(serde)]` (with the `serde` feature), so
the time includes their generated `Serialize`/`Deserialize`; soa_derive's crate stays as
it is and serves as the yardstick within the run. `--idtable DIR` builds against the
idtable checkout at DIR instead of this one (a `git worktree` of an older commit, say),
so two versions can be compared by their ratio to soa_derive.

`--nested` (issue 37) gives every struct a nested 3-float position instead of `pos: [f32; 3]`:
`#[soa(nested)] pos: V3` with `V3` a `#[soa(parts_only)]` struct, against soa_derive's
`#[nested_soa] pos: V3` with `V3` a `StructOfArray`; target 0.3×. `--parts-only` (issue 37)
builds idtable's 100 structs twice, `#[soa(parts_only)]` against the full derive, each used
the same way (a `SoaMap` of it, one insert and one read), so only what the derive emits
differs; target below 1.0×. Each mode writes its own region of benches/NOTES.md,
the lab notebook, beside the runs recorded before.

Standard library only. Needs cargo on PATH; the crates.io dependencies
(soa_derive 0.14 and idtable's own) are resolved with benches/Cargo.lock, the lock
file of the benchmark package, which holds both.
If a nightly toolchain is installed (`rustup toolchain list`), the size of the
macro-expanded code (`-Zunpretty=expanded`) is reported too; otherwise that row is skipped.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the workspace root
BENCHMARKS = ROOT / "benches" / "NOTES.md"  # where the compile-time regions are
BEGIN = "<!-- compile-time:begin -->"
END = "<!-- compile-time:end -->"
HEADING = "## Compile time"
TARGET = 0.5  # idtable's build time at most this fraction of soa_derive's

N_STRUCTS = 100

# (field name, type, value expression). Eight fields per struct; the order
# is rotated per struct so the 100 structs are not token-for-token identical.
FIELDS = [
    ("pos", "[f32; 3]", "[1.0, 2.0, 3.0]"),
    ("vel", "[f32; 3]", "[0.5; 3]"),
    ("mass", "f32", "1.5"),
    ("flags", "u32", "7"),
    ("color", "[u8; 4]", "[255, 128, 0, 255]"),
    ("alive", "bool", "true"),
    ("age", "u16", "3"),
    ("tag", "u64", "42"),
]

# Set from the command line (`--idtable`, `--serde`, `--nested`, `--parts-only`) before the
# crates are written.
IDTABLE = ROOT
SERDE = False
MODE = "default"  # or "nested", "parts_only"

# `--nested`: the position as a nested struct (replaces the `pos` field).
NESTED_POS = ("pos", "V3", "V3 { x: 1.0, y: 2.0, z: 3.0 }")
# The region and target of each mode.
MODES = {
    "default": (BEGIN, END, HEADING, TARGET),
    "nested": ("<!-- compile-time-nested:begin -->", "<!-- compile-time-nested:end -->",
               "### Nested fields against soa_derive's `#[nested_soa]` (issue 37)", 0.3),
    "parts_only": ("<!-- compile-time-parts-only:begin -->", "<!-- compile-time-parts-only:end -->",
                   "### `#[soa(parts_only)]` against the full derive (issue 37)", 1.0),
}

def idtable_dep() -> str:
    return f'idtable = {{ path = "{toml_str(IDTABLE)}"' + (', features = ["serde"]' if SERDE else "") + " }"


def soa_map_use(i: int, read: tuple[str, str]) -> str:
    return (
        f"pub fn use_s{i}() -> {read[1]} {{\n"
        f"    let key = idtable::Id32_32::new({i}, 1).unwrap();\n"
        f"    let mut m = idtable::SoaMap::<idtable::Id32_32, S{i}>::new();\n"
        f"    m.insert(key, {ctor(i)});\n"
        f"    *m.get(key).unwrap().{read[0]}\n"
        f"}}\n"
    )


# The crates of `--parts-only`: the same structs and uses, with and without the allocator.
PARTS_ONLY_CRATES = {
    "parts_only": (
        "ct_parts_only",
        idtable_dep,
        lambda: "#[derive(idtable::SoaAllocator)]\n#[soa(parts_only)]" + ("\n#[soa(serde)]" if SERDE else ""),
        soa_map_use,
    ),
    "full_derive": (
        "ct_full_derive",
        idtable_dep,
        lambda: "#[derive(idtable::SoaAllocator)]" + ("\n#[soa(serde)]" if SERDE else ""),
        soa_map_use,
    ),
}

CRATES = {
    # key: (crate name, dependency lines, derive lines, per-struct use function)
    "idtable": (
        "ct_idtable",
        lambda: f'idtable = {{ path = "{toml_str(IDTABLE)}"'
        + (', features = ["serde"]' if SERDE else "")
        + " }",
        lambda: "#[derive(idtable::SoaAllocator)]" + ("\n#[soa(serde)]" if SERDE else ""),
        lambda i, read: (
            f"pub fn use_s{i}() -> {read[1]} {{\n"
            f"    let mut a = S{i}Allocator::new();\n"
            f"    let id = a.insert({ctor(i)});\n"
            f"    *a.get(id).unwrap().{read[0]}\n"
            f"}}\n"
        ),
    ),
    "soa_derive": (
        "ct_soa_derive",
        lambda: 'soa_derive = "0.14"',
        lambda: "#[derive(soa_derive::StructOfArray)]",
        lambda i, read: (
            f"pub fn use_s{i}() -> {read[1]} {{\n"
            f"    let mut v = S{i}Vec::new();\n"
            f"    v.push({ctor(i)});\n"
            f"    *v.get(0).unwrap().{read[0]}\n"
            f"}}\n"
        ),
    ),
}


def toml_str(p: Path) -> str:
    return str(p).replace("\\", "\\\\").replace('"', '\\"')


def fields_of(i: int) -> list[tuple[str, str, str]]:
    fields = [NESTED_POS if MODE == "nested" and f[0] == "pos" else f for f in FIELDS]
    k = i % len(fields)
    return fields[k:] + fields[:k]


def nested_attr(key: str) -> str:
    """The attribute that nests the `pos` field, in `--nested`."""
    return "    #[nested_soa]\n" if key == "soa_derive" else "    #[soa(nested)]\n"


def nested_prelude(key: str) -> str:
    """The nested position type, in `--nested`."""
    if key == "soa_derive":
        derive = "#[derive(soa_derive::StructOfArray)]"
    else:
        derive = "#[derive(idtable::SoaAllocator)]\n#[soa(parts_only)]" + ("\n#[soa(serde)]" if SERDE else "")
    return f"\n{derive}\npub struct V3 {{\n    pub x: f32,\n    pub y: f32,\n    pub z: f32,\n}}\n"


def ctor(i: int) -> str:
    return f"S{i} {{ " + ", ".join(f"{n}: {v}" for n, _, v in fields_of(i)) + " }"


def read_field(i: int) -> tuple[str, str]:
    # Read a scalar field, varying which one; both crates read the same field.
    scalars = [(n, t) for n, t, _ in fields_of(i) if not t.startswith("[") and t != "V3"]
    return scalars[i % len(scalars)]


def lib_rs(key: str) -> str:
    _, _, derive, use_fn = CRATES[key]
    out = [f"//! Generated by scripts/compile_time.py: {N_STRUCTS} structs, {key}.\n",
           "#![allow(dead_code)]\n"]
    if MODE == "nested":
        if key == "soa_derive":
            # `#[nested_soa]`'s expansion names the trait unqualified.
            out.append("use soa_derive::StructOfArray;\n")
        out.append(nested_prelude(key))
    for i in range(N_STRUCTS):
        out.append(f"\n{derive()}\npub struct S{i} {{\n")
        for n, t, _ in fields_of(i):
            if MODE == "nested" and t == "V3":
                out.append(nested_attr(key))
            out.append(f"    pub {n}: {t},\n")
        out.append("}\n\n")
        out.append(use_fn(i, read_field(i)))
    return "".join(out)


def write_crate(base: Path, key: str) -> Path:
    name, dep, _, _ = CRATES[key]
    d = base / name
    (d / "src").mkdir(parents=True)
    (d / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
        f"[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n{dep()}\n\n[workspace]\n"
    )
    (d / "src" / "lib.rs").write_text(lib_rs(key))
    # Same dependency versions as the benchmarks (idtable's and soa_derive's).
    lock = ROOT / "benches" / "Cargo.lock"
    if lock.exists():
        shutil.copy(lock, d / "Cargo.lock")
    return d


def run(cmd: list[str], cwd: Path, env: dict, quiet: bool = True) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=env,
                       stdout=subprocess.PIPE if quiet else None,
                       stderr=subprocess.PIPE if quiet else None, text=True)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        sys.stderr.write(f"command failed ({r.returncode}): {' '.join(cmd)} in {cwd}\n")
        if quiet:
            sys.stderr.write(r.stdout[-4000:] + r.stderr[-8000:])
        sys.exit(1)
    return t


def capture(cmd: list[str], **kw) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True, **kw).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores (`nproc`: {capture(['nproc']) or '?'}), {cpu}"


def has_nightly() -> bool:
    return any(l.startswith("nightly") for l in capture(["rustup", "toolchain", "list"]).splitlines())


def expanded_size(d: Path, name: str, env: dict) -> tuple[int, int] | None:
    """Lines and bytes of the crate after macro expansion (nightly, own target dir)."""
    e = dict(env, CARGO_TARGET_DIR=str(d.parent / f"target-expand-{name}"))
    r = subprocess.run(["cargo", "+nightly", "rustc", "--lib", "--profile=check", "-q",
                        "--", "-Zunpretty=expanded"],
                       cwd=d, env=e, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout.count("\n"), len(r.stdout.encode())


def fmt_s(x: float) -> str:
    return f"{x:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="timed runs per measurement (median reported)")
    ap.add_argument("--release", action="store_true", help="also time the release profile")
    ap.add_argument("--no-expand", action="store_true", help="skip the expanded-code size (nightly)")
    ap.add_argument("--no-write", action="store_true", help="print the region instead of writing benches/NOTES.md")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--serde", action="store_true", help="idtable's structs are #[soa(serde)]")
    ap.add_argument("--idtable", type=Path, default=ROOT, help="the idtable checkout to build against")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--nested", action="store_true",
                      help="nested positions, against soa_derive's #[nested_soa]")
    mode.add_argument("--parts-only", action="store_true",
                      help="#[soa(parts_only)] against the full derive (both idtable)")
    args = ap.parse_args()
    global IDTABLE, SERDE, MODE, CRATES
    IDTABLE, SERDE = args.idtable.resolve(), args.serde
    MODE = "nested" if args.nested else "parts_only" if args.parts_only else "default"
    if MODE == "parts_only":
        CRATES = PARTS_ONLY_CRATES
    if args.runs < 1:
        ap.error("--runs must be at least 1")

    base = Path(tempfile.mkdtemp(prefix="idtable-compile-time-"))
    started = dt.datetime.now(dt.timezone.utc)
    try:
        env = dict(os.environ)
        for v in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "RUSTC_WRAPPER",
                  "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_INCREMENTAL"):
            env.pop(v, None)
        crates = {k: write_crate(base, k) for k in CRATES}
        envs = {k: dict(env, CARGO_TARGET_DIR=str(base / f"target-{CRATES[k][0]}")) for k in CRATES}
        profiles = [("debug", [])] + ([("release", ["--release"])] if args.release else [])

        results: dict[tuple[str, str, str], list[float]] = {}
        for prof, pflags in profiles:
            for k, d in crates.items():
                print(f"[{prof}] warm-up build of {CRATES[k][0]} (dependencies; not timed)", file=sys.stderr)
                t = run(["cargo", "build", "-q", *pflags], d, envs[k])
                print(f"    {t:.1f} s", file=sys.stderr)
            for r in range(args.runs):
                for k, d in crates.items():
                    name = CRATES[k][0]
                    run(["cargo", "clean", "-q", "-p", name, *pflags], d, envs[k])
                    t_clean = run(["cargo", "build", "-q", *pflags], d, envs[k])
                    with open(d / "src" / "lib.rs", "a") as f:
                        f.write(f"// touched: run {r}\n")
                    t_inc = run(["cargo", "build", "-q", *pflags], d, envs[k])
                    results.setdefault((prof, "clean", k), []).append(t_clean)
                    results.setdefault((prof, "incremental", k), []).append(t_inc)
                    print(f"[{prof}] run {r + 1}/{args.runs} {k:10}: clean {t_clean:6.2f} s, "
                          f"incremental {t_inc:6.2f} s", file=sys.stderr)

        expand = None
        if not args.no_expand and has_nightly():
            print("expanded-code size (nightly -Zunpretty=expanded)", file=sys.stderr)
            expand = {k: expanded_size(d, CRATES[k][0], env) for k, d in crates.items()}
            if any(v is None for v in expand.values()):
                expand = None
        finished = dt.datetime.now(dt.timezone.utc)
        region = render(args, profiles, results, expand, started, finished)
    finally:
        if args.keep:
            print(f"kept {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)

    if args.no_write:
        print(region)
        return
    write_region(region)
    print(region)
    print(f"wrote {BENCHMARKS.relative_to(ROOT)}", file=sys.stderr)


def render(args, profiles, results, expand, started, finished) -> str:
    if MODE != "default":
        return render_mode(args, profiles, results, expand, started, finished)
    cmd = "python3 scripts/compile_time.py" + (f" --runs {args.runs}" if args.runs != 5 else "") \
        + (" --release" if args.release else "") + (" --serde" if args.serde else "") \
        + (" --idtable DIR" if args.idtable.resolve() != ROOT else "")
    rustc = capture(["rustc", "--version"])
    cargo = capture(["cargo", "--version"])
    s = lambda k: f"`{k}`"
    lines = [
        "<!-- Generated by scripts/compile_time.py: edit the script, not this region. -->",
        "",
        f"Regenerate: `{cmd}` (flags: `--runs N`, default 5; `--release` also times the release profile).",
        "",
        f"* Machine: {machine()}; {rustc}; {cargo}.",
        f"* Measured {started:%Y-%m-%d %H:%M}–{finished:%H:%M} UTC, {args.runs} runs per cell, "
        "the two crates alternating within each run.",
        "* The machine is shared (2 cores; other jobs may run at the same time): "
        "read the **ratio**, computed from the medians of this one run, not the absolute seconds.",
        f"* Both crates are generated in a temporary directory: {N_STRUCTS} structs `S0`…`S99`, "
        "8 fields each (`pos: [f32; 3], vel: [f32; 3], mass: f32, flags: u32, color: [u8; 4], "
        "alive: bool, age: u16, tag: u64`, field order rotated per struct), and per struct one "
        "`pub fn use_sN()` that creates the container, adds one value and reads one scalar field "
        "through the generated reference type:",
        "  * `ct_idtable`: `#[derive(idtable::SoaAllocator)]` (default options), "
        "`let mut a = SNAllocator::new(); let id = a.insert(SN { .. }); *a.get(id).unwrap().field`; "
        "dependency `idtable` by path (this workspace);",
        "  * `ct_soa_derive`: `#[derive(soa_derive::StructOfArray)]` (minimal form, no "
        "`#[soa_derive(..)]`), `let mut v = SNVec::new(); v.push(SN { .. }); *v.get(0).unwrap().field`; "
        "dependency `soa_derive = \"0.14\"`.",
        "  Dependency versions come from `benches/Cargo.lock`. Each crate has its own "
        "`CARGO_TARGET_DIR` and is built once before timing (dependencies compiled, not timed).",
        "* **clean**: `cargo clean -p <crate>` then `cargo build` (the derive's expansion plus "
        "compiling the generated code; dependencies stay built). **incremental**: append a "
        "comment to `src/lib.rs`, then `cargo build` (debug: incremental compilation on, as by "
        "default; release: off, as by default). Wall time of `cargo build` with `time.perf_counter()`.",
        "",
        "| profile | build | idtable (median) | soa_derive (median) | idtable ÷ soa_derive | "
        f"target ≤ {TARGET}× | idtable runs | soa_derive runs |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for prof, _ in profiles:
        for kind in ("clean", "incremental"):
            a = results[(prof, kind, "idtable")]
            b = results[(prof, kind, "soa_derive")]
            ma, mb = statistics.median(a), statistics.median(b)
            ratio = ma / mb
            verdict = "met" if ratio <= TARGET else "**missed**"
            runs = lambda xs: ", ".join(f"{x:.1f}" for x in xs)
            lines.append(f"| {prof} | {kind} | {fmt_s(ma)} | {fmt_s(mb)} | {ratio:.2f}× | {verdict} "
                         f"| {runs(a)} | {runs(b)} |")
    if expand:
        (la, ba), (lb, bb) = expand["idtable"], expand["soa_derive"]
        lines += [
            "",
            "Size of the crate after macro expansion (`cargo +nightly rustc --lib --profile=check "
            "-- -Zunpretty=expanded`, whole crate including the 100 use functions):",
            "",
            "| | idtable | soa_derive | idtable ÷ soa_derive |",
            "| --- | ---: | ---: | ---: |",
            f"| lines | {la:,} | {lb:,} | {la / lb:.2f}× |",
            f"| bytes | {ba:,} | {bb:,} | {ba / bb:.2f}× |",
        ]
    elif not args.no_expand:
        lines += ["", "Expanded-code size: skipped (no nightly toolchain)."]
    return "\n".join(lines)


def render_mode(args, profiles, results, expand, started, finished) -> str:
    """The region of `--nested` or `--parts-only`."""
    keys = list(CRATES)
    a_key, b_key = keys[0], keys[1]
    target = MODES[MODE][3]
    flag = "--nested" if MODE == "nested" else "--parts-only"
    cmd = f"python3 scripts/compile_time.py {flag}" + (f" --runs {args.runs}" if args.runs != 5 else "") \
        + (" --release" if args.release else "") + (" --serde" if args.serde else "") \
        + (" --idtable DIR" if args.idtable.resolve() != ROOT else "")
    if MODE == "nested":
        what = [
            f"* Both crates: {N_STRUCTS} structs of 8 fields as in the table above, the position a nested "
            "struct `V3 { x, y, z }` instead of `pos: [f32; 3]`, and the same `use_sN()` functions:",
            "  * `ct_idtable`: `#[soa(nested)] pub pos: V3`, `V3` with `#[derive(idtable::SoaAllocator)] "
            "#[soa(parts_only)]`;",
            "  * `ct_soa_derive`: `#[nested_soa] pub pos: V3`, `V3` with `#[derive(soa_derive::StructOfArray)]`.",
        ]
        names = ("idtable", "soa_derive")
    else:
        what = [
            f"* Both crates use idtable: {N_STRUCTS} structs of 8 fields as in the table above, and per "
            "struct one `use_sN()` that makes a `SoaMap<Id32_32, SN>`, inserts one value and reads one "
            "scalar field: only what the derive emits differs.",
            "  * `ct_parts_only`: `#[derive(SoaAllocator)] #[soa(parts_only)]` (record, views, columns);",
            "  * `ct_full_derive`: `#[derive(SoaAllocator)]` (with the id type and the allocator).",
        ]
        names = ("parts_only", "full derive")
    lines = [
        "<!-- Generated by scripts/compile_time.py: edit the script, not this region. -->",
        "",
        f"Regenerate: `{cmd}`.",
        "",
        f"* Machine: {machine()}; {capture(['rustc', '--version'])}; {capture(['cargo', '--version'])}.",
        f"* Measured {started:%Y-%m-%d %H:%M}–{finished:%H:%M} UTC, {args.runs} runs per cell, "
        "the two crates alternating within each run; clean and incremental builds as above. "
        "The machine is shared: read the ratio.",
        *what,
        "",
        f"| profile | build | {names[0]} (median) | {names[1]} (median) | ratio | "
        f"target {'≤' if target < 1 else '<'} {target}× | {names[0]} runs | {names[1]} runs |",
        "| --- | --- | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for prof, _ in profiles:
        for kind in ("clean", "incremental"):
            a = results[(prof, kind, a_key)]
            b = results[(prof, kind, b_key)]
            ma, mb = statistics.median(a), statistics.median(b)
            ratio = ma / mb
            met = ratio <= target if target < 1 else ratio < target
            verdict = "met" if met else "**missed**"
            runs = lambda xs: ", ".join(f"{x:.1f}" for x in xs)
            lines.append(f"| {prof} | {kind} | {fmt_s(ma)} | {fmt_s(mb)} | {ratio:.2f}× | {verdict} "
                         f"| {runs(a)} | {runs(b)} |")
    if expand:
        (la, ba), (lb, bb) = expand[a_key], expand[b_key]
        lines += [
            "",
            "Size after macro expansion (`-Zunpretty=expanded`, whole crate):",
            "",
            f"| | {names[0]} | {names[1]} | ratio |",
            "| --- | ---: | ---: | ---: |",
            f"| lines | {la:,} | {lb:,} | {la / lb:.2f}× |",
            f"| bytes | {ba:,} | {bb:,} | {ba / bb:.2f}× |",
        ]
    return "\n".join(lines)


def write_region(region: str) -> None:
    begin, end, heading, _ = MODES[MODE]
    text = BENCHMARKS.read_text() if BENCHMARKS.exists() else "# Benchmarks\n"
    block = f"{begin}\n{region}\n{end}"
    if begin in text and end in text:
        pre, rest = text.split(begin, 1)
        _, post = rest.split(end, 1)
        text = pre + block + post
    elif MODE != "default" and END in text:
        # After the default region's notes: at the end of its section.
        pre, post = text.split(END, 1)
        cut = post.find("\n## ")
        cut = len(post) if cut < 0 else cut
        text = pre + END + post[:cut].rstrip("\n") + f"\n\n{heading}\n\n{block}\n" + post[cut:]
    else:
        text = text.rstrip("\n") + f"\n\n{heading}\n\n{block}\n"
    BENCHMARKS.write_text(text)


if __name__ == "__main__":
    main()
