#!/usr/bin/env bash
# Reproduces every number of docs/IWARP.md: small-message latency beside
# background load, and nccl-tests AllReduce busbw on 4 x 8 GPUs, for iWARP,
# RoCEv2 and InfiniBand on one topology each.
#
#   docs/scenarios/iwarp/measure.sh [perftest|latency|latency-controls|nccl-rail|nccl-leafspine|nccl-uplinks|nccl-iwarp|all]
#
# RDMASIM names the binary (default build/rdmasim), OUT the output folder
# (default out/iwarp-table). Needs jq. About 10 minutes on 2 cores for `all`.
# Results do not depend on the machine: same inputs, same numbers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${RDMASIM:-$PWD/build/rdmasim}
OUT=${OUT:-out/iwarp-table}
DIR=docs/scenarios/iwarp
export RDMASIM_PROGRESS_INTERVAL=1000000
mkdir -p "$OUT"

# One Ethernet switch for RoCE and iWARP alike (the switch of the project's
# -400g profiles: cut-through, 600 ns pipeline, an assumption), RoCE NICs at
# the 300 ns per side the project assumes for ConnectX-7 (the 100G RoCE
# profiles model an ideal 0 ns NIC); iWARP keeps its cited Chelsio 735 ns,
# InfiniBand its own switch (330 ns, cut-through) and NIC (300 ns).
hw_args() {
  case $1 in
    iwarp-*) echo "--set topology.switch.forwarding=cut-through --set topology.switch.latency=600ns" ;;
    rocev2-*) echo "--set topology.switch.forwarding=cut-through --set topology.switch.latency=600ns" \
                   "--set fabric.nic_tx_latency=300ns --set fabric.nic_rx_latency=300ns" ;;
    *) echo "" ;;
  esac
}

LAT_FABRICS=(iwarp-cubic iwarp-dctcp rocev2-dcqcn rocev2-dcqcn-mlx rocev2-dctcp rocev2-hpcc ib-ndr)
LOADS=(30% 50%)

# Unloaded ib_write_lat, 64 B, host 0 -> host 15 (half a round trip).
perftest() {
  echo "| fabric | write_lat 64 B (us) |"
  echo "|---|---|"
  local f
  for f in "${LAT_FABRICS[@]}"; do
    # shellcheck disable=SC2046 # hw_args is words on purpose
    "$BIN" run "$DIR/perftest.yaml" -q -o "$OUT/perftest-$f" --set fabric.profile="$f" $(hw_args "$f") >/dev/null
    jq -r --arg f "$f" '"| \($f) | \(.workload_results[0].latency_us.p50 * 100 | round / 100) |"' \
      "$OUT/perftest-$f/results.json"
  done
}

