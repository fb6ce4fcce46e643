#!/usr/bin/env python3
"""Count the public API of idtable's runtime: functions, types and traits.

Usage: python3 scripts/public_api.py [--all-features] [--no-build] [--list]
       [--crate idtable-runtime|idtable]

Builds the crate's rustdoc JSON with a nightly toolchain (as
scripts/missing_examples.py does, into `target/doc-json`), walks every item
reachable by a public path from the crate root, each once, and counts:

* functions: free functions, methods and associated functions of inherent
  impls, and the methods a trait of the crate declares (a trait's method is
  API its users call or implement); methods of trait impls (`next`,
  `clone`) are the traits' and not counted;
* types: structs, enums, unions and type aliases;
* traits: the crate's traits.

Items of another crate re-exported one by one are not counted (the facade
re-exports the runtime whole; count the runtime). `--list` prints every
counted item's path under its kind.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import missing_examples  # noqa: E402  (same folder)

TYPE_KINDS = {"struct", "enum", "union", "type_alias"}


def count(package, crate):
    if "--no-build" not in sys.argv:
        missing_examples.build(package)
    path = os.path.join(missing_examples.TARGET, "doc", crate + ".json")
    with open(path) as f:
        doc = json.load(f)
    index = doc["index"]
    functions, types, traits = [], [], []
    for item_path, kind, item, _covered, _note, _parent in missing_examples.walk(crate, index, doc["root"]):
        if kind == "function":
            functions.append(item_path)
        elif kind in TYPE_KINDS:
            types.append(item_path)
        elif kind == "trait":
            traits.append(item_path)
    return functions, types, traits


def main():
    package = "idtable-runtime"
    if "--crate" in sys.argv:
        package = sys.argv[sys.argv.index("--crate") + 1]
    crate = package.replace("-", "_")
    functions, types, traits = count(package, crate)
    features = "all features" if "--all-features" in sys.argv else "default features"
    total = len(functions) + len(types) + len(traits)
    print(f"{package} ({features}): {len(functions)} functions, {len(types)} types, "
          f"{len(traits)} traits, {total} in all")
    if "--list" in sys.argv:
        for name, items in (("functions", functions), ("types", types), ("traits", traits)):
            print(f"\n{name}:")
            for p in sorted(items):
                print("  " + p)


if __name__ == "__main__":
    main()
