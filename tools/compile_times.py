#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compile time per translation unit, as docs/performance.md ("Build and CI time") measures it: each unit's
command from a build tree's compile_commands.json rerun by itself, one at a time, its wall time printed, and
the total. The object files are written to a scratch directory, not over the build's.

    tools/compile_times.py [--build build] [--replace OLD=NEW ...] [--syntax-only] REGEX

REGEX picks units by their source path (Python re.search), e.g. 'Vsys_c4_l16_lsort.dir' or
'workloads/graph/bfs_sssp.cpp$'. --replace substitutes text in each command (e.g. ' -O3 = -O1 ' to time
another optimisation level); --syntax-only times the front end alone (-fsyntax-only, no object)."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def fail(msg):
    sys.stderr.write(f"compile_times.py: {msg}\n")
    sys.exit(2)


ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("regex")
ap.add_argument("--build", default="build")
ap.add_argument("--replace", action="append", default=[], metavar="OLD=NEW")
ap.add_argument("--syntax-only", action="store_true")
a = ap.parse_args()
try:
    pick = re.compile(a.regex)
except re.error as e:
    fail(f"REGEX '{a.regex}': {e}")
subs = []
for r in a.replace:
    if "=" not in r:
        fail(f"--replace '{r}': expected OLD=NEW")
    subs.append(tuple(r.split("=", 1)))
db = os.path.join(a.build, "compile_commands.json")
try:
    units = [u for u in json.load(open(db)) if pick.search(u["file"])]
except (OSError, ValueError) as e:
    fail(f"{db}: {e}")
if not units:
    fail(f"no unit of {db} matches '{a.regex}'")
total = 0.0
with tempfile.TemporaryDirectory(prefix="fg-ct-") as tmp:
    for i, u in enumerate(units):
        cmd = u["command"]
        for old, new in subs:
            cmd = cmd.replace(old, new)
        args = shlex.split(cmd)
        if "-o" in args:  # the object goes to the scratch directory
            k = args.index("-o")
            if a.syntax_only:
                del args[k:k + 2]
            else:
                args[k + 1] = os.path.join(tmp, f"{i}.o")
        if a.syntax_only:
            args = [x if x != "-c" else "-fsyntax-only" for x in args]
        t0 = time.monotonic()
        p = subprocess.run(args, cwd=u["directory"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        dt = time.monotonic() - t0
        if p.returncode:
            fail(f"{u['file']}: the compiler exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
        total += dt
        print(f"{dt:7.1f} s  {os.path.relpath(u['file'])}")
print(f"{total:7.1f} s  {len(units)} units")
