#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs FineGrain's benchmarks (Release build expected) and prints their tables
# with the machine and build they ran on, for docs/performance.md.
set -euo pipefail
build="${1:-build}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "build:   $(grep -m1 CMAKE_BUILD_TYPE "$build/CMakeCache.txt" | cut -d= -f2), $(g++ --version | head -1)"
echo "date:    $(date -u +%Y-%m-%d)"
for coherence in moesi gpu; do
  echo "== mem_bench (orr2014, mem.coherence=$coherence)"
  FG_BENCH_COHERENCE=$coherence "$build/tests/bench/mem_bench" --benchmark_min_time=1 2>/dev/null |
    grep -E '^(BM_|Benchmark|-)' || true
done
python3 "$(dirname "$0")/cu_bench.py" "$build/fgsim"
if [ -x "$build/tests/rtl/hwwl_bench" ]; then
  echo "== hwwl_bench (median of 3)"
  "$build/tests/rtl/hwwl_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
    grep -E '^(Benchmark|-|BM_.*_median)'
fi
echo "== channels_bench (Orr et al. Table-3 inputs, 8 CUs)"
python3 "$(dirname "$0")/channels_bench.py" "$build/fgsim"
