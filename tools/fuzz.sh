#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs each for
# a share of N seconds (default 60 in all):
#   fuzz_scenario  the scenario loader (fuzz/fuzz_scenario.cpp), seeded with
#                  every scenario shipped under scenarios/;
#   fuzz_cli       every subcommand's flags, checked as a real invocation
#                  checks them before it builds anything (fuzz/fuzz_cli.cpp),
#                  seeded with the command lines of fuzz/cli_seeds.txt;
#   fuzz_evaluation the evaluation loader and its matrix of cells
#                  (fuzz/fuzz_evaluation.cpp), seeded with evaluations/ and
#                  the evaluation tests' small files.
# Exits non-zero on any finding (crash, uncaught exception, sanitizer report,
# timeout, out-of-memory, an exit code a check must not give) or build
# failure; the offending inputs are kept in build-fuzz/fuzz-artifacts/.
#
#   tools/fuzz.sh [seconds]
#
# Reproduce a finding: build-fuzz/<target> <artifact> (the line printed for it).
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [seconds]   (a positive whole number of seconds, default 60)" >&2
  exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build-fuzz"

# RDMASIM_FUZZ instruments the whole library (coverage + ASan/UBSan), not
# only the harnesses, so the fuzzer sees coverage inside the loader and the
# commands' checks. -O1 -g1 as the sanitizer build (Makefile asan-test): half
# the compile time of -O2 -g, and libFuzzer's usual level.
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DRDMASIM_FUZZ=ON -DRDMASIM_TESTS=OFF -DCMAKE_UNITY_BUILD="${UNITY:-ON}"
cmake --build "$build" --target fuzz_scenario fuzz_cli fuzz_evaluation

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- fuzz_scenario seeds ---
scenario_corpus="$work/scenario-corpus"
mkdir -p "$scenario_corpus"
# Flattened names (demo_incast.yaml) so files from different folders cannot
# collide. The fuzz target loads every input from scenarios/, so data paths of
# seeds from its subfolders are rebased (../../data/ -> ../data/).
while IFS= read -r -d '' f; do
  rel="${f#"$repo/scenarios/"}"
  if [[ "$rel" == */* ]]; then
    sed 's#\.\./\.\./data/#../data/#g' "$f" >"$scenario_corpus/${rel//\//_}"
  else
    cp "$f" "$scenario_corpus/$rel"
  fi
done < <(find "$repo/scenarios" -name '*.yaml' -type f -print0)
if [[ -z "$(ls -A "$scenario_corpus")" ]]; then
  echo "fuzz.sh: no seed scenarios found under $repo/scenarios" >&2
  exit 1
fi
# Regression seeds: inputs that once escaped the loader as other exceptions.
cat >"$scenario_corpus/regress_time_offset.yaml" <<'YAML'
topology: {type: star, hosts: 3}
workload: [{type: flows-file, file: ../data/bench/websearch_128hosts_load30_5ms_flows.txt, time_offset: 2s5}]
YAML
printf 'topology: {type: file, file: %s}\nworkload: [{type: incast, senders: 1, size: 1KiB}]\n' \
  "$(printf 'a%.0s' {1..300})" >"$scenario_corpus/regress_long_name.yaml"

# --- fuzz_cli seeds: one input per line of fuzz/cli_seeds.txt ---
cli_corpus="$work/cli-corpus"
mkdir -p "$cli_corpus"
n=0
while IFS= read -r line || [[ -n "$line" ]]; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  n=$((n + 1))
  # Arguments are separated by single spaces in the file, by newlines in an input.
  printf '%b' "${line// /\\n}" >"$cli_corpus/seed_$(printf '%03d' "$n")"
done <"$repo/fuzz/cli_seeds.txt"
# Regression seed too long for a line: an output folder name longer than the OS allows.
printf 'run\nscenarios/incast-star.yaml\n-o\n%s' "$(printf 'a%.0s' {1..300})" >"$cli_corpus/regress_long_out"

# --- fuzz_evaluation seeds: the shipped evaluations and a small one ---
eval_corpus="$work/eval-corpus"
mkdir -p "$eval_corpus"
cp "$repo"/evaluations/*.yaml "$eval_corpus/"
cat >"$eval_corpus/small.yaml" <<'YAML'
name: small
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine}
fabrics: [ib-ndr, {profile: rocev2-dcqcn, name: roce, set: {fabric.ecn.kmin: 100KB}}]
workloads: [latency, {type: incast, senders: 3, size: 64KiB}, {type: collective, op: all_reduce, sizes: [64KiB, 1MiB]}]
conditions: [baseline, {name: bg, background: {load: 30%}}, {name: down, link_down: {at: 10us}}, {name: ic, incast: {senders: 2, size: 1MiB}}]
tuning: {workloads: [incast], keys: [fabric.mtu]}
assumptions: {workloads: [latency]}
cost: {roce: {nic: 1000}}
YAML

artifacts="$build/fuzz-artifacts/$(date -u +%Y%m%dT%H%M%SZ)"
timeout=10  # seconds an input may run before it is a finding

# run_target TARGET SECONDS CORPUS [libFuzzer flags...]: 0 when it found nothing.
run_target() {
  local target=$1 secs=$2 corpus=$3
  shift 3
  mkdir -p "$artifacts/$target"
  echo "== $target: ${secs}s"
  # fuzz_cli's inputs run in temporary folders under TMPDIR: keep them in $work.
  TMPDIR="$work" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
    "$build/$target" "$corpus" \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout="$timeout" -report_slow_units="$timeout" \
    -artifact_prefix="$artifacts/$target/" -print_final_stats=1 "$@"
}

# A third of the time each (at least a second): the three share the CI budget.
scenario_seconds=$((seconds / 3 > 0 ? seconds / 3 : 1))
eval_seconds=$scenario_seconds
cli_seconds=$((seconds - 2 * scenario_seconds > 0 ? seconds - 2 * scenario_seconds : 1))
declare -A status
status[fuzz_scenario]=0
status[fuzz_cli]=0
status[fuzz_evaluation]=0
run_target fuzz_scenario "$scenario_seconds" "$scenario_corpus" -max_len=4096 || status[fuzz_scenario]=$?
run_target fuzz_evaluation "$eval_seconds" "$eval_corpus" -max_len=4096 || status[fuzz_evaluation]=$?
# -close_fd_mask=3: the commands' own messages (thousands a second) stay out
# of the log; libFuzzer's and the sanitizers' reports, and the harness's, do not.
run_target fuzz_cli "$cli_seconds" "$cli_corpus" -max_len=2048 -close_fd_mask=3 \
  -dict="$repo/fuzz/cli.dict" || status[fuzz_cli]=$?

# libFuzzer also keeps inputs that ran longer than -report_slow_units
# (slow-unit-*) without reporting a timeout: on a busy machine an ordinary input can
# be one. They are listed, not counted; an input over the timeout is a
# finding (timeout-*).
failed=0
for target in fuzz_scenario fuzz_evaluation fuzz_cli; do
  findings=()
  for f in "$artifacts/$target"/*; do
    [[ -e "$f" ]] || continue
    if [[ "$(basename "$f")" == slow-unit-* ]]; then
      echo "fuzz.sh: $target: slow input (not a timeout, not counted): $f" >&2
    else
      findings+=("$f")
    fi
  done
  if [[ ${status[$target]} -ne 0 || ${#findings[@]} -gt 0 ]]; then
    failed=1
    echo "fuzz.sh: $target FAILED (fuzzer exit status ${status[$target]})" >&2
    for f in "${findings[@]}"; do
      echo "  finding: $f   (reproduce: $build/$target $f)" >&2
    done
  elif [[ -z "$(ls -A "$artifacts/$target")" ]]; then
    rmdir "$artifacts/$target"
  fi
done
if [[ $failed -ne 0 ]]; then
  exit 1
fi
rmdir "$artifacts" 2>/dev/null || true
echo "fuzz.sh: no findings in ${seconds}s (fuzz_scenario ${scenario_seconds}s, fuzz_evaluation ${eval_seconds}s, fuzz_cli ${cli_seconds}s)"
