#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Flattens fgsim stats files (`fgsim run ... --stats FILE.json`) into CSV.

  tools/fgstats.py run1.json run2.json [--match PATTERN]... [--wide]

Long format (default), one row per file and value:
  file,stat,field,value,unit
where `field` is empty for counters and formulas and names the part of an
average or distribution (mean, count, min, max, stdev). `sim.time_ns` and the
kernels' fields (kernel.<id>.<name>.end_ns, .ipc, ...) come first. PATTERN is a
shell-style glob on the stat name (e.g. 'gpu.cu*.l1.hits'); several are ORed.
--wide: one row per file, one column per stat[.field] (for a spreadsheet)."""
import argparse
import csv
import fnmatch
import json
import sys

SCALAR_FIELDS = ("mean", "count", "min", "max", "stdev")


def values(doc):
    """(stat, field, value, unit) of one stats document."""
    units = doc.get("units", {})
    yield "sim.time_ns", "", doc["sim"]["time_ns"], "ns"
    for k in doc.get("kernels", []):
        for key in ("submitted_ns", "first_dispatch_ns", "end_ns", "workgroups", "wavefronts", "instructions", "ipc"):
            if key in k:
                yield f"kernel.{k['id']}.{k['name']}.{key}", "", k[key], "ns" if key.endswith("_ns") else ""
    for name, v in doc["stats"].items():
        unit = units.get(name, "")
        if isinstance(v, dict) and "samples" in v:  # a time series: its summary (the samples stay in the JSON)
            xs = v["samples"]
            yield name, "samples", len(xs), ""
            yield name, "interval", v["interval"], ""
            yield name, "mean", sum(xs) / len(xs) if xs else 0.0, unit
            yield name, "max", max(xs) if xs else 0, unit
        elif isinstance(v, dict):
            for f in SCALAR_FIELDS:
                if f in v:
                    yield name, f, v[f], "" if f == "count" else unit
        else:
            yield name, "", v, unit


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="stats JSON files")
    ap.add_argument("--match", action="append", default=[], help="glob on the stat name (repeatable)")
    ap.add_argument("--wide", action="store_true", help="one row per file")
    a = ap.parse_args(argv)
    rows = []
    for path in a.files:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            print(f"fgstats: {path}: {e}", file=sys.stderr)
            return 2
        if "stats" not in doc or "sim" not in doc:
            print(f"fgstats: {path}: not an fgsim stats file (no 'stats' or 'sim')", file=sys.stderr)
            return 2
        for stat, field, value, unit in values(doc):
            if a.match and not any(fnmatch.fnmatchcase(stat, p) for p in a.match):
                continue
            rows.append({"file": path, "stat": stat, "field": field, "value": value, "unit": unit})
    out = csv.writer(sys.stdout, lineterminator="\n")
    if not a.wide:
        out.writerow(["file", "stat", "field", "value", "unit"])
        for r in rows:
            out.writerow([r["file"], r["stat"], r["field"], r["value"], r["unit"]])
        return 0
    cols, table = [], {}
    for r in rows:
        col = r["stat"] + ("." + r["field"] if r["field"] else "")
        if col not in cols:
            cols.append(col)
        table.setdefault(r["file"], {})[col] = r["value"]
    out.writerow(["file", *cols])
    for path in a.files:
        out.writerow([path, *(table.get(path, {}).get(c, "") for c in cols)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
