#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""FineGrain synthesis flow for the hardware-worklist RTL.

Yosys 0.23 (synth, dfflibmap, abc against the OSU 0.18 um liberty from Debian's
qflow-tech-osu018, stat -liberty) then OpenSTA (critical path, Fmax).

  synth.py run BLOCK [K=V ...]     one configuration, prints its JSON
                                   (e.g. `synth.py run bank Depth=64`, `synth.py run core Lanes=8`)
  synth.py sweep                   the documented sweep -> synth/results.json, docs/synthesis.md
  synth.py add BLOCK [K=V ...]      one configuration of the sweep, rerun and merged into synth/results.json
                                   (replacing its old entry), then docs/synthesis.md rewritten
  synth.py smoke                   one small configuration, checked against synth/bounds.json
  synth.py check                   synth/results.json against synth/bounds.json
  synth.py bounds                  write synth/bounds.json from synth/results.json

High-fanout nets: Yosys 0.23's default `abc -liberty` mapping leaves them
unbuffered, and OpenSTA then reports paths several times too slow (a select
signal driving hundreds of mux inputs through one X1 gate). The flow maps with
an ABC script that ends in `buffer -p; upsize; dnsize` (fanout buffering and
gate sizing against the target delay), the way OpenROAD's flow scripts do; the
`--no-buffer` option shows the difference. ABC sees only the combinational
logic, so a flip-flop output stays unbuffered whatever its fanout (a bank's
head pointer bit drives over 400 read-mux inputs); the flow then rewrites the
netlist with a tree of BUFX4 cells on every flip-flop output above MAX_FANOUT
loads (the repair_design step of a physical-design flow) and adds their area.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTL = os.path.join(ROOT, "rtl", "hwwl")
FILES = ["hwwl_pkg.sv", "hwwl_sort_net.sv", "hwwl_bank.sv", "hwwl_wru.sv", "hwwl_icrn.sv", "hwwl_grank.sv",
         "hwwl_core.sv", "hwwl_system.sv"]
LIB_REL = "usr/share/qflow/tech/osu018/osu018_stdcells.lib"
PERIOD_NS = 10.0        # STA clock; Fmax = 1 / (period - worst slack)
MAP_TARGET_PS = 4000    # ABC delay target for buffering and sizing
OUT_LOAD_PF = 0.02      # load on every output
MAX_FANOUT = 16         # flip-flop outputs with more loads get a buffer tree
BUF_CELL = "BUFX4"

BLOCKS = {
    "bank": ("hwwl_bank", {"IdWidth": 24, "Depth": 32, "Threshold": 5}),
    "sort_net": ("hwwl_sort_net", {"N": 16, "KeyWidth": 6, "Stages": 0}),
    "wru": ("hwwl_wru", {"Lanes": 16, "CntWidth": 6, "Threshold": 5, "Interval": 10, "Scheme": 2,
                         "SortStages": 0}),
    "icrn": ("hwwl_icrn", {"NumCores": 4, "IdWidth": 24}),
    # gsorting's global ranking of all 4 x 16 banks (combinational: no clock port).
    "grank": ("hwwl_grank", {"NumBanks": 64, "CntWidth": 6}),
    "core": ("hwwl_core", {"Lanes": 16, "IdWidth": 24, "Depth": 32, "Threshold": 5, "Interval": 10, "Scheme": 2,
                           "SortStages": 0}),
    "system": ("hwwl_system", {"NumCores": 4, "Lanes": 16, "IdWidth": 24, "Depth": 32, "Threshold": 5,
                               "Interval": 10, "Scheme": 2, "SortStages": 0}),
}

