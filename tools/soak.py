#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Long soak of the hardware-worklist RTL against its golden model.

    tools/soak.py [BUILD_DIR] [--factor N] [--min-cycles M] [--jobs J]

Runs the RTL-vs-model tests of tests/rtl/system_test.cpp (ICRN, core and every
system parameter set) with FG_SOAK=N (default 30, i.e. 30x the default cycle
counts), two processes in parallel, and prints per test the cycles simulated,
the episodes (fill, then drain to empty) and the worst drain against its bound
(docs/worklist-rtl.md, "Liveness": the bound of the episode whose drain was the
longest; the tests assert every drain against its own). Fails (exit 1) if a test
fails, its longest drain exceeds that bound, or the total is below --min-cycles
(default 20,000,000). CI runs it after the README's test
command (.ci/run); `make soak` runs it locally.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--factor", type=int, default=int(os.environ.get("FG_SOAK", "30")))
    ap.add_argument("--min-cycles", type=int, default=20_000_000)
    a = ap.parse_args()
    exe = os.path.join(a.build, "tests", "rtl", "system_test")
    if not os.access(exe, os.X_OK):
        print(f"soak: {exe} not found: build first (make build)")
        return 2
    # Two shards of similar length: the 4 x 16 system alone, everything else.
    shards = ["HwwlSystem.FourCores*", "-HwwlSystem.FourCores*"]
    env = dict(os.environ, FG_SOAK=str(a.factor))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fg-soak-") as tmp:
        procs = []
        for i, f in enumerate(shards):
            out = os.path.join(tmp, f"shard{i}.json")
            log = open(os.path.join(tmp, f"shard{i}.log"), "w")
            procs.append((subprocess.Popen([exe, f"--gtest_filter={f}", f"--gtest_output=json:{out}"],
                                           stdout=log, stderr=subprocess.STDOUT, env=env), out, log))
        rc = 0
        rows = []
        for p, out, log in procs:
            rc |= p.wait()
            log.close()
            if p.returncode:
                sys.stdout.write(open(log.name).read()[-4000:])
            if os.path.exists(out):
                for suite in json.load(open(out))["testsuites"]:
                    for t in suite["testsuite"]:
                        rows.append((f"{suite['name']}.{t['name']}", t))
    dt = time.monotonic() - t0
    total = 0
    print(f"soak: FG_SOAK={a.factor}")
    print(f"{'test':62s} {'cycles':>11s} {'episodes':>9s} {'worst drain':>12s} {'bound':>6s} {'result':>7s}")
    for name, t in rows:
        cyc = int(t.get("cycles", 0))
        total += cyc
        ok = "failures" not in t
        # The test asserts every drain against its episode's bound; the longest with its own bound must agree.
        if "worst_drain" in t and int(t["worst_drain"]) > int(t.get("drain_bound", 0)):
            ok = False
            rc = 1
        print(f"{name:62s} {cyc:11,d} {t.get('episodes', '-'):>9s} {t.get('worst_drain', '-'):>12s} "
              f"{t.get('drain_bound', '-'):>6s} {'ok' if ok else 'FAILED':>7s}")
    print(f"soak: {total:,d} cycles in {dt:.0f} s")
    if rc:
        print("soak: FAILED")
        return 1
    if total < a.min_cycles:
        print(f"soak: only {total:,d} cycles, fewer than {a.min_cycles:,d}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
