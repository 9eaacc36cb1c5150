#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The measurements behind docs/forkjoin.md's account of Fig. 10's Fibonacci (where its time goes on the H100 and
in the model) and of the L1 carveout (gh200).
Parts (--parts, default all):
  serial    a lone lane's serial fib (fib.n 15 and 17 under cutoff 18, so the root task runs fib_sequential):
            the time of one invocation, ns and cycles (the difference over the 1,597 invocations between them;
            an invocation of the compiled code: fib_sequential(m) is one call in a loop, F(m+1) invocations where
            the source makes 2 F(m+1) - 1 calls: docs/forkjoin.md, "Serial code");
  runtime   fib 28 at cutoff 2 (the runtime's spawns, joins and batches; its serial code is a third of its tasks, the
            leaves, one invocation each), one queue and
            EPAQ: tasks per us per SM, against the paper's fib 40 at cutoff 2 (GTaP 84591ae,
            evaluation/3-epaq/fib/epaq_performance_results_fib.csv: 98.104 and 98.962 ms on 132 SMs); then Fig. 10's
            cutoff 10 (fib 32; the paper's fib 40, 8.261 and 4.576 ms) split into the runtime at that rate and the
            rest, per serial invocation per SM (a rough split: the two overlap);
  tail      fib 36 at cutoff 18, where a few serial fib(17)s end the run (0.67 serial tasks per lane, 684 per SM;
            the paper's fib 40 there 0.59 and 568): the kernel time over a lone fib(17)'s, one queue and EPAQ, and
            what that ratio makes of the paper's fib 40 at cutoff 18 (9.903 and 5.1585 ms);
  slack     Fig. 10's fib 32 at cutoff 10 on 2, 4 and 16 SMs (more serial tasks per lane on fewer): the mean
            task-function time of a worker loop (trace spans `run N`) and the kernel time;
  carveout  each figure's kernel at the L1 its shared memory leaves (docs/forkjoin.md, "The L1 carveout"):
            fib 32 at cutoff 10 with 192 and 156 KiB, N-Queens 12 at cutoff 5 with 192 and 224, Fig. 7a's
            tree at D 12 (thread workers) with 192 and 92, (block workers) with 192 and 240;
  bounds    what bounds Fig. 10's fib 32 in the model (docs/forkjoin.md, "What bounds Fig. 10's fib"), at the page's
            one-cycle quantum: cutoff 10, one queue and EPAQ, as the preset has it and with the L2 34 SM cycles slower
            (31 of its 1791 MHz),
            fences twice as long, L1 hits twice as long, half the issue width, and an L1 that serves a line every
            second cycle (gpu.l1.occupancy=2); cutoffs 8 and 16 as the preset has it and with that L1; kernel us,
            the move, and EPAQ's gain; then the L1s' line requests of cutoff 10's one-queue run with the slower L2;
  tlb       the runtime part's fib 28 at cutoff 2 with address translation (docs/forkjoin.md, "Address translation,
            the first candidate that can close the gap alone"; gpu.tlb.*, assumed values, not Hopper's): L1 TLBs of
            16 and 32 entries at 120 and 200 cycles a miss, an L2 TLB of 512-2,048 entries (an eighth of a chip's)
            with 100-500-cycle walks, and the costs a P100 was measured to have (gcoe-dresden/cuda-gpu-tlb 6c9edc6,
            results/P100: an L1 TLB miss +9 cycles, an L2 TLB miss +110) on 16 and 512 entries; pages of 256 KiB,
            which give the runs' 20,000 records a warp the pages of the paper's 140,000-odd on 2 MiB ones (Fig.
            10's GTAP_MAX_TASKS_PER_WARP); kernel us, tasks per us per SM, the H100 over ours per task, and the L1
            TLBs' misses and walks.
  size      the runtime part's fib at 28, 30 and 32 (3,000, 7,900 and 20,700 tasks a warp; the paper's fib 40 124,000),
            one queue: kernel us, tasks per us per SM, the H100 over ours (docs/forkjoin.md, "The per-task gap at the
            paper's tasks per warp").
Every fib run has Fig. 10's L1 (156 KiB) unless the part says otherwise.
--set=K=V (repeatable) adds a setting to every run, after the part's own (e.g. --set=forkjoin.code=compiled; a
setting of an L1 size overrides the carveout part's sizes).
Usage: tools/forkjoin_fib_study.py [build/fgsim] [--parts=serial,runtime,tail,slack,carveout,bounds,tlb,size] [--set=K=V ...]"""
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
PARTS = ("serial", "runtime", "tail", "slack", "carveout", "bounds", "tlb", "size")
ap.add_argument("--parts", type=fgtool.choice_list(*PARTS), default=list(PARTS))
ap.add_argument("--set", action="append", default=[], metavar="K=V")
opts = fgtool.parse(ap)


def sets(*settings):
    return [x for kv in (*settings, *opts.set) for x in ("--set", kv)]


# The L1 each figure's kernel leaves (docs/forkjoin.md, "The L1 carveout"): 156 KiB = 1,248 lines, the preset's 24
# sets of 52 ways; 224 and 240 KiB 64 ways; 92 KiB 46 ways.
L1 = {192: [], 156: ["gpu.l1.size=159744", "gpu.l1.ways=52", "gpu.cu.lds=102400"],
      224: ["gpu.l1.size=229376", "gpu.cu.lds=32768"], 240: ["gpu.l1.size=245760", "gpu.cu.lds=16384"],
      92: ["gpu.l1.size=94208", "gpu.l1.ways=46", "gpu.cu.lds=167936"]}


def fib(n, cutoff, queues=1, *extra, l1=156):
    """Fig. 10's fib run (experiments/forkjoin.yaml, its 156 KiB L1 unless `l1` says otherwise)."""
    return [opts.fgsim, "run", "fib", "--preset", "gh200", *sets("fib.mechanism=forkjoin", f"fib.n={n}",
                                                                 f"fib.cutoff={cutoff}", f"forkjoin.queues={queues}",
                                                                 "forkjoin.terminate=first", *L1[l1], *extra)]


def fib_shape(n, cutoff):
    """fib(n) at `cutoff`: its spawning tasks (the nodes at or above the cutoff), its serial tasks (the nodes below
    it whose parent is at or above it) and their serial invocations (fib_sequential(m) compiled: F(m+1))."""
    memo = {}

    def walk(m):
        if m < cutoff:
            return 0, 1, fibn(m + 1)
        if m not in memo:
            a, b = walk(m - 1), walk(m - 2)
            memo[m] = (a[0] + b[0] + 1, a[1] + b[1], a[2] + b[2])
        return memo[m]

    return walk(n)


def fib_tasks(n, cutoff):
    """The tasks fib(n) at `cutoff` runs: a spawning task and its continuation per spawning node, and the serial
    tasks."""
    spawning, serial, _ = fib_shape(n, cutoff)
    return 2 * spawning + serial


def fibn(m):
    a, b = 0, 1
    for _ in range(m):
        a, b = b, a + b
    return a


lone = {}
if "serial" in opts.parts or "tail" in opts.parts:
    for n in (15, 17):
        st = fgtool.stats(fib(n, 18))
        lone[n] = fgtool.kernel_us(st)
    clock_ghz = st["config"]["gpu.clock"] / 1000  # MHz in the run's config
    per = (lone[17] - lone[15]) * 1000 / (fibn(18) - fibn(16))
    if "serial" in opts.parts:
        print("| a lone lane's serial fib | kernel us |\n|---|---|")
        for n in (15, 17):
            print(f"| fib({n}), {fibn(n + 1):,} invocations | {lone[n]:.1f} |")
        print(f"\none invocation: {per:.1f} ns, {per * clock_ghz:.0f} cycles at {clock_ghz} GHz")
        sys.stdout.flush()

if "runtime" in opts.parts:
    print("\n| cutoff 2 | tasks | kernel us | tasks per us per SM | the paper's fib 40: tasks per us per SM | paper "
          "over ours (time per task) |")
    print("|---|---|---|---|---|---|")
    rate = {}
    ours_tasks = fib_tasks(28, 2)
    paper_tasks = fib_tasks(40, 2)
    for queues, paper_ms in ((1, 98.104), (3, 98.962)):
        us = fgtool.kernel_us(fgtool.stats(fib(28, 2, queues)))
        ours = ours_tasks / us / 16
        paper = paper_tasks / (paper_ms * 1000) / 132
        print(f"| {'one queue' if queues == 1 else 'EPAQ'} | {ours_tasks:,} | {us:,.1f} | {ours:.1f} | {paper:.1f} | "
              f"{ours / paper:.2f} |")
        rate[queues] = ours, paper
    sys.stdout.flush()
    # Fig. 10's cutoff 10 split as if the runtime's time per task were the one at cutoff 2 and the rest the serial
    # code's (a rough split: the two overlap).
    print("\n| cutoff 10 | kernel us | runtime at cutoff 2's rate, us | the rest per serial invocation per SM, ns "
          "| the paper's fib 40: kernel ms | runtime, ms | the rest per invocation per SM, ns | paper over ours |")
    print("|---|---|---|---|---|---|---|---|")
    _, ours_inv = fib_shape(32, 10)[1:]
    _, paper_inv = fib_shape(40, 10)[1:]
    for queues, paper_ms in ((1, 8.261), (3, 4.576)):
        us = fgtool.kernel_us(fgtool.stats(fib(32, 10, queues)))
        runtime_us = fib_tasks(32, 10) / rate[queues][0] / 16
        ours_ns = (us - runtime_us) * 1000 / (ours_inv / 16)
        paper_rt = fib_tasks(40, 10) / rate[queues][1] / 132 / 1000
        paper_ns = (paper_ms - paper_rt) * 1e6 / (paper_inv / 132)
        print(f"| {'one queue' if queues == 1 else 'EPAQ'} | {us:,.1f} | {runtime_us:,.1f} | {ours_ns:.2f} | "
              f"{paper_ms} | {paper_rt:.2f} | {paper_ns:.2f} | {paper_ns / ours_ns:.1f} |")
    sys.stdout.flush()

if "tail" in opts.parts:
    print("\n| cutoff 18 | ours: fib 36, kernel us | over a lone fib(17) | the paper's fib 40, ms | a fib(17) there at "
          "our ratio, ms | one invocation there, ns |")
    print("|---|---|---|---|---|---|")
    for queues, paper_ms in ((1, 9.903), (3, 5.1585)):
        us = fgtool.kernel_us(fgtool.stats(fib(36, 18, queues)))
        ratio = us / lone[17]
        serial_ms = paper_ms / ratio
        print(f"| {'one queue' if queues == 1 else 'EPAQ'} | {us:,.1f} | {ratio:.2f} | {paper_ms} | {serial_ms:.2f} | "
              f"{serial_ms * 1e6 / fibn(18):.0f} |")
    sys.stdout.flush()

if "slack" in opts.parts:
    print("\n| fib 32, cutoff 10 | SMs | serial tasks per lane | queues | kernel us | task functions: mean us |")
    print("|---|---|---|---|---|---|")
    serial = fib_shape(32, 10)[1]
    for cus in (2, 4, 16):
        for queues in (1, 3):
            st, events = fgtool.traced(fib(32, 10, queues, f"gpu.cus={cus}"))
            runs = [e["dur"] for e in events if e["ph"] == "X" and e["name"].startswith("run ")]
            lanes = st["kernels"][0]["wavefronts"] * 32
            print(f"| | {cus} | {serial / lanes:.2f} | {queues} | {fgtool.kernel_us(st):,.1f} | "
                  f"{statistics.mean(runs) if runs else 0:.2f} |")
        sys.stdout.flush()

if "carveout" in opts.parts:
    print("\n| kernel | L1 KiB | kernel us |\n|---|---|---|")
    tree = [opts.fgsim, "run", "tree", "--preset", "gh200", *sets("forkjoin.groups=125", "forkjoin.group_size=64",
                                                                  "tree.input_log2=19", "forkjoin.runtime=feb2026",
                                                                  "tree.depth=12")]
    queens = [opts.fgsim, "run", "queens", "--preset", "gh200", *sets("queens.mechanism=forkjoin", "queens.n=12",
                                                                      "queens.cutoff=5", "forkjoin.runtime=jan2026")]
    for name, cmd, sizes in (("fib 32, cutoff 10, one queue", fib(32, 10, 1, l1=192), (192, 156)),
                             ("fib 32, cutoff 10, EPAQ", fib(32, 10, 3, l1=192), (192, 156)),
                             ("N-Queens 12, cutoff 5, one queue", queens, (192, 224)),
                             ("tree D 12, thread workers", [*tree, *sets("forkjoin.workers=thread")], (192, 92)),
                             ("tree D 12, block workers", [*tree, *sets("forkjoin.workers=block")], (192, 240))):
        for kib in sizes:
            print(f"| {name} | {kib} | {fgtool.kernel_us(fgtool.stats([*cmd, *sets(*L1[kib])])):,.1f} |")
            sys.stdout.flush()

if "bounds" in opts.parts:
    print("\n| fib 32 (sim.quantum=0.505) | cutoff | one queue us | move | EPAQ us | move | EPAQ's gain |")
    print("|---|---|---|---|---|---|---|")
    probes = {10: (None, "gpu.l2.hit_latency=248", "gpu.cu.fence_latency=560", "gpu.l1.hit_latency=68",
                   "gpu.cu.issue_width=2", "gpu.l1.occupancy=2"),
              8: (None, "gpu.l1.occupancy=2"), 16: (None, "gpu.l1.occupancy=2")}
    slow_l2 = None
    for cutoff, settings in probes.items():
        base = {}
        for setting in settings:
            extra = ["sim.quantum=0.505", *([setting] if setting else [])]
            us = {}
            for queues in (1, 3):
                st = fgtool.stats(fib(32, cutoff, queues, *extra))
                us[queues] = fgtool.kernel_us(st)
                if setting == "gpu.l2.hit_latency=248" and queues == 1:
                    slow_l2 = st["totals"]
            if setting is None:
                base = us
            move = {q: f"{100 * (us[q] / base[q] - 1):+.1f}%" for q in us}
            print(f"| {setting or 'preset'} | {cutoff} | {us[1]:,.1f} | {move[1]} | {us[3]:,.1f} | {move[3]} | "
                  f"{us[1] / us[3]:.3f} |")
            sys.stdout.flush()
    print("\n| cutoff 10, one queue, gpu.l2.hit_latency=248: L1 requests | count |\n|---|---|")
    for key in ("reads", "hits", "writes", "bypass_reads", "atomics"):
        print(f"| {key} | {slow_l2.get('gpu.cu.l1.' + key, 0):,.0f} |")

if "tlb" in opts.parts:
    print("\n| fib 28, cutoff 2, one queue | L1 TLB entries, cycles a miss | L2 TLB entries, walk cycles | kernel us | "
          "tasks per us per SM | the H100 over ours (time per task) | L1 TLB misses | walks |")
    print("|---|---|---|---|---|---|---|---|")
    tasks = fib_tasks(28, 2)
    paper = fib_tasks(40, 2) / (98.104 * 1000) / 132
    for l1, miss, l2, walk in ((0, 0, 0, 0), (16, 120, 0, 0), (32, 120, 0, 0), (16, 200, 0, 0), (16, 120, 2048, 500),
                               (16, 120, 1024, 500), (16, 120, 512, 100), (16, 200, 512, 100), (16, 120, 512, 250),
                               (16, 120, 512, 500), (16, 9, 0, 0), (16, 9, 512, 110)):
        extra = [f"gpu.tlb.l1_entries={l1}", f"gpu.tlb.l1_miss_latency={miss}", "gpu.tlb.page=262144",
                 f"gpu.tlb.l2_entries={l2}", f"gpu.tlb.walk_latency={walk}"] if l1 else []
        st = fgtool.stats(fib(28, 2, 1, *extra))
        us = fgtool.kernel_us(st)
        ours = tasks / us / 16
        tot = st["totals"]
        print(f"| | {f'{l1}, {miss}' if l1 else 'none'} | {f'{l2}, {walk}' if l2 else ('every page' if l1 else '-')} | "
              f"{us:,.1f} | {ours:.1f} | {ours / paper:.2f} | {tot.get('gpu.cu.l1.tlb_misses', 0):,.0f} | "
              f"{tot.get('gpu.cu.l1.tlb_walks', 0):,.0f} |")
        sys.stdout.flush()

if "size" in opts.parts:
    print("\n| cutoff 2, one queue | tasks a warp | kernel us | tasks per us per SM | the H100 over ours (time per task) |")
    print("|---|---|---|---|---|")
    paper = fib_tasks(40, 2) / (98.104 * 1000) / 132
    for n in (28, 30, 32):
        us = fgtool.kernel_us(fgtool.stats(fib(n, 2, 1)))
        ours = fib_tasks(n, 2) / us / 16
        print(f"| fib {n} | {fib_tasks(n, 2) / 512:,.0f} | {us:,.1f} | {ours:.1f} | {ours / paper:.2f} |")
        sys.stdout.flush()