SWEEP = ([("bank", {"Depth": d}) for d in (8, 16, 32, 64)] +
         [("sort_net", {"N": n}) for n in (4, 8, 16, 32)] +
         [("sort_net", {"N": 16, "Stages": 2})] +
         [("wru", {})] + [("wru", {"Scheme": 1}), ("wru", {"Scheme": 0})] + [("icrn", {})] +
         [("icrn", {"NumCores": n}) for n in (8, 16)] +
         [("core", {"Lanes": l, "SortStages": 0}) for l in (8, 16, 32)] +
         [("system", {})] +
         # gsorting: the monolithic ranking alone, its WRU, and the system at the paper's configuration.
         [("grank", {}), ("wru", {"Scheme": 3}), ("system", {"Scheme": 3})])
COMBINATIONAL = {"hwwl_grank"}  # tops without clk_i / rst_ni
SMOKE = [("sort_net", {"N": 4}), ("bank", {"Depth": 8})]


def liberty():
    deps = os.environ.get("FG_DEPS_DIR", os.path.join(ROOT, "build", "deps"))
    lib = os.path.join(deps, "osu018", LIB_REL)
    if not os.path.exists(lib):
        sys.exit(f"synth: {lib} missing: run tools/bootstrap.sh (it extracts qflow-tech-osu018)")
    return lib


def key(block, params):
    return block + "".join(f" {k}={v}" for k, v in sorted(params.items()))


CELL_RE = re.compile(r"^  (\w+) (\S+) \(\n(.*?)\n  \);\n", re.S | re.M)
PIN_RE = re.compile(r"\.(\w+)\(([^()]*)\)")
OUT_PINS = {"Y", "Q", "YC", "YS"}


def cell_area(lib, cell):
    text = open(lib).read()
    m = re.search(r"cell \(" + cell + r"\) \{.*?area : ([0-9.]+)", text, re.S)
    return float(m.group(1))


def buffer_flop_outputs(netlist, lib):
    """Buffer trees on flip-flop outputs with more than MAX_FANOUT loads.

    Rewrites the netlist in place; returns (buffers added, area added in um^2)."""
    text = open(netlist).read()
    cells = list(CELL_RE.finditer(text))
    loads = {}   # net -> [(cell index, pin)]
    flop_q = set()
    for ci, m in enumerate(cells):
        for pin, net in PIN_RE.findall(m.group(3)):
            net = net.strip()
            if pin in OUT_PINS:
                if m.group(1).startswith("DFF") and pin == "Q":
                    flop_q.add(net)
            else:
                loads.setdefault(net, []).append((ci, pin))
    rename = {}  # (cell index, pin) -> new net
    new_cells, new_wires = [], []
    count = 0
    for net in sorted(flop_q):
        sinks = loads.get(net, [])
        if len(sinks) <= MAX_FANOUT:
            continue
        # Leaves: one buffer per MAX_FANOUT sinks; then levels up to the flop.
        level = sinks
        while len(level) > MAX_FANOUT:
            groups = [level[i:i + MAX_FANOUT] for i in range(0, len(level), MAX_FANOUT)]
            nxt = []
            for g in groups:
                w = f"fgbuf_{count}"
                count += 1
                new_wires.append(w)
                for sink in g:
                    if isinstance(sink, tuple):
                        rename[sink] = w
                    else:
                        new_cells[sink] = new_cells[sink].replace("@IN@", w)
                new_cells.append(f"  {BUF_CELL} fgbuf_cell_{count} (\n    .A(@IN@),\n    .Y({w})\n  );\n")
                nxt.append(len(new_cells) - 1)
            level = nxt
        for sink in level:
            if isinstance(sink, tuple):
                continue  # at most MAX_FANOUT direct sinks stay on the flop
            new_cells[sink] = new_cells[sink].replace("@IN@", net)
    if not count:
        return 0, 0.0

    def rewrite(ci, m):
        body = m.group(3)
        def pin(p):
            new = rename.get((ci, p.group(1)))
            return f".{p.group(1)}({new})" if new else p.group(0)
        return f"  {m.group(1)} {m.group(2)} (\n" + PIN_RE.sub(pin, body) + "\n  );\n"

    out, pos = [], 0
    for ci, m in enumerate(cells):
        out.append(text[pos:m.start()])
        out.append(rewrite(ci, m))
        pos = m.end()
    out.append(text[pos:])
    text = "".join(out)
    decl = "".join(f"  wire {w};\n" for w in new_wires)
    text = text.replace("\nendmodule", "\n" + decl + "".join(new_cells) + "endmodule", 1)
    with open(netlist, "w") as f:
        f.write(text)
    return count, count * cell_area(lib, BUF_CELL)


