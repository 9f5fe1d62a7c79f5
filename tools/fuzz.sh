#!/usr/bin/env bash
# Builds the scenario-loader fuzz target (fuzz/fuzz_scenario.cpp) with clang in
# build-fuzz/ and runs it for N seconds (default 60), seeded with every
# scenario shipped under scenarios/. Exits non-zero on any finding (crash,
# uncaught exception, sanitizer report, timeout, out-of-memory) or build
# failure; the offending inputs are kept in build-fuzz/fuzz-artifacts/.
#
#   tools/fuzz.sh [seconds]
#
# Reproduce a finding: build-fuzz/fuzz_scenario <artifact>
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [seconds]   (a positive whole number of seconds, default 60)" >&2
  exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build-fuzz"

# RDMASIM_FUZZ instruments the whole library (coverage + ASan/UBSan), not
# only the harness, so the fuzzer sees coverage inside the loader.
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DRDMASIM_FUZZ=ON -DRDMASIM_TESTS=OFF
cmake --build "$build" --target fuzz_scenario

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
corpus="$work/corpus"
mkdir -p "$corpus"
# Flattened names (demo_incast.yaml) so files from different folders cannot
# collide. The fuzz target loads every input from scenarios/, so data paths of
# seeds from its subfolders are rebased (../../data/ -> ../data/).
while IFS= read -r -d '' f; do
  rel="${f#"$repo/scenarios/"}"
  if [[ "$rel" == */* ]]; then
    sed 's#\.\./\.\./data/#../data/#g' "$f" >"$corpus/${rel//\//_}"
  else
    cp "$f" "$corpus/$rel"
  fi
done < <(find "$repo/scenarios" -name '*.yaml' -type f -print0)
if [[ -z "$(ls -A "$corpus")" ]]; then
  echo "fuzz.sh: no seed scenarios found under $repo/scenarios" >&2
  exit 1
fi
# Regression seeds: inputs that once escaped the loader as other exceptions.
cat >"$corpus/regress_time_offset.yaml" <<'EOF'
topology: {type: star, hosts: 3}
workload: [{type: flows-file, file: ../data/bench/websearch_128hosts_load30_5ms_flows.txt, time_offset: 2s5}]
EOF
printf 'topology: {type: file, file: %s}\nworkload: [{type: incast, senders: 1, size: 1KiB}]\n' \
  "$(printf 'a%.0s' {1..300})" >"$corpus/regress_long_name.yaml"

artifacts="$build/fuzz-artifacts/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$artifacts"

status=0
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
  "$build/fuzz_scenario" "$corpus" \
  -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 || status=$?

findings=("$artifacts"/*)
if [[ $status -ne 0 || -e "${findings[0]}" ]]; then
  echo "fuzz.sh: FAILED (fuzzer exit status $status)" >&2
  for f in "${findings[@]}"; do
    [[ -e "$f" ]] && echo "  finding: $f   (reproduce: $build/fuzz_scenario $f)" >&2
  done
  exit 1
fi
rmdir "$artifacts" 2>/dev/null || true
echo "fuzz.sh: no findings in ${seconds}s"