# 64 B write probes (one round trip: data there, ACK back) beside web-search
# background at each load, seeds 1-3 pooled (12000 probes a cell: the tail
# of one 100 ms draw moves with its few largest flows). Percentiles are
# nearest-rank, as results.json's; jitter is the mean absolute difference of
# consecutive probes, averaged over the seeds; unloaded is the probe alone on
# its path (flows.csv ideal_fct_ns).
SEEDS=(1 2 3)
latency() {
  echo "| fabric | unloaded | load | p50 | p99 | p99.9 | max | jitter | probes resent | drops | RTOs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  local f load seed o
  for f in "${LAT_FABRICS[@]}"; do
    for load in "${LOADS[@]}"; do
      local csvs=() jsons=()
      for seed in "${SEEDS[@]}"; do
        o=$OUT/latency-$f-${load%\%}-seed$seed
        # shellcheck disable=SC2046
        "$BIN" run "$DIR/latency.yaml" -q -o "$o" --set seed="$seed" --set fabric.profile="$f" \
          --set "workload[1].load=$load" $(hw_args "$f") >/dev/null
        csvs+=("$o/flows.csv")
        jsons+=("$o/results.json")
      done
      local stats
      stats=$(awk -F, 'FNR == 1 {next} FNR == 2 && !u {u = $7} {print $6, ($12 > 0)}
                       END {print "unloaded", u}' "${csvs[@]}" | sort -g | awk '
        $1 == "unloaded" {u = $2; next}
        {v[++n] = $1; r += $2}
        function at(q,  k) {k = int(q * n); if (k < q * n) k++; if (k < 1) k = 1; return v[k] / 1000}
        END {printf "%.2f %.2f %.2f %.2f %.2f %d", u / 1000, at(0.5), at(0.99), at(0.999), v[n] / 1000, r}')
      jq -rs --arg f "$f" --arg load "$load" --arg s "$stats" '
        ($s | split(" ")) as $v |
        ((map(.flows.fct_ns.jitter) | add / length / 1000) * 100 | round / 100) as $jit |
        "| \($f) | \($v[0]) | \($load) | \($v[1]) | \($v[2]) | \($v[3]) | \($v[4]) | \($jit) | \($v[5]) | \(map(.network.switch_buffer_drops) | add) | \(map(.network.timeouts) | add) |"' \
        "${jsons[@]}"
    done
  done
}

# What the latency tails depend on, seed 1: each row changes one setting of
# one fabric and gives the probes' p50 / p99 / p99.9 (us) before and after.
latency_controls() {
  echo "| fabric | change | load | before p50 / p99 / p99.9 | after p50 / p99 / p99.9 |"
  echo "|---|---|---|---|---|"
  local f name args load extra
  while IFS='|' read -r f name args; do
    for load in "${LOADS[@]}"; do
      local cells=()
      for extra in "" "$args"; do
        # shellcheck disable=SC2046,SC2086
        "$BIN" run "$DIR/latency.yaml" -q -o "$OUT/control" --set fabric.profile="$f" \
          --set "workload[1].load=$load" $(hw_args "$f") $extra >/dev/null
        cells+=("$(jq -r '.flows.fct_ns | [.p50, .p99, .["p99.9"]] | map(. / 10 | round / 100) | join(" / ")' \
          "$OUT/control/results.json")")
      done
      echo "| $f | $name | $load | ${cells[0]} | ${cells[1]} |"
    done
  done <<'EOF'
rocev2-dcqcn-mlx|ACKs in the data class (fabric.ack_tc=3), as iWARP's TCP ACKs|--set fabric.ack_tc=3
rocev2-dctcp|ACKs in the data class (fabric.ack_tc=3), as iWARP's TCP ACKs|--set fabric.ack_tc=3
iwarp-dctcp|K = 300 KB at 100 Gb/s, rocev2-dctcp's (fabric.ecn.kmin/kmax, reference_rate 100Gbps)|--set fabric.ecn.kmin=300KB --set fabric.ecn.kmax=300KB --set fabric.ecn.reference_rate=100Gbps
iwarp-cubic|a 4 MiB switch buffer (topology.switch.buffer)|--set topology.switch.buffer=4MiB
EOF
}

# busbw (GB/s) column of an nccl-tests table, one line per size.
busbw() { awk '/^ +[0-9]/ {print $1, $8}'; }

NCCL_FABRICS=(ideal iwarp-cubic iwarp-dctcp rocev2-dcqcn rocev2-dcqcn-mlx rocev2-dcqcn-400g rocev2-hpcc-400g ib-ndr)
# The section studies the ring as NCCL ran it before its tuner, on 1 us links: pinned (here and in allreduce-*.yaml) so the tables do not move when the tuner or the front end's defaults do.
NCCL_PIN=(--algo ring --proto Simple --channels 8 --chunk 512KiB --cable-delay 1us)

# Rail-optimized 4 x 8 (every ring hop between servers stays on its rail
# leaf: no ECMP), 1 MiB, 16 MiB, 256 MiB.
nccl_rail() {
  echo "| fabric | 1 MiB | 16 MiB | 256 MiB |"
  echo "|---|---|---|---|"
  local f
  for f in "${NCCL_FABRICS[@]}"; do
    "$BIN" nccl-tests all_reduce_perf -b 1M -e 256M -f 16 --topo rail --fabric "$f" "${NCCL_PIN[@]}" \
      >"$OUT/nccl-rail-$f.txt"
    busbw <"$OUT/nccl-rail-$f.txt" | awk -v f="$f" '{v[NR] = $2} END {printf "| %s | %s | %s | %s |\n", f, v[1], v[2], v[3]}'
  done
}

# Leaf-spine 4 x 8 (one leaf per server, 8 spines, ECMP; rail is the default): seed 1 (the
# nccl-tests default) and the spread over seeds 1-8 (the seed draws the ECMP
# hash and every QP's source port, so it decides which ring connections share
# an uplink).
nccl_leafspine() {
  echo "| fabric | size | seed 1 | mean seeds 1-8 | min | max |"
  echo "|---|---|---|---|---|---|"
  local f s
  for f in "${NCCL_FABRICS[@]}"; do
    for s in 1 2 3 4 5 6 7 8; do
      "$BIN" nccl-tests all_reduce_perf -b 16M -e 256M -f 16 --topo leaf-spine --fabric "$f" "${NCCL_PIN[@]}" \
        --seed "$s" >"$OUT/nccl-ls-$f-seed$s.txt"
    done
    for size in 16777216 268435456; do
      cat "$OUT"/nccl-ls-"$f"-seed{1,2,3,4,5,6,7,8}.txt | busbw | awk -v f="$f" -v z="$size" '
        $1 == z {v[++n] = $2; sum += $2; if (n == 1 || $2 < lo) lo = $2; if (n == 1 || $2 > hi) hi = $2}
        END {printf "| %s | %d MiB | %s | %.1f | %s | %s |\n", f, z / 1048576, v[1], sum / n, lo, hi}'
    done
  done
}

# Why one leaf-spine run differs from another: the bytes each leaf->spine
# uplink carried in the 16 MiB AllReduce at seed 1 (ports.csv), heaviest
# first. A ring connection moves about 4.2 MB (RC) / 4.5 MB (iWARP), so an
# uplink with 16.6 MB carried four of them at once.
nccl_uplinks() {
  echo "| fabric | busbw | heaviest leaf->spine uplinks (MB) |"
  echo "|---|---|---|"
  local f args
  for f in ideal rocev2-dcqcn iwarp-cubic iwarp-dctcp; do
    args=""
    case $f in iwarp-*) ;; *) args="--set fabric.mtu=4KiB" ;; esac
    # shellcheck disable=SC2086
    "$BIN" run "$DIR/allreduce-leafspine.yaml" -q -o "$OUT/uplinks-$f" --set fabric.profile="$f" $args >/dev/null
    printf '| %s | %s | %s |\n' "$f" \
      "$(jq -r '.workload_results[0].busbw_GBps * 100 | round / 100' "$OUT/uplinks-$f/results.json")" \
      "$(awk -F, '$1 ~ /^leaf/ && $3 ~ /^spine/ {printf "%.1f\n", $6 / 1e6}' "$OUT/uplinks-$f/ports.csv" |
         sort -gr | head -6 | paste -sd' ')"
  done
}

