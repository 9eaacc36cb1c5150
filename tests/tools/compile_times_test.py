#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/compile_times.py on a build tree of one unit (a stand-in compile_commands.json): the unit is timed,
its object written to a scratch directory and not over the build's, --replace and --syntax-only act, and bad
input (a regex that matches nothing, an invalid regex, a --replace without '=', a command that does not
compile) is one line and exit 2.

    compile_times_test.py ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
tool = os.path.join(root, "tools", "compile_times.py")
cxx = shutil.which("c++") or shutil.which("g++")
tmp = tempfile.mkdtemp(prefix="fg_compile_times_")
failures = []


def run(*args):
    return subprocess.run([sys.executable, tool, "--build", tmp, *args], capture_output=True, text=True)


with open(os.path.join(tmp, "unit.cpp"), "w") as f:
    f.write("#ifdef BROKEN\n#error broken\n#endif\nint f() { return 1; }\n")
obj = os.path.join(tmp, "unit.o")
json.dump([{"directory": tmp, "file": os.path.join(tmp, "unit.cpp"),
            "command": f"{cxx} -O2 -o {obj} -c {os.path.join(tmp, 'unit.cpp')}"}], open(os.path.join(tmp, "compile_commands.json"), "w"))

r = run("unit.cpp$")
if r.returncode != 0 or "1 units" not in r.stdout:
    failures.append(f"a unit: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
if os.path.exists(obj):
    failures.append("the object was written over the build's")
for args in (["unit.cpp$", "--syntax-only"], ["unit.cpp$", "--replace= -O2 = -O0 "]):
    r = run(*args)
    if r.returncode != 0 or "1 units" not in r.stdout or os.path.exists(obj):
        failures.append(f"{args}: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
for args, names in ((["nomatch$"], "nomatch"), (["(unclosed"], "(unclosed"), (["unit", "--replace", "x"], "--replace"),
                    (["unit.cpp$", "--replace=-O2=-DBROKEN"], "unit.cpp")):
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or names not in lines[0]:
        failures.append(f"{args}: expected exit 2 and one line naming {names!r}, got {r.returncode}, {r.stderr!r}")
shutil.rmtree(tmp)
for f in failures:
    print("FAIL", f)
print(f"compile_times: {len(failures)} failures")
sys.exit(1 if failures else 0)
