#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Output write errors on a regular file, not only on /dev/full: each output of fgsim
(--stats, --trace, --output, --vcd) is written on a real full disk (a 64 KiB tmpfs, where
mounting is allowed: ENOSPC) and under a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored:
EFBIG), and must end within 10 s with exit 2 and one line naming the option, the file and
the reason, leaving no temporary file. --vcd used to hang (Verilator's fatal path).

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


def full_disk():
    """A 64 KiB tmpfs (a real full disk: write() fails with ENOSPC) or None where mounting is
    not allowed (not root, a container without the capability)."""
    d = tempfile.mkdtemp(prefix="fg-fulldisk-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d], capture_output=True)
    if r.returncode != 0:
        os.rmdir(d)
        return None
    return d


def main():
    fgsim = os.path.abspath(sys.argv[1])
    failed = 0
    disk = full_disk()
    runs = [(o, a, None, "File too large") for o, a in CASES]
    if disk:
        # Outputs larger than the 64 KiB disk (vecadd's --output of 4,096 values is not).
        big = ["vecadd", "--set", "vecadd.n=65536"]
        runs += [(o, big if a[0] == "vecadd" else a, disk, "No space left on device") for o, a in CASES]
    else:
        print("skip the full tmpfs (mount refused): the file-size limit stands in for it")
    for option, args, where, reason in runs:
        d = tempfile.mkdtemp(prefix="fg-outlimit-", dir=where)
        target = os.path.join(d, "out")
        cmd = [fgsim, "run", *args, "--quiet", option, target]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=10,
                               preexec_fn=None if where else limited)
            lines = [l for l in r.stderr.split("\n") if l]
            want = re.compile(rf"^fgsim: error: {re.escape(option)} {re.escape(target)}: write failed \({reason}\)$")
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
        what = f"{option} ({'full tmpfs' if where else 'file-size limit'})"
        if problems:
            failed += 1
            print(f"FAIL {what}: {'; '.join(problems)}")
        else:
            print(f"ok   {what}")
    if disk:
        subprocess.run(["umount", disk])
        os.rmdir(disk)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
