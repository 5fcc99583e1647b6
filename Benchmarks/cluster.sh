#!/usr/bin/env bash
# One session's viewers on one node against the same viewers over three nodes on PostgreSQL, same
# generator (podium-load), same machine, same run; and what a durable event pays for PostgreSQL.
#
#   1. one node on SQLite                      (the default installation; the baseline)
#   2. one node on PostgreSQL                  (the same, each event appended to PostgreSQL)
#   3. three nodes on PostgreSQL               (viewers spread round robin over the nodes, the
#                                               presenter on the first; events cross by pg_notify)
#   4. saturation, one node and three nodes on PostgreSQL: durable events as fast as one session
#      takes them (SATURATE_VIEWERS viewers, WINDOW commands in flight)
#
# The nodes (all of them) and PostgreSQL are pinned to core 0, the generator to core 1: the
# cluster's runs measure its cost on the same core, not a machine three times larger. The
# viewers connect to the nodes directly (no load balancer in the measurement).
#
# Usage: Benchmarks/cluster.sh [viewers]   (default 3000)
# Settings: PAGE_RATE (20), POINTER_RATE (60), SECONDS_PER_RUN (10), SATURATE_VIEWERS (100),
# WINDOW (8), BIN (.build/release), PORT (first node; 18095), PG_PORT (55435).
# Needs: swift build -c release (podium and podium-load), PostgreSQL (scripts/setup --test).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-3000}
page_rate=${PAGE_RATE:-20}
pointer_rate=${POINTER_RATE:-60}
seconds=${SECONDS_PER_RUN:-10}
saturate_viewers=${SATURATE_VIEWERS:-100}
window=${WINDOW:-8}
bin=${BIN:-.build/release}
port=${PORT:-18095}
pg_port=${PG_PORT:-55435}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  stop_nodes
  scripts/postgres stop "$work/postgres" >/dev/null 2>&1 || true
  rm -rf "$work"
}
stop_nodes() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap cleanup EXIT

json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }
wait_for() {
  for _ in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "no answer from $1" >&2
  return 1
}

# start_nodes N [serve options]: N nodes on core 0 (ports port..port+N-1), the deck uploaded and a
# session made on the first. Sets node_pids, token, deck, code.
start_nodes() {
  local count=$1
  shift
  node_pids=()
  for i in $(seq 0 $((count - 1))); do
    PODIUM_ADMIN_PASSWORD=bench taskset -c 0 "$bin/podium" serve --host 127.0.0.1 --port $((port + i)) \
      --data-dir "$work/run$run/node$i" --log-level error --socket-message-rate 100000 "$@" \
      >"$work/run$run-node$i.log" 2>&1 &
    pids+=($!)
    node_pids+=($!)
  done
  for i in $(seq 0 $((count - 1))); do wait_for "http://127.0.0.1:$((port + i))/healthz"; done
  local base=http://127.0.0.1:$port
  token=$(curl -sf -X POST "$base/api/v1/auth/login" -d '{"email":"admin","password":"bench"}' | json token)
  deck=$(curl -sf -X POST "$base/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | json id)
  for _ in $(seq 300); do
    curl -sf "$base/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break
    sleep 0.2
  done
  new_session
}

# A fresh session (its seq from 0, as the generator's numbering expects).
new_session() {
  code=$(curl -sf -X POST "http://127.0.0.1:$port/api/v1/sessions" -H "Authorization: Bearer $token" \
    -d "{\"deckId\":\"$deck\"}" | json code)
}

# load N [podium-load options]: the generator on core 1 against the nodes started last.
load() {
  local count=$1
  shift
  local options=(--podium "ws://127.0.0.1:$port/api/v1/sessions/$code/live" --token "$token" --late-joiners 0)
  for i in $(seq 1 $((count - 1))); do options+=(--viewer-url "ws://127.0.0.1:$((port + i))/api/v1/sessions/$code/live"); done
  for pid in "${node_pids[@]}"; do options+=(--server-pid "$pid"); done
  taskset -c 1 "$bin/podium-load" "${options[@]}" "$@" || true
}

echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%F)"
fanout=(--viewers "$viewers" --page-rate "$page_rate" --pointer-rate "$pointer_rate" --seconds "$seconds")
saturate=(--viewers "$saturate_viewers" --saturate --window "$window" --seconds "$seconds")

run=1
echo; echo "=== 1. one node, SQLite: $viewers viewers ==="
start_nodes 1
load 1 "${fanout[@]}"
echo; echo "--- saturation, one node, SQLite: $saturate_viewers viewers"
new_session
load 1 "${saturate[@]}"
stop_nodes

if ! "$bin/podium" serve --help 2>&1 | grep -q -- '--database'; then
  echo; echo "This podium has no --database option (no PostgreSQL store): runs 2-4 skipped."
  exit 0
fi
url=$(taskset -c 0 scripts/postgres start "$work/postgres" "$pg_port")
database=(--database "$url" --blob-dir "$work/blobs")

run=2
echo; echo "=== 2. one node, PostgreSQL: $viewers viewers ==="
start_nodes 1 "${database[@]}"
load 1 "${fanout[@]}"
echo; echo "--- saturation, one node, PostgreSQL: $saturate_viewers viewers"
new_session
load 1 "${saturate[@]}"
stop_nodes

run=3
echo; echo "=== 3. three nodes, PostgreSQL: $viewers viewers over the three ==="
start_nodes 3 "${database[@]}"
load 3 "${fanout[@]}"
echo; echo "--- saturation, three nodes, PostgreSQL: $saturate_viewers viewers over the three, presenter on the first"
new_session
load 3 "${saturate[@]}"
stop_nodes
