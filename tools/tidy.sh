#!/usr/bin/env bash
# clang-tidy with .clang-tidy's checks over every source and test file, or over those whose
# path matches the regex given as $1. It needs a compile command per file, so build-tidy is
# configured without unity batches (configuring is enough: nothing is generated at build time).
# Prints each finding once and exits 1 if there is any.
#
#   tools/tidy.sh [/src/net/]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
files="${1:-/(src|tests)/.*\.cpp}"
cmake -S . -B build-tidy -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF >/dev/null
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy -p build-tidy -j "${JOBS:-$(nproc)}" -quiet "$files" >"$log" 2>&1 || status=$?
# run-clang-tidy 14 has no -warnings-as-errors: the findings are read from its output.
findings="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^/.*: (warning|error): ' | sort -u || true)"
if [ -n "$findings" ]; then
  echo "$findings"
  echo "clang-tidy: $(wc -l <<<"$findings") finding(s)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  cat "$log"
  exit "$status"
fi
echo "clang-tidy: no findings in $(grep -c '^clang-tidy' <(sed 's/\x1b\[[0-9;]*m//g' "$log") || true) files"
