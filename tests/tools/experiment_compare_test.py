#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/experiment_compare.py: the change of a study's metric between two CSVs of an experiment, per study and
per case, over the points both have (study, case, grid values, seed; summary rows left out), the points only one
has, every point with --points, a file at a commit as REV:PATH; bad input is one line naming it and exit 2."""
import csv
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
tool = os.path.join(root, "tools", "experiment_compare.py")
tmp = tempfile.mkdtemp(prefix="fg_experiment_compare_")
failures = []
cols = ["study", "case", "forkjoin.groups", "seed", "kernel_us", "summary", "vs_ws_median"]


def write(name, rows):
    path = os.path.join(tmp, name)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(cols, r)))
    return path


def run(*args):
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True, timeout=60, cwd=root)
    return r.returncode, r.stdout, r.stderr


# fig3-fib of experiments/forkjoin.yaml: cases ws, gq, cl; grid forkjoin.groups; metric kernel_us first.
old = write("old.csv", [("fig3-fib", "ws", 4, 1, 100, "", ""), ("fig3-fib", "ws", 8, 1, 50, "", ""),
                        ("fig3-fib", "gq", 4, 1, 200, "", ""), ("fig3-fib", "cl", 4, 1, 300, "", ""),
                        ("fig3-fib-warps", "gq", "", "", "", 1, 3.0)])
new = write("new.csv", [("fig3-fib", "ws", 4, 1, 110, "", ""), ("fig3-fib", "ws", 8, 1, 45, "", ""),
                        ("fig3-fib", "gq", 4, 1, 200, "", ""), ("fig3-fib", "gq", 8, 1, 150, "", ""),
                        ("fig3-fib-warps", "gq", "", "", "", 1, 9.0)])
rc, out, err = run("forkjoin", old, new)
want = "fig3-fib: 3 points, kernel_us -10.0% to +10.0% (ws -10.0% to +10.0%; gq +0.0%); 1 only in OLD, 1 only in NEW"
if rc != 0 or out.strip() != want or err:
    failures.append(f"forkjoin old new: exit {rc}, stdout {out!r} (expected {want!r}), stderr {err!r}")
rc, out, err = run("forkjoin", old, new, "--points", "--study", "fig3-fib")
for line in ("  ws 4 1: 100 -> 110 (+10.0%)", "  ws 8 1: 50 -> 45 (-10.0%)", "  gq 4 1: 200 -> 200 (+0.0%)"):
    if line not in out.splitlines():
        failures.append(f"--points: no line {line!r} in {out!r}")
rc, out, err = run("forkjoin", old, new, "--metric", "steals", "--study", "fig3-fib")
if rc != 0 or out.strip() != "fig3-fib: 0 points, steals not compared; 1 only in OLD, 1 only in NEW, 3 without a " \
        "number in one of them":
    failures.append(f"--metric=steals (not in the CSV): exit {rc}, stdout {out!r}")

# A file at a commit: the committed page's CSV against itself moves nothing.
csv_rel = "docs/validation/forkjoin/forkjoin.csv"
have_git = subprocess.run(["git", "-C", root, "cat-file", "-e", f"HEAD:{csv_rel}"], capture_output=True).returncode == 0
if have_git and os.path.isfile(os.path.join(root, csv_rel)):
    rc, out, err = run("forkjoin", f"HEAD:{csv_rel}", os.path.join(root, csv_rel), "--study", "fig3-fib")
    if rc != 0 or not out.startswith("fig3-fib: 24 points, kernel_us +0.0% (ws +0.0%; gq +0.0%; cl +0.0%)"):
        failures.append(f"HEAD:{csv_rel} against the file: exit {rc}, stdout {out!r}, stderr {err!r}")

# Bad input: one line naming the place, exit 2, nothing on stdout.
notcsv = os.path.join(tmp, "notes.txt")
with open(notcsv, "w") as f:
    f.write("a,b\n1,2\n")
other = write("other.csv", [("no-such-study", "ws", 4, 1, 1, "", "")])
for args, names in ((["no-such-experiment", old], "no-such-experiment"),
                    (["forkjoin", os.path.join(tmp, "missing.csv"), new], "missing.csv"),
                    (["forkjoin", "no-such-rev:" + csv_rel, new], "no-such-rev"),
                    (["forkjoin", old, new, "--study", "fig99"], "fig99"),
                    (["forkjoin", notcsv, new], "notes.txt"),
                    (["forkjoin", other, other], "no study"),
                    (["forkjoin", old, new, "--bogus"], "--bogus")):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    if rc != 2 or len(lines) != 1 or names not in lines[0] or out or "Traceback" in err:
        failures.append(f"{' '.join(args)}: exit {rc}, stderr {lines}, stdout {out!r} (expected one line naming {names})")
rc, out, err = run("--help")
if rc != 0 or "How one run of an experiment moved" not in out:
    failures.append(f"--help: exit {rc}")

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
