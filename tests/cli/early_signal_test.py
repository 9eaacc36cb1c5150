#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A signal that arrives while fgsim sets a run up (after it created its first output file,
before the simulation starts) ends the run as any SIGINT / SIGTERM does: exit 130, the
statistics with run.complete = false, and no temporary file left beside the outputs. Made
deterministic with a named pipe: --stats FIFO blocks fgsim in opening it (a pipe is written
directly) right after --output created its temporary file; the signal is sent then, and the
pipe is read afterwards. fgsim used to die of the signal there and leave the --output
temporary file (6 of 6 trials with a signal 4 ms after the start).

    early_signal_test.py FGSIM
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def trial(fgsim, sig):
    d = tempfile.mkdtemp(prefix="fg-early-signal-")
    try:
        fifo, out = os.path.join(d, "stats.fifo"), os.path.join(d, "out.txt")
        os.mkfifo(fifo)
        p = subprocess.Popen([fgsim, "run", "vecadd", "--set", "vecadd.n=1024", "--quiet", "--output", out,
                              "--stats", fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # --output's temporary file exists: fgsim is at (or about to be in) the open of the pipe.
        deadline = time.time() + 10
        while time.time() < deadline and not any("fgsim-tmp" in f for f in os.listdir(d)) and p.poll() is None:
            time.sleep(0.005)
        p.send_signal(sig)
        time.sleep(0.05)
        # Read the pipe (non-blocking open: fgsim may have died without opening it).
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        data = b""
        while time.time() < deadline:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                data += chunk
            elif chunk == b"" and p.poll() is not None:
                break
            else:
                time.sleep(0.01)
        os.close(fd)
        try:
            _, err = p.communicate(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            return ["did not finish within 10 s"]
        problems = []
        if p.returncode != 130:
            problems.append(f"exit {p.returncode}, expected 130" +
                            (f" (killed by signal {-p.returncode})" if p.returncode < 0 else ""))
        left = [f for f in os.listdir(d) if "fgsim-tmp" in f]
        if left:
            problems.append(f"temporary files left: {left}")
        if os.path.exists(out):
            problems.append("--output written for a run that did not complete")
        if p.returncode == 130:
            try:
                run = json.loads(data)["run"]
                if run["status"] != "interrupted" or run["complete"] is not False:
                    problems.append(f"stats run section {run}")
            except (ValueError, KeyError) as e:
                problems.append(f"no stats JSON on the pipe ({e})")
            if not any(l.startswith("fgsim: interrupted: ") for l in err.decode().splitlines()):
                problems.append(f"no 'fgsim: interrupted:' line: {err.decode()!r}")
        return problems
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    fgsim = os.path.abspath(sys.argv[1])
    failed = 0
    for sig in (signal.SIGINT, signal.SIGTERM):
        problems = trial(fgsim, sig)
        name = signal.Signals(sig).name
        if problems:
            failed += 1
            print(f"FAIL {name}: {'; '.join(problems)}")
        else:
            print(f"ok   {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
