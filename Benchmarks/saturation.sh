#!/usr/bin/env bash
# Saturation throughput: page events to N viewers as fast as the server takes them, Podium against
# nginx + nchan in the same run. The server under test is pinned to core 0 (nchan: one worker), the
# generator to core 1; loopback only. The publisher keeps a window of commands in flight (Podium:
# gotos awaiting their ack; nchan: POSTs awaiting their answer), no pointer, and each server is run
# with each window of WINDOWS (default 8 16 32 64): a server is saturated when a larger window no
# longer raises its throughput. The generator reports page frames received per second from the
# first send to the last receive, and the server's CPU seconds per second over that interval: about
# 1.0 when the one core is busy.
# Podium's per-socket message limit (100/s by default) is lifted for the presenter with
# --socket-message-rate.
# Usage: Benchmarks/saturation.sh [viewers...]   (default: 1000)
# Needs: swift build -c release --product podium && swift build -c release --product podium-load; apt install nginx-light libnginx-mod-nchan
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[[ $# -gt 0 ]] || counts=(1000)
seconds=${SECONDS_PER_RUN:-10}
read -r -a windows <<< "${WINDOWS:-8 16 32 64}"
late_joiners=${LATE_JOINERS:-50}
source Benchmarks/servers.sh
# The presenter may send as fast as it likes.
start_podium --socket-message-rate 1000000
start_nchan

machine_line
for n in "${counts[@]}"; do
  for window in "${windows[@]}"; do
    code=$(new_session)
    echo; echo "=== saturation, $n viewers, $window in flight ==="
    taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
      --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
      --late-joiners "$late_joiners" --server-pid "$podium_pid" || true
    echo
    taskset -c 1 "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/sat${n}w$window" \
      --nchan-pub "http://127.0.0.1:8091/pub/sat${n}w$window" \
      --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
      --late-joiners "$late_joiners" --server-pid "$nginx_worker" || true
  done
done
