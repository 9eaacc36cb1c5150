#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates one experiment's validation page (or all, with no NAME):
#   tools/experiment.sh [NAME] [snakemake options...]
# Runs every point not already cached under build/experiments/runs, on all
# cores. Extra options go to snakemake (e.g. --cluster "sbatch ..." -j 64, or
# --config fgsim=path/to/fgsim); see docs/experiments.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v snakemake >/dev/null || { echo "experiment: snakemake not installed (tools/bootstrap.sh installs it)" >&2; exit 2; }
names=()
if [[ $# -gt 0 && $1 != -* ]]; then names=("$1"); shift; else
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
for n in "${names[@]}"; do
  [[ -f "$here/experiments/$n.yaml" ]] || { echo "experiment: no experiments/$n.yaml" >&2; exit 2; }
  echo "== experiment $n"
  mkdir -p "$here/build/experiments"
  snakemake -s "$here/tools/experiments/Snakefile" -d "$here/build/experiments" --cores "${FG_JOBS:-all}" --quiet rules \
    "${args[@]}" --config experiment="$n" "${extra[@]}"
done
