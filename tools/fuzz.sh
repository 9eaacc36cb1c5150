#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzing campaign of the config layer (tests/fuzz/config_fuzz.cpp) with
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (Debian packages
# clang-14 and libfuzzer-14-dev; tools/bootstrap.sh installs them).
#
#   tools/fuzz.sh [SECONDS]     default 600 (make fuzz); CI runs 120
#
# Starts from the committed seed corpus (tests/fuzz/corpus/config), keeps what
# it finds in build/fuzz/corpus (not committed), writes crashes to
# build/fuzz/ and fails on the first one. Prints the executions and the
# coverage reached (docs/reliability.md records the numbers).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-600}"
out="${FG_FUZZ_DIR:-$here/build/fuzz}"
mkdir -p "$out/corpus"
cxx="$(command -v clang++-14 || command -v clang++)"
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$here/systemc" "$here/tests/fuzz/config_fuzz.cpp" "$here/systemc/sim/config.cpp" \
  -lyaml-cpp -lfmt -o "$out/config_fuzz"
cd "$out"
# -rss_limit_mb: a config that makes the parser or the flattening grow without
# bound is a finding; -timeout: so is one that takes a second.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./config_fuzz -max_total_time="$secs" -timeout=1 -rss_limit_mb=1024 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$out/" corpus "$here/tests/fuzz/corpus/config" 2>&1 | tee "$out/config_fuzz.log" | \
  grep -E "^#[0-9]+ +(INITED|DONE)|stat::|ERROR|SUMMARY|Test unit written" || true
status="${PIPESTATUS[0]}"
grep -q "^stat::number_of_executed_units" "$out/config_fuzz.log" || { echo "fuzz: no final stats"; exit 1; }
exit "$status"