# Work directories (Yosys script and log, netlist, OpenSTA script and log) go
# under the build tree and are removed after a successful run unless kept
# (--keep or FG_SYNTH_KEEP=1); a failed run keeps its directory and names it.
WORK_ROOT = os.environ.get("FG_SYNTH_WORK", os.path.join(ROOT, "build", "synth-work"))
KEEP = os.environ.get("FG_SYNTH_KEEP", "") not in ("", "0")


def check_params(block, params):
    """Parameters the RTL cannot take, rejected before Yosys runs."""
    depth = params.get("Depth")
    if depth is not None and (depth < 2 or depth & (depth - 1)):
        sys.exit(f"synth: {block}: Depth={depth} is not a power of two >= 2 (the bank's pointers wrap by masking)")


def rtl_names(netlist_text):
    """Flip-flop instance -> the RTL signal on its Q output (Yosys keeps the
    register's name on that net; the cells themselves get numbers)."""
    names = {}
    for inst, q in re.findall(r"DFF\w*\s+(\S+)\s*\((?:[^;]*?)\.Q\(([^)]*)\)", netlist_text, re.S):
        names[inst] = q.strip()
    return names


def critical_path(sta_text, netlist_text):
    """Start and end of the worst path, as RTL signal names where the netlist
    keeps them (flip-flops by their Q net, ports by name)."""
    names = rtl_names(netlist_text)
    ends = {}
    for kind in ("Startpoint", "Endpoint"):
        m = re.search(rf"{kind}: (\S+)", sta_text)
        if m:
            ends[kind.lower()] = names.get(m.group(1), m.group(1))
    return ends


