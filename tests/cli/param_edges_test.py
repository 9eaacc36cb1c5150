#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every parameter at its edges, generated from `fgsim params --json` (no case written by hand):
each parameter alone, on a small run of a workload that reads it, at its declared minimum and
maximum and one past each (unsigned and signed: min - 1, max + 1; real: a step of at least 1
beyond), every choice of an enum and one that is not, both values of a bool and one that is
not. String parameters (file names, lists) are left to their own cases.

Required of every run: exit 0, 2 or 3 (never 1, a signal or a hang: at most SETUP_S seconds of
wall time besides the run's sim.max_host_seconds); exit 0 with nothing on standard error; exit 2
with one line "fgsim: error: ..."; exit 3 with a first line "fgsim: simulated fault: ...". A
value past the declared range must be exit 2 with the one line naming the parameter.

Which run reads a parameter is found, not listed: CONTEXTS are small runs of every workload on
each of its mechanisms; a parameter's context is the first (its own workload's runs first) in
which setting it to its default value is accepted (it runs, to its end or until the host-time
guard stops it; fgsim refuses a key that does not apply, docs/reliability.md "one rule").
A parameter no context accepts is a failure: a new workload or mechanism needs a context here
(one line), its parameters then come for free.

Every run gets sim.max_host_seconds=HOST_S and sim.max_memory=2G (unless that is the parameter
under test): a value that makes a run long or large is cut short (exit 2), which the contract
allows.

    param_edges_test.py [--jobs N] [--only PREFIX] [--log FILE.tsv] [--sample M [--seed S]]
                        [--asan-fiber-warning] FGSIM

