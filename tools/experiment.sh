#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates one experiment's validation page (or all, with no NAME):
#   tools/experiment.sh [NAME] [snakemake options...]
#   tools/experiment.sh --check FILE|NAME... [--config fgsim=PATH]
# Runs every point not already cached under build/experiments/runs, on all
# cores. Extra options go to snakemake (e.g. --cluster "sbatch ..." -j 64, or
# --config fgsim=path/to/fgsim); see docs/experiments.md. Every experiment
# file is checked (tools/experiments/check.py) before any point runs: a
# problem is one line FILE:LINE: KEY: message and exit 2. --check only checks.
# While it runs, one progress line (tools/experiments/progress.py) replaces
# Snakemake's output; FG_PROGRESS=0 keeps Snakemake's own.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check_only=0
names=()
if [[ $# -gt 0 && $1 == --check ]]; then
  check_only=1; shift
  while [[ $# -gt 0 && $1 != -* ]]; do names+=("$1"); shift; done
  [[ ${#names[@]} -gt 0 ]] || { echo "experiment: --check needs a file (tools/experiment.sh --check FILE...)" >&2; exit 2; }
elif [[ $# -gt 0 && $1 != -* ]]; then names=("$1"); shift; else
  for f in "$here"/experiments/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi
# One --config list: snakemake keeps only the last --config option, so the
# caller's values (e.g. --config fgsim=...) join the experiment's name.
args=() extra=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == --config ]]; then
    shift
    while [[ $# -gt 0 && $1 != -* ]]; do extra+=("$1"); shift; done
  else
    args+=("$1"); shift
  fi
done
# The fgsim and the experiment file the workflow will use: relative paths in
# --config are relative to its directory, build/experiments.
workdir="$here/build/experiments"
fgsim="$here/build/fgsim" file=""
for kv in ${extra[@]+"${extra[@]}"}; do
  case $kv in
    fgsim=*) fgsim="${kv#fgsim=}"; [[ $fgsim == /* ]] || fgsim="$workdir/$fgsim" ;;
    file=*) file="${kv#file=}"; [[ $file == /* ]] || file="$workdir/$file" ;;
  esac
done
if [[ $check_only == 1 ]]; then
  (( ${#args[@]} == 0 )) || { echo "experiment: --check takes files and --config fgsim=PATH only, not '${args[0]}'" >&2; exit 2; }
  files=()
  for n in "${names[@]}"; do
    if [[ ! -f $n && -f "$here/experiments/$n.yaml" ]]; then files+=("$here/experiments/$n.yaml"); else files+=("$n"); fi
  done
  exec python3 "$here/tools/experiments/check.py" --fgsim "$fgsim" -- "${files[@]}"
fi
command -v snakemake >/dev/null || { echo "experiment: snakemake not installed (tools/bootstrap.sh installs it)" >&2; exit 2; }
# Every file is checked before the first point of any runs.
files=()
for n in "${names[@]}"; do
  if [[ -n $file ]]; then files+=("$file"); continue; fi
  [[ -f "$here/experiments/$n.yaml" ]] || { echo "experiment: no experiments/$n.yaml" >&2; exit 2; }
  files+=("$here/experiments/$n.yaml")
done
python3 "$here/tools/experiments/check.py" --fgsim "$fgsim" -- "${files[@]}" >/dev/null
logging=(--log-handler-script "$here/tools/experiments/progress.py")
[[ ${FG_PROGRESS:-1} != 0 ]] || logging=(--quiet rules)
for n in "${names[@]}"; do
  echo "== experiment $n"
  mkdir -p "$workdir"
  snakemake -s "$here/tools/experiments/Snakefile" -d "$workdir" --cores "${FG_JOBS:-all}" "${logging[@]}" \
    ${args[@]+"${args[@]}"} --config experiment="$n" ${extra[@]+"${extra[@]}"}
done
