# SPDX-License-Identifier: Apache-2.0
"""The command line shared by the measurement scripts in tools/ (benchmarks,
quantum sweeps, the tables in docs/): an optional path to fgsim (default
build/fgsim) and the script's own options, parsed by argparse, so --help
prints the script's docstring and a bad option or value is one line naming
it and exit 2 (docs/reliability.md), before any run starts. run() starts
fgsim; a run that fails ends the script with fgsim's exit code and a line
naming the command, not a Python traceback."""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def parser(doc):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fgsim", nargs="?", default="build/fgsim", help="the fgsim executable (default: build/fgsim)")
    return ap


def parse(ap):
    """Parses like ap.parse_args, but an error is one line (argparse prints
    the usage first) and fgsim must be an executable file."""
    def error(message):
        ap.exit(2, f"{ap.prog}: error: {message}\n")
    ap.error = error
    a = ap.parse_args()
    if not (os.path.isfile(a.fgsim) and os.access(a.fgsim, os.X_OK)):
        error(f"no fgsim executable at {a.fgsim} (build it first: make build)")
    return a


# Option types: each raises argparse.ArgumentTypeError, which parse() turns
# into one line naming the option and the value.

def positive(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return v


def positive_number(text):
    """A positive number, kept as the text given (it goes to fgsim as is)."""
    try:
        ok = float(text) > 0
    except ValueError:
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number")
    return text


def number_list(text):
    """Comma-separated positive numbers, kept as the texts given (sim.quantum values, ...)."""
    return [positive_number(x) for x in text.split(",")]


def int_list(text):
    return [positive(x) for x in text.split(",")]


def seed_list(text):
    """Comma-separated seeds (non-negative integers)."""
    items = []
    for x in text.split(","):
        if not x.isdigit():
            raise argparse.ArgumentTypeError(f"'{x}' is not a seed (a non-negative integer)")
        items.append(int(x))
    return items


def choice_list(*choices):
    def parse_list(text):
        items = text.split(",")
        for x in items:
            if x not in choices:
                raise argparse.ArgumentTypeError(f"'{x}' is not one of {', '.join(choices)}")
        return items
    return parse_list


def run(cmd, stdout=None):
    """Runs fgsim (cmd[0]); its messages reach stderr as it writes them. When
    it fails, one more line names the command and the script exits with
    fgsim's code (2: bad input, 3: a simulated fault)."""
    r = subprocess.run(cmd, stdout=stdout, text=True)
    if r.returncode != 0:
        prog = os.path.basename(sys.argv[0])
        sys.stderr.write(f"{prog}: fgsim exited {r.returncode}: {shlex.join(str(c) for c in cmd)}\n")
        sys.exit(r.returncode if 0 < r.returncode < 126 else 1)
    return r


def stats(cmd):
    """Runs `fgsim run ...` (cmd, as for run()) quietly and returns its stats
    document (docs/usage.md, "Stats"). The file is read by its name: fgsim
    writes a new file and renames it over the path (docs/reliability.md)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        run([*cmd, "--quiet", "--stats", path])
        with open(path) as f:
            return json.load(f)


def traced(cmd, keep=None):
    """As stats(), with the run's Perfetto trace (--trace): returns the stats
    document and the trace's events (times in us). With `keep` (strings), only
    the events whose line contains one of them, read a line at a time (fgsim
    writes one event per line), so that a trace of gigabytes need not be held."""
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.json")
        st = stats([*cmd, "--trace", trace])
        with open(trace) as f:
            if keep is None:
                return st, json.load(f)["traceEvents"]
            return st, trace_lines(f, keep)


def trace_lines(lines, keep):
    """The events of a trace written one per line (fgsim's: `{"traceEvents":[`, then an event a line, each but the
    last followed by a comma, then `]}`) whose line contains one of `keep`."""
    return [json.loads(line.strip().rstrip(",")) for line in lines
            if line.startswith('{"ph"') and any(k in line for k in keep)]


def kernel_us(st):
    """A run's kernel time in us (stats document from stats() or traced())."""
    return st["workload"]["results"]["kernel_ns"] / 1000
