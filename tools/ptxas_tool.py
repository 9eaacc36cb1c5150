# SPDX-License-Identifier: Apache-2.0
"""What tools/sass_fences.py and tools/gtap_globals.py share: the --arch and --ptxas options (the CUDA toolkit's
ptxas, not a Debian package: ptxas on the PATH or /usr/local/cuda/bin/ptxas), and assembling PTX text to a cubin
whose bytes they read. A refused --arch is one line on stderr naming it and exit 2."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def options(doc, name, extra=None):
    """The script's options (`extra(parser)` adds its own), or None (after one line saying so) when there is no
    ptxas to run."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    if extra:
        extra(ap)
    a = ap.parse_args()
    if not os.access(a.ptxas, os.X_OK):
        print(f"{name}: no ptxas at {a.ptxas} (the CUDA toolkit's; --ptxas=PATH): nothing to show")
        return None
    a.name = name
    return a


def assemble(a, ptx, *flags):
    """The cubin of PTX text `ptx` for a.arch; a refusal ends the script (exit 2, one line)."""
    with tempfile.TemporaryDirectory() as d:
        src, cubin = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run([a.ptxas, f"-arch={a.arch}", *flags, src, "-o", cubin], capture_output=True, text=True)
        if r.returncode:
            first = (r.stderr.strip().splitlines() or ["no message"])[0]
            print(f"{a.name}: --arch={a.arch}: {a.ptxas} refused it: {first}", file=sys.stderr)
            sys.exit(2)
        with open(cubin, "rb") as f:
            return f.read()
