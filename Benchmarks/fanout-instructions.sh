#!/usr/bin/env bash
# Instructions per delivery and per join, counted by valgrind's callgrind: a figure that a busy or
# noisy machine does not move, for every change to the fan-out and hello paths (#21).
#
# The release server runs under callgrind with instrumentation off while it starts and ingests the
# demo deck. Then, counted: VIEWERS viewers connect, say hello and get their welcome (dumped as
# "joins"), and the presenter publishes page events at a rate the instrumented server keeps up with
# (no pointer moves: they are newest-wins, so their count would depend on timing), until every
# viewer has every event (dumped as "fanout"). Each figure is that part's instructions divided by
# its joins or deliveries; callgrind_annotate's top functions of each part are printed too.
#
# Usage: Benchmarks/fanout-instructions.sh [viewers (200)] [page events per second (4)] [seconds (15)]
# Needs: swift build -c release --product podium && swift build -c release --product podium-load;
#        gcc; valgrind 3.20 or newer in VALGRIND (Debian 12's 3.19 cannot read a release build's
#        DWARF 5: Debian 13's valgrind package unpacked with dpkg-deb -x works, its launcher run
#        with VALGRIND_LIB=<unpacked>/usr/libexec/valgrind); callgrind_control and
#        callgrind_annotate from Debian 12's valgrind package are fine. Or Debian 12's valgrind
#        with a release build that has no DWARF at all (`-debug-info-format none` on both
#        builds; debug information adds no instruction), and callgrind still names every function (by its
#        symbol; `swift demangle` reads them).
# Results: docs/performance.md (current), docs/performance-log.md "Instructions per delivery and per join" (how).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-200}
rate=${2:-4}
seconds=${3:-15}
bin=${BIN:-.build/release}
valgrind=${VALGRIND:-valgrind}
work=$(mktemp -d)
server=
cleanup() {
  [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [[ -n "${KEEP:-}" ]] && echo "kept: $work" || rm -rf "$work"
}
trap cleanup EXIT
json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }

cc -shared -fPIC -O2 -o "$work/sigsuspend.so" Benchmarks/valgrind-sigsuspend.c
ulimit -n "$(ulimit -Hn)"
port=${PORT:-8093}  # PORT=<n>: another port, for two runs side by side
base="http://127.0.0.1:$port"
login() { curl -sf -X POST "$base/api/v1/auth/login" -d '{"email":"admin","password":"bench"}'; }
# serve [launcher...]: the server on the benchmark's data directory, until it signs the admin in.
serve() {
  PODIUM_ADMIN_PASSWORD=bench "$@" "$bin/podium" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
    --log-level error --no-discovery >> "$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do login >/dev/null && return; sleep 0.2; done
  echo "the server did not start:" >&2; cat "$work/server.log" >&2; exit 1
}

# The deck is ingested by the server running natively: under valgrind, Foundation cannot start
# the ingest's tools. The session is stored, so the instrumented server finds it after a restart.
serve
token=$(login | json token)
deck=$(curl -sf -X POST "$base/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | json id)
for _ in $(seq 600); do
  curl -sf "$base/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break
  sleep 0.2
done
code=$(curl -sf -X POST "$base/api/v1/sessions" -H "Authorization: Bearer $token" -d "{\"deckId\":\"$deck\"}" | json code)
kill "$server"; wait "$server" || true

LD_PRELOAD="$work/sigsuspend.so" serve "$valgrind" --tool=callgrind --instr-atstart=no \
  --callgrind-out-file="$work/callgrind.out"
token=$(login | json token)

echo "machine: $(nproc) cores; $(date -u +%F); $("$valgrind" --version); $(git rev-parse --short HEAD)"
# Counting starts after a warm-up: the server's first page changes fill its runtime's caches (type
# metadata, protocol conformances: a one-time cost that grows with the binary, not with viewers).
"$bin/podium-load" --podium "ws://127.0.0.1:$port/api/v1/sessions/$code/live" --token "$token" \
  --viewers "$viewers" --page-rate "$rate" --pointer-rate 0 --seconds "$seconds" --late-joiners 0 \
  --drain-seconds 60 --warm-up-pages 8 --after-warm-up "callgrind_control --instr=on $server > /dev/null" \
  --before-publishing "callgrind_control --dump=joins $server > /dev/null" \
  --after-publishing "callgrind_control --dump=fanout $server > /dev/null" | tee "$work/load.txt"

# A run where a viewer failed to connect or missed an event counts other work: no figures from it.
if ! grep -q "sockets that failed or were closed: 0;" "$work/load.txt" || ! grep -q ", lost 0," "$work/load.txt"; then
  echo "not counted: a viewer failed to connect or missed an event (a busy machine can push a hello past its deadline); run again" >&2
  exit 1
fi

# The figures: "PROGRAM TOTALS" of each dump over the joins and the deliveries.
delivered=$(sed -n "s/.*page events: sent [0-9]*, delivered \([0-9]*\) of.*/\1/p" "$work/load.txt" | head -1)
for part in joins fanout; do
  file=$(grep -l "^desc: Trigger: dump $part" "$work"/callgrind.out.* | head -1)
  callgrind_annotate --inclusive=no "$file" > "$work/$part.txt"
  total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$work/$part.txt")
  if [[ $part == joins ]]; then count=$viewers; unit=join; else count=$delivered; unit=delivery; fi
  echo
  echo "== $part: $total instructions over $count ${unit/delivery/deliverie}s: $((total / count)) instructions per $unit"
  grep -A 16 "^Ir " "$work/$part.txt" | tail -n +3 | sed 's/  */ /g' | cut -c1-150
done
