#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The experiment workflow on Slurm (ctest label `cluster`): brings up a
one-node Slurm on localhost (tools/cluster/local_slurm.sh), runs the smoke
experiment through `snakemake --cluster sbatch`, runs it again locally, and
requires identical CSV rows. Skipped (exit 77) where Slurm or snakemake is
absent or the test is not root; install with `tools/bootstrap.sh --cluster`."""
import os
import shutil
import subprocess
import sys
import tempfile

root, fgsim = sys.argv[1], sys.argv[2]
if not shutil.which("snakemake"):
    print("skipped: snakemake is not installed (tools/bootstrap.sh installs it)")
    sys.exit(77)
up = subprocess.run([os.path.join(root, "tools", "cluster", "local_slurm.sh"), "start"], capture_output=True,
                    text=True)
print(up.stdout.strip())
if up.returncode == 77:
    print("skipped: " + up.stdout.strip())
    sys.exit(77)
if up.returncode:
    sys.exit(f"FAIL: the local Slurm did not come up:\n{up.stdout}\n{up.stderr}")

tmp = tempfile.mkdtemp(prefix="fg_cluster_")


def workflow(where, extra):
    d = os.path.join(tmp, where)
    os.makedirs(d)
    cmd = ["snakemake", "-s", os.path.join(root, "tools/experiments/Snakefile"), "-d", d, "--quiet", "all",
           *extra, "--config", "experiment=smoke", f"fgsim={fgsim}", f"runs={d}/runs", f"page={d}/smoke.md"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode:
        sys.exit(f"FAIL: workflow ({where}) exit {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return open(os.path.join(d, "smoke", "smoke.csv")).read(), d


on_slurm, d = workflow("slurm", ["--jobs", "4", "--latency-wait", "60",
                                 "--cluster", f"sbatch --parsable -c 1 --mem=500 -o {tmp}/slurm-%j.out"])
jobs = [f for f in os.listdir(tmp) if f.startswith("slurm-")]
local, _ = workflow("local", ["--cores", "2"])
failures = []
if len(jobs) != 2:
    failures.append(f"expected the 2 fgsim runs as Slurm jobs, found {len(jobs)} job logs")
if on_slurm != local:
    failures.append(f"CSV differs:\nslurm:\n{on_slurm}\nlocal:\n{local}")
shutil.rmtree(tmp)
if failures:
    sys.exit("FAIL: " + "; ".join(failures))
print("cluster: the Slurm and local runs agree")