--sample M: a random one in M of the parameters (all their edges), drawn with --seed (default: the
clock; printed, so a finding can be rerun); the sanitizer job's way of keeping its time.
--asan-fiber-warning (the sanitizer job): ignore ASan's three-line warning about exceptions on
SystemC thread stacks (google/sanitizers#189); a sanitizer report still fails the run.
"""
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

import asan_warning

HOST_S = 1.0  # sim.max_host_seconds of every run
SETUP_S = 30  # wall time a run may take besides HOST_S (setup, report)
# Set by --asan-fiber-warning (tools/sanitize.sh): the lines of ASan's warning, dropped.
ASAN_FIBER_WARNING = None
G2 = ["--set", "gpu.cus=2"]

# Machine parameters (their names start so) are also run at their declared minimum and maximum
# on one run of each mechanism (MECHANISM_RUNS, indexes into CONTEXTS): a machine's edge that
# only a mechanism cannot take (gpu.cu.simd_width=1 gave the hardware worklist one bank per core:
# an internal error) shows there.
MACHINE = ("gpu.", "mem.", "kernel.")

# Small runs, cheapest first within a workload; {tmp} is a scratch directory.
CONTEXTS = [
    ["vecadd", "--set", "vecadd.n=1024"],
    ["vecadd", "--set", "vecadd.n=1024", "--trace", "{tmp}/t.json"],
    # Address translation's other keys need its L1 TLBs (gpu.tlb.*).
    ["vecadd", "--set", "vecadd.n=1024", "--set", "gpu.tlb.l1_entries=16"],
    ["saxpy", "--set", "saxpy.n=1024"],
    ["reduce", "--set", "reduce.n=1024"],
    ["histogram", "--set", "histogram.n=1024"],
    ["divergent", "--set", "divergent.n=256"],
    ["memstream", *G2, "--set", "memstream.bytes=4096"],
    ["memstream", *G2, "--set", "memstream.pattern=cas", "--set", "memstream.iterations=8"],
    ["pingpong", "--set", "pingpong.rounds=4"],
    ["elastic", *G2],
    ["matmul", *G2, "--set", "matmul.n=16"],
    ["strassen", *G2, "--set", "strassen.n=32"],
    ["persistent", *G2, "--set", "persistent.rounds=1"],
    ["persistent", *G2, "--set", "persistent.rounds=1", "--set", "persistent.mechanism=coop"],
    ["fib", *G2, "--set", "fib.n=8"],
    ["fib", *G2, "--set", "fib.n=8", "--set", "fib.mechanism=forkjoin"],
    ["fib", *G2, "--set", "fib.n=8", "--set", "fib.mechanism=forkjoin", "--set", "forkjoin.backoff=exp"],
    ["fib", *G2, "--set", "fib.n=8", "--set", "fib.mechanism=forkjoin", "--set", "forkjoin.queue=gq"],
    ["fib-flow", *G2, "--set", "fib_flow.n=8"],
    ["queens", *G2, "--set", "queens.n=6"],
    ["queens", *G2, "--set", "queens.n=6", "--set", "queens.mechanism=forkjoin"],
    ["queens", *G2, "--set", "queens.n=6", "--set", "queens.base_rows=3", "--set", "queens.mechanism=swwl"],
    ["queens", *G2, "--set", "queens.n=6", "--set", "queens.base_rows=3", "--set", "queens.mechanism=swwl",
     "--set", "queens.swwl.threads=16"],
    ["queens", *G2, "--set", "queens.n=6", "--set", "queens.base_rows=3", "--set", "queens.mechanism=coop"],
    ["queens-flat", *G2, "--set", "queens_flat.n=6"],
    ["sort", *G2, "--set", "sort.n=256"],
    ["sort", *G2, "--set", "sort.n=256", "--set", "sort.algorithm=pieces"],
    ["sort", *G2, "--set", "sort.n=256", "--set", "sort.mechanism=forkjoin"],
    ["tree", *G2, "--set", "tree.depth=4", "--set", "tree.input_log2=10"],
    ["tree", *G2, "--set", "tree.depth=4", "--set", "tree.input_log2=10", "--set", "forkjoin.workers=block"],
    ["fj-sum", *G2, "--set", "fj-sum.n=256"],
    ["bfs", *G2, "--set", "bfs.scale=6"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=swwl"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=swwl", "--set", "bfs.swwl.threads=64"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=hwwl"],
    # worklist.hvu_refills bounds on-demand refills (refused with interval ones).
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=hwwl", "--set", "worklist.refill=on_demand"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=persistent"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=coop"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=channels"],
    # The plain graphics co-runner (runtime/graphics.cpp) beside a level-per-launch kernel.
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "graphics.load=light"],
    ["bfs", *G2, "--set", "bfs.scale=6", "--set", "bfs.mechanism=hwwl", "--set", "worklist.lanes=16",
     "--set", "worklist.depth=64", "--set", "worklist.backend=rtl", "--vcd", "{tmp}/w.vcd"],
    ["sssp", *G2, "--set", "sssp.scale=6"],
    ["sssp", *G2, "--set", "sssp.scale=6", "--set", "sssp.mechanism=swwl"],
    ["sssp", *G2, "--set", "sssp.scale=6", "--set", "sssp.mechanism=swwl", "--set", "sssp.swwl.threads=64"],
    ["sssp", *G2, "--set", "sssp.scale=6", "--set", "sssp.mechanism=hwwl"],
    ["sssp", *G2, "--set", "sssp.scale=6", "--set", "sssp.mechanism=persistent"],
    ["sssp", *G2, "--set", "sssp.scale=6", "--set", "sssp.mechanism=channels"],
    ["mst", *G2, "--set", "mst.scale=6"],
    ["mst", *G2, "--set", "mst.scale=6", "--set", "mst.mechanism=swwl"],
    ["mst", *G2, "--set", "mst.scale=6", "--set", "mst.mechanism=hwwl"],
    ["sp", *G2, "--set", "sp.vars=32"],
    ["sp", *G2, "--set", "sp.vars=32", "--set", "sp.mechanism=swwl"],
    ["sp", *G2, "--set", "sp.vars=32", "--set", "sp.mechanism=hwwl"],
    ["dmr", *G2, "--set", "dmr.points=10"],
    ["dmr", *G2, "--set", "dmr.points=10", "--set", "dmr.mechanism=swwl"],
    ["dmr", *G2, "--set", "dmr.points=10", "--set", "dmr.mechanism=hwwl"],
    ["bh", *G2, "--set", "bh.bodies=64"],
    ["bh", *G2, "--set", "bh.bodies=64", "--set", "bh.mechanism=swwl"],
    ["bh", *G2, "--set", "bh.bodies=64", "--set", "bh.mechanism=hwwl"],
    ["color", *G2, "--set", "color.scale=6"],
    ["color", *G2, "--set", "color.scale=6", "--set", "color.mechanism=coop"],
    ["color", *G2, "--set", "color.scale=6", "--set", "color.mechanism=coop", "--set", "coop.graphics.load=light"],
    ["color", *G2, "--set", "color.scale=6", "--set", "color.mechanism=coop", "--set", "coop.graphics.load=light",
     "--set", "coop.graphics.model=preemption"],
    ["mis", *G2, "--set", "mis.scale=6"],
    ["p-sssp", *G2, "--set", "p-sssp.scale=6"],
    ["octree", *G2, "--set", "octree.particles=200"],
    ["octree", *G2, "--set", "octree.particles=200", "--set", "octree.mechanism=coop"],
    ["game", *G2, "--set", "game.depth=2"],
    # Runs that read a graph file ({mtx}: a small real Matrix Market graph), for the format keys.
    ["bfs", *G2, "--input", "{mtx}"],
    ["sssp", *G2, "--input", "{mtx}"],
    ["color", *G2, "--input", "{mtx}"],
    ["mis", *G2, "--input", "{mtx}"],
    ["p-sssp", *G2, "--input", "{mtx}"],
    ["mst", *G2, "--input", "{mtx}"],
    ["sort", *G2, "--set", "sort.n=256", "--set", "sort.mechanism=forkjoin", "--set", "sort.algorithm=mergesort"],
]
# A small undirected graph with real weights (the contexts' {mtx}).
MTX = """%%MatrixMarket matrix coordinate real symmetric
6 6 7
2 1 1.5
3 2 0.25
4 3 2.0
5 4 1.0
6 5 3.5
6 1 0.75
4 1 1.25
"""


def mechanism_runs():
    """One run of each mechanism: channels, fork-join, the hardware worklist (model), cooperative
    kernels with a graphics load, the elastic example."""
    want = [("fib", "fib.n=8"), ("fib", "fib.mechanism=forkjoin"), ("bfs", "bfs.mechanism=hwwl"),
            ("color", "coop.graphics.load=light"), ("elastic", None)]
    out = []
    for w, setting in want:
        out.append(next(c for c in CONTEXTS if c[0] == w and (setting is None or setting in c)
                        and (setting != "fib.n=8" or "fib.mechanism=forkjoin" not in c)))
    return out


def fmt_number(x, integer):
    return str(int(x)) if integer else repr(float(x))


def edge_values(p):
    """(value text, whether it is past the declared range) for parameter p."""
    t = p["type"]
    if t == "bool":
        return [("true", False), ("false", False), ("maybe", True)]
    if t == "enum":
        return [(c, False) for c in p["choices"]] + [("no-such-choice", True)]
    if t in ("uint", "int"):
        lo = p.get("min", 0 if t == "uint" else -(2 ** 63))
        hi = p.get("max", 2 ** 64 - 1 if t == "uint" else 2 ** 63 - 1)
        lo, hi = int(lo), int(hi)
        return [(str(lo), False), (str(hi), False), (str(lo - 1), True), (str(hi + 1), True)]
    if t == "real":
        lo, hi = p.get("min"), p.get("max")
        out = []
        if lo is not None:
            out += [(fmt_number(lo, False), False), (fmt_number(lo - max(1.0, abs(lo)), False), True)]
        if hi is not None:
            out += [(fmt_number(hi, False), False), (fmt_number(hi + max(1.0, abs(hi)), False), True)]
        return out
    return []  # string: file names and lists have their own cases


def default_text(p):
    v = p["value"]
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


class Runner:
    def __init__(self, fgsim, mtx):
        self.fgsim = fgsim
        self.mtx = mtx

    def run(self, ctx, key, value):
        tmp = tempfile.mkdtemp(prefix="fg-edges-")
        try:
            args = []
            for a in ctx:  # the parameter alone: the context's own setting of it left out
                if args and args[-1] == "--set" and a.startswith(key + "="):
                    args.pop()
                    continue
                args.append(a.replace("{tmp}", tmp).replace("{mtx}", self.mtx))
            guards = []
            if key != "sim.max_host_seconds":
                guards += ["--set", f"sim.max_host_seconds={HOST_S}"]
            if key != "sim.max_memory":
                guards += ["--set", "sim.max_memory=2G"]
            cmd = [self.fgsim, "run", *args, *guards, "--set", f"{key}={value}", "--quiet"]
            t0 = time.time()
            try:
                r = subprocess.run(cmd, capture_output=True, timeout=HOST_S + SETUP_S, cwd=tmp)
            except subprocess.TimeoutExpired:
                return None, [], time.time() - t0
            err = r.stderr.decode("utf-8", errors="backslashreplace")
            lines = [l for l in err.split("\n") if l]
            if ASAN_FIBER_WARNING:
                lines = [l for l in lines if not ASAN_FIBER_WARNING.search(l)]
            return r.returncode, lines, time.time() - t0
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def problems_of(key, value, past, code, lines):
    if code is None:
        return [f"no end within {HOST_S + SETUP_S:.0f} s (a hang)"]
    out = []
    if code not in (0, 2, 3):
        out.append(f"exit {code}" + (f" (signal {-code})" if code < 0 else "") + ", outside the contract")
    elif code == 0 and lines:
        out.append(f"exit 0 with {len(lines)} lines on standard error")
    elif code == 2 and (len(lines) != 1 or not lines[0].startswith("fgsim: error: ")):
        out.append(f"exit 2 with {len(lines)} lines, expected one 'fgsim: error: ...'")
    elif code == 3 and not (lines and lines[0].startswith("fgsim: simulated fault: ")):
        out.append("exit 3 without a first line 'fgsim: simulated fault: ...'")
    if past and code != 2:
        out.append(f"a value past the declared range gave exit {code}, expected 2")
    elif past and code == 2 and key not in lines[0]:
        out.append("the refusal of a value past the range does not name the parameter")
    if out:
        out.append("stderr: " + " | ".join(lines)[:300])
    return out


def main():
    global ASAN_FIBER_WARNING
    args = sys.argv[1:]
    jobs, only, log_path = min(4, os.cpu_count() or 1), "", None
    sample, seed = 1, None
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--jobs":
            jobs = int(args.pop(0))
        elif opt == "--only":
            only = args.pop(0)
        elif opt == "--log":
            log_path = args.pop(0)
        elif opt == "--sample":
            sample = int(args.pop(0))
        elif opt == "--seed":
            seed = int(args.pop(0))
        elif opt == "--asan-fiber-warning":
            ASAN_FIBER_WARNING = asan_warning.LINES
        else:
            print(f"param_edges_test.py: unknown option {opt}")
            return 2
    fgsim = os.path.abspath(args[0])
    graph_dir = tempfile.mkdtemp(prefix="fg-edges-graph-")
    mtx = os.path.join(graph_dir, "g.mtx")
    with open(mtx, "w") as f:
        f.write(MTX)
    runner = Runner(fgsim, mtx)
    params = [p for p in json.loads(subprocess.run([fgsim, "params", "--json"], capture_output=True, text=True,
                                                    check=True).stdout) if p["name"].startswith(only)]
    if sample > 1:
        seed = seed if seed is not None else int(time.time())
        params = sorted(random.Random(seed).sample(params, max(1, len(params) // sample)), key=lambda p: p["name"])
        print(f"a sample of one in {sample}: {len(params)} parameters, --seed {seed}")
    t_start = time.time()
    failed = []
    # Each parameter's context: the first that takes its default value (in parallel per parameter).
    def find_context(p):
        # A workload's own parameters (bfs.*, fib_flow.*) on its own runs first.
        head = p["name"].split(".", 1)[0]
        order = sorted(CONTEXTS, key=lambda c: c[0] not in (head, head.replace("_", "-")))
        for ctx in order:
            code, lines, _ = runner.run(ctx, p["name"], default_text(p))
            # Taken: the run ran (to its end, or until the host-time guard
            # stopped it: a default such as sort.n's million keys is long).
            if code == 0 or (code == 2 and lines and "sim.max_host_seconds: stopped after" in lines[0]):
                return p, ctx
        return p, None

    tested = [p for p in params if edge_values(p)]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        contexts = list(pool.map(find_context, tested))
    work = []
    for p, ctx in contexts:
        if ctx is None:
            failed.append(f"{p['name']}: no context takes its default value (add a run that reads it to CONTEXTS)")
            continue
        for value, past in edge_values(p):
            work.append((p["name"], ctx, value, past))
        if p["name"].startswith(MACHINE) and p["type"] in ("uint", "int", "real"):
            for value, past in edge_values(p):
                if not past:
                    work += [(p["name"], m, value, False) for m in mechanism_runs() if m is not ctx]

    def one(w):
        key, ctx, value, past = w
        code, lines, secs = runner.run(ctx, key, value)
        return key, ctx, value, past, code, lines, secs

    counts = {0: 0, 2: 0, 3: 0}
    slow = []
    log = open(log_path, "w") if log_path else None
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for key, ctx, value, past, code, lines, secs in pool.map(one, work):
            if code in counts:
                counts[code] += 1
            if secs > HOST_S + 2:
                slow.append((secs, key, value))
            for pr in problems_of(key, value, past, code, lines):
                failed.append(f"{key}={value} ({' '.join(ctx)}): {pr}")
            if log:
                log.write(f"{key}\t{value}\t{'past' if past else 'in'}\t{code}\t{secs:.2f}\t{' '.join(ctx)}\t"
                          f"{lines[0] if lines else ''}\n")
    for f in failed:
        print(f"FAIL {f}")
    slow.sort(reverse=True)
    print(f"{len(tested)} parameters ({len(params) - len(tested)} strings left to their own cases), {len(work)} runs: "
          f"exit 0: {counts[0]}, 2: {counts[2]}, 3: {counts[3]}; {time.time() - t_start:.0f} s with {jobs} jobs"
          + (f"; slowest: " + ", ".join(f"{k}={v} {s:.1f} s" for s, k, v in slow[:5]) if slow else ""))
    shutil.rmtree(graph_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
