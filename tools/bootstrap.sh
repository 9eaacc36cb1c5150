#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# FineGrain dependency bootstrap.
#
# Installs the Debian packages FineGrain builds and tests with. As root it runs
# `apt-get update` and installs what is missing; otherwise it prints the single
# apt-get line to run and exits 1. It also unpacks the OSU 0.18 um standard-cell
# liberty from Debian's qflow-tech-osu018 into $FG_DEPS_DIR (default build/deps)
# without installing that package, whose dependencies (qflow, tcsh, ...) the
# synthesis flow does not need.
set -euo pipefail

# --cluster: also the packages of a one-node Slurm on localhost (the cluster
# test, tools/cluster/local_slurm.sh); .ci/run asks for them.
cluster=0
[[ "${1:-}" == "--cluster" || -n "${FG_CLUSTER:-}" ]] && cluster=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps_dir="${FG_DEPS_DIR:-$here/build/deps}"

packages=(
  build-essential cmake make pkg-config git
  libsystemc-dev           # SystemC 2.3.4 + TLM-2.0 (pkg-config: systemc)
  verilator                # RTL simulation (5.006 on Debian 12)
  yosys                    # synthesis and the formal proofs (sat -tempinduct, tools/formal.py)
  opensta                  # static timing (binary: sta)
  clang-14 libfuzzer-14-dev  # libFuzzer harness of the config layer (tools/fuzz.sh)
  clang-format-14          # formatting, checked by ctest `clang_format` (tools/format.sh)
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  python3 python3-matplotlib python3-yaml
  snakemake                # experiment workflow (tools/experiment.sh, docs/experiments.md)
)

((cluster)) && packages+=(slurmctld slurmd slurm-client munge)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "bootstrap: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "bootstrap: missing packages; run:"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    exit 1
  fi
fi

# OSU 0.18 um liberty for synthesis (issue: synth flow). Extracted, not installed.
lib="$deps_dir/osu018/usr/share/qflow/tech/osu018/osu018_stdcells.lib"
if [[ ! -f "$lib" ]]; then
  mkdir -p "$deps_dir/osu018"
  tmp="$(mktemp -d)"
  if (cd "$tmp" && apt-get download -qq qflow-tech-osu018 >/dev/null 2>&1) ||
     { [[ $(id -u) -eq 0 ]] && apt-get update -qq && (cd "$tmp" && apt-get download -qq qflow-tech-osu018); }; then
    dpkg-deb -x "$tmp"/qflow-tech-osu018_*.deb "$deps_dir/osu018"
    echo "bootstrap: OSU 0.18 um liberty at $lib"
  else
    echo "bootstrap: warning: could not download qflow-tech-osu018; synthesis targets will be unavailable" >&2
  fi
  rm -rf "$tmp"
fi
echo "bootstrap: dependencies present"
