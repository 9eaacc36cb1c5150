#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Host time per cycle of the Verilated worklist system, by how it is built and
driven (docs/performance.md, "The rtl half"): the generated code at -Os or -O2,
single-threaded or Verilator --threads 2, two or three evaluations per cycle,
idle lanes or traffic on a quarter of them. Builds each variant in a scratch
directory with Verilator and g++ and prints the minimum of --repeat runs.

    tools/rtl_eval_bench.py [--cores=4] [--repeat=5] [--cycles=200000]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
RTL = ["hwwl_pkg", "hwwl_bank", "hwwl_sort_net", "hwwl_wru", "hwwl_core", "hwwl_icrn", "hwwl_system"]
INC = "/usr/share/verilator/include"


def build(work, cores, opt, threads):
    d = work / f"{opt}_t{threads}"
    args = ["verilator", "--cc", "-Wall", "-O3", "--x-assign", "fast", "--x-initial", "fast",
            f"-GNumCores={cores}", "-GLanes=16", "-GDepth=32", "-GIdWidth=24", "-GThreshold=5",
            "-GInterval=10", "-GScheme=2", "--top-module", "hwwl_system", "--prefix", "Vsys", "-Mdir", str(d),
            str(ROOT / "rtl/hwwl/hwwl.vlt")] + [str(ROOT / f"rtl/hwwl/{m}.sv") for m in RTL]
    if threads > 1:
        args += ["--threads", str(threads)]
    subprocess.run(args, check=True)
    subprocess.run(["make", "-s", "-C", str(d), "-f", "Vsys.mk", f"OPT_FAST={opt}", "VM_PARALLEL_BUILDS=1",
                    f"-j{os.cpu_count()}", "Vsys__ALL.a"], check=True, stdout=subprocess.DEVNULL)
    exe = d / "bench"
    subprocess.run(["g++", "-O2", "-std=c++20", f"-DRTL_LANES={cores * 16}", f"-I{d}", f"-I{INC}",
                    f"-I{INC}/vltstd", f"-I{ROOT}/tb/hwwl", str(ROOT / "tools/rtl_eval_bench.cpp"),
                    str(d / "Vsys__ALL.a"), f"{INC}/verilated.cpp", f"{INC}/verilated_threads.cpp",
                    f"{INC}/verilated_vcd_c.cpp", "-o", str(exe), "-pthread"], check=True)
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cores", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cycles", type=int, default=200000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        variants = [("-Os", 1), ("-O2", 1), ("-Os", 2)]
        exes = {v: build(work, a.cores, *v) for v in variants}
        print(f"hwwl_system, {a.cores} cores x 16 lanes, lsorting; us per cycle, minimum of {a.repeat} runs "
              f"of {a.cycles} cycles")
        print("| code | threads | evals per cycle | idle lanes | traffic |")
        print("|---|---|---|---|---|")
        for (opt, threads), exe in exes.items():
            for evals in ([2, 3] if (opt, threads) == ("-Os", 1) else [2]):
                row = []
                for busy in (0, 1):
                    t = min(float(subprocess.run([str(exe), str(evals), str(busy), str(a.cycles)], check=True,
                                                 capture_output=True, text=True).stdout) for _ in range(a.repeat))
                    row.append(f"{t:.2f}")
                print(f"| {opt} | {threads} | {evals} | {row[0]} | {row[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
