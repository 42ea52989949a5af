#!/usr/bin/env python3
"""Prints the results that `marginalia-bench --json FILE` wrote as a Markdown table.

    python3 Benchmarks/results_table.py results.json
"""
import json
import sys


def quantity(value, unit):
    if unit == "ms":
        return f"{value:.3f} ms"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    if unit == "MiB/s":
        return f"{value:.1f} MiB/s"
    if unit == "":
        return "yes" if value == 1 else "no"
    return f"{value:,.0f} {unit}"


def table(results):
    rows = ["| measurement | figure | reference | reference figure | ratio | target | status |",
            "|---|---|---|---|---|---|---|"]
    for m in results["measurements"]:
        reference = quantity(m["referenceValue"], m["referenceUnit"]) if "referenceValue" in m else "—"
        ratio = "—"
        if "ratio" in m:
            kind = m["ratioKind"]
            ratio = f"{m['ratio']:.2f}× " + ("as fast" if kind.startswith("speedup")
                                              else "the bytes" if kind.startswith("size") else "the time")
        status = m["status"]
        if status in ("PASS", "MISS"):
            status = f"**{status}**"
        cells = [m["name"], quantity(m["value"], m["unit"]), m.get("referenceName", "—"), reference, ratio,
                 m.get("target", "—"), status]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: results_table.py RESULTS.json")
    with open(sys.argv[1], encoding="utf-8") as file:
        results = json.load(file)
    print(table(results))


if __name__ == "__main__":
    main()
