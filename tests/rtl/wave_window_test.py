#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""FG_WAVE=1 with FG_WAVE_FROM/TO writes a waveform holding exactly that window
of clock cycles (two time steps per cycle), and nothing without FG_WAVE."""
import glob
import os
import subprocess
import sys
import tempfile

bank_test = os.path.abspath(sys.argv[1])
test = "HwwlBank.Depth8Id12MatchesModel"
tmp = tempfile.mkdtemp(prefix="fg_wave_")
env = dict(os.environ, FG_WAVE="1", FG_WAVE_FROM="10", FG_WAVE_TO="20")
subprocess.run([bank_test, f"--gtest_filter={test}"], cwd=tmp, env=env, check=True, capture_output=True)
files = glob.glob(os.path.join(tmp, "*.vcd")) + glob.glob(os.path.join(tmp, "*.fst"))
if len(files) != 1:
    sys.exit(f"FAIL: expected one waveform, found {files}")
if files[0].endswith(".vcd"):
    stamps = [int(l[1:]) for l in open(files[0]) if l.startswith("#")]
    if not stamps or min(stamps) != 20 or max(stamps) != 41:
        sys.exit(f"FAIL: time steps {min(stamps, default=None)}..{max(stamps, default=None)}, want 20..41")
quiet = tempfile.mkdtemp(prefix="fg_wave_off_")
env = {k: v for k, v in os.environ.items() if k not in ("FG_WAVE", "FG_VCD")}
subprocess.run([bank_test, f"--gtest_filter={test}"], cwd=quiet, env=env, check=True, capture_output=True)
if os.listdir(quiet):
    sys.exit(f"FAIL: files written without FG_WAVE: {os.listdir(quiet)}")
import shutil
shutil.rmtree(tmp)
shutil.rmtree(quiet)
print("wave window: ok")
