#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where NVIDIA's assembler puts GTaP's runtime globals.

The source of `forkjoin.globals=packed` (docs/forkjoin.md, "The runtime's global words"): GTaP's jan2026
runtimes (84591ae) declare their queue words and termination words as `__device__` globals. This declares the
same names, types and order (declarations only: the headers' `__device__` lines, with the common header's error
code first) as PTX globals, touches each from one kernel, assembles it with `ptxas -arch=sm_XX` and prints each
global's offset in the `.nv.global` section, its 128-byte line and 32-byte sector (the symbol table of the cubin),
beside the offsets the model's packed layout uses (read from workloads/runtime/forkjoin.cpp). Needs the CUDA toolkit's ptxas (not a Debian package:
`--ptxas=PATH`, default ptxas on the PATH or /usr/local/cuda/bin/ptxas); without it it says so and exits 0.
Nothing is run on a GPU.

  tools/gtap_globals.py [--arch=sm_90] [--ptxas=PATH]
"""
import os
import re
import struct
import sys

import ptxas_tool  # tools/ptxas_tool.py, beside this script

# (name, bytes) in declaration order: runtime/common/gtap_runtime_common.cuh's error code, then the runtime's
# header (pointers are 8 bytes; the thread gq's head, tail and alloc are int[GTAP_NUM_QUEUES], 1 queue here).
RUNTIMES = {
    "thread gq (runtime/thread/gtap_runtime_thread_gq.cuh)": [
        ("d_runtime_error_code", 4), ("d_global_task_queue", 8), ("d_queue_head", 4), ("d_queue_tail", 4),
        ("d_queue_alloc", 4), ("d_task_headers", 8), ("d_task_data_bytes", 8), ("d_task_id_lists", 8),
        ("d_task_id_generated_by_queue_idx", 8), ("d_first_task_finished", 4), ("d_all_tasks_finished_flag", 4),
        ("d_active_worker_count", 4)],
    "block gq (runtime/block/gtap_runtime_block_gq.cuh)": [
        ("d_runtime_error_code", 4), ("d_global_task_queue", 8), ("d_queue_head", 4), ("d_queue_tail", 4),
        ("d_queue_alloc", 4), ("d_task_id_lists", 8), ("d_task_headers", 8), ("d_task_data_bytes", 8),
        ("d_task_id_generated", 8), ("d_first_task_finished", 4), ("d_all_tasks_finished_flag", 4),
        ("d_active_worker_count", 4)],
    "thread ws (runtime/thread/gtap_runtime_thread.cuh)": [
        ("d_runtime_error_code", 4), ("d_warp_task_queues", 8), ("d_task_headers", 8), ("d_task_data_bytes", 8),
        ("d_task_id_lists", 8), ("d_task_id_generated_by_queue_idx", 8), ("d_first_task_finished", 4),
        ("d_all_tasks_finished_flag", 4), ("d_active_worker_count", 4)],
    "block ws (runtime/block/gtap_runtime_block.cuh)": [
        ("d_runtime_error_code", 4), ("d_block_task_queues", 8), ("d_task_id_lists", 8), ("d_task_headers", 8),
        ("d_task_data_bytes", 8), ("d_task_id_generated", 8), ("d_first_task_finished", 4),
        ("d_all_tasks_finished_flag", 4), ("d_active_worker_count", 4)],
}
# (The thread Chase-Lev header, runtime/thread/gtap_runtime_thread_chaselev.cuh, declares thread ws's globals.)
# The model's words (workloads/runtime/forkjoin.cpp, Runtime::allocate) and the globals they stand for.
MEMBERS = {"done_a_": "d_all_tasks_finished_flag", "head_a_": "d_queue_head", "alloc_a_": "d_queue_alloc",
           "active_a_": "d_active_worker_count", "tail_a_": "d_queue_tail", "first_a_": "d_first_task_finished"}


def model_offsets():
    """The packed offsets the model uses, read from its source: (gq's, the deques' runtimes')."""
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads", "runtime",
                            "forkjoin.cpp")).read()
    gq = src[src.index("if (packed_ && q_ == Q::Gq)"):]
    deques = gq[gq.index("} else if (packed_)"):]
    gq, deques = gq[:gq.index("} else if (packed_)")], deques[:deques.index("} else {")]

    def parse(block):
        return {MEMBERS[m]: int(v, 16) for m, v in re.findall(r"(\w+_a_) = flags_ \+ (0x[0-9a-fA-F]+)", block)}
    return parse(gq), parse(deques)


def ptx(arch, decls):
    out = [".version 8.0", f".target {arch}", ".address_size 64"]
    for name, size in decls:
        out.append(f".global .align {size} .b{8 * size} {name};")
    body = []
    for name, size in decls:  # each read and written, so none is dropped
        r = "%d" if size == 8 else "%r"
        body.append(f"ld.global.b{8 * size} {r}1,[{name}]; add.s{8 * size} {r}1,{r}1,1; st.global.b{8 * size} [{name}],{r}1;")
    out.append(".visible .entry k(){ .reg .b32 %r<2>; .reg .b64 %d<2>; " + " ".join(body) + " ret; }")
    return "\n".join(out) + "\n"


def symbols(elf):
    """The cubin's object symbols: name -> (value, section name)."""
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    entsize, num, strndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * entsize) for i in range(num)]

    def cstr(off):
        return elf[off:elf.index(b"\0", off)].decode()
    shstr = secs[strndx][4]
    out = {}
    for _name, typ, _flags, _addr, off, size, link, _info, _align, ent in secs:
        if typ != 2:  # SHT_SYMTAB
            continue
        strtab = secs[link][4]
        for o in range(off, off + size, ent):
            st_name, st_info, _other, st_shndx, st_value, _size = struct.unpack_from("<IBBHQQ", elf, o)
            if st_info & 0xF == 1 and st_shndx < num:  # STT_OBJECT
                out[cstr(strtab + st_name)] = (st_value, cstr(shstr + secs[st_shndx][0]))
    return out


def main():
    a = ptxas_tool.options(__doc__, "gtap_globals")
    if a is None:
        return 0
    model_gq, model_deques = model_offsets()
    for label, decls in RUNTIMES.items():
        syms = symbols(ptxas_tool.assemble(a, ptx(a.arch, decls)))
        print(f"\n{label}, {a.arch}\n\n| global | bytes | offset | 128-byte line | 32-byte sector | the model's packed offset |")
        print("|---|---|---|---|---|---|")
        for name, size in sorted(decls, key=lambda d: syms[d[0]][0]):
            off, sec = syms[name]
            model_of = model_gq if " gq " in label else model_deques
            model = f"0x{model_of[name]:02x}" if name in model_of else "-"
            print(f"| {name} ({sec}) | {size} | 0x{off:02x} | {off // 128} | {off // 32} | {model} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
