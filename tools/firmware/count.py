#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every scenario of harness.c on every ISA build and writes the tables
(results.md, results.json). See README.md for the method."""
import json
import os
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import fwcount

OUT = "out"  # scratch outputs (ignored by git), beside build/

ISAS = {  # name -> (executable, firmware object)
    "x86-64 gcc": ("x86gcc", "build/run_x86gcc", "build/fs_x86gcc.o"),
    "x86-64 clang": ("x86clang", "build/run_x86clang", "build/fs_x86clang.o"),
    "AArch64 clang": ("a64", "build/run_a64", "build/fs_a64.o"),
    "AArch64 clang -Os": ("a64os", "build/run_a64os", "build/fs_a64os.o"),
    "RV64 clang": ("rv64", "build/run_rv64", "build/fs_rv64.o"),
}
K1, K2 = 10, 30  # iterations: per-call counts are (count(K2) - count(K1)) / (K2 - K1)
NS = [1, 2, 4, 8]  # channel counts for the per-pass / per-channel regressions
KEYS = ["instr", "ld_dev", "ld_priv", "ld_stack", "st_dev", "st_priv", "st_stack"]

# scenario ids (harness.c)
S = dict(POLL_IDLE=1, POLL_READY=2, DISPATCH=3, FREE_BLOCK=4, FREE_NOTDONE=5, FREE_PASS_IDLE=6,
         RESTART_RECORD=7, RESTART_READY=8, CHECK=9, PASS_IDLE=10, PASS_IDLE_YIELD=11, PASS_LEVEL_IDLE=12,
         PRED_SPAWN=13, PRED_CONT=14, LEVEL_RESET=15, PASS_DISPATCH=16, RUN_IDLE=17)


def job(args):
    isa, exe, obj, s, n, k = args
    tag = os.path.join(OUT, f"{isa}_{s}_{n}_{k}")
    res, c = fwcount.counts(isa, exe, obj, [s, n, k], tmp=tag)
    return args, res, {f: {key: d.get(key, 0) for key in KEYS} for f, d in c.items()}


def main():
    jobs = []
    for name, (isa, exe, obj) in ISAS.items():
        for sc in S.values():
            ns = NS if sc in (S["FREE_PASS_IDLE"], S["CHECK"], S["PASS_IDLE"], S["PASS_IDLE_YIELD"],
                              S["PASS_LEVEL_IDLE"], S["RUN_IDLE"]) else [2]
            for n in ns:
                for k in (K1, K2):
                    jobs.append((isa, exe, obj, sc, n, k))
    raw = {}
    if "--reuse" in sys.argv:  # tables only, from the last run's counts
        raw = pickle.load(open("out/raw.pkl", "rb"))
    else:
        with ProcessPoolExecutor() as ex:
            for args, res, c in ex.map(job, jobs):
                raw[args] = (res, c)
        pickle.dump(raw, open("out/raw.pkl", "wb"))
    # the checksums must agree across ISAs (the interpreter against the native runs)
    for sc in S.values():
        for n in NS:
            for k in (K1, K2):
                vals = {isa: raw[(isa, exe, obj, sc, n, k)][0] for isa, exe, obj in ISAS.values()
                        if (isa, exe, obj, sc, n, k) in raw}
                if len(set(vals.values())) > 1:
                    sys.exit(f"checksum mismatch scenario {sc} n={n} k={k}: {vals}")

    def per_call(isa, exe, obj, sc, n, fns):
        """Counts per iteration in functions `fns` (None: all firmware functions)."""
        out = {}
        for key in KEYS:
            tot = []
            for k in (K1, K2):
                c = raw[(isa, exe, obj, sc, n, k)][1]
                tot.append(sum(d[key] for f, d in c.items() if fns is None or f in fns))
            v = (tot[1] - tot[0]) / (K2 - K1)
            out[key] = int(v) if v == int(v) else round(v, 2)
        return out

    def fit(isa, exe, obj, sc, fns=None):
        """Per-pass intercept and per-channel slope over NS (exact when linear)."""
        pts = [per_call(isa, exe, obj, sc, n, fns) for n in NS]
        icpt, slope = {}, {}
        for key in KEYS:
            ys = [p[key] for p in pts]
            b = (ys[-1] - ys[0]) / (NS[-1] - NS[0])
            a = ys[0] - b * NS[0]
            assert all(abs(a + b * n - y) < 1e-9 for n, y in zip(NS, ys)), (isa, sc, key, ys)
            icpt[key] = int(a) if a == int(a) else round(a, 2)
            slope[key] = int(b) if b == int(b) else round(b, 2)
        return icpt, slope

    rows = []  # (label, model, {isa: counts})

    def row(label, model, f):
        rows.append((label, model, {name: f(*spec) for name, spec in ISAS.items()}))

    # the model: (instructions as its counters count them, device loads, device stores)
    row("pass overhead, idle (per pass; default scheduler)", (16, 0, 0),
        lambda i, e, o: fit(i, e, o, S["PASS_IDLE"])[0])
    row("poll, per channel polled, in the pass (loop + poll + default predicate + free-candidate test)",
        (8, 1, 0), lambda i, e, o: fit(i, e, o, S["PASS_IDLE"])[1])
    row("pass overhead, idle, pass inlined in the main loop (per pass; default scheduler)", (16, 0, 0),
        lambda i, e, o: fit(i, e, o, S["RUN_IDLE"])[0])
    row("poll, per channel polled, inlined main loop (poll + predicate + free-candidate test)", (8, 1, 0),
        lambda i, e, o: fit(i, e, o, S["RUN_IDLE"])[1])
    row("  poll_one_channel alone, nothing ready", (8, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["POLL_IDLE"], 2, {"poll_one_channel"}))
    row("  poll_one_channel alone, 128 ready", (8, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["POLL_READY"], 2, {"poll_one_channel"}))
    row("  free-candidate test, per channel (free_pass slope)", (0, 0, 0),
        lambda i, e, o: fit(i, e, o, S["FREE_PASS_IDLE"], {"free_pass"})[1])
    row("restart-channel poll (per pass, yield on: pass intercept difference)", (0, 1, 0),
        lambda i, e, o: {k: fit(i, e, o, S["PASS_IDLE_YIELD"])[0][k] - fit(i, e, o, S["PASS_IDLE"])[0][k]
                         for k in KEYS})
    row("dispatch_one (per dispatch: 64-byte AQL packet, doorbell, control head)", (42, 0, 2),
        lambda i, e, o: per_call(i, e, o, S["DISPATCH"], 2, {"dispatch_one"}))
    row("  dispatching pass minus idle pass, 2 channels (dispatch + its pass-side work + 1 free candidate not done)",
        (42, 1, 2),
        lambda i, e, o: {k: per_call(i, e, o, S["PASS_DISPATCH"], 2, None)[k]
                         - (fit(i, e, o, S["PASS_IDLE"])[0][k] + 2 * fit(i, e, o, S["PASS_IDLE"])[1][k])
                         for k in KEYS})
    row("free_one_block, block complete (per block freed)", (10, 1, 2),
        lambda i, e, o: per_call(i, e, o, S["FREE_BLOCK"], 2, {"free_one_block"}))
    row("free_one_block, block not done (per candidate)", (0, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["FREE_NOTDONE"], 2, {"free_one_block"}))
    row("restart_record_one (per restart context read)", (24, 5, 0),
        lambda i, e, o: per_call(i, e, o, S["RESTART_RECORD"], 2, {"restart_record_one"}))
    row("  read_restart_contexts batch overhead (per batch: ring head store)", (1, 0, 1),
        lambda i, e, o: per_call(i, e, o, S["RESTART_RECORD"], 2, {"read_restart_contexts"}))
    row("restart_one (per yielded wavefront restarted)", (25, 0, 1),
        lambda i, e, o: per_call(i, e, o, S["RESTART_READY"], 2, {"restart_one"}))
    row("  restart_ready overhead (2 channels, 1 with yields: room load, list compaction)", (0, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["RESTART_READY"], 2, {"restart_ready"}))
    row("check_done, per channel", (0, 1, 0), lambda i, e, o: fit(i, e, o, S["CHECK"], {"check_done"})[1])
    row("check_done, per call", (0, 0, 0), lambda i, e, o: fit(i, e, o, S["CHECK"], {"check_done"})[0])
    row("cilk: pass overhead, idle (per pass, incl. level_pass_reset)", (16, 0, 0),
        lambda i, e, o: fit(i, e, o, S["PASS_LEVEL_IDLE"])[0])
    row("cilk: per channel polled, in the pass (spawn levels, nothing ready)", (8, 1, 0),
        lambda i, e, o: fit(i, e, o, S["PASS_LEVEL_IDLE"])[1])
    row("  cilk poll + predicate_level, spawn level, 10 ready, above idle", (8, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["PRED_SPAWN"], 2, {"poll_one_channel_level", "predicate_level"}))
    row("  cilk poll + predicate_level, continuation, 10 ready, go", (8, 1, 0),
        lambda i, e, o: per_call(i, e, o, S["PRED_CONT"], 2, {"poll_one_channel_level", "predicate_level"}))
    row("  level_pass_reset (per pass)", (0, 0, 0),
        lambda i, e, o: per_call(i, e, o, S["LEVEL_RESET"], 2, {"level_pass_reset"}))

    def cell(c):
        ld_p = c["ld_priv"] + c["ld_stack"]
        st_p = c["st_priv"] + c["st_stack"]
        return f"{c['instr']} / {c['ld_dev']}+{ld_p} / {c['st_dev']}+{st_p}"

    def equiv(c, model):
        """The parameter value that makes the model's issue slots for the step (its parameter + one per
        device load it issues + one per store it charges) equal the compiled step's instructions."""
        return c["instr"] - model[1] - model[2]

    names = list(ISAS)
    md = ["Cells: instructions / loads dev+private / stores dev+private, per unit (dynamic counts).",
          "Model: instructions as its counters count them (instr() + one per store) / device loads / device stores.",
          "",
          "| step (unit) | model | " + " | ".join(names) + " |",
          "|---|---|" + "---|" * len(names)]
    for label, model, vals in rows:
        md.append(f"| {label} | {model[0]} / {model[1]} / {model[2]} | " +
                  " | ".join(cell(vals[n]) for n in names) + " |")
    md += ["", "Model-equivalent parameter: compiled instructions minus the device loads and stores the model",
           "charges itself for the step (it adds one issue slot per load and one instruction per store),",
           "i.e. the value of aggregator.*_instructions that reproduces the compiled instruction count:", "",
           "| step | current parameter | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    param = {"pass overhead, idle (": ("pass_instructions (steps as calls)", 16),
             "poll, per channel polled, in the pass": ("poll_instructions (steps as calls)", 8),
             "pass overhead, idle, pass inlined": ("pass_instructions (inlined main loop)", 16),
             "poll, per channel polled, inlined": ("poll_instructions (inlined main loop)", 8),
             "dispatch_one": ("dispatch_instructions", 40), "free_one_block, block complete": ("free_instructions", 8),
             "restart_record_one": ("restart_instructions (record)", 24),
             "restart_one": ("restart_instructions (restart)", 24),
             "cilk: pass overhead": ("pass_instructions (cilk)", 16),
             "cilk: per channel polled": ("poll_instructions (cilk)", 8)}
    for label, model, vals in rows:
        key = next((k for k in param if label.startswith(k)), None)
        if key:
            p, v = param[key]
            md.append(f"| {p} | {v} | " + " | ".join(str(equiv(vals[n], model)) for n in names) + " |")
    open("results.md", "w").write("\n".join(md) + "\n")
    json.dump({label: {"model": model, **vals} for label, model, vals in rows}, open("results.json", "w"), indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
