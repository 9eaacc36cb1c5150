#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How one run of an experiment moved against another: for each study, the range of a metric's
change over the points both runs have (and per case), the points only one of them has, and
with --points every point's two values. OLD and NEW are an experiment's CSV (the page's data,
docs/validation/NAME/NAME.csv) as a path or as REV:PATH, a file at a commit (`git show`); NEW is
the working tree's CSV by default. A point is the study, its case, grid values and seed; summary
and sample rows are left out. The metric is each study's first (experiments/NAME.yaml), or
--metric's. The validation pages' run histories ("moved these kernel times by X% to Y%") are
this table's ranges.
Usage: tools/experiment_compare.py NAME|FILE.yaml OLD [NEW] [--metric=M] [--study=S ...] [--points]
Example: tools/experiment_compare.py forkjoin HEAD~3:docs/validation/forkjoin/forkjoin.csv"""
import argparse
import csv
import io
import os
import signal
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tools", "experiments"))
import experiment  # noqa: E402  (tools/experiments/experiment.py)

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("experiment", help="an experiment's name (experiments/NAME.yaml) or its file")
ap.add_argument("old", help="the earlier run's CSV: a path or REV:PATH")
ap.add_argument("new", nargs="?", help="the later run's CSV (default: docs/validation/NAME/NAME.csv)")
ap.add_argument("--metric", help="the metric compared (default: each study's first)")
ap.add_argument("--study", action="append", default=[], metavar="S", help="only study S (repeatable)")
ap.add_argument("--points", action="store_true", help="every point's two values and its change")
prog = os.path.basename(sys.argv[0])


def fail(message):
    sys.stderr.write(f"{prog}: error: {message}\n")
    sys.exit(2)


ap.error = fail
opts = ap.parse_args()

path = opts.experiment
if not path.endswith((".yaml", ".yml")):
    path = os.path.join(root, "experiments", path + ".yaml")
if not os.path.isfile(path):
    fail(f"no experiment file {path}")
name = os.path.splitext(os.path.basename(path))[0]
try:
    exp = experiment.load(path)  # checked: a problem is one line FILE:LINE: KEY: message (a SystemExit)
except SystemExit as e:
    fail(str(e))
except Exception as e:
    fail(f"{path}: cannot be read ({e})")
studies = {s["name"]: s for s in exp.get("studies") or []}
for s in opts.study:
    if s not in studies:
        fail(f"--study: {path} has no study '{s}'")


def read(spec, what):
    """A CSV's rows from a path or from REV:PATH (relative to the repository's root)."""
    if not os.path.exists(spec) and ":" in spec:
        rev, rel = spec.split(":", 1)
        r = subprocess.run(["git", "-C", root, "show", f"{rev}:{rel}"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{what}: git has no {rel} at '{rev}' ({r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'git show failed'})")
        text = r.stdout
    elif os.path.isfile(spec):
        with open(spec) as f:
            text = f.read()
    else:
        fail(f"{what}: no file {spec}")
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or "study" not in rows[0]:
        fail(f"{what}: {spec} is not an experiment's CSV (no 'study' column)")
    return rows


old_rows = read(opts.old, "OLD")
new_rows = read(opts.new or os.path.join(root, "docs", "validation", name, name + ".csv"), "NEW")


def key_columns(study):
    return (["case"] if study.get("cases") else []) + list((study.get("grid") or {}).keys()) + ["seed"]


def points(rows, study):
    """{point key: row} of a study's point rows (no summary or sample rows)."""
    cols = key_columns(study)
    return {tuple(r.get(c, "") for c in cols): r for r in rows
            if r["study"] == study["name"] and not r.get("summary") and not r.get("sample")}


def pct(a, b):
    return 100.0 * (b / a - 1.0)


def span(changes):
    lo, hi = min(changes), max(changes)
    return f"{lo:+.1f}%" if f"{lo:+.1f}" == f"{hi:+.1f}" else f"{lo:+.1f}% to {hi:+.1f}%"


chosen = opts.study or list(studies)
compared = 0
for sname in chosen:
    study = studies[sname]
    metric = opts.metric or next(iter(study.get("metrics") or {}), None)
    old, new = points(old_rows, study), points(new_rows, study)
    if not old and not new:
        continue
    if metric not in (study.get("metrics") or {}) and metric != (study.get("relative") or {}).get("name"):
        print(f"{sname}: no metric '{metric}'")
        continue
    both = [k for k in new if k in old]
    changes, by_case, lines, unreadable = [], {}, [], 0
    for k in both:
        a, b = experiment.number(old[k].get(metric)), experiment.number(new[k].get(metric))
        if not isinstance(a, float) or not isinstance(b, float) or a == 0:
            unreadable += 1
            continue
        c = pct(a, b)
        changes.append(c)
        if study.get("cases"):
            by_case.setdefault(k[0], []).append(c)
        lines.append(f"  {' '.join(str(x) for x in k)}: {a:.6g} -> {b:.6g} ({c:+.1f}%)")
    compared += 1
    text = f"{sname}: {len(changes)} points, {metric} " + (span(changes) if changes else "not compared")
    if len(by_case) > 1:
        text += " (" + "; ".join(f"{c} {span(v)}" for c, v in by_case.items()) + ")"
    extra = [f"{n} {w}" for n, w in ((len([k for k in old if k not in new]), "only in OLD"),
                                       (len([k for k in new if k not in old]), "only in NEW"),
                                       (unreadable, "without a number in one of them")) if n]
    print(text + ("; " + ", ".join(extra) if extra else ""))
    if opts.points:
        print("\n".join(lines))
if compared == 0:
    fail("no study has points in OLD or NEW (another experiment's CSV?)")
