#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How many of a tree task's loads an LLVM build of it keeps in flight.

The source of `tree.unroll=compiled` (docs/forkjoin.md, "Compiled schedules"): GTaP's full binary tree's
thread program has no `#pragma unroll 1` on its task body's loops, its block programs have one. This script
states that body as the model runs it (workloads/forkjoin/tree.cpp: `mem_ops` loads at xorshift32 indices
into the input, summed, then `compute_iters` multiply-adds; runtime trip counts), the thread version and the
block version (loops strided over the block, `#pragma unroll 1`), compiles each with clang to PTX for
--arch at -O3 (no CUDA headers) and assembles it with ptxas, then reads the kernel's SASS by opcode as public
sm_80 `cuobjdump` listings print them (0x980 LD, a generic load: the input's pointer is a `__device__`
variable's; 0x229 DADD; 0x947 BRA) and prints, per version, its loads, its adds and the most loads issued
before an add: the loads in flight. GTaP builds with its own clang 21 (not a Debian package); this shows
what the clang given (--clang, default clang++-19, Debian's newest with sm_90) does. Without ptxas or that
clang it says so and exits 0. Nothing is run on a GPU.

  tools/tree_unroll.py [--arch=sm_90] [--ptxas=PATH] [--clang=clang++-19]
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import ptxas_tool  # tools/ptxas_tool.py, beside this script
import sass_fences  # tools/sass_fences.py: the cubin's text sections

LD, DADD, BRA = 0x980, 0x229, 0x947

COMMON = r"""
#define DEV __attribute__((device))
typedef unsigned int u32;
DEV const double* g_input;
DEV double* g_out;
DEV int g_input_n;
static DEV inline u32 xorshift32(u32 x) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; }
"""
# The body: `first`, `step` and `pragma` make the thread and the block versions.
BODY = r"""
extern "C" __attribute__((global)) void {name}(int node, int mem_ops, int compute_iters) {{
  double acc = 0.0;
  u32 seed = xorshift32((u32)node ^ 0x9e3779b9u);
  u32 mask = (u32)g_input_n - 1u;
  {pragma}
  for (int m = {first}; m < mem_ops; m += {step}) acc += g_input[(int)(xorshift32(seed + (u32)m * 747796405u) & mask)];
  u32 mix = (0x9e3779b9u ^ (u32)node) + (u32)acc;
  {pragma}
  for (int it = {first}; it < compute_iters; it += {step}) {{
    double y = __builtin_fma((double)xorshift32(seed + (u32)it * 747796405u), 1.0000001192092896, 0.9999999403953552);
    mix ^= (u32)__builtin_bit_cast(long long, y);
  }}
  g_out[node] = (double)mix;
}}
"""
VERSIONS = {
    "thread (the full tree's: no unroll pragma)": ("thread_task", "0", "1", ""),
    "block (unroll 1, strided over the block)": ("block_task", "(int)__nvvm_read_ptx_sreg_tid_x()",
                                                 "(int)__nvvm_read_ptx_sreg_ntid_x()", "#pragma unroll 1"),
}


def source():
    return COMMON + "".join(BODY.format(name=n, first=f, step=s, pragma=p) for n, f, s, p in VERSIONS.values())


def ptx(a):
    """clang's PTX of source() for a.arch; a refusal ends the script (exit 2, one line)."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "tree.cu"), os.path.join(d, "tree.ptx")
        with open(src, "w") as f:
            f.write(source())
        r = subprocess.run([a.clang, "-O3", "-x", "cuda", f"--cuda-gpu-arch={a.arch}", "--cuda-device-only",
                            "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version", "-S", src, "-o", out],
                           capture_output=True, text=True)
        if r.returncode:
            first = (r.stderr.strip().splitlines() or ["no message"])[0]
            print(f"tree_unroll: --arch={a.arch}: {a.clang} refused it: {first}", file=sys.stderr)
            sys.exit(2)
        with open(out) as f:
            return f.read()


def in_flight(ops):
    """The most loads issued one after another before an add (other instructions between them allowed)."""
    best = run = 0
    for op in ops:
        if op == LD:
            run += 1
            best = max(best, run)
        elif op == DADD:
            run = 0
    return best


def main():
    def extra(ap):
        ap.add_argument("--clang", default="clang++-19")
    a = ptxas_tool.options(__doc__, "tree_unroll", extra)
    if a is None:
        return 0
    if not shutil.which(a.clang):
        print(f"tree_unroll: no {a.clang} (--clang=PATH): nothing to show")
        return 0
    version = subprocess.run([a.clang, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    elf = ptxas_tool.assemble(a, ptx(a), "-O3")
    body = dict(sass_fences.text_sections(elf))
    print(f"{version}; {a.arch}\n")
    print("| version | loads | double adds | loads in flight |\n|---|---|---|---|")
    for label, (name, *_rest) in VERSIONS.items():
        code = body[name]
        ops = [struct.unpack_from("<Q", code, o)[0] & 0xFFF for o in range(0, len(code), 16)]
        print(f"| {label} | {ops.count(LD)} | {ops.count(DADD)} | {in_flight(ops)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
