#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Dynamic instruction / load / store counts of the firmware steps (README.md).

x86-64: the native harness under `valgrind --tool=lackey --trace-mem=yes`.
AArch64, RV64: a small interpreter of the statically linked freestanding
harness, executing the disassembly that llvm-objdump prints (-M no-aliases).
It implements just the instructions clang emits for these files and stops on
anything else. Its results are checked against the native run (the
harness returns a checksum of the state the steps changed).

Counting: every instruction executed whose address is inside a function of
firmware_steps.o is charged to that function; a memory instruction counts as
one load or one store (ldp/stp: one instruction, two words), classed by its
address: dev = device memory (channel words, done counts, packet ring,
doorbell, restart channel), priv = the firmware's own state, stack.
"""
import os
import re
import struct
import subprocess
import sys
from collections import defaultdict

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
SENTINEL = 0xDEAD0000
STACK_TOP = 0x7F000000
STACK_SIZE = 1 << 20


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True).stdout


def symbols(exe, nm="llvm-nm"):
    syms = {}
    for line in sh(f"{nm} -S --defined-only {exe}").splitlines():
        p = line.split()
        if len(p) == 4:
            syms[p[3]] = (int(p[0], 16), int(p[1], 16))
    return syms


def firmware_functions(obj, nm="llvm-nm"):
    return [l.split()[-1] for l in sh(f"{nm} --defined-only {obj}").splitlines() if l.split()[-2] in "Tt"]


class Account:
    """Per-function counts: instructions, load/store instructions by class."""

    def __init__(self, exe, fw_obj, nm="llvm-nm"):
        s = symbols(exe, nm)
        self.fns = [(s[f][0], s[f][0] + s[f][1], f) for f in firmware_functions(fw_obj, nm)]
        self.dev = (s["dev"][0], s["dev"][0] + s["dev"][1])
        self.priv = (s["fwst"][0], s["fwst"][0] + s["fwst"][1])
        self.c = defaultdict(lambda: defaultdict(int))

    def fn_at(self, pc):
        for a, b, f in self.fns:
            if a <= pc < b:
                return f
        return None

    def cls(self, addr):
        if self.dev[0] <= addr < self.dev[1]:
            return "dev"
        if self.priv[0] <= addr < self.priv[1]:
            return "priv"
        return "stack"


# ---------------------------------------------------------------- memory / ELF
class Memory:
    def __init__(self, exe):
        data = open(exe, "rb").read()
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        self.regions = []
        for i in range(phnum):
            ptype, flags, off, vaddr, paddr, filesz, memsz, align = struct.unpack_from(
                "<IIQQQQQQ", data, phoff + i * phentsize)
            if ptype == 1:
                buf = bytearray(memsz)
                buf[:filesz] = data[off:off + filesz]
                self.regions.append((vaddr, vaddr + memsz, buf))
        self.regions.append((STACK_TOP - STACK_SIZE, STACK_TOP, bytearray(STACK_SIZE)))

    def find(self, addr, size):
        for a, b, buf in self.regions:
            if a <= addr and addr + size <= b:
                return buf, addr - a
        raise RuntimeError(f"memory access out of range: {addr:#x}+{size}")

    def read(self, addr, size, signed=False):
        buf, o = self.find(addr, size)
        return int.from_bytes(buf[o:o + size], "little", signed=signed)

    def write(self, addr, size, val):
        buf, o = self.find(addr, size)
        buf[o:o + size] = (val & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def disassemble(exe):
    """address -> (mnemonic, operand string, encoding), from llvm-objdump -M no-aliases."""
    prog = {}
    for line in sh(f"llvm-objdump -d -M no-aliases {exe}").splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S+)\s*(.*)$", line)
        if not m:
            continue
        ops = re.sub(r"\s*<[^>]*>", "", m.group(4)).split("//")[0].strip()
        word = int.from_bytes(bytes.fromhex(m.group(2).replace(" ", "")), "little")
        prog[int(m.group(1), 16)] = (m.group(3), ops, word)
    return prog


def split_ops(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def imm(tok):
    tok = tok.strip().lstrip("#")
    return int(tok, 0)


def sx(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


# ---------------------------------------------------------------- AArch64
class A64:
    CONDS = {
        "eq": lambda n, z, c, v: z, "ne": lambda n, z, c, v: not z,
        "hs": lambda n, z, c, v: c, "cs": lambda n, z, c, v: c,
        "lo": lambda n, z, c, v: not c, "cc": lambda n, z, c, v: not c,
        "mi": lambda n, z, c, v: n, "pl": lambda n, z, c, v: not n,
        "vs": lambda n, z, c, v: v, "vc": lambda n, z, c, v: not v,
        "hi": lambda n, z, c, v: c and not z, "ls": lambda n, z, c, v: not (c and not z),
        "ge": lambda n, z, c, v: n == v, "lt": lambda n, z, c, v: n != v,
        "gt": lambda n, z, c, v: not z and n == v, "le": lambda n, z, c, v: z or n != v,
        "al": lambda n, z, c, v: True,
    }

    def __init__(self, exe, mem, acct):
        self.mem, self.acct = mem, acct
        self.prog = disassemble(exe)
        self.x = [0] * 33  # x0-x30, 31 = sp, 32 = zr
        self.nzcv = (False, False, False, False)

    @staticmethod
    def reg(t):
        t = t.strip()
        if t in ("sp", "wsp"):
            return (31, t == "sp")
        if t in ("xzr", "wzr"):
            return (32, t == "xzr")
        m = re.fullmatch(r"([xw])(\d+)", t)
        if not m:
            return None
        return (int(m.group(2)), m.group(1) == "x")

    def rd(self, r):
        i, w64 = r
        if i == 32:
            return 0
        return self.x[i] if w64 else self.x[i] & M32

    def wr(self, r, v):
        i, w64 = r
        if i == 32:
            return
        self.x[i] = v & (M64 if w64 else M32)

    def addflags(self, a, b, carry, bits):
        m = (1 << bits) - 1
        u = (a & m) + (b & m) + carry
        s = sx(a, bits) + sx(b, bits) + carry
        res = u & m
        self.nzcv = (bool(res >> (bits - 1)), res == 0, u > m, sx(res, bits) != s)
        return res

    def shift(self, v, kind, amt, bits):
        m = (1 << bits) - 1
        if kind == "lsl":
            return (v << amt) & m
        if kind == "lsr":
            return (v & m) >> amt
        if kind == "asr":
            return (sx(v, bits) >> amt) & m
        if kind == "ror":
            v &= m
            return ((v >> amt) | (v << (bits - amt))) & m
        raise RuntimeError(kind)

    def extend(self, v, kind, amt, bits):
        if kind in ("uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx"):
            n = {"b": 8, "h": 16, "w": 32, "x": 64}[kind[3]]
            v = v & ((1 << n) - 1)
            if kind[0] == "s":
                v = sx(v, n)
        return (v << amt) & ((1 << bits) - 1)

    def operand2(self, toks, bits):
        """The second source: #imm[, lsl #12] | Rm[, shift #n] | Rm, ext[ #n]."""
        t = toks[0]
        if t.startswith("#"):
            v = imm(t)
            if len(toks) > 1:
                k, a = toks[1].split()
                v <<= imm(a)
            return v & ((1 << bits) - 1)
        v = self.rd(self.reg(t))
        if len(toks) > 1:
            p = toks[1].split()
            amt = imm(p[1]) if len(p) > 1 else 0
            if p[0] in ("lsl", "lsr", "asr", "ror"):
                return self.shift(v, p[0], amt, bits)
            return self.extend(v, p[0], amt, bits)
        return v

    def address(self, toks, i, size=1, word=0):
        """toks[i] is the [..] operand; returns (address, writeback-reg, new base).
        Register offsets: the shift comes from the encoding's S bit (bit 12),
        as llvm-objdump -M no-aliases prints it wrongly (`lsl #1` for S=0)."""
        t = toks[i]
        pre = t.endswith("!")
        inner = split_ops(t.rstrip("!").strip()[1:-1])
        base = self.reg(inner[0])
        b = self.rd(base)
        off = 0
        if len(inner) > 1:
            if inner[1].startswith("#"):
                off = imm(inner[1])
            else:
                v = self.rd(self.reg(inner[1]))
                amt = (size.bit_length() - 1) if (word >> 12) & 1 else 0
                kind = inner[2].split()[0] if len(inner) > 2 else "lsl"
                off = self.extend(v, kind, amt, 64) if kind != "lsl" else (v << amt) & M64
        if pre:
            a = (b + off) & M64
            return a, base, a
        if len(toks) > i + 1:  # post-index
            return b, base, (b + imm(toks[i + 1])) & M64
        return (b + off) & M64, None, None

    def mem_access(self, kind, addr, size, val=None, signed=False):
        if self.cur:
            self.accesses.append((kind, addr))
        if kind == "ld":
            return self.mem.read(addr, size, signed)
        self.mem.write(addr, size, val)

    def step(self, pc):
        mn, ops, word = self.prog[pc]
        t = split_ops(ops)
        nxt = pc + 4
        base = mn.split(".")[0]
        if mn in ("hint", "nop"):
            pass
        elif base in ("add", "adds", "sub", "subs"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            a = self.rd(self.reg(t[1]))
            b = self.operand2(t[2:], bits)
            if base.startswith("sub"):
                r = self.addflags(a, (~b) & ((1 << bits) - 1), 1, bits) if base == "subs" else (a - b)
            else:
                r = self.addflags(a, b, 0, bits) if base == "adds" else (a + b)
            self.wr(d, r)
        elif base in ("and", "ands", "orr", "eor", "bic", "bics", "orn", "eon"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            m = (1 << bits) - 1
            a = self.rd(self.reg(t[1]))
            b = self.operand2(t[2:], bits)
            if base in ("bic", "bics", "orn", "eon"):
                b = ~b & m
            r = {"and": a & b, "ands": a & b, "bic": a & b, "bics": a & b, "orr": a | b, "orn": a | b,
                 "eor": a ^ b, "eon": a ^ b}[base] & m
            if base in ("ands", "bics"):
                self.nzcv = (bool(r >> (bits - 1)), r == 0, False, False)
            self.wr(d, r)
        elif base in ("mov", "movz"):
            d = self.reg(t[0])
            if t[1].startswith("#"):
                v = imm(t[1])
                if len(t) > 2:
                    v <<= imm(t[2].split()[1])
                self.wr(d, v)
            else:
                self.wr(d, self.rd(self.reg(t[1])))
        elif base == "movn":
            d = self.reg(t[0])
            v = imm(t[1]) << (imm(t[2].split()[1]) if len(t) > 2 else 0)
            self.wr(d, ~v)
        elif base == "movk":
            d = self.reg(t[0])
            s = imm(t[2].split()[1]) if len(t) > 2 else 0
            old = self.rd(d)
            self.wr(d, (old & ~(0xFFFF << s)) | (imm(t[1]) << s))
        elif base in ("lsl", "lsr", "asr", "ror"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            a = self.rd(self.reg(t[1]))
            amt = imm(t[2]) if t[2].startswith("#") else self.rd(self.reg(t[2])) % bits
            self.wr(d, self.shift(a, base, amt, bits))
        elif base in ("ubfm", "sbfm", "bfm", "ubfx", "sbfx", "bfi", "bfxil", "ubfiz", "sbfiz"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            a = self.rd(self.reg(t[1]))
            p, q = imm(t[2]), imm(t[3])
            if base in ("ubfx", "sbfx", "bfxil"):  # lsb, width
                immr, imms = p, p + q - 1
            elif base in ("bfi", "ubfiz", "sbfiz"):
                immr, imms = (-p) % bits, q - 1
            else:
                immr, imms = p, q
            kind = {"ubfx": "u", "ubfiz": "u", "ubfm": "u", "sbfx": "s", "sbfiz": "s", "sbfm": "s"}.get(base, "b")
            m = (1 << bits) - 1
            if imms >= immr:  # extract bits immr..imms to bit 0
                width = imms - immr + 1
                field = (a >> immr) & ((1 << width) - 1)
                pos = 0
            else:  # insert bits 0..imms at bit bits-immr
                width = imms + 1
                field = a & ((1 << width) - 1)
                pos = bits - immr
            if kind == "u":
                r = field << pos
            elif kind == "s":
                r = (sx(field, width) << pos) & m
            else:
                mask = ((1 << width) - 1) << pos
                r = (self.rd(d) & ~mask) | (field << pos)
            self.wr(d, r & m)
        elif base in ("sxtw", "sxth", "sxtb", "uxtb", "uxth"):
            d = self.reg(t[0])
            self.wr(d, self.extend(self.rd(self.reg(t[1])), base, 0, 64 if d[1] else 32))
        elif base in ("madd", "msub", "mul", "umaddl", "smaddl", "umull", "smull", "umulh"):
            d = self.reg(t[0])
            a, b = self.rd(self.reg(t[1])), self.rd(self.reg(t[2]))
            if base in ("smaddl", "smull"):
                a, b = sx(a, 32), sx(b, 32)
            if base == "umulh":
                self.wr(d, (a * b) >> 64)
            else:
                acc = self.rd(self.reg(t[3])) if len(t) > 3 else 0
                self.wr(d, acc - a * b if base == "msub" else acc + a * b)
        elif base in ("udiv", "sdiv"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            a, b = self.rd(self.reg(t[1])), self.rd(self.reg(t[2]))
            if base == "sdiv":
                a, b = sx(a, bits), sx(b, bits)
            self.wr(d, 0 if b == 0 else int(a / b) if base == "sdiv" else a // b)
        elif base in ("csel", "csinc", "csinv", "csneg"):
            d = self.reg(t[0])
            bits = 64 if d[1] else 32
            if self.CONDS[t[3]](*self.nzcv):
                r = self.rd(self.reg(t[1]))
            else:
                r = self.rd(self.reg(t[2]))
                r = {"csel": r, "csinc": r + 1, "csinv": ~r, "csneg": -r}[base]
            self.wr(d, r)
        elif base in ("ccmp", "ccmn"):
            n = self.reg(t[0])
            bits = 64 if n[1] else 32
            if self.CONDS[t[3]](*self.nzcv):
                a = self.rd(n)
                b = imm(t[1]) if t[1].startswith("#") else self.rd(self.reg(t[1]))
                if base == "ccmp":
                    self.addflags(a, (~b) & ((1 << bits) - 1), 1, bits)
                else:
                    self.addflags(a, b, 0, bits)
            else:
                f = imm(t[2])
                self.nzcv = (bool(f & 8), bool(f & 4), bool(f & 2), bool(f & 1))
        elif base == "adrp":
            self.wr(self.reg(t[0]), int(t[1], 0))
        elif base == "adr":
            self.wr(self.reg(t[0]), pc + imm(t[1]) if t[1].startswith("#") else int(t[1], 0))
        elif base in ("ldr", "ldrb", "ldrh", "ldrsw", "ldrsb", "ldrsh", "ldur", "ldurb", "ldurh", "ldursw",
                      "ldar", "ldarb", "ldarh", "ldapr", "str", "strb", "strh", "stur", "sturb", "sturh",
                      "stlr", "stlrb", "stlrh"):
            d = self.reg(t[0])
            if d is None:
                raise RuntimeError(f"FP/SIMD register at {pc:#x}: {mn} {ops}")
            size = 1 if base.endswith("b") else 2 if base.endswith("h") else 4 if (base.endswith("sw") or not d[1]) else 8
            addr, wb, nb = self.address(t, 1, size, word)
            if base.startswith(("ld",)):
                signed = base in ("ldrsw", "ldrsb", "ldrsh", "ldursw")
                v = self.mem_access("ld", addr, size, signed=signed)
                self.wr(d, v)
            else:
                self.mem_access("st", addr, size, self.rd(d))
            if wb:
                self.wr(wb, nb)
        elif base in ("ldp", "stp", "ldpsw"):
            r1, r2 = self.reg(t[0]), self.reg(t[1])
            if r1 is None or r2 is None:
                raise RuntimeError(f"FP/SIMD register at {pc:#x}: {mn} {ops}")
            size = 8 if r1[1] and base != "ldpsw" else 4
            addr, wb, nb = self.address(t, 2)
            if base == "stp":
                self.mem_access("st", addr, size, self.rd(r1))
                self.mem_access("st", addr + size, size, self.rd(r2))
            else:
                s = base == "ldpsw"
                v1 = self.mem_access("ld", addr, size, signed=s)
                v2 = self.mem_access("ld", addr + size, size, signed=s)
                self.wr(r1, v1)
                self.wr(r2, v2)
            if wb:
                self.wr(wb, nb)
        elif mn == "b":
            nxt = int(t[0], 0)
        elif mn.startswith("b."):
            if self.CONDS[mn[2:]](*self.nzcv):
                nxt = int(t[0], 0)
        elif mn == "bl":
            self.x[30] = pc + 4
            nxt = int(t[0], 0)
        elif mn == "blr":
            self.x[30] = pc + 4
            nxt = self.rd(self.reg(t[0]))
        elif mn == "br":
            nxt = self.rd(self.reg(t[0]))
        elif mn == "ret":
            nxt = self.rd(self.reg(t[0])) if t else self.x[30]
        elif mn in ("cbz", "cbnz"):
            z = self.rd(self.reg(t[0])) == 0
            if z == (mn == "cbz"):
                nxt = int(t[1], 0)
        elif mn in ("tbz", "tbnz"):
            bit = (self.rd(self.reg(t[0])) >> imm(t[1])) & 1
            if (bit == 0) == (mn == "tbz"):
                nxt = int(t[2], 0)
        elif mn in ("dmb", "dsb", "isb"):
            pass
        else:
            raise RuntimeError(f"unimplemented at {pc:#x}: {mn} {ops}")
        return nxt

    def call(self, entry, args):
        for i, a in enumerate(args):
            self.x[i] = a & M64
        self.x[31] = STACK_TOP - 64
        self.x[30] = SENTINEL
        return run(self, entry, lambda: self.x[0])


# ---------------------------------------------------------------- RV64
RV_REGS = ["zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"] + [f"a{i}" for i in range(8)] + \
    [f"s{i}" for i in range(2, 12)] + [f"t{i}" for i in range(3, 7)]
RV_IDX = {n: i for i, n in enumerate(RV_REGS)}
RV_IDX["fp"] = 8


class RV64:
    def __init__(self, exe, mem, acct):
        self.mem, self.acct = mem, acct
        self.prog = disassemble(exe)
        self.x = [0] * 32

    def r(self, n):
        return self.x[RV_IDX[n.strip()]]

    def w(self, n, v):
        i = RV_IDX[n.strip()]
        if i:
            self.x[i] = v & M64

    def mem_access(self, kind, addr, size, val=None, signed=False):
        if self.cur:
            self.accesses.append((kind, addr))
        if kind == "ld":
            return self.mem.read(addr, size, signed)
        self.mem.write(addr, size, val)

    def step(self, pc):
        mn, ops, _ = self.prog[pc]
        t = split_ops(ops)
        nxt = pc + 4
        R, W = self.r, self.w
        s64 = lambda v: sx(v, 64)
        w32 = lambda v: sx(v, 32) & M64
        LD = {"lb": (1, True), "lh": (2, True), "lw": (4, True), "ld": (8, True), "lbu": (1, False),
              "lhu": (2, False), "lwu": (4, False)}
        ST = {"sb": 1, "sh": 2, "sw": 4, "sd": 8}
        if mn in LD:
            m = re.fullmatch(r"(-?\d+)\((\w+)\)", t[1])
            size, sg = LD[mn]
            W(t[0], self.mem_access("ld", (R(m.group(2)) + int(m.group(1))) & M64, size, signed=sg))
        elif mn in ST:
            m = re.fullmatch(r"(-?\d+)\((\w+)\)", t[1])
            self.mem_access("st", (R(m.group(2)) + int(m.group(1))) & M64, ST[mn], R(t[0]))
        elif mn == "lui":
            W(t[0], sx(imm(t[1]) << 12, 32))
        elif mn == "auipc":
            W(t[0], pc + sx(imm(t[1]) << 12, 32))
        elif mn in ("addi", "slti", "sltiu", "xori", "ori", "andi", "slli", "srli", "srai",
                    "addiw", "slliw", "srliw", "sraiw"):
            a, i = R(t[1]), imm(t[2])
            v = {"addi": lambda: a + i, "slti": lambda: int(s64(a) < i), "sltiu": lambda: int(a < (i & M64)),
                 "xori": lambda: a ^ (i & M64), "ori": lambda: a | (i & M64), "andi": lambda: a & (i & M64),
                 "slli": lambda: a << i, "srli": lambda: a >> i, "srai": lambda: s64(a) >> i,
                 "addiw": lambda: w32(a + i), "slliw": lambda: w32(a << i), "srliw": lambda: w32((a & M32) >> i),
                 "sraiw": lambda: w32(sx(a, 32) >> i)}[mn]()
            W(t[0], v)
        elif mn in ("add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and", "addw", "subw",
                    "sllw", "srlw", "sraw", "mul", "mulh", "mulhu", "mulhsu", "div", "divu", "rem", "remu",
                    "mulw", "divw", "divuw", "remw", "remuw"):
            a, b = R(t[1]), R(t[2])
            if mn == "add": v = a + b
            elif mn == "sub": v = a - b
            elif mn == "sll": v = a << (b & 63)
            elif mn == "slt": v = int(s64(a) < s64(b))
            elif mn == "sltu": v = int(a < b)
            elif mn == "xor": v = a ^ b
            elif mn == "srl": v = a >> (b & 63)
            elif mn == "sra": v = s64(a) >> (b & 63)
            elif mn == "or": v = a | b
            elif mn == "and": v = a & b
            elif mn == "addw": v = w32(a + b)
            elif mn == "subw": v = w32(a - b)
            elif mn == "sllw": v = w32(a << (b & 31))
            elif mn == "srlw": v = w32((a & M32) >> (b & 31))
            elif mn == "sraw": v = w32(sx(a, 32) >> (b & 31))
            elif mn == "mul": v = a * b
            elif mn == "mulh": v = (s64(a) * s64(b)) >> 64
            elif mn == "mulhu": v = (a * b) >> 64
            elif mn == "mulhsu": v = (s64(a) * b) >> 64
            elif mn == "mulw": v = w32(a * b)
            elif mn in ("divu", "remu"): v = (M64 if b == 0 else a // b) if mn == "divu" else (a if b == 0 else a % b)
            elif mn in ("divuw", "remuw"):
                a32, b32 = a & M32, b & M32
                v = w32((M32 if b32 == 0 else a32 // b32) if mn == "divuw" else (a32 if b32 == 0 else a32 % b32))
            else:
                raise RuntimeError(f"unimplemented at {pc:#x}: {mn} {ops}")
            W(t[0], v)
        elif mn in ("beq", "bne", "blt", "bge", "bltu", "bgeu"):
            a, b = R(t[0]), R(t[1])
            take = {"beq": a == b, "bne": a != b, "blt": s64(a) < s64(b), "bge": s64(a) >= s64(b),
                    "bltu": a < b, "bgeu": a >= b}[mn]
            if take:
                nxt = int(t[2], 0)
        elif mn == "jal":
            W(t[0], pc + 4)
            nxt = int(t[1], 0)
        elif mn == "jalr":
            m = re.fullmatch(r"(-?\d+)\((\w+)\)", t[1])
            target = (R(m.group(2)) + int(m.group(1))) & ~1 & M64
            W(t[0], pc + 4)
            nxt = target
        elif mn == "fence":
            pass
        else:
            raise RuntimeError(f"unimplemented at {pc:#x}: {mn} {ops}")
        return nxt

    def call(self, entry, args):
        for i, a in enumerate(args):
            self.x[10 + i] = a & M64
        self.x[2] = STACK_TOP - 64
        self.x[1] = SENTINEL
        return run(self, entry, lambda: self.x[10])


def run(cpu, entry, result, limit=50_000_000):
    acct = cpu.acct
    fn_cache = {}
    pc, n = entry, 0
    while pc != SENTINEL:
        f = fn_cache.get(pc, 0)
        if f == 0:
            f = fn_cache[pc] = acct.fn_at(pc)
        cpu.cur = f
        cpu.accesses = []
        pc = cpu.step(pc)
        if f:
            c = acct.c[f]
            c["instr"] += 1
            if cpu.accesses:
                kinds = {k for k, _ in cpu.accesses}
                for k in kinds:
                    a = next(a for kk, a in cpu.accesses if kk == k)
                    c[k] += 1
                    c[f"{k}_{acct.cls(a)}"] += 1
        n += 1
        if n > limit:
            raise RuntimeError("instruction limit")
    return sx(result() & M32, 32)


def interpret(isa, exe, fw_obj, args):
    acct = Account(exe, fw_obj)
    mem = Memory(exe)
    cpu = (A64 if isa.startswith("a64") else RV64)(exe, mem, acct)
    entry = symbols(exe)["run_scenario"][0]
    res = cpu.call(entry, args)
    return res, acct.c


# ---------------------------------------------------------------- x86-64 (valgrind lackey)
def lackey_counts(exe, fw_obj, args, tmp):
    acct = Account(exe, fw_obj, nm="nm")
    log = f"{tmp}.lackey"
    res = subprocess.run(["valgrind", "--tool=lackey", "--trace-mem=yes", f"--log-file={log}", exe] +
                         [str(a) for a in args], capture_output=True, text=True, check=True)
    result = int(res.stdout.strip())
    lo = min(a for a, _, _ in acct.fns)
    hi = max(b for _, b, _ in acct.fns)
    cur, kinds = None, {}

    def flush():
        if cur:
            c = acct.c[cur]
            c["instr"] += 1
            for k, a in kinds.items():
                c[k] += 1
                c[f"{k}_{acct.cls(a)}"] += 1

    with open(log) as fh:
        for line in fh:
            if line.startswith("I"):
                flush()
                kinds = {}
                a = int(line[3:].split(",")[0], 16)
                cur = acct.fn_at(a) if lo <= a < hi else None
            elif cur and line[:2] in (" L", " S", " M"):
                a = int(line[3:].split(",")[0], 16)
                k = line[1]
                if k in "LM":
                    kinds.setdefault("ld", a)
                if k in "SM":
                    kinds.setdefault("st", a)
        flush()
    os.remove(log)
    return result, acct.c


def counts(isa, exe, fw_obj, args, tmp="out/run"):
    if isa.startswith("x86"):
        return lackey_counts(exe, fw_obj, args, tmp)
    return interpret(isa, exe, fw_obj, args)


if __name__ == "__main__":
    isa, exe, obj = sys.argv[1:4]
    args = [int(a) for a in sys.argv[4:7]]
    res, c = counts(isa, exe, obj, args)
    print("result", res)
    for f, d in sorted(c.items()):
        print(f, dict(d))
