#!/usr/bin/env python3
"""Counts the library's public symbols, as an app sees them, from its symbol graph.

    swift package dump-symbol-graph --minimum-access-level public
    python3 scripts/public_api.py .build/x86_64-unknown-linux-gnu/symbolgraph/Marginalia.symbols.json [--types]

Counts every public declaration of the `Marginalia` module by kind; members a type only inherits from a protocol's
extension (the `!=` of every `Equatable` type) are left out, since the module declares none of them.
With `--types`, lists the public types too, each with how many public members it declares.
"""
import collections
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    with open(argv[1], encoding="utf-8") as f:
        graph = json.load(f)
    inherited = {r["source"] for r in graph["relationships"] if r.get("sourceOrigin")}
    declared = [s for s in graph["symbols"]
                if s["identifier"]["precise"] not in inherited and s["accessLevel"] == "public"]
    kinds = collections.Counter(s["kind"]["displayName"] for s in declared)
    print(f"{len(declared)} public symbols declared by {graph['module']['name']}")
    for kind, count in kinds.most_common():
        print(f"  {count:5}  {kind}")
    if "--types" in argv[2:]:
        members = collections.Counter(s["pathComponents"][0] for s in declared if len(s["pathComponents"]) > 1)
        for s in sorted(declared, key=lambda s: s["names"]["title"]):
            if len(s["pathComponents"]) == 1 and s["kind"]["identifier"] in (
                    "swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"):
                name = s["names"]["title"]
                print(f"{members[name]:5}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