# iWARP on the rail topology as a scenario, with the two costs the front end
# fixes: TCP slow start on fresh connections and the 1500 B Ethernet MTU.
nccl_iwarp() {
  echo "| variant | 1 MiB | 16 MiB | 256 MiB |"
  echo "|---|---|---|---|"
  local name args size row
  while IFS='|' read -r name args; do
    row="| $name |"
    for size in 1MiB 16MiB 256MiB; do
      # shellcheck disable=SC2086
      "$BIN" run "$DIR/allreduce-rail.yaml" -q -o "$OUT/iwarp-rail" --set "workload[0].size=$size" $args \
        >"$OUT/iwarp-rail.txt"
      row+=" $(jq -r '.workload_results[0].busbw_GBps * 100 | round / 100' "$OUT/iwarp-rail/results.json") |"
    done
    echo "$row"
  done <<'EOF'
iwarp-cubic (as the front end runs it)|
iwarp-dctcp, warm connections (initial window 100000 segments)|--set fabric.profile=iwarp-dctcp --set fabric.dctcp.initial_window=100000
iwarp-cubic, 9000 B MTU|--set fabric.tcp.ip_mtu=9000
iwarp-dctcp, warm connections, 9000 B MTU|--set fabric.profile=iwarp-dctcp --set fabric.dctcp.initial_window=100000 --set fabric.tcp.ip_mtu=9000
EOF
}

what=${1:-all}
case $what in
  perftest) perftest ;;
  latency) latency ;;
  latency-controls) latency_controls ;;
  nccl-rail) nccl_rail ;;
  nccl-leafspine) nccl_leafspine ;;
  nccl-uplinks) nccl_uplinks ;;
  nccl-iwarp) nccl_iwarp ;;
  all) perftest; echo; latency; echo; latency_controls; echo; nccl_rail; echo; nccl_leafspine; echo; nccl_uplinks; echo; nccl_iwarp ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
