#!/usr/bin/env bash
# Where an idle viewer's memory goes: the release server runs under heaptrack while VIEWERS
# viewers connect, say hello and stay; the heap at its peak is then grouped by the innermost
# caller that is not an allocator or a collection (Benchmarks/heap_by_caller.py), in bytes per
# viewer. podium-load prints the RSS per idle viewer of the same run (heaptrack's own bookkeeping
# is not in the server's heap, but it does slow the joins).
#
# Usage: Benchmarks/idle-memory.sh [viewers (2000)] [rows (40)]
# Needs: swift build -c release --product podium && swift build -c release --product podium-load;
#        apt install heaptrack
# Results and what they mean: docs/performance.md, "Memory per idle viewer".
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-2000}
rows=${2:-40}
bin=${BIN:-.build/release}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
server=
cleanup() {
  [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }

PODIUM_ADMIN_PASSWORD=bench taskset -c 0 heaptrack -o "$work/heap" "$bin/podium" serve --host 127.0.0.1 --port 8089 \
  --data-dir "$work/podium" --log-level error > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 300); do curl -sf http://127.0.0.1:8089/healthz >/dev/null && break; sleep 0.1; done
token=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/auth/login -d '{"email":"admin","password":"bench"}' | json token)
deck=$(curl -sf -X POST "http://127.0.0.1:8089/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | json id)
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:8089/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break
  sleep 0.2
done
code=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/sessions -H "Authorization: Bearer $token" -d "{\"deckId\":\"$deck\"}" | json code)
pid=$(pgrep -f "podium serve --host 127.0.0.1 --port 8089" | tail -1)
taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
  --viewers "$viewers" --page-rate 1 --pointer-rate 0 --seconds 1 --late-joiners 0 --server-pid "$pid" \
  | grep -E "connect all|server memory"
kill "$pid"; wait "$server" || true; server=
heaptrack_print -f "$work/heap.zst" --print-flamegraph "$work/stacks" --flamegraph-cost-type peak > /dev/null
swift demangle --simplified < "$work/stacks" | python3 Benchmarks/heap_by_caller.py "$viewers" "$rows"
