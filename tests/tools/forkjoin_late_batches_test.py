#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/forkjoin_late_batches.py (the late-batch numbers of docs/forkjoin.md's paragraph on Fig. 10's N-Queens at
cutoff 4): its digest of a hand-made trace of five warps, number by number (kept against found batches, idle
before, the 90 and 120 us thresholds at their edges, the run-ending batch, the find bins, a span of another track
left out); on real runs of 8-queens at cutoff 3 on 4 warps (a fraction of a second each), where warps find work
again after a batch, its batches against the stats: as many as forkjoin.batches, the kept batches' tasks
forkjoin.kept and the found ones' forkjoin.popped + forkjoin.stolen, and with the late threshold at 0 the late
tasks the same; the command line's table; bad input is one line and exit 2; fgtool's line reader keeps
the trace's last event whole.

    forkjoin_late_batches_test.py ROOT FGSIM"""
import os
import subprocess
import sys

root, fgsim = os.path.abspath(sys.argv[1]), sys.argv[2]
tool = os.path.join(root, "tools", "forkjoin_late_batches.py")
sys.path.insert(0, os.path.join(root, "tools"))
import fgtool  # noqa: E402
import forkjoin_late_batches as lb  # noqa: E402

failures = []


def near(a, b):
    return abs(a - b) < 1e-9


# A hand-made trace: the kernel submitted at 1 us (so every time below is 1 us later in the trace), ended at 216.
# Per warp (track), its spans (name, start, duration) from the submission.
WARPS = {
    1: [("run 1", 0.0, 10.0),  # the root's batch: found (nothing before it), idle before 0
        ("push", 10.0, 0.5),  # publishes, but before 90 us
        ("run 32", 10.6, 100.0),  # kept, idle before 0.1
        ("push", 110.6, 0.4),  # publishes after 90 us
        ("run 24", 111.2, 20.0),  # kept, idle before 0.2; a full batch after 90 us, not late (before 120)
        ("push", 131.2, 0.3),  # 0.3 us: not a publishing push
        ("run 16", 131.6, 50.0),  # kept, late, idle before 0.1; 16 tasks: not full, but a late batch of >= 16
        ("push", 181.6, 0.1),
        ("find", 181.8, 1.0), ("idle", 182.8, 0.2)],
    2: [("find", 0.0, 2.0), ("idle", 2.0, 0.3),
        ("find", 85.0, 2.0),  # a find in the 80-140 us window, bin 80-90
        ("run 8", 90.0, 5.0),  # found, idle before 90 (no push before it); at 90 us but of 8 tasks: not full
        ("push", 95.0, 1.0),  # publishes after 90 us
        ("find", 96.0, 3.0),  # bin 90-100
        ("run 32", 120.0, 70.0),  # found after a push and a find; late (at 120 exactly), idle before 120 - 96 = 24;
        ("push", 190.0, 0.1),  # full; ends last (190)
        ("find", 190.2, 1.5), ("idle", 191.7, 0.2)],
    3: [("find", 100.0, 1.0),  # bin 100-110
        ("idle", 101.0, 0.3),
        ("find", 104.0, 2.0),  # bin 100-110 too
        ("run 4", 119.99, 1.0),  # found, not late (before 120), idle before 119.99
        ("push", 120.99, 0.2),
        ("find", 140.0, 5.0),  # outside the window (140 is its end)
        ("idle", 145.0, 0.3)],
    4: [("find", 60.0, 2.0),
        ("run 24", 90.0, 15.0),  # found, idle before 90; full (24 tasks, 15 us) at 90 us; not short (15 us)
        ("push", 105.0, 0.5)],  # publishes after 90 us, after a full batch started at 90 us: not held back
    5: [("find", 60.0, 2.0),
        ("run 1", 62.0, 28.0),  # found, idle before 62
        ("push", 90.0, 0.5),  # publishes, at 90 us
        ("find", 198.0, 4.0), ("idle", 202.0, 3.0), ("find", 205.0, 10.0)],  # 2 + 3 + 5 us in 200-210 us
}
events = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "forkjoin"}},
          {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "gpu"}},
          {"ph": "X", "pid": 2, "tid": 9, "name": "run 99", "ts": 51.0, "dur": 500.0}]  # not a forkjoin track
for tid, steps in WARPS.items():
    events.append({"ph": "M", "pid": 1, "tid": tid, "name": "thread_name", "args": {"name": f"warp {tid}"}})
    events += [{"ph": "X", "pid": 1, "tid": tid, "name": n, "ts": ts + 1.0, "dur": dur} for n, ts, dur in steps]
events.reverse()  # the digest must not depend on the trace's order
st = {"kernels": [{"submitted_ns": 1000.0, "end_ns": 216000.0}]}
ev, kernel_us = lb.spans(st, events)
if len(ev) != sum(len(v) for v in WARPS.values()) or not near(kernel_us, 215.0):
    failures.append(f"spans: {len(ev)} spans, kernel {kernel_us} us (want 36 forkjoin spans, 215 us)")
got = [(b.track, b.tasks, b.source, round(b.idle, 6)) for b in lb.batches(ev)]
want = [(1, 1, "found", 0.0), (1, 32, "kept", 0.1), (5, 1, "found", 62.0), (2, 8, "found", 90.0),
        (4, 24, "found", 90.0), (1, 24, "kept", 0.2), (3, 4, "found", 119.99), (2, 32, "found", 24.0),
        (1, 16, "kept", 0.1)]
if got != want:
    failures.append(f"batches (track, tasks, kept or found, idle before): {got}, want {want}")
d = lb.digest(ev, kernel_us)
finds = [2.0, 3.0, 1.0, 2.0]  # started at 85, 96, 100, 104
checks = [
    ("wave", d["wave"][0] == 3 and near(d["wave"][1], (90 + 111.2 + 120) / 3) and near(d["wave"][2], 35.0)
     and near(d["wave"][3], (105 + 131.2 + 190) / 3)),
    ("pushes", d["pushes"] == 4),
    # of the four, only warp 1's at 110.6 us ends a full batch started before 90 us (its run 32 at 10.6 us);
    # warp 2's follows a batch of 8, warp 5's one of 1, warp 4's a full one started at 90 us
    ("held", [(b.track, round(b.start, 6), b.dur) for b in d["held"]] == [(1, 10.6, 100.0)]),
    ("late_kept", d["late_kept"] == 16), ("late_found", d["late_found"] == 32),
    ("found_idle", near(d["found_idle"], 24.0)), ("longest", near(d["longest"], 100.0)),
    ("longest_late", near(d["longest_late"], 70.0)),
    ("short", d["short"] == (3, 13)), ("last_start", near(d["last_start"], 131.6)),
    ("ending", (d["ending"].track, d["ending"].source) == (2, "found") and near(d["ending"].start, 120.0)),
    ("batch_time", near(d["batch_time"], 10 + 100 + 20 + 50 + 5 + 70 + 1 + 15 + 28)),
    ("find_idle", near(d["find_idle"], sum(dur for v in WARPS.values() for n, _, dur in v if n in ("find", "idle")))),
    ("find", near(d["find"][0], sum(finds) / 4) and near(d["find"][1], (1.0 + 2.0) / 2) and near(d["find"][2], 3.0)),
    ("polling", near(d["polling"], 1.0)), ("termination", near(d["termination"], 25.0)),
]
for name, ok in checks:
    if not ok:
        failures.append(f"digest of the hand-made trace: {name} is {d[name]}")
line = lb.row("x", {"stats": {"forkjoin.batches": 9, "forkjoin.published": 1, "forkjoin.kept": 72,
                              "forkjoin.stolen": 3}}, d)
want_cells = ["x", "215.0", "9", "1 / 72 / 3", "3, 107.1 / 35.0 / 142.1", "4 (1: 10.6-10.6 / 100.0-100.0)", "48 (16 / 32; 33%)", "24.0",
              "100.0 / 70.0", "3 (13)", "131.6", "120.0 + 70.0 (found, 24.0)", "299", "40", "2.00 (1.50-3.00)", "1",
              "25.0"]
cells = [c.strip() for c in line.strip().strip("|").split("|")]
if cells != want_cells or len(cells) != lb.HEADER.count(" |"):
    failures.append(f"row: {cells}, want {want_cells}")

# Real runs: the digest's batches against the runtime's counters.
for queues in ("1", "2"):
    st, events = fgtool.traced(lb.command(fgsim, 8, 3, queues, None, ["gpu.cus=2", "forkjoin.groups=4"]))
    s = st["stats"]
    ev, kernel_us = lb.spans(st, events)
    rows = lb.batches(ev)
    kept = sum(b.tasks for b in rows if b.source == "kept")
    found = sum(b.tasks for b in rows if b.source == "found")
    again = sum(1 for b in rows if b.source == "found" and any(a.track == b.track and a.start < b.start for a in rows))
    want = (int(s["forkjoin.batches"]), int(s["forkjoin.kept"]), int(s["forkjoin.popped"] + s["forkjoin.stolen"]))
    if (len(rows), kept, found) != want or not kept or not again:
        failures.append(f"8-queens, cutoff 3, {queues} queue(s): {len(rows)} batches, {kept} tasks kept, {found} "
                        f"found ({again} found by a warp after its own batch); the stats' batches, kept, popped + "
                        f"stolen: {want} (and some kept, some found again)")
    lb.LATE_US = 0.0
    d = lb.digest(ev, kernel_us)
    lb.LATE_US = 120.0
    if (d["late_kept"], d["late_found"]) != want[1:]:
        failures.append(f"8-queens, cutoff 3, {queues} queue(s), late from 0 us: kept / found "
                        f"{d['late_kept']} / {d['late_found']}, the stats' {want[1:]}")

r = subprocess.run([sys.executable, tool, fgsim, "--n=8", "--cutoff=3", "--seed=1", "--set=gpu.cus=2",
                    "--set=forkjoin.groups=4"], capture_output=True, text=True, timeout=120)
lines = r.stdout.splitlines()
if r.returncode != 0 or r.stderr or len(lines) != 4 or not lines[0].startswith("| 8-queens, cutoff 3 (gh200) |") \
        or not lines[2].startswith("| one queue, stream seed 1 | ") \
        or not lines[3].startswith("| EPAQ (2 queues), stream seed 1 | ") \
        or any(len(x.split("|")) != len(lines[0].split("|")) for x in lines[1:]):
    failures.append(f"the command line: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

for args in (["--seed=x"], ["--queues=1,3"], ["--cutoff=0"]):
    r = subprocess.run([sys.executable, tool, fgsim, *args], capture_output=True, text=True, timeout=60)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or r.stdout:
        failures.append(f"{args}: exit {r.returncode}, {r.stdout!r} {r.stderr!r} (want one line and exit 2)")

# fgtool.traced(keep=...) reads fgsim's trace a line at a time: every kept event whole, the last one (no comma
# after it, `]}` on the next line) included.
trace = ['{"traceEvents":[\n', '{"ph":"M","pid":1,"name":"process_name","args":{"name":"forkjoin"}},\n',
         '{"ph":"X","pid":1,"tid":2,"name":"run 3","ts":1.5,"dur":2.0},\n',
         '{"ph":"X","pid":1,"tid":3,"name":"find","ts":2.0,"dur":1.0},\n',
         '{"ph":"X","pid":2,"tid":4,"name":"run 1","ts":0.5,"dur":4.0,"args":{"n":1}}\n', ']}\n']
got = fgtool.trace_lines(trace, ['"name":"run '])
if got != [{"ph": "X", "pid": 1, "tid": 2, "name": "run 3", "ts": 1.5, "dur": 2.0},
           {"ph": "X", "pid": 2, "tid": 4, "name": "run 1", "ts": 0.5, "dur": 4.0, "args": {"n": 1}}]:
    failures.append(f"fgtool.trace_lines: {got}")

for f in failures:
    print("FAIL:", f)
print(f"forkjoin_late_batches: {len(failures)} failures")
sys.exit(1 if failures else 0)
