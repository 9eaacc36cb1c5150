#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tree.unroll=compiled cites tools/tree_unroll.py: with the CUDA toolkit's ptxas and Debian's clang++-19 present,
# the full tree's thread body keeps 4 loads in flight (its loops unrolled 4 times) and the block body, under
# `#pragma unroll 1`, one; a bad --arch is one line and exit 2. Without either tool (CI) the test skips (77).
import os
import shutil
import subprocess
import sys

import ptxas_common  # tests/tools/ptxas_common.py, beside this test

root = sys.argv[1]
tool = os.path.join(root, "tools", "tree_unroll.py")
ptxas = ptxas_common.ptxas_or_skip()
if not shutil.which("clang++-19"):
    print("skipped: no clang++-19 (Debian's clang-19 package)")
    sys.exit(77)
r = ptxas_common.run(tool, ptxas)
rows = {line.split("|")[1].strip().split(" ")[0]: line.split("|")[4].strip()
        for line in r.stdout.splitlines() if line.startswith("| ") and not line.startswith("| version")}
failures = []
if r.returncode != 0:
    failures.append(f"exit {r.returncode}: {r.stderr}")
for version, want in [("thread", "4"), ("block", "1")]:
    if rows.get(version) != want:
        failures.append(f"{version}: {rows.get(version)!r} loads in flight, not {want}\n{r.stdout}")
failures += ptxas_common.bad_arch_failures(tool, ptxas)
ptxas_common.finish(failures)
