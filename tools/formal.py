#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Formal proofs of the hardware-worklist RTL, and the mutations that must break them.

    tools/formal.py [prove] [--only NAME]     prove every property set (exit 1 if one is not proved)
    tools/formal.py mutants [--only NAME]     apply each mutation to a scratch copy of the RTL and
                                              check that its proof fails (exit 1 if one survives)

Engine: Yosys' built-in SAT temporal induction (`sat -tempinduct`: base case from
reset plus induction step, lengthened up to MAXSTEPS). SymbiYosys is not packaged
in Debian 12, and yosys-smtbmc with z3 4.8.12 does not finish step 0 of the bank's
problem in 120 s (docs/worklist-rtl.md, "Formal").

Properties (under `ifdef FORMAL` in the RTL; docs/worklist-rtl.md, "Formal", "Liveness"):
  bank   count bounds, flags, two tracked IDs intact and in order (hwwl_bank)
  icrn   conservation of the IDs held, one tracked ID intact and never sent back to its
         source, one-to-one matching, delivery within NumCores cycles of availability
  core   conservation across banks, WRU moves and the network ports, moves carry their
         values and are one-to-one, the banks' properties inside the core, and progress:
         an offered network ID is taken within two cycles while some bank is empty and
         its lane is not pushing (the livelock fixed in issue 12)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RTL = os.path.join(ROOT, "rtl", "hwwl")
MAXSTEPS = int(os.environ.get("MAXSTEPS", "12"))

# name -> (top, files, parameters, extra defines)
PROOFS = {}
for d in (4, 8, 32):
    PROOFS[f"bank_d{d}"] = ("hwwl_bank", ["hwwl_pkg.sv", "hwwl_bank.sv"],
                            {"Depth": d, "IdWidth": 8, "Threshold": 3}, ["HWWL_FORMAL_BANK_TOP"])
for n in (2, 3, 4):
    PROOFS[f"icrn_c{n}"] = ("hwwl_icrn", ["hwwl_pkg.sv", "hwwl_icrn.sv"], {"NumCores": n, "IdWidth": 4}, [])
CORE_FILES = ["hwwl_pkg.sv", "hwwl_sort_net.sv", "hwwl_bank.sv", "hwwl_wru.sv", "hwwl_core.sv"]
for name, scheme in (("threshold", 1), ("lsorting", 2), ("gsorting", 3)):
    PROOFS[f"core_{name}"] = ("hwwl_core", CORE_FILES,
                              {"Lanes": 4, "Depth": 4, "IdWidth": 3, "Threshold": 1, "Interval": 3,
                               "Scheme": scheme}, [])

# Mutations: (name, file, original text, mutated text, proofs that must fail).
MUTANTS = [
    ("icrn drops a held ID", "hwwl_icrn.sv",
     "assign out_v_d[c] = moved[c] || (out_v_q[c] && !eject_ready_i[c]);",
     "assign out_v_d[c] = moved[c];", ["icrn_c2"]),
    ("icrn duplicates a forwarded ID", "hwwl_icrn.sv",
     "assign in_v_d[c] = (in_v_q[c] && !taken[c]) || accept;",
     "assign in_v_d[c] = in_v_q[c] || accept;", ["icrn_c2"]),
    ("icrn round robin stuck (an input starves)", "hwwl_icrn.sv",
     "assign rr_d           = IdxWidth'((32'(rr_q) + 1) % NumCores);",
     "assign rr_d           = rr_q;", ["icrn_c3"]),
    ("core never ejects", "hwwl_wru.sv",
     "    eject_ready_o = found;", "    eject_ready_o = 1'b0;", ["core_threshold"]),
    ("core: polling lanes block reception (the livelock)", "hwwl_core.sv",
     "assign free       = ~pull_gnt & ~push_gnt_o;", "assign free       = ~pull_i & ~push_i;",
     ["core_threshold", "core_lsorting"]),
    ("wru drops an ID (receiver not checked)", "hwwl_wru.sv",
     "if (pair_v[r] && rd_ok_i[pair_d[r]] && ri_ok_i[r]) begin",
     "if (pair_v[r] && rd_ok_i[pair_d[r]]) begin", ["core_lsorting"]),
    ("wru duplicates an ID (donor keeps it)", "hwwl_wru.sv",
     "          pair_take[pair_d[r]] = 1'b1;\n", "", ["core_threshold"]),
    ("core ejects the wrong ID", "hwwl_core.sv",
     "ri_id[b*IdWidth +: IdWidth] = ri_net[b] ? eject_id_i", "ri_id[b*IdWidth +: IdWidth] = ri_net[b] ? ~eject_id_i",
     ["core_threshold"]),
    ("bank refills a full bank without a reservation", "hwwl_bank.sv",
     "rf     = rf_put_i && free && !rin && !rout && (swap ? !push_full_q : (rsv_nz_q || !pl_full_q));",
     "rf     = rf_put_i && free && !rin && !rout;", ["bank_d4"]),
    ("bank offers a reservation beside a refill into a free entry", "hwwl_bank.sv",
     "                      !(rf_gnt_o && !rsv_nz_q);", "                      1'b1;", ["bank_d4"]),
    ("core reserves when only some banks have room", "hwwl_core.sv",
     "assign rsv_gnt_o = rsv_i && &rsv_ok;", "assign rsv_gnt_o = rsv_i && |rsv_ok;", ["core_threshold"]),
    ("bank grants a push when full", "hwwl_bank.sv",
     "assign push_gnt_o = push_i && !pull_i && !push_full_q;", "assign push_gnt_o = push_i && !pull_i;",
     ["bank_d4"]),
]


