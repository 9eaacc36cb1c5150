#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The measurement scripts of tools/ (benchmarks, quantum sweeps, the tables in
docs/) keep the error contract before any run starts: an unknown option, a bad
option value, an extra argument or a missing fgsim is one line on stderr naming
it and exit 2, and fgsim is never started; --help prints the script's
docstring and exits 0. A stand-in fgsim that leaves a mark when started shows
that no run began. A run that fails (a stand-in fgsim that exits 3, or 2)
ends the script with fgsim's exit code and a line naming the command, not a
Python traceback. One real sweep (sync_quantum.py, about a second) goes
through fgtool.stats with the real fgsim and must print its whole table."""
import os
import stat
import subprocess
import sys
import tempfile

root, real_fgsim = sys.argv[1], sys.argv[2]
tools = os.path.join(root, "tools")
SCRIPTS = ["cas_protocols", "cas_quantum", "channel_tables", "channels_bench", "coop_bench", "coop_launches",
           "coop_quantum", "cu_bench", "cu_quantum", "forkjoin_batch_starts", "forkjoin_bench", "forkjoin_chip_study",
           "forkjoin_fib_study",
           "forkjoin_late_batches", "forkjoin_loop_profile", "forkjoin_quantum", "forkjoin_sort_batches",
           "forkjoin_tree_study", "mechanism_quantum", "mem_limits", "sync_quantum", "wl_bench", "wl_quantum"]
# Bad values: (script, argument, what the line must name).
BAD_VALUES = [
    ("channels_bench", "--repeat=0", "--repeat"),
    ("channels_bench", "--repeat=two", "--repeat"),
    ("wl_bench", "--scales=14,x", "--scales"),
    ("wl_bench", "--cus=-4", "--cus"),
    ("wl_bench", "--backends=model,verilator", "verilator"),
    ("wl_quantum", "--schemes=lsort", "lsort"),
    ("wl_quantum", "--depth=0", "--depth"),
    ("wl_quantum", "--refill=ondemand", "ondemand"),
    ("wl_quantum", "--buffer=triple", "triple"),
    ("wl_quantum", "--reference=-1", "--reference"),
    ("wl_quantum", "--check-first=yes", "--check-first"),
    ("forkjoin_bench", "--presets=orr2014,gh100", "gh100"),
    ("forkjoin_loop_profile", "--cutoff=0", "--cutoff"),
    ("forkjoin_batch_starts", "--n=x", "--n"),
    ("forkjoin_late_batches", "--seed=1,x", "--seed"),
    ("forkjoin_late_batches", "--queues=1,3", "3"),
    ("forkjoin_tree_study", "--parts=l2,l3", "l3"),
    ("forkjoin_fib_study", "--parts=tail,l1", "l1"),
    ("forkjoin_chip_study", "--cus=16,12", "--cus"),
    ("forkjoin_chip_study", "--cus=64", "--cus"),
    ("forkjoin_chip_study", "--warps=8,64", "--warps"),
    ("forkjoin_chip_study", "--parts=sort,bfs", "bfs"),
    ("forkjoin_chip_study", "--intervals=4,0", "--intervals"),
    ("forkjoin_chip_study", "--fib-below=12", "--fib-below"),
    ("forkjoin_quantum", "--only=no such configuration", "--only"),
    ("forkjoin_quantum", "--skip=", "--skip"),
    ("forkjoin_quantum", "--jobs=0", "--jobs"),
    ("forkjoin_quantum", "--quanta=1,x", "--quanta"),
    ("forkjoin_sort_batches", "--quanta=0.505,x", "--quanta"),
    ("forkjoin_sort_batches", "--seed=2,x", "--seed"),
    ("forkjoin_sort_batches", "--queues=1,2", "2"),
    ("coop_launches", "--study=fig99", "--study"),
    ("coop_launches", "--point=octree:bogus", "--point"),
]
tmp = tempfile.mkdtemp(prefix="fg_script_cli_")
mark = os.path.join(tmp, "started")
fake = os.path.join(tmp, "fgsim")
with open(fake, "w") as f:
    f.write(f"#!/bin/sh\ntouch '{mark}'\nexit 1\n")
os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
failures = []


def run(script, *args):
    r = subprocess.run([sys.executable, os.path.join(tools, script + ".py"), *args], capture_output=True, text=True,
                       timeout=60)
    return r.returncode, r.stdout, r.stderr


def refused(script, args, names):
    rc, out, err = run(script, *args)
    lines = err.strip().splitlines()
    what = f"{script} {' '.join(args)}"
    if rc != 2:
        failures.append(f"{what}: exit {rc}, expected 2 ({err.strip()[-200:]})")
    if len(lines) != 1 or names not in lines[0] or not lines[0].startswith(script + ".py: "):
        failures.append(f"{what}: expected one line naming {names}, got {lines}")
    if out:
        failures.append(f"{what}: wrote to stdout: {out[:200]}")
    if os.path.exists(mark):
        failures.append(f"{what}: started fgsim")
        os.remove(mark)


for s in SCRIPTS:
    refused(s, [fake, "--bogus"], "--bogus")
    refused(s, [fake, "extra"], "extra")
    missing = os.path.join(tmp, "no-such-fgsim")
    refused(s, [missing], missing)
    if not os.access(os.path.join(tools, s + ".py"), os.X_OK):  # the docs run it as tools/NAME.py
        failures.append(f"{s}.py: not executable")
    rc, out, err = run(s, "--help")
    doc_line = open(os.path.join(tools, s + ".py")).read().split('"""')[1].splitlines()[0].strip()
    if rc != 0 or doc_line not in out:
        failures.append(f"{s} --help: exit {rc}, docstring's first line {doc_line!r} not in the output")
