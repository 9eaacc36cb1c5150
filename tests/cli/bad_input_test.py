#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The error contract, data-driven: every tests/cli/bad_inputs/*.case runs fgsim and checks the exit code and
the message. A case file is a header of `# key: value` lines, then the content of {file} (if any):

    # args: run vecadd --config {file}       fgsim's arguments (shell words); placeholders below
    # exit: 2                                expected exit code
    # message: <regex>                       must match a line of standard error (repeatable)
    # first: <regex>                         must match the first line of standard error (the cause)
    # lines: N                               standard error has exactly N lines (default: 1 when exit != 0)
    # existing: {out}                        this file exists before the run and must be unchanged after it

Placeholders: {file} (the case's content), {out}, {out2} (output paths in a scratch directory), {dir} (that
directory). Every case also checks: no crash (exit 0, 2 or 3 only), done within 60 s, standard error is UTF-8
text, nothing left in the scratch directory but what the run was meant to write, and for exit 2 nothing on
standard output (unless `--stats -` put the stats there).

    bad_input_test.py [--asan-fiber-warning] [--skip CASE]... FGSIM [CASE_DIR]

--asan-fiber-warning (the sanitizer job): ignore ASan's three-line warning about exceptions on
SystemC thread stacks (google/sanitizers#189); a sanitizer report still fails the case.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import asan_warning


# Set by --asan-fiber-warning (tools/sanitize.sh).
ASAN_FIBER_WARNING = None


def run_case(fgsim, path, scratch):
    raw = open(path, "rb").read()  # the content may be any bytes (fuzzer findings)
    header = []
    lines = raw.split(b"\n")
    i = 0
    while i < len(lines) and re.match(rb"# (args|exit|message|first|lines|existing): ", lines[i]):
        header.append(lines[i][2:].decode("utf-8"))
        i += 1
    body = b"\n".join(lines[i:])
    meta = {"message": [], "existing": []}
    for h in header:
        k, _, v = h.partition(": ")
        if k in ("message", "existing"):
            meta[k].append(v)
        else:
            meta[k] = v
    sub = {"{file}": os.path.join(scratch, "case.yaml"), "{out2}": os.path.join(scratch, "out2"),
           "{out}": os.path.join(scratch, "out"), "{dir}": scratch}

    def fill(s):
        for k, v in sub.items():
            s = s.replace(k, v)
        return s

    with open(sub["{file}"], "wb") as f:
        f.write(body)
    before = {}
    for e in meta["existing"]:
        p = fill(e)
        with open(p, "w") as f:
            f.write("earlier content\n")
        before[p] = "earlier content\n"
    args = [fill(a) for a in shlex.split(meta["args"])]
    try:
        r = subprocess.run([fgsim] + args, capture_output=True, timeout=60, cwd=scratch)
    except subprocess.TimeoutExpired:
        return "did not finish within 60 s"
    # Messages are text: bytes of a binary input are escaped, never printed raw.
    try:
        r.stderr = r.stderr.decode("utf-8")
        not_utf8 = False
    except UnicodeDecodeError:
        r.stderr = r.stderr.decode("utf-8", errors="backslashreplace")
        not_utf8 = True
    want = int(meta["exit"])
    err_lines = [l for l in r.stderr.split("\n") if l]
    if ASAN_FIBER_WARNING:
        # Under ASan (tools/sanitize.sh): the three-line warning ASan prints when
        # an exception is thrown on a SystemC thread's stack (google/sanitizers#189)
        # is the sanitizer's, not fgsim's; any real report still fails the case.
        err_lines = [l for l in err_lines if not ASAN_FIBER_WARNING.search(l)]
        if any("Sanitizer" in l or "runtime error:" in l for l in err_lines):
            problems_pre = ["sanitizer report"]
        else:
            problems_pre = []
    else:
        problems_pre = []
    problems = problems_pre
    if not_utf8:
        problems.append("standard error is not UTF-8 text")
    if r.returncode != want:
        problems.append(f"exit {r.returncode}, expected {want}")
    if r.returncode not in (0, 2, 3):
        problems.append("exit code outside the contract (0, 2, 3)")
    n = int(meta.get("lines", "1" if want else "0"))
    if len(err_lines) != n:
        problems.append(f"{len(err_lines)} lines on standard error, expected {n}")
    def regex(m):
        for k, v in sub.items():
            m = m.replace(k, re.escape(v))
        return re.compile(m)

    for m in meta["message"]:
        if not any(regex(m).search(l) for l in err_lines):
            problems.append(f"no line matches /{m}/")
    if "first" in meta and not (err_lines and regex(meta["first"]).search(err_lines[0])):
        problems.append(f"the first line does not match /{meta['first']}/")
    # Bad input is the line on standard error alone: nothing on standard output (not the run's summary,
    # which an error found inside a run printed there until 2026-11-30), unless the case asked for the
    # stats there (`--stats -`).
    if want == 2 and r.stdout and "-" not in [a for i, a in enumerate(args) if i and args[i - 1] == "--stats"]:
        problems.append(f"standard output not empty: {r.stdout[:200]!r}")
    for p, content in before.items():
        if not os.path.exists(p) or open(p).read() != content:
            problems.append(f"{os.path.basename(p)} was changed or removed")
    leftovers = [f for f in os.listdir(scratch) if "fgsim-tmp" in f]
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    if problems:
        return "; ".join(problems) + "\n      stderr: " + r.stderr[:600].replace("\n", "\n              ")
    return None


def main():
    global ASAN_FIBER_WARNING
    args = sys.argv[1:]
    if "--asan-fiber-warning" in args:
        args.remove("--asan-fiber-warning")
        ASAN_FIBER_WARNING = asan_warning.LINES
    skip = set()
    while "--skip" in args:
        i = args.index("--skip")
        skip.add(args[i + 1])
        del args[i:i + 2]
    fgsim = os.path.abspath(args[0])
    case_dir = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "bad_inputs")
    cases = sorted(c for c in glob.glob(os.path.join(case_dir, "*.case"))
                   if os.path.basename(c)[:-5] not in skip)
    if not cases:
        print(f"no cases in {case_dir}")
        return 1
    failed = 0
    for c in cases:
        scratch = tempfile.mkdtemp(prefix="fg-badinput-")
        try:
            why = run_case(fgsim, c, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        name = os.path.basename(c)[:-5]
        if why:
            failed += 1
            print(f"FAIL {name}: {why}")
        else:
            print(f"ok   {name}")
    print(f"{len(cases) - failed}/{len(cases)} cases hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
