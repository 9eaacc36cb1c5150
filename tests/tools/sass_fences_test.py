#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gh200's gpu.cu.fence_invalidates_l1 cites tools/sass_fences.py: with the CUDA toolkit's ptxas present,
# sm_90's __threadfence and acquire load are followed by CCTL.IVALL and a relaxed .cg load is not; a bad
# --arch is one line and exit 2. Without ptxas (CI) the test skips (77).
import os
import sys

import ptxas_common  # tests/tools/ptxas_common.py, beside this test

root = sys.argv[1]
tool = os.path.join(root, "tools", "sass_fences.py")
ptxas = ptxas_common.ptxas_or_skip()
r = ptxas_common.run(tool, ptxas)
rows = {line.split("|")[1].strip(): line.split("|")[2] for line in r.stdout.splitlines() if line.startswith("| ")}
failures = []
if r.returncode != 0:
    failures.append(f"exit {r.returncode}: {r.stderr}")
for case, want, present in [("membar.gl (__threadfence)", "MEMBAR.SC.GPU, ERRBAR, CGAERRBAR, CCTL.IVALL", True),
                            ("ld.acquire.gpu", "LDG, CCTL.IVALL", True), ("ld.global.cg", "CCTL.IVALL", False),
                            ("atom.global.cas", "CCTL.IVALL", False)]:
    if (want in rows.get(case, "")) != present:
        failures.append(f"{case}: {rows.get(case)!r} {'lacks' if present else 'has'} {want!r}")
failures += ptxas_common.bad_arch_failures(tool, ptxas)
ptxas_common.finish(failures)
