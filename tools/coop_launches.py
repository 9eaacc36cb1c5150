#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The co-runner's launches of one cooperative run, one line each (the Fig. 6 text of
docs/validation/cooperative.md; the co-runner is docs/cooperative.md's): when the host asked
for the slots, the gather (request to the graphics kernel's submission: it includes the
firmware's handling of the request, a few ns more than the run's `gather_mean_ns` counts),
the execution (submission to end) and the achieved period, max(P, gather + execution), in
simulated us and in the paper's ms (divided by coop.graphics.scale); a launch is late when
gather + execution exceeds P. Then the run's mean and median period, checked against the ones
fgsim reports. The run is a point of experiments/cooperative.yaml, named by its study's grid
and case values (default: fig6's color-ecology1 at medium-all-but-one), with --set values
added after the point's.
Usage: tools/coop_launches.py [build/fgsim] [--study=fig6] [--point=PAIR:CASE] [--set=K=V ...]"""
import os
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "experiments"))
import experiment as X  # noqa: E402

ap = fgtool.parser(__doc__)
ap.add_argument("--study", default="fig6", help="a study of experiments/cooperative.yaml (default fig6)")
ap.add_argument("--point", default="color-ecology1:medium-all-but-one", metavar="VALUE:...",
                help="the point's grid and case values, ':'-separated (default color-ecology1:medium-all-but-one)")
ap.add_argument("--set", action="append", default=[], metavar="K=V", help="added after the point's settings")
opts = fgtool.parse(ap)
exp = X.load(os.path.join(here, "..", "experiments", "cooperative.yaml"))
study = next((s for s in exp["studies"] if s["name"] == opts.study), None)
if study is None:
    ap.exit(2, f"{ap.prog}: error: --study={opts.study}: no such study in experiments/cooperative.yaml\n")
want = opts.point.split(":")
found = [a for p, seed, a in X.points(study) if sorted(map(str, p.values())) == sorted(want)]
if len(found) != 1:
    ap.exit(2, f"{ap.prog}: error: --point={opts.point}: {len(found)} points of {opts.study} have these values\n")
args = found[0] + [x for kv in opts.set for x in ("--set", kv)]
st = fgtool.stats([opts.fgsim, *args])
res = st["workload"]["results"]
if "graphics_period_ns" not in res:
    ap.exit(2, f"{ap.prog}: error: --point={opts.point}: the run has no co-runner\n")
P = res["graphics_period_ns"]
scale = float(st["config"]["coop.graphics.scale"])
to_ms = 1.0 / (scale * 1e6)
kernels = st["kernels"]
main = next(k for k in kernels if k["name"] != "graphics")
launches = [k for k in kernels if k["name"] == "graphics" and k["submitted_ns"] >= main["submitted_ns"]]

print(f"P = {P / 1000:.1f} us ({P * to_ms:.1f} paper ms); {len(launches)} launches")
print("| launch | requested (us) | gather (us) | execution (us) | period (us) | paper ms: gather + execution, period | late |")
print("|---|---|---|---|---|---|---|")
requested = main["submitted_ns"]
periods = []
for i, k in enumerate(launches):
    gather = k["submitted_ns"] - requested
    execution = k["end_ns"] - k["submitted_ns"]
    period = max(P, gather + execution)
    late = gather + execution > P
    periods.append(period)
    print(f"| {i + 1} | {(requested - main['submitted_ns']) / 1000:,.1f} | {gather / 1000:,.1f} | "
          f"{execution / 1000:,.1f} | {period / 1000:,.1f} | {gather * to_ms:.1f} + {execution * to_ms:.1f}, "
          f"{period * to_ms:.1f} | {'late' if late else ''} |")
    requested += period
if periods:
    mean, median = statistics.mean(periods), statistics.median(periods)
    print(f"\nlate launches: {sum(p > P for p in periods)} of {len(periods)}; period mean {mean * to_ms:.1f} ms, "
          f"median {median * to_ms:.1f} ms (paper ms); fgsim's: mean {res['period_mean_ns'] * to_ms:.1f}, "
          f"median {res['period_median_ns'] * to_ms:.1f}")