for s, arg, names in BAD_VALUES:
    refused(s, [fake, arg], names)

# Scripts that stop on a failing run (the others report it in their table).
STOPPING = ["cas_protocols", "cas_quantum", "channels_bench", "coop_bench", "coop_launches", "coop_quantum", "cu_bench",
            "cu_quantum",
            "forkjoin_chip_study", "forkjoin_fib_study", "forkjoin_late_batches", "forkjoin_loop_profile",
            "forkjoin_tree_study", "mechanism_quantum", "mem_limits", "sync_quantum", "wl_quantum"]
for code in (3, 2):
    failing = os.path.join(tmp, f"fgsim-exit{code}")
    with open(failing, "w") as f:
        f.write(f"#!/bin/sh\necho 'fgsim: stand-in failure {code}' >&2\nexit {code}\n")
    os.chmod(failing, os.stat(failing).st_mode | stat.S_IXUSR)
    for s in STOPPING:
        rc, out, err = run(s, failing)
        lines = err.strip().splitlines()
        if rc != code or "Traceback" in err or len(lines) != 2 or lines[0] != f"fgsim: stand-in failure {code}" \
                or not lines[1].startswith(f"{s}.py: fgsim exited {code}: {failing} "):
            failures.append(f"{s} with fgsim exiting {code}: exit {rc}, stderr {lines[:6]}")

# Runs in parallel (forkjoin_quantum.py --jobs): the first run goes alone, so a failing fgsim is still one message.
for code in (3, 2):
    failing = os.path.join(tmp, f"fgsim-exit{code}")
    rc, out, err = run("forkjoin_quantum", failing, "--jobs=4")
    lines = err.strip().splitlines()
    if rc != code or "Traceback" in err or len(lines) != 2 or lines[0] != f"fgsim: stand-in failure {code}":
        failures.append(f"forkjoin_quantum --jobs=4 with fgsim exiting {code}: exit {rc}, stderr {lines[:6]}")

# A real sweep: the header and a row for each of 2 presets x 2 ways x sim.sync_order on and off.
rc, out, err = run("sync_quantum", real_fgsim)
rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line]
if rc != 0 or len(rows) != 9 or err:
    failures.append(f"sync_quantum with the real fgsim: exit {rc}, {len(rows)} table lines, stderr {err[-300:]!r}")

for f in failures:
    print("FAIL", f)
print(f"script_cli: {len(SCRIPTS)} scripts, {len(BAD_VALUES)} bad values, {len(STOPPING)} stopping on a failed "
      f"run, {len(failures)} failures")
sys.exit(1 if failures else 0)
