#!/usr/bin/env python3
"""List the public items of idtable whose docs have no runnable, asserting example.

Usage: python3 scripts/missing_examples.py [--all-features] [--no-build]

Builds the rustdoc JSON of the facade (`idtable`) and the runtime
(`idtable-runtime`) with a nightly toolchain (`cargo +nightly rustdoc ...
--output-format json`, default features or `--all-features`, into `target/doc-json`), walks
every public item from each crate root and prints those that lack an
example. Exits 1 if any is missing, so CI can run it where a nightly
toolchain is installed.

An item has an example when its doc comment holds a Rust code block (fence
info empty, `rust` or `should_panic`; not `text`, `ignore`, `no_run` or
`compile_fail`) that contains `assert`. Items checked: modules, structs,
enums, traits, type aliases, constants, functions, macros, the methods and
associated constants of inherent impls, and the methods and associated
constants of traits. Rules for what shares an example:

* a trait's method or associated constant also counts as covered when a
  Rust code block in the trait's own docs names it (`.name(`, `::name`):
  methods that the derive or the runtime implements share one example on
  the trait;
* methods of trait impls (`Iterator::next`, `Clone::clone`, ...) are
  documented by the trait and not checked; neither are struct fields, enum
  variants and associated types;
* the items that `#[derive(SoaAllocator)]` generates inside the facade's
  `example` module carry the derive's doc text, which must not hold doc
  tests (they would run in users' crates): they are listed as exempt, and
  only the module's own docs must have an example;
* re-exports are followed to the item they name, which is checked once;
  glob re-exports of another crate (the facade's `pub use
  idtable_runtime::*`) are checked in that crate; a single re-exported item
  of another crate (the facade's `pub use idtable_derive::SoaAllocator`) is
  checked by the docs written on the re-export, which rustdoc shows with the
  item and runs as doc tests of the facade (a proc-macro crate cannot run
  an example of its own derive);
* items behind the `serde` and `rayon` features are checked with
  `--all-features` (which builds the docs with every feature on).
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "target", "doc-json")
CRATES = [("idtable", "idtable"), ("idtable-runtime", "idtable_runtime")]
GENERATED_MODULE = ("idtable", "example")

FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")
RUNNABLE_INFO = {"", "rust", "should_panic"}


def build(package):
    features = ["--all-features"] if "--all-features" in sys.argv else []
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", package, "--lib", "--target-dir", TARGET]
        + features
        + ["--", "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True,
    )


def rust_blocks(docs):
    """The Rust code blocks of a doc comment (the ones rustdoc runs)."""
    blocks, current, fence, runnable = [], None, None, False
    for line in (docs or "").splitlines():
        m = FENCE.match(line)
        if current is None:
            if m:
                fence = m.group(1)
                words = {w.strip() for w in m.group(2).replace(",", " ").split()}
                runnable = (not words or words <= RUNNABLE_INFO | {w for w in words if w.startswith("edition")})
                current = []
        elif m and m.group(1).startswith(fence) and not m.group(2).strip():
            if runnable:
                blocks.append("\n".join(current))
            current = None
        else:
            current.append(line)
    return blocks


def has_example(docs):
    return any("assert" in block for block in rust_blocks(docs))


def names_in(blocks, name):
    pat = re.compile(r"(\.|::)\s*" + re.escape(name) + r"\b")
    return any(pat.search(b) for b in blocks)


def walk(crate, index, root_id):
    """Yields (path, kind, item, covered, note) for every checked item."""
    seen = set()

    def get(i):
        return index.get(str(i))

    def visit(item_id, path, exempt):
        if item_id in seen:
            return
        seen.add(item_id)
        item = get(item_id)
        if item is None or item["visibility"] != "public":
            return
        kind = next(iter(item["inner"]))
        inner = item["inner"][kind]
        name = item["name"] or ""
        here = path + [name] if name else path
        if kind == "use":
            # A re-export: follow it when it names an item of this crate (a
            # private module's item is reachable only this way); the item is
            # checked once, under the first path that reaches it.
            # A single item of another crate (the derive macro) is checked
            # by the docs the re-export adds, which rustdoc shows with it.
            if inner["is_glob"] or inner["id"] is None:
                return
            if get(inner["id"]) is not None:
                yield from visit(inner["id"], path, exempt)
            else:
                yield "::".join(path + [inner["name"]]), "use", item, has_example(item["docs"]), None
            return
        if kind in ("module", "struct", "enum", "trait", "type_alias", "constant", "function", "static",
                    "union", "macro", "proc_macro"):
            yield "::".join(here), kind, item, has_example(item["docs"]), "exempt: generated" if exempt else None
        child_exempt = exempt or (crate, name) == GENERATED_MODULE and kind == "module"
        if kind == "module":
            for child in inner["items"]:
                yield from visit(child, here, child_exempt)
        elif kind in ("struct", "enum", "union"):
            for impl_id in inner.get("impls", []):
                impl = get(impl_id)
                if impl is None:
                    continue
                imp = impl["inner"]["impl"]
                if imp["trait"] is not None or imp["is_synthetic"] or imp["blanket_impl"] is not None:
                    continue
                for member in imp["items"]:
                    m = get(member)
                    if m is None or m["visibility"] != "public":
                        continue
                    mkind = next(iter(m["inner"]))
                    if mkind in ("function", "assoc_const"):
                        yield "::".join(here + [m["name"]]), mkind, m, has_example(m["docs"]), "exempt: generated" if child_exempt else None
        elif kind == "trait":
            blocks = rust_blocks(item["docs"])
            for member in inner["items"]:
                m = get(member)
                if m is None:
                    continue
                mkind = next(iter(m["inner"]))
                if mkind not in ("function", "assoc_const"):
                    continue
                covered = has_example(m["docs"]) or names_in(blocks, m["name"])
                yield "::".join(here + [m["name"]]), mkind, m, covered, "exempt: generated" if child_exempt else None

    yield from visit(root_id, [], False)


def main():
    if "--no-build" not in sys.argv:
        for package, _ in CRATES:
            build(package)
    missing, checked, exempt = [], 0, 0
    for _, crate in CRATES:
        with open(os.path.join(TARGET, "doc", crate + ".json")) as f:
            doc = json.load(f)
        for path, kind, item, covered, note in walk(crate, doc["index"], doc["root"]):
            if note:
                exempt += 1
                continue
            checked += 1
            if not covered:
                span = item.get("span") or {}
                where = "%s:%s" % (span.get("filename", "?"), (span.get("begin") or ["?"])[0])
                missing.append("%-12s %-60s %s" % (kind, path, where))
    for line in missing:
        print(line)
    print("%d public items checked, %d missing an asserting example, %d generated items exempt"
          % (checked, len(missing), exempt))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
