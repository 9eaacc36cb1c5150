#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What NVIDIA's assembler makes of PTX fences, acquire loads and atomics.

The source of gh200's `gpu.cu.fence_invalidates_l1` (docs/memory.md, "Fences and the L1"): assembles one
small kernel per PTX operation with `ptxas -arch=sm_XX` and prints the SASS opcodes of its body, named by
their 12-bit opcode field as public `cuobjdump -sass` listings of sm_80 code print the same words
(MEMBAR 0x992, ERRBAR 0x9ab, CCTL 0x98f with Ra=RZ and the IVALL mode, LDG 0x981, STG 0x986, ATOMG 0x9a8 and
0x3a9 for CAS; CGAERRBAR 0x5ab, sm_90 only, named from a public note). Needs the CUDA toolkit's ptxas
(not a Debian package: `--ptxas=PATH`, default /usr/local/cuda/bin/ptxas or ptxas on the PATH); without it it
says so and exits 0. Nothing is run on a GPU.

  tools/sass_fences.py [--arch=sm_90] [--ptxas=PATH]
"""
import struct
import sys

import ptxas_tool  # tools/ptxas_tool.py, beside this script

OPS = {0x992: "MEMBAR", 0x9ab: "ERRBAR", 0x5ab: "CGAERRBAR", 0x98f: "CCTL", 0x981: "LDG", 0x986: "STG",
       0x9a8: "ATOMG", 0x3a9: "ATOMG.CAS"}
SCOPE = {0: "CTA", 2: "GPU", 3: "SYS"}

# name -> the operation under test, between a store and a load (as GTaP's code puts them).
BODY = "st.global.u32 [%a+64],1; {op} ld.global.u32 %r2,[%a+128]; add.u32 %r1,%r1,%r2; st.global.u32 [%a+256],%r1;"
CASES = {
    "membar.gl (__threadfence)": "membar.gl;",
    "fence.sc.gpu": "fence.sc.gpu;",
    "fence.acq_rel.gpu": "fence.acq_rel.gpu;",
    "membar.cta (__threadfence_block)": "membar.cta;",
    "ld.acquire.gpu": "ld.acquire.gpu.global.u32 %r1,[%a];",
    "ld.relaxed.gpu": "ld.relaxed.gpu.global.u32 %r1,[%a];",
    "ld.global.cg": "ld.global.cg.u32 %r1,[%a];",
    "atom.global.add (relaxed)": "atom.global.add.u32 %r1,[%a],1;",
    "atom.acquire.gpu.add": "atom.acquire.gpu.global.add.u32 %r1,[%a],1;",
    "atom.global.cas": "atom.global.cas.b32 %r1,[%a],0,1;",
    "st.release.gpu": "st.release.gpu.global.u32 [%a],1;",
}


def ptx(arch):
    out = [".version 8.0", f".target {arch}", ".address_size 64"]
    for i, op in enumerate(CASES.values()):
        out.append(f".visible .entry k{i}(.param .u64 p){{ .reg .b64 %a; .reg .b32 %r<3>; mov.u32 %r1,0; "
                   f"ld.param.u64 %a,[p]; cvta.to.global.u64 %a,%a; {BODY.format(op=op)} ret; }}")
    return "\n".join(out) + "\n"


def text_sections(elf):
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    entsize, num, strndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQ", elf, shoff + i * entsize) for i in range(num)]
    names = secs[strndx][4]
    for name, _typ, _flags, _addr, off, size in secs:
        n = elf[names + name:elf.index(b"\0", names + name)].decode()
        if n.startswith(".text."):
            yield n[len(".text."):], elf[off:off + size]


def name_of(lo, hi):
    op = lo & 0xFFF
    if op not in OPS:
        return None
    n = OPS[op]
    if op == 0x992:
        n += (".ALL." if (hi >> 15) & 1 else ".SC.") + SCOPE.get((hi >> 12) & 7, "?")
    if op == 0x98f and (lo >> 24) & 0xFF == 0xFF and (hi >> 25) & 0xF == 1:
        n += ".IVALL"
    return n


def main():
    a = ptxas_tool.options(__doc__, "sass_fences")
    if a is None:
        return 0
    elf = ptxas_tool.assemble(a, ptx(a.arch), "-O3")
    body = dict(text_sections(elf))
    print(f"| PTX | {a.arch} SASS (memory and ordering instructions) |\n|---|---|")
    for i, label in enumerate(CASES):
        code = body[f"k{i}"]
        names = [name_of(*struct.unpack_from("<QQ", code, o)) for o in range(0, len(code), 16)]
        print(f"| {label} | {', '.join(n for n in names if n)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
