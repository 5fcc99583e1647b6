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
# Results: docs/performance.md (current), docs/performance-log.md "Memory per idle viewer" (how).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-2000}
rows=${2:-40}

source Benchmarks/servers.sh
PODIUM_LAUNCHER="heaptrack -o $work/heap" start_podium
code=$(new_session)
# heaptrack runs the server as its child: the figures are the server's own.
server=$(pgrep -f "podium serve --host 127.0.0.1 --port 8089" | tail -1)
taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
  --viewers "$viewers" --page-rate 1 --pointer-rate 0 --seconds 1 --late-joiners 0 --server-pid "$server" \
  | grep -E "connect all|server memory"
kill "$server"
wait "$podium_pid" || true  # heaptrack writes its file as the server ends
heaptrack_print -f "$work/heap.zst" --print-flamegraph "$work/stacks" --flamegraph-cost-type peak > /dev/null
swift demangle --simplified < "$work/stacks" | python3 Benchmarks/heap_by_caller.py "$viewers" "$rows"
