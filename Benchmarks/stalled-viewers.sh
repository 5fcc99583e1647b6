#!/usr/bin/env bash
# Slow clients: does a stalled viewer (or 10 % of them) change the others' latency?
# Podium on core 0, the generator on core 1, loopback only; 1,000 viewers at 20 page events/s and
# 60 pointer moves/s, with 0, 1 and 100 viewers that stop reading after their welcome. No late joiners
# (their welcomes and page images would add to the server's CPU per delivery).
# Usage: Benchmarks/stalled-viewers.sh [viewers]   (default 1000)
# Needs: swift build -c release --product podium && swift build -c release --product podium-load
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-1000}

source Benchmarks/servers.sh
start_podium

machine_line
for stalled in 0 1 $((viewers / 10)); do
  code=$(new_session)
  echo; echo "=== $viewers viewers, $stalled stalled ==="
  taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$viewers" --stalled "$stalled" --page-rate "${PAGE_RATE:-20}" --pointer-rate "${POINTER_RATE:-60}" \
    --seconds "${SECONDS_PER_RUN:-10}" --late-joiners 0 --server-pid "$podium_pid" || true
done
