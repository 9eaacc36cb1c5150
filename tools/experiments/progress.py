# SPDX-License-Identifier: Apache-2.0
"""The experiment workflow's progress for a person, instead of Snakemake's scheduler chatter:

    experiment platform: 8 of 38 points to run (30 cached)
    experiment platform: 3/8 points done, 1m02s elapsed, about 2m left
    experiment platform: wrote docs/validation/platform.md (8 points run in 2m51s)

tools/experiment.sh passes it to snakemake as `--log-handler-script` (FG_PROGRESS=0 leaves
Snakemake's own output). On a terminal the progress line is rewritten in place as points
finish; elsewhere it is one line per finished point (every twentieth of them above 40
points). Errors and warnings still go through Snakemake's own printer, and a failing point
is named with its command (fgsim's own message comes before it, on standard error).

Snakemake 7.21 prints its console output with `logger.text_handler`, a handler beside the
ones given with --log-handler-script (`--quiet` would silence it, but also the job_finished
events this counts). Loading this file takes that handler out of the list and hands it
only what a person needs (this is why it is a script to load, not a module to import). The
`run:` jobs (table, plot, page) run in snakemake subprocesses, which do not get this handler:
FG_EXPERIMENT_PROGRESS, set here and inherited, tells the Snakefile to keep only their errors
and warnings."""
import math
import os
import re
import sys
import time

from snakemake.logging import logger as _logger

_text = _logger.text_handler
if _text in _logger.log_handler:
    _logger.log_handler.remove(_text)
os.environ["FG_EXPERIMENT_PROGRESS"] = "1"

# Snakemake's info messages that are scheduler chatter (any other is shown).
_CHATTER = re.compile(r"(Building DAG of jobs|Using shell:|Select jobs to execute|Complete log:|Provided cores|"
                      r"Rules claiming more threads|Submitted (job|DRMAA job|group job)|Waiting at most|"
                      r"Assuming unrestricted shared filesystem|Job stats:|Nothing to be done|Reasons:)")
_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_PASSED = ("error", "warning", "debug", "dag_debug", "shellcmd", "rule_info", "d3dag", "group_error")


def _shown_path(p):
    """A path under the repository relative to it (the workflow runs in build/experiments)."""
    p = os.path.abspath(p)
    return os.path.relpath(p, _ROOT) if p.startswith(_ROOT + os.sep) else p


def _duration(s):
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _about(s):
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{round(s / 60)}m"
    return f"{s // 3600}h{round(s % 3600 / 60):02d}m"


class Progress:
    def __init__(self, name, out=sys.stderr, tty=None, clock=time.monotonic):
        self.name, self.out, self.clock = name, out, clock
        self.tty = out.isatty() if tty is None else tty
        self.total = None    # points to run (run_point jobs), from the job stats
        self.done = 0
        self.start = None    # the first point's start
        self.jobs = {}       # jobid -> (rule, output)
        self.open = False    # a progress line on the terminal without its newline
        self.last = 0.0

    def write(self, line, keep_open=False):
        if self.tty:
            self.out.write(("\r" + line + "\x1b[K") if keep_open else (("\r" if self.open else "") + line + "\x1b[K\n"))
        else:
            self.out.write(line + "\n")
        self.open = keep_open and self.tty
        self.out.flush()

    def close_line(self):
        if self.open:
            self.out.write("\n")
            self.out.flush()
            self.open = False

    def report(self):
        total = self.total if self.total is not None else "?"
        elapsed = self.clock() - self.start if self.start is not None else 0.0
        line = f"experiment {self.name}: {self.done}/{total} points done, {_duration(elapsed)} elapsed"
        if self.total and 0 < self.done < self.total:
            line += f", about {_about(elapsed / self.done * (self.total - self.done))} left"
        final = self.total is not None and self.done >= self.total
        if self.tty:
            self.write(line, keep_open=not final)
            return
        step = 1 if not self.total or self.total <= 40 else math.ceil(self.total / 20)
        if final or self.done % step == 0 or self.clock() - self.last >= 60:
            self.write(line)
            self.last = self.clock()

    def handle(self, msg):
        level = msg["level"]
        if level == "run_info" and self.total is None:  # the job stats (a dry run prints them twice)
            m = re.search(r"^run_point\s+(\d+)", msg.get("msg") or "", re.M)
            self.total = int(m.group(1)) if m else 0
            points = os.environ.get("FG_EXPERIMENT_POINTS", "")  # set by the Snakefile, parsed before this
            points = int(points) if points.isdigit() else None
            verb = "would run" if _logger.dryrun else "to run"
            if self.total:
                of = f" of {points}" if points is not None else ""
                cached = f" ({points - self.total} cached)" if points is not None and points > self.total else ""
                self.write(f"experiment {self.name}: {self.total}{of} points {verb}{cached}")
            else:
                self.write(f"experiment {self.name}: no point {verb}" + (f" (all {points} cached)" if points else ""))
        elif level == "job_info":
            self.jobs[msg["jobid"]] = (msg["name"], list(msg.get("output") or []))
            if msg["name"] == "run_point" and self.start is None:
                self.start = self.clock()
        elif level == "job_finished":
            rule, output = self.jobs.get(msg["jobid"], (None, []))
            if rule == "run_point":
                self.done += 1
                self.report()
            elif rule == "page" and output:
                took = f" ({self.done} point{'s' if self.done != 1 else ''} run in " \
                    f"{_duration(self.clock() - self.start)})" if self.done and self.start is not None else ""
                self.close_line()
                self.write(f"experiment {self.name}: wrote {_shown_path(output[0])}{took}")
        elif level == "job_error":
            self.close_line()
            if msg.get("name") == "run_point":
                self.write(f"experiment {self.name}: a point failed: "
                           f"{(msg.get('shellcmd') or ', '.join(msg.get('output') or [])).split(' && ')[0].strip()}")
            else:
                self.write(f"experiment {self.name}: the {msg.get('name')} job failed (its error is above)")
        elif level == "info":
            text = str(msg.get("msg") or "")
            if text.startswith("Nothing to be done"):
                self.write(f"experiment {self.name}: up to date, nothing to run")
            elif text.strip() and not _CHATTER.match(text):
                self.close_line()
                _text(msg)
        elif level in _PASSED:
            if level in ("error", "warning", "group_error"):
                self.close_line()
            _text(msg)


def _name():
    for a in sys.argv:
        if a.startswith("experiment="):
            return a.split("=", 1)[1]
    return "?"


_progress = None


def log_handler(msg):
    """Snakemake's entry point (--log-handler-script)."""
    global _progress
    if _progress is None:
        _progress = Progress(_name())
    _progress.handle(msg)
