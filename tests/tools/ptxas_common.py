# SPDX-License-Identifier: Apache-2.0
"""What the tests of the ptxas tools (tools/sass_fences.py, tools/gtap_globals.py) share: finding the CUDA
toolkit's ptxas or skipping (exit 77, as in CI), running the tool, and its one-line exit 2 for a bad --arch."""
import os
import shutil
import subprocess
import sys


def ptxas_or_skip():
    """The path of ptxas; without one, says so and exits 77 (ctest's skip)."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.access(ptxas, os.X_OK):
        print("skipped: no ptxas (the CUDA toolkit's)")
        sys.exit(77)
    return ptxas


def run(tool, ptxas, arch="sm_90"):
    return subprocess.run([sys.executable, tool, f"--arch={arch}", f"--ptxas={ptxas}"], capture_output=True, text=True)


def bad_arch_failures(tool, ptxas):
    """[] when --arch=sm_99 is one line naming it on stderr and exit 2, else the failure."""
    r = run(tool, ptxas, "sm_99")
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or "--arch=sm_99" not in r.stderr:
        return [f"bad --arch: exit {r.returncode}, {r.stderr!r}"]
    return []


def finish(failures):
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)