def run(block, overrides, buffer=True, workdir=None):
    top, params = BLOCKS[block]
    params = dict(params, **overrides)
    check_params(block, params)
    lib = liberty()
    if workdir is None:
        os.makedirs(WORK_ROOT, exist_ok=True)
    work = workdir or tempfile.mkdtemp(prefix=f"{block}_", dir=WORK_ROOT)
    net = os.path.join(work, "netlist.v")
    chparams = " ".join(f"-set {k} {v}" for k, v in params.items())
    abc = (f"abc -D {MAP_TARGET_PS} -liberty {lib} -script "
           "+strash;dch,-f;map,-M,1,{D};topo;buffer,-p;upsize,{D};dnsize,{D};stime,-p" if buffer
           else f"abc -liberty {lib}")
    script = "\n".join([
        "read_verilog -DSYNTHESIS -sv " + " ".join(os.path.join(RTL, f) for f in FILES),
        f"chparam {chparams} {top}",
        f"synth -top {top} -flatten",
        f"dfflibmap -liberty {lib}",
        abc,
        "opt_clean -purge",
        f"stat -liberty {lib}",
        f"write_verilog -noattr {net}",
    ])
    ys = os.path.join(work, "synth.ys")
    with open(ys, "w") as f:
        f.write(script + "\n")
    t0 = time.time()
    y = subprocess.run(["yosys", "-q", "-l", os.path.join(work, "yosys.log"), ys], capture_output=True, text=True)
    ylog = open(os.path.join(work, "yosys.log")).read()
    if y.returncode != 0:
        sys.exit(f"synth: yosys failed for {key(block, params)}; see {work}/yosys.log")
    area = float(re.findall(r"Chip area for module .*?: ([0-9.]+)", ylog)[-1])
    flop_bufs, buf_area = buffer_flop_outputs(net, lib) if buffer else (0, 0.0)
    area += buf_area
    stat = ylog[ylog.rfind("Printing statistics"):]
    cells = int(re.findall(r"Number of cells:\s+(\d+)", stat)[-1])
    flops = sum(int(n) for c, n in re.findall(r"^\s+(DFF\w+)\s+(\d+)", stat, re.M))
    tcl = os.path.join(work, "sta.tcl")
    # A block without a clock port (hwwl_grank) is timed input to output
    # against a virtual clock of the same period.
    clocked = top not in COMBINATIONAL
    with open(tcl, "w") as f:
        f.write("\n".join([
            f"read_liberty {lib}", f"read_verilog {net}", f"link_design {top}"] + ([
                f"create_clock -name clk -period {PERIOD_NS} [get_ports clk_i]",
                "set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk_i]]"] if clocked else [
                f"create_clock -name clk -period {PERIOD_NS}",
                "set_input_delay 0 -clock clk [all_inputs]"]) + [
            "set_output_delay 0 -clock clk [all_outputs]",
            f"set_load {OUT_LOAD_PF} [all_outputs]"] + (["set_false_path -from [get_ports rst_ni]"] if clocked else []) + [
            "report_checks -path_delay max -digits 3",
            "exit"]) + "\n")
    s = subprocess.run(["sta", "-no_splash", "-exit", tcl], capture_output=True, text=True)
    with open(os.path.join(work, "sta.log"), "w") as f:
        f.write(s.stdout + s.stderr)
    slacks = [float(x) for x in re.findall(r"(-?[0-9.]+)\s+slack \((?:MET|VIOLATED)\)", s.stdout)]
    if not slacks:
        sys.exit(f"synth: OpenSTA gave no slack for {key(block, params)}; see {work}/sta.log")
    crit = PERIOD_NS - min(slacks)
    path = critical_path(s.stdout, open(net).read())
    if workdir is None and not KEEP:
        shutil.rmtree(work, ignore_errors=True)
    return {"block": block, "top": top, "params": params, "key": key(block, overrides),
            "area_um2": area, "cells": cells + flop_bufs, "flops": flops, "flop_buffers": flop_bufs,
            "critical_path_ns": round(crit, 3),
            "fmax_mhz": round(1000.0 / crit, 1), "critical_from": path.get("startpoint", "?"),
            "critical_to": path.get("endpoint", "?"), "buffered": buffer, "seconds": round(time.time() - t0, 1)}


def load(path):
    with open(path) as f:
        return json.load(f)


