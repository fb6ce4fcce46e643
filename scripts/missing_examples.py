#!/usr/bin/env python3
"""List the public items of idtable whose docs have no runnable, asserting example.

Usage: python3 scripts/missing_examples.py [--all-features] [--no-build] [--redundant]

Builds the rustdoc JSON of the facade (`idtable`) and the runtime
(`idtable-runtime`) with a nightly toolchain (`cargo +nightly rustdoc ...
--output-format json`, default features or `--all-features`, into `target/doc-json`), walks
every public item from each crate root and prints those that lack an
example. Exits 1 if any is missing, so CI can run it where a nightly
toolchain is installed.

An item has an example when its doc comment holds a Rust code block (fence
info empty, `rust` or `should_panic`; not `text`, `ignore`, `no_run` or
`compile_fail`) that contains `assert`: an *asserting block*. Items checked:
modules, structs, enums, traits, type aliases, constants, functions, macros,
the methods and associated constants of inherent impls, and the methods and
associated constants of traits.

An item without an asserting block of its own is also covered when it
points at one that shows it (std's `Vec` shows its setup once, not per
method):

* **by a link**: its doc comment has an intra-doc link (resolved by
  rustdoc, so it cannot dangle) to an item of idtable or idtable-runtime
  whose *own* docs hold an asserting block that uses it: for a method or
  an associated constant, a block containing `.name` or `::name` (a call,
  or a path to it); for a type, trait, function, constant or macro, a block
  containing its name as a word. One hop: the target's own blocks count,
  not the ones it links to in turn. A method shown elsewhere links that
  example from the sentence that says what it does, instead of
  repeating the setup; a reader is one click from an example that calls
  it;
* **by its parent**: a method or associated constant is covered when its
  type's own asserting blocks use it, and an item of a module when the
  module's own asserting blocks name it (the same test as a link's):
  rustdoc shows it on that page, so its docs say what it does and write
  no line that only points there. A member is also covered by a link
  its type or trait makes (once, for all its members) to an item whose
  own asserting blocks use it;
* **a module** is covered by a link to any item whose own docs hold an
  asserting block: a module is a namespace or a guide chapter, shown by
  the examples of what it points to (the facade's `guide` module points
  at the crate root's list of chapters, each with its examples);
* **a trait's** method or associated constant also counts as covered when a
  Rust code block in the trait's own docs names it (`.name(`, `::name`):
  methods that the derive or the runtime implements share one example on
  the trait, which rustdoc shows on the same page.

The name test is textual: a block that calls another type's method of the
same name also passes. It cannot catch a link that points at the wrong
example; review does. A link from the facade to a method of the runtime is
not followed (rustdoc JSON gives paths of other crates' types, not of their
methods): link the type.

`--redundant` lists instead the functions, methods and associated
constants whose own example could give way to such a link: those with an
asserting block of their own whose type (for a method or an associated
constant), module (for a function), or an item their docs already link
to, has an asserting block that uses them by the rule above. Each line
names the item and the example that already shows it. It exits 0.

Other rules for what is checked:

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
    return bool(asserting_blocks(docs))


def asserting_blocks(docs):
    return [b for b in rust_blocks(docs) if "assert" in b]


def names_in(blocks, name):
    pat = re.compile(r"(\.|::)\s*" + re.escape(name) + r"\b")
    return any(pat.search(b) for b in blocks)


MEMBER_KINDS = ("function", "assoc_const")


def uses(blocks, name, member):
    """Whether one of `blocks` uses the item `name`: a method or associated
    constant (`member`) by `.name` or `::name`, anything else as a word."""
    if member:
        return names_in(blocks, name)
    pat = re.compile(r"\b" + re.escape(name) + r"\b")
    return any(pat.search(b) for b in blocks)


def is_member(index, kind, parent):
    """A method or associated constant: a function or constant whose parent
    is a type or a trait, not a module."""
    if kind not in MEMBER_KINDS or parent is None:
        return False
    p = index.get(str(parent))
    return p is not None and next(iter(p["inner"])) != "module"


def walk(crate, index, root_id):
    """Yields (path, kind, item, covered, note, parent) for every checked
    item: `covered` by its own example (or, for a trait's member, the
    trait's), `parent` the id of its type, trait or module."""
    seen = set()

    def get(i):
        return index.get(str(i))

    def visit(item_id, path, exempt, parent):
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
                yield from visit(inner["id"], path, exempt, parent)
            else:
                yield "::".join(path + [inner["name"]]), "use", item, has_example(item["docs"]), None, parent
            return
        if kind in ("module", "struct", "enum", "trait", "type_alias", "constant", "function", "static",
                    "union", "macro", "proc_macro"):
            yield "::".join(here), kind, item, has_example(item["docs"]), "exempt: generated" if exempt else None, parent
        child_exempt = exempt or (crate, name) == GENERATED_MODULE and kind == "module"
        if kind == "module":
            for child in inner["items"]:
                yield from visit(child, here, child_exempt, item_id)
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
                    if mkind in MEMBER_KINDS:
                        yield ("::".join(here + [m["name"]]), mkind, m, has_example(m["docs"]),
                               "exempt: generated" if child_exempt else None, item_id)
        elif kind == "trait":
            blocks = rust_blocks(item["docs"])
            for member in inner["items"]:
                m = get(member)
                if m is None:
                    continue
                mkind = next(iter(m["inner"]))
                if mkind not in MEMBER_KINDS:
                    continue
                covered = has_example(m["docs"]) or names_in(blocks, m["name"])
                yield "::".join(here + [m["name"]]), mkind, m, covered, "exempt: generated" if child_exempt else None, item_id

    yield from visit(root_id, [], False, None)


class Docs:
    """The rustdoc JSON of the checked crates, to resolve a link to the
    item it names, in whichever checked crate that item lives."""

    def __init__(self, docs):
        self.docs = docs  # crate name -> rustdoc JSON
        self.by_path = {
            crate: {tuple(p["path"]): i for i, p in doc["paths"].items() if p["crate_id"] == 0}
            for crate, doc in docs.items()
        }

    def resolve(self, crate, target):
        """(crate, item) for a link target id of `crate`'s JSON, or None
        when it names an item outside the checked crates."""
        doc = self.docs[crate]
        target = str(target)
        if target in doc["index"]:
            return crate, doc["index"][target]
        p = doc["paths"].get(target)
        if p is None or p["crate_id"] == 0:
            return None
        other = doc["external_crates"][str(p["crate_id"])]["name"]
        if other not in self.docs:
            return None
        i = self.by_path[other].get(tuple(p["path"]))
        item = self.docs[other]["index"].get(i) if i is not None else None
        return (other, item) if item is not None else None

    def shown_by(self, crate, item, kind, member, candidates):
        """The label of the first of `candidates` ((label, link target id of
        `crate`) pairs) whose own asserting blocks show `item` by the link
        rule, or None."""
        for label, target in candidates:
            found = self.resolve(crate, target)
            if found is None:
                continue
            tcrate, titem = found
            if titem["id"] == item["id"] and tcrate == crate:
                continue
            blocks = asserting_blocks(titem["docs"])
            if not blocks:
                continue
            if kind == "module" or uses(blocks, item["name"] or "", member):
                return label
        return None


def main():
    if "--no-build" not in sys.argv:
        for package, _ in CRATES:
            build(package)
    docs = {}
    for _, crate in CRATES:
        with open(os.path.join(TARGET, "doc", crate + ".json")) as f:
            docs[crate] = json.load(f)
    resolver = Docs(docs)
    redundant_mode = "--redundant" in sys.argv
    missing, redundant, checked, exempt, by_link = [], [], 0, 0, 0
    for _, crate in CRATES:
        doc = docs[crate]
        for path, kind, item, covered, note, parent in walk(crate, doc["index"], doc["root"]):
            if note:
                exempt += 1
                continue
            checked += 1
            span = item.get("span") or {}
            where = "%s:%s" % (span.get("filename", "?"), (span.get("begin") or ["?"])[0])
            links = [("the link [%s]" % text, target) for text, target in (item.get("links") or {}).items()]
            member = is_member(doc["index"], kind, parent)
            if covered:
                # Only functions, methods and associated constants: a
                # module's or a type's example is what the others point at.
                if redundant_mode and kind in MEMBER_KINDS and has_example(item["docs"]):
                    up = [(path.rsplit("::", 1)[0], parent)] if parent is not None else []
                    shown = resolver.shown_by(crate, item, kind, member, up + links)
                    if shown:
                        redundant.append("%-12s %-60s %-42s shown by %s" % (kind, path, where, shown))
                continue
            up = [("its parent %s" % path.rsplit("::", 1)[0], parent)] if parent is not None else []
            if member:
                # A member is also shown by an example its type or trait
                # links, once for all its members.
                owner = doc["index"].get(str(parent)) or {}
                up += [("its parent's link [%s]" % text, target)
                       for text, target in (owner.get("links") or {}).items()]
            if kind != "use" and resolver.shown_by(crate, item, kind, member, up + links):
                by_link += 1
                continue
            missing.append("%-12s %-60s %s" % (kind, path, where))
    if redundant_mode:
        for line in redundant:
            print(line)
        print("%d public items checked; %d functions, methods and associated constants whose own example"
              " an example of their type, their module or a linked item already shows" % (checked, len(redundant)))
        return 0
    for line in missing:
        print(line)
    print("%d public items checked, %d covered by a link to an example, %d missing an asserting example, "
          "%d generated items exempt" % (checked, by_link, len(missing), exempt))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
