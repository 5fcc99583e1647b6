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
bin=${BIN:-.build/release}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

PODIUM_ADMIN_PASSWORD=bench taskset -c 0 "$bin/podium" serve --host 127.0.0.1 --port 8089 \
  --data-dir "$work/podium" --log-level error > "$work/podium.log" 2>&1 &
podium_pid=$!; pids+=("$podium_pid")
for _ in $(seq 100); do curl -sf http://127.0.0.1:8089/healthz >/dev/null && break; sleep 0.1; done
token=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/auth/login -d '{"email":"admin","password":"bench"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["token"])')
deck=$(curl -sf -X POST "http://127.0.0.1:8089/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | python3 -c 'import sys,json;print(json.load(sys.stdin)["id"])')
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:8089/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break; sleep 0.2
done

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%F)"
for stalled in 0 1 $((viewers / 10)); do
  code=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/sessions -H "Authorization: Bearer $token" \
    -d "{\"deckId\":\"$deck\"}" | python3 -c 'import sys,json;print(json.load(sys.stdin)["code"])')
  echo; echo "=== $viewers viewers, $stalled stalled ==="
  taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$viewers" --stalled "$stalled" --page-rate "${PAGE_RATE:-20}" --pointer-rate "${POINTER_RATE:-60}" \
    --seconds "${SECONDS_PER_RUN:-10}" --late-joiners 0 --server-pid "$podium_pid" || true
done