def prove(name, rtl_dir, log_dir=None):
    """Returns (proved, k or None, seconds, log)."""
    top, files, params, defines = PROOFS[name]
    srcs = " ".join(os.path.join(rtl_dir, f) for f in files)
    chparam = " ".join(f"-set {k} {v}" for k, v in params.items())
    defs = " ".join(f"-D{d}" for d in defines)
    script = (f"read_verilog -formal -DSYNTHESIS {defs} -sv {srcs}; chparam {chparam} {top}; prep -top {top}; "
              f"flatten; memory_map; opt -fast; async2sync; dffunmap; "
              f"sat -tempinduct -prove-asserts -set-assumes -set-init-zero -maxsteps {MAXSTEPS}")
    t0 = time.monotonic()
    r = subprocess.run(["yosys", "-p", script], capture_output=True, text=True)
    dt = time.monotonic() - t0
    log = r.stdout + r.stderr
    if log_dir:
        with open(os.path.join(log_dir, f"{name}.log"), "w") as f:
            f.write(log)
    ok = r.returncode == 0 and "Induction step proven: SUCCESS" in log
    ks = re.findall(r"Trying induction with length (\d+)", log)
    return ok, (int(ks[-1]) if ks else None), dt, log


def describe(name):
    top, _, params, _ = PROOFS[name]
    return f"{top} " + " ".join(f"{k}={v}" for k, v in params.items())


def cmd_prove(only):
    status = 0
    for name in PROOFS:
        if only and not re.search(only, name):
            continue
        ok, k, dt, log = prove(name, RTL)
        if ok:
            print(f"formal: {name:15s} proved by {k}-induction in {dt:5.1f} s  ({describe(name)})")
        else:
            status = 1
            print(f"formal: {name:15s} NOT proved ({describe(name)})")
            for line in log.splitlines():
                if re.search(r"ERROR|failed|FAIL", line):
                    print("   ", line.strip())
                    break
    return status


def cmd_mutants(only):
    status = 0
    for mname, fname, old, new, proofs in MUTANTS:
        if only and not re.search(only, mname):
            continue
        with tempfile.TemporaryDirectory(prefix="fg-formal-") as tmp:
            for f in os.listdir(RTL):
                shutil.copy(os.path.join(RTL, f), tmp)
            path = os.path.join(tmp, fname)
            text = open(path).read()
            if text.count(old) != 1:
                print(f"mutant: {mname}: the text to mutate is not in {fname} exactly once; update tools/formal.py")
                status = 1
                continue
            with open(path, "w") as f:
                f.write(text.replace(old, new))
            for p in proofs:
                ok, _, dt, log = prove(p, tmp)
                cex = re.search(r"model found for base case: FAIL", log)
                if ok or not cex:
                    status = 1
                    why = "proved anyway" if ok else "no counterexample, only an unclosed induction"
                    print(f"mutant: {mname:50s} SURVIVED {p} ({why})")
                else:
                    steps = len(re.findall(r"Base case for induction length \d+ proven", log)) + 1
                    print(f"mutant: {mname:50s} killed by {p}: counterexample from reset, {steps} cycles ({dt:.1f} s)")
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", nargs="?", default="prove", choices=["prove", "mutants"])
    ap.add_argument("--only", help="regular expression selecting proofs (prove) or mutants (mutants)")
    a = ap.parse_args()
    if not shutil.which("yosys"):
        print("formal: yosys not found (install the Debian package 'yosys', or run tools/bootstrap.sh)")
        return 2
    return cmd_prove(a.only) if a.what == "prove" else cmd_mutants(a.only)


if __name__ == "__main__":
    sys.exit(main())
