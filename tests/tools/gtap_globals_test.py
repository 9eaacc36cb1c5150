#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# forkjoin.globals=packed cites tools/gtap_globals.py: with the CUDA toolkit's ptxas present, every global the
# model places (gq's head, tail, alloc and the termination words) has the offset ptxas gives it in each of GTaP's
# jan2026 runtimes, and all of them share one 128-byte line; a bad --arch is one line and exit 2. Without ptxas
# (CI) the test skips (77).
import os
import sys

import ptxas_common  # tests/tools/ptxas_common.py, beside this test

root = sys.argv[1]
tool = os.path.join(root, "tools", "gtap_globals.py")
ptxas = ptxas_common.ptxas_or_skip()
r = ptxas_common.run(tool, ptxas)
failures = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr}"]
placed = 0
for line in r.stdout.splitlines():
    cells = [c.strip() for c in line.split("|")[1:-1]]
    if len(cells) != 6 or not cells[2].startswith("0x"):
        continue
    name, _size, offset, row, _sector, model = cells
    if model != "-":
        placed += 1
        if model != offset or row != "0":
            failures.append(f"{name}: ptxas {offset} (line {row}), the model {model}")
want = 6 + 6 + 3 + 3  # thread gq, block gq, thread ws, block ws
if placed != want:
    failures.append(f"{placed} placed globals in the tables, not {want}:\n{r.stdout}")
failures += ptxas_common.bad_arch_failures(tool, ptxas)
ptxas_common.finish(failures)
