#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-format over every C++ source of the repository (.clang-format at the top).
#   tools/format.sh          reformat in place
#   tools/format.sh --check  list the files that are not formatted and exit 1 (CI, ctest `clang_format`)
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z "$cf" ]]; then
  echo "format: clang-format not found (tools/bootstrap.sh installs clang-format-14)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp' '*.cc')
if [[ "${1:-}" == "--check" ]]; then
  bad=()
  for f in "${files[@]}"; do
    "$cf" "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if ((${#bad[@]})); then
    echo "format: ${#bad[@]} file(s) not clang-formatted (run tools/format.sh): ${bad[*]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files clang-formatted"
elif [[ $# -eq 0 ]]; then
  "$cf" -i "${files[@]}"
else
  echo "format: unknown argument '$1' (use --check or nothing)" >&2
  exit 2
fi