def check(results, bounds, tol=0.05):
    bad = []
    for r in results:
        b = bounds.get(r["key"])
        if not b:
            bad.append(f"{r['key']}: no bound in synth/bounds.json")
            continue
        if r["area_um2"] > b["area_um2"] * (1 + tol):
            bad.append(f"{r['key']}: area {r['area_um2']:.0f} um^2 > bound {b['area_um2']:.0f} + {tol:.0%}")
        if r["fmax_mhz"] < b["fmax_mhz"] * (1 - tol):
            bad.append(f"{r['key']}: Fmax {r['fmax_mhz']} MHz < bound {b['fmax_mhz']} - {tol:.0%}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["run", "add", "sweep", "smoke", "check", "bounds"])
    ap.add_argument("block", nargs="?")
    ap.add_argument("params", nargs="*")
    ap.add_argument("--no-buffer", action="store_true", help="plain abc mapping (to show the fanout trap)")
    ap.add_argument("--keep", action="store_true", help="keep the work directories (under build/synth-work)")
    ap.add_argument("--results", default=os.path.join(ROOT, "synth", "results.json"))
    ap.add_argument("--bounds", default=os.path.join(ROOT, "synth", "bounds.json"))
    a = ap.parse_args()
    global KEEP
    KEEP = KEEP or a.keep
    if a.cmd in ("run", "add"):
        if a.block not in BLOCKS:
            sys.exit(f"synth: unknown block '{a.block}' (one of {', '.join(BLOCKS)})")
        over = {}
        for p in a.params:
            k, _, v = p.partition("=")
            if k not in BLOCKS[a.block][1] or not v.isdigit():
                sys.exit(f"synth: bad parameter '{p}' for {a.block}")
            over[k] = int(v)
        if a.cmd == "run":
            print(json.dumps(run(a.block, over, buffer=not a.no_buffer), indent=2))
            return
        # add: only configurations of the documented sweep, so that a full
        # sweep regenerates the same file.
        if (a.block, over) not in SWEEP:
            sys.exit(f"synth: {key(a.block, over)} is not in the sweep (synth.py SWEEP): add it there first")
        r = run(a.block, over)
        data = load(a.results)
        order = [key(b, o) for b, o in SWEEP]
        res = [x for x in data["results"] if x["key"] != r["key"]] + [r]
        data["results"] = sorted(res, key=lambda x: order.index(x["key"]) if x["key"] in order else len(order))
        with open(a.results, "w") as f:
            json.dump(data, f, indent=2)
        print(f"{r['key']:<40} {r['area_um2']:>12.0f} um^2 {r['flops']:>6} flops {r['fmax_mhz']:>7.1f} MHz "
              f"({r['seconds']} s)")
        import report
        report.write(data, os.path.join(ROOT, "docs", "synthesis.md"))
    elif a.cmd == "sweep":
        # The fanout trap, measured first: the 8-lane core without buffering (ABC's
        # default script on the 16-lane core runs for over ten minutes).
        nb = run("core", {"Lanes": 8}, buffer=False)
        nb["key"] += " (no buffering)"
        print(f"{nb['key']:<40} {nb['area_um2']:>12.0f} um^2 {nb['fmax_mhz']:>7.1f} MHz", flush=True)
        results = []
        for block, over in SWEEP:
            r = run(block, over)
            print(f"{r['key']:<40} {r['area_um2']:>12.0f} um^2 {r['flops']:>6} flops {r['fmax_mhz']:>7.1f} MHz "
                  f"({r['seconds']} s)", flush=True)
            results.append(r)
            with open(a.results, "w") as f:  # saved as it goes
                json.dump({"liberty": "OSU 0.18 um (qflow-tech-osu018)", "period_ns": PERIOD_NS,
                           "results": results, "unbuffered_core": nb}, f, indent=2)
        import report
        report.write(load(a.results), os.path.join(ROOT, "docs", "synthesis.md"))
        if os.path.exists(a.bounds):
            bad = check(results, load(a.bounds))
            for b in bad:
                print("REGRESSION: " + b)
            sys.exit(1 if bad else 0)
    elif a.cmd == "smoke":
        bounds = load(a.bounds)
        results = [run(b, o) for b, o in SMOKE]
        for r in results:
            print(f"{r['key']}: {r['area_um2']:.0f} um^2, {r['flops']} flops, Fmax {r['fmax_mhz']} MHz "
                  f"(critical path {r['critical_from']} -> {r['critical_to']})")
        bad = check(results, bounds)
        for b in bad:
            print("REGRESSION: " + b)
        print(f"{len(results) - len(bad)} passed, {len(bad)} failed")
        sys.exit(1 if bad else 0)
    elif a.cmd == "check":
        bad = check(load(a.results)["results"], load(a.bounds))
        for b in bad:
            print("REGRESSION: " + b)
        sys.exit(1 if bad else 0)
    elif a.cmd == "bounds":
        res = load(a.results)["results"]
        with open(a.bounds, "w") as f:
            json.dump({r["key"]: {"area_um2": r["area_um2"], "fmax_mhz": r["fmax_mhz"]} for r in res}, f, indent=2,
                      sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
