#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzing campaigns with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (Debian packages clang-14 and libfuzzer-14-dev;
# tools/bootstrap.sh installs them), one per harness:
#   config      tests/fuzz/config_fuzz.cpp       YAML configs and --set assignments
#   graph       tests/fuzz/graph_fuzz.cpp        the graph-file readers
#   keys        tests/fuzz/keys_fuzz.cpp         the sort-key reader (sort --input)
#   experiment  tests/fuzz/experiment_fuzz.py    the experiment-file check (Python, no
#               libFuzzer: mutations checked in process against build/fgsim's parameters)
#
#   tools/fuzz.sh [SECONDS [HARNESS...]]   SECONDS per harness, default 600
#                                          (make fuzz); CI runs 45 each
#
# Each starts from its committed seed corpus (tests/fuzz/corpus/HARNESS),
# keeps what it finds in build/fuzz/corpus-HARNESS (not committed), writes
# crashes to build/fuzz/ and fails on the first one. Prints the executions
# and the coverage reached (docs/reliability.md records the numbers).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-600}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(config graph keys experiment)
out="${FG_FUZZ_DIR:-$here/build/fuzz}"
mkdir -p "$out"
cxx="$(command -v clang++-14 || command -v clang++)"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$here/systemc")
# The harnesses run JOBS (default: the cores) at a time, each on one core
# (libFuzzer's -max_total_time is wall time); each one's summary is printed,
# in the harnesses' order, once it and those before it have ended.
jobs="${JOBS:-$(nproc)}"
case "$jobs" in ''|*[!0-9]*) echo "fuzz.sh: JOBS must be a whole number, got '$jobs'"; exit 2 ;; esac
jobs=$((10#$jobs > 0 ? 10#$jobs : 1))
fuzz_one() {  # harness: its summary on standard output, its status as the exit code
  local h="$1" srcs libs rc
  case "$h" in
    config) srcs=("$here/systemc/sim/config.cpp"); libs=(-lyaml-cpp -lfmt) ;;
    graph) srcs=("$here/workloads/inputs/graph.cpp"); libs=(-lfmt) ;;
    keys) srcs=("$here/workloads/inputs/keys.cpp"); libs=(-lfmt) ;;
    experiment)
      echo "== $h: $secs s"
      set +e
      FG_FUZZ_DIR="$out" python3 "$here/tests/fuzz/experiment_fuzz.py" --fgsim "$here/build/fgsim" --seconds "$secs" \
        --out "$out" > "$out/${h}_fuzz.log" 2>&1
      rc=$?
      set -e
      grep -E "^stat::|FINDING|input:|no fgsim" "$out/${h}_fuzz.log" || true
      return "$rc"
      ;;
  esac
  "$cxx" "${flags[@]}" -I"$here/workloads" "$here/tests/fuzz/${h}_fuzz.cpp" "${srcs[@]}" "${libs[@]}" \
    -o "$out/${h}_fuzz"
  mkdir -p "$out/corpus-$h"
  echo "== $h: $secs s"
  # -rss_limit_mb: an input that makes a parser grow without bound is a
  # finding; -timeout: so is one that takes a second.
  set +e
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "./${h}_fuzz" -max_total_time="$secs" -timeout=1 -rss_limit_mb=1024 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$out/$h-" "corpus-$h" "$here/tests/fuzz/corpus/$h") > "$out/${h}_fuzz.log" 2>&1
  rc=$?
  set -e
  grep -E "^#[0-9]+[[:space:]]+(INITED|DONE)|stat::|ERROR|SUMMARY|Test unit written" "$out/${h}_fuzz.log" || true
  grep -q "^stat::number_of_executed_units" "$out/${h}_fuzz.log" || { echo "fuzz: $h: no final stats"; rc=1; }
  return "$rc"
}
seen=" "
for h in "${harnesses[@]}"; do
  case "$h" in
    config | graph | keys | experiment) ;;
    *) echo "fuzz.sh: unknown harness '$h' (config, graph, keys, experiment)"; exit 2 ;;
  esac
  [[ "$seen" != *" $h "* ]] || { echo "fuzz.sh: harness '$h' named twice"; exit 2; }
  seen+="$h "
done
status=0
pids=()
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$h" > "$out/$h.summary" 2>&1 &
  pids+=("$!")
done
for i in "${!harnesses[@]}"; do
  rc=0
  wait "${pids[$i]}" || rc=$?
  cat "$out/${harnesses[$i]}.summary"
  [ "$rc" -eq 0 ] || status=$rc
done
exit "$status"
