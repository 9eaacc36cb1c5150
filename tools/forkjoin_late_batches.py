#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The late batches of Fig. 10's N-Queens at a cutoff (gh200, the page's one-cycle quantum), one queue against
EPAQ's two: the second wave of search batches, who starts it, and the batch that ends the run (docs/forkjoin.md,
the paragraph on Fig. 10's N-Queens at cutoff 4). Each run is `fgsim run queens --preset gh200 --set
queens.mechanism=forkjoin --set queens.n=N --set queens.cutoff=C --set sim.quantum=0.505 --set forkjoin.queues=Q`,
traced; with --seed, `--set forkjoin.victim=stream --seed S` too (else the clock victim); --set K=V goes last.
One table row per run. Times are in us from the kernel's submission; "after T us" is a start at or after T.

The trace's `forkjoin` tracks hold a span per step of each warp's worker loop (workloads/runtime/forkjoin.cpp):
`find` (a pop or a steal), `idle` (the termination check after a fruitless find), `run N` (a batch of N tasks)
and `push` (the batch's children: the warp keeps up to 32 of them as its next batch, publishes the rest).
- A batch is **kept** when, among its warp's `push`, `find` and `run` spans in time order, the one before it is a
  `push` (the warp runs tasks it kept from its previous batch, without a find), else **found** (after a `find`:
  popped or stolen; the root's batch is popped). Its **idle before** is its start minus the end of its warp's
  previous `push` (minus 0, the submission, when there is none): 0.1 us for a kept batch. So the kept batches'
  tasks are the stats' forkjoin.kept and the found ones' forkjoin.popped + forkjoin.stolen (the test checks it).
- published / kept / stolen tasks: the stats' forkjoin.published, forkjoin.kept and forkjoin.stolen; batches:
  forkjoin.batches (the trace's `run` spans, the same count).
- Full batches after 90 us (the second wave): batches of at least 24 tasks and 15 us started at or after 90 us;
  their count and mean start, duration and end.
- Publishing pushes after 90 us: `push` spans longer than 0.3 us that start at or after 90 us (at 12-queens,
  cutoff 4 a push's span is under 0.2 us or over 0.45 us; the long ones are taken as those that publish); of
  them, those whose warp's last batch before the push was full (the second wave's sizes) and started before
  90 us: children a long first-wave batch held back (13-queens at cutoff 3, where one queue's batches mix
  searches with their spawners), with those batches' starts and durations.
- Tasks after 120 us: the tasks of the batches started at or after 120 us, in kept / found batches, and the kept
  share; mean idle before a found late batch: the mean idle before over those found batches.
- Longest batch: the longest of all, and of the batches of at least 16 tasks started at or after 120 us.
- Short batches: the batches shorter than 15 us and their tasks (EPAQ's hold the spawning tasks).
- Run-ending batch: the batch that ends last: start + duration (kept or found, idle before).
- Batch time and find+idle: the sums of the `run` spans, and of the `find` and `idle` spans, over all warps.
- Find span: the mean `find` span of the finds started at 80-140 us, and the least and greatest of its means over
  the six 10-us bins of their starts (a bin without finds left out).
- Warps finding or idle at 200-210 us: the time of the `find` and `idle` spans in that window over its length.
- Termination: the kernel's end minus the last batch's end.
The paragraph's twenty runs: the default (the clock victim) and --seed=1,2,3,4, each also with
--set=forkjoin.globals=lines; a run of the default input takes under a minute.
Usage: tools/forkjoin_late_batches.py [build/fgsim] [--n=12] [--cutoff=4] [--queues=1,2] [--seed=S,...] [--set=K=V]"""
import collections
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

WAVE_US = 90.0  # the second wave's full batches and the late publishing pushes start at or after this
LATE_US = 120.0  # the late tasks and batches start at or after this
FULL_TASKS, FULL_US = 24, 15.0  # a full batch of searches: at least this many tasks and this long
LONG_TASKS = 16  # the longest late batch: of at least this many tasks
SHORT_US = 15.0  # a short batch: shorter than this
PUBLISH_US = 0.3  # a push that publishes: longer than this
FIND_BINS = (80.0, 140.0, 10.0)  # the find span's window and bin width
POLL_US = (200.0, 210.0)  # the window of the warps finding or idle

KEEP = ('"ph":"M"', '"name":"run ', '"name":"push"', '"name":"find"', '"name":"idle"')  # trace lines read
Batch = collections.namedtuple("Batch", "start dur tasks track source idle")


def spans(st, events):
    """The `forkjoin` tracks' spans of a traced run (stats document and trace events, fgtool.traced) as
    (track, name, start us from the kernel's submission, duration us), and the kernel's time in us."""
    k = st["kernels"][0]
    t0 = k["submitted_ns"] / 1000  # us, the trace's unit
    pids = {e["pid"] for e in events
            if e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"] == "forkjoin"}
    ev = [(e["tid"], e["name"], e["ts"] - t0, e["dur"]) for e in events if e["ph"] == "X" and e["pid"] in pids]
    return ev, (k["end_ns"] - k["submitted_ns"]) / 1000


def batches(ev):
    """Every `run N` span as a Batch, kept or found (the docstring), sorted by start."""
    by_track = collections.defaultdict(list)
    for track, name, ts, dur in ev:
        by_track[track].append((ts, dur, name))
    rows = []
    for track, steps in by_track.items():
        steps.sort()
        last_push_end, before = 0.0, None
        for ts, dur, name in steps:
            if name.startswith("run "):
                rows.append(Batch(ts, dur, int(name.split()[1]), track, "kept" if before == "push" else "found",
                                  ts - last_push_end))
            if name == "push":
                last_push_end = ts + dur
            if name in ("push", "find") or name.startswith("run "):
                before = name
    rows.sort()
    return rows


def digest(ev, kernel_us):
    """The table's numbers of one run from its spans (spans())."""
    rows = batches(ev)
    if not rows:
        raise ValueError("the trace has no `run` spans on a `forkjoin` track")
    d = {"kernel": kernel_us}

    def full(b):
        return b.tasks >= FULL_TASKS and b.dur >= FULL_US

    wave = [b for b in rows if b.start >= WAVE_US and full(b)]
    d["wave"] = (len(wave), *((statistics.mean(b.start for b in wave), statistics.mean(b.dur for b in wave),
                               statistics.mean(b.start + b.dur for b in wave)) if wave else (0.0, 0.0, 0.0)))
    pushes = [(track, ts) for track, name, ts, dur in ev if name == "push" and ts >= WAVE_US and dur > PUBLISH_US]
    d["pushes"] = len(pushes)
    # Of those, the ones that end a full batch started before 90 us (the warp's last batch before the push):
    # children a long first-wave batch held back.
    d["held"] = []
    for track, ts in pushes:
        b = max((b for b in rows if b.track == track and b.start < ts), key=lambda b: b.start, default=None)
        if b and full(b) and b.start < WAVE_US:
            d["held"].append(b)
    late = [b for b in rows if b.start >= LATE_US]
    d["late_kept"] = sum(b.tasks for b in late if b.source == "kept")
    d["late_found"] = sum(b.tasks for b in late if b.source == "found")
    idle = [b.idle for b in late if b.source == "found"]
    d["found_idle"] = sum(idle) / max(1, len(idle))
    d["longest"] = max(b.dur for b in rows)
    d["longest_late"] = max((b.dur for b in late if b.tasks >= LONG_TASKS), default=0.0)
    short = [b for b in rows if b.dur < SHORT_US]
    d["short"] = (len(short), sum(b.tasks for b in short))
    d["last_start"] = rows[-1].start
    d["ending"] = max(rows, key=lambda b: b.start + b.dur)
    d["batch_time"] = sum(b.dur for b in rows)
    d["find_idle"] = sum(dur for _, name, _, dur in ev if name in ("find", "idle"))
    lo, hi, width = FIND_BINS
    finds = [(ts, dur) for _, name, ts, dur in ev if name == "find" and lo <= ts < hi]
    bins = collections.defaultdict(list)
    for ts, dur in finds:
        bins[int(ts // width)].append(dur)
    means = [statistics.mean(v) for v in bins.values()]
    d["find"] = (statistics.mean(dur for _, dur in finds) if finds else 0.0, min(means, default=0.0),
                 max(means, default=0.0))
    lo, hi = POLL_US
    d["polling"] = sum(max(0.0, min(ts + dur, hi) - max(ts, lo)) for _, name, ts, dur in ev
                       if name in ("find", "idle")) / (hi - lo)
    d["termination"] = kernel_us - (d["ending"].start + d["ending"].dur)
    return d


HEADER = ("| run | kernel us | batches | published / kept / stolen tasks | full batches started after 90 us: n, mean "
          "start / duration / end us | publishing pushes after 90 us (after a full batch started before 90 us: n, "
          "their starts / durations us) | tasks started after 120 us (kept / found; "
          "kept share) | mean idle before a found late batch us | longest batch us: any / started after 120 us | "
          "short batches (tasks) | last batch start us | run-ending batch: start + duration us (kept or found, idle "
          "before) | batch time warp-us | find+idle warp-us | find span 80-140 us: mean (10-us bins) | warps finding "
          "or idle at 200-210 us | kernel end - last batch end us |")


def row(label, st, d):
    """A table row (HEADER) of one run: its label, stats document and digest()."""
    s = st["stats"]
    late = d["late_kept"] + d["late_found"]
    e = d["ending"]
    h = d["held"]
    held = (f"{len(h)}: {min(b.start for b in h):.1f}-{max(b.start for b in h):.1f} / "
            f"{min(b.dur for b in h):.1f}-{max(b.dur for b in h):.1f}" if h else "0")
    return (f"| {label} | {d['kernel']:.1f} | {int(s['forkjoin.batches'])} | {int(s['forkjoin.published'])} / "
            f"{int(s['forkjoin.kept'])} / {int(s['forkjoin.stolen'])} | {d['wave'][0]}, {d['wave'][1]:.1f} / "
            f"{d['wave'][2]:.1f} / {d['wave'][3]:.1f} | {d['pushes']} ({held}) | {late} ({d['late_kept']} / "
            f"{d['late_found']}; {100 * d['late_kept'] / max(1, late):.0f}%) | {d['found_idle']:.1f} | "
            f"{d['longest']:.1f} / {d['longest_late']:.1f} | {d['short'][0]} ({d['short'][1]}) | "
            f"{d['last_start']:.1f} | {e.start:.1f} + {e.dur:.1f} ({e.source}, {e.idle:.1f}) | "
            f"{d['batch_time']:.0f} | {d['find_idle']:.0f} | {d['find'][0]:.2f} ({d['find'][1]:.2f}-"
            f"{d['find'][2]:.2f}) | {d['polling']:.0f} | {d['termination']:.1f} |")


def command(fgsim, n, cutoff, queues, seed=None, sets=()):
    """The fgsim command of one run (the docstring); seed None: the clock victim; sets: more K=V, given last."""
    victim = ["--set", "forkjoin.victim=stream", "--seed", str(seed)] if seed is not None else []
    return [fgsim, "run", "queens", "--preset", "gh200", "--set", "queens.mechanism=forkjoin", "--set",
            f"queens.n={n}", "--set", f"queens.cutoff={cutoff}", "--set", "sim.quantum=0.505", "--set",
            f"forkjoin.queues={queues}", *victim, *[x for kv in sets for x in ("--set", kv)]]


def main():
    ap = fgtool.parser(__doc__)
    ap.add_argument("--n", type=fgtool.positive, default=12, help="queens.n (default 12)")
    ap.add_argument("--cutoff", type=fgtool.positive, default=4, help="queens.cutoff (default 4)")
    ap.add_argument("--queues", type=fgtool.choice_list("1", "2"), default=["1", "2"],
                    help="forkjoin.queues values, in order (default 1,2: one queue, EPAQ)")
    ap.add_argument("--seed", type=fgtool.seed_list, default=None, metavar="S[,S...]",
                    help="the stream victim with these seeds (default: the clock victim)")
    ap.add_argument("--set", action="append", default=[], metavar="K=V", help="more fgsim settings, given last")
    opts = fgtool.parse(ap)
    print(HEADER.replace("| run |", f"| {opts.n}-queens, cutoff {opts.cutoff} (gh200) |", 1))
    print("|" + "---|" * HEADER.count(" |"))
    for seed in opts.seed if opts.seed is not None else [None]:
        for queues in opts.queues:
            # Only the metadata and the spans the digest reads: a trace of a long run is gigabytes.
            st, events = fgtool.traced(command(opts.fgsim, opts.n, opts.cutoff, queues, seed, opts.set), keep=KEEP)
            ev, kernel_us = spans(st, events)
            del events
            label = (f"{'EPAQ (2 queues)' if queues == '2' else 'one queue'}, "
                     f"{'clock' if seed is None else f'stream seed {seed}'}")
            try:
                print(row(label, st, digest(ev, kernel_us)), flush=True)
            except ValueError as e:
                sys.exit(f"forkjoin_late_batches.py: {label}: {e}")


if __name__ == "__main__":
    main()
