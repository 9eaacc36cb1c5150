#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Output write errors on a regular file, not only on /dev/full: each output of fgsim
(--stats, --trace, --output, --vcd) is written under a file-size limit (RLIMIT_FSIZE,
SIGXFSZ ignored: write() fails with EFBIG, as it fails with ENOSPC on a full disk) and
must end within 10 s with exit 2 and one line naming the option, the file and the
reason, leaving no temporary file. --vcd used to hang (Verilator's fatal path).

    output_limit_test.py FGSIM
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

LIMIT = 4096  # bytes: below every output's size in these runs
BFS_RTL = ["bfs", "--set", "bfs.mechanism=hwwl", "--set", "bfs.scale=8", "--set", "worklist.backend=rtl"]
CASES = [
    ("--stats", ["vecadd", "--set", "vecadd.n=4096"]),
    ("--trace", ["vecadd", "--set", "vecadd.n=4096"]),
    ("--output", ["vecadd", "--set", "vecadd.n=4096"]),
    ("--vcd", BFS_RTL),
]


def limited():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def main():
    fgsim = os.path.abspath(sys.argv[1])
    failed = 0
    for option, args in CASES:
        d = tempfile.mkdtemp(prefix="fg-outlimit-")
        target = os.path.join(d, "out")
        cmd = [fgsim, "run", *args, "--quiet", option, target]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=10, preexec_fn=limited)
            lines = [l for l in r.stderr.split("\n") if l]
            want = re.compile(rf"^fgsim: error: {re.escape(option)} {re.escape(target)}: write failed \(File too large\)$")
            problems = []
            if r.returncode != 2:
                problems.append(f"exit {r.returncode}, expected 2")
            if len(lines) != 1 or not want.match(lines[0]):
                problems.append(f"stderr {lines!r}, expected one line /{want.pattern}/")
            left = [f for f in os.listdir(d) if "fgsim-tmp" in f]
            if left:
                problems.append(f"temporary files left: {left}")
        except subprocess.TimeoutExpired:
            problems = ["did not finish within 10 s"]
        finally:
            shutil.rmtree(d, ignore_errors=True)
        if problems:
            failed += 1
            print(f"FAIL {option}: {'; '.join(problems)}")
        else:
            print(f"ok   {option}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
