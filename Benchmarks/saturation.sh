#!/usr/bin/env bash
# Saturation throughput: page events to N viewers as fast as the server takes them, Podium against
# nginx + nchan in the same run. The server under test is pinned to core 0 (nchan: one worker), the
# generator to core 1; loopback only. The publisher keeps WINDOW commands in flight (Podium: gotos
# awaiting their ack; nchan: POSTs awaiting their answer), no pointer. The generator reports page
# frames received per second from the first send to the last receive, and the server's CPU seconds
# per second over that interval: about 1.0 when the one core is saturated.
# Podium's per-socket message limit (100/s by default) is lifted for the presenter with
# --socket-message-rate.
# Usage: Benchmarks/saturation.sh [viewers...]   (default: 1000)
# Needs: swift build -c release --product podium && swift build -c release --product podium-load; apt install nginx-light libnginx-mod-nchan
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[[ $# -gt 0 ]] || counts=(1000)
seconds=${SECONDS_PER_RUN:-10}
window=${WINDOW:-8}
late_joiners=${LATE_JOINERS:-50}
source Benchmarks/servers.sh
# The presenter may send as fast as it likes.
start_podium --socket-message-rate 1000000
start_nchan

machine_line
for n in "${counts[@]}"; do
  code=$(new_session)
  echo; echo "=== saturation, $n viewers ==="
  taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$podium_pid" || true
  echo
  taskset -c 1 "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/sat$n" --nchan-pub "http://127.0.0.1:8091/pub/sat$n" \
    --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$nginx_worker" || true
done
