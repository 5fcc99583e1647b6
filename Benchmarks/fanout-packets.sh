#!/usr/bin/env bash
# Packets per write: how many loopback packets each server sends for its socket writes while a hall
# follows a talk, counted by the kernel's tracepoints with `perf stat` over the middle of the run.
# Podium (with any serve options given) then nginx + nchan, same generator
# and pinning as live-fanout.sh. Explains CPU per delivery: on loopback each packet's receiving side
# runs in the sender's context, so the kernel's part follows the packets, not the writes.
# Usage: Benchmarks/fanout-packets.sh [viewers (1000)] [podium serve options...]
# Needs: what live-fanout.sh needs, and perf with tracepoints (linux-perf; root or perf_event_paranoid <= -1).
set -euo pipefail
cd "$(dirname "$0")/.."
viewers=${1:-1000}
shift || true
seconds=${SECONDS_PER_RUN:-12}
window=5

source Benchmarks/servers.sh
start_podium "$@"
start_nchan
machine_line

# count PID GENERATOR...: runs the generator, and counts the server's events over `window` seconds
# once the viewers have had time to connect.
count() {
  local pid=$1; shift
  taskset -c 1 "$@" > "$work/load.txt" 2>&1 &
  local load=$!
  sleep $((seconds / 2))
  perf stat -x, -e net:net_dev_xmit,syscalls:sys_enter_write,syscalls:sys_enter_writev,task-clock \
    -p "$pid" -- sleep "$window" 2> "$work/perf.txt"
  wait "$load" || true
  grep -E "delivered|connect all" "$work/load.txt" | head -2
  # perf's -x, lines: value, unit, event name, ...; task-clock is in milliseconds.
  awk -F, '
    $3 == "net:net_dev_xmit" { packets = $1 } $3 == "syscalls:sys_enter_write" { write = $1 }
    $3 == "syscalls:sys_enter_writev" { writev = $1 } $3 == "task-clock" { cpu = $1 }
    END { printf "over %d s: %d packets, %d write + %d writev calls: %.2f packets per write; server CPU %.2f s, %.1f us per packet\n",
      '"$window"', packets, write, writev, packets / (write + writev), cpu / 1000, cpu * 1000 / packets }' "$work/perf.txt"
}

echo; echo "=== Podium ${*:-(defaults)}, $viewers viewers ==="
count "$podium_pid" "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$(new_session)/live" --token "$token" \
  --viewers "$viewers" --page-rate 20 --pointer-rate 60 --seconds "$seconds" --late-joiners 0
echo; echo "=== nginx + nchan, $viewers viewers ==="
count "$nginx_worker" "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/packets" \
  --nchan-pub "http://127.0.0.1:8091/pub/packets" --viewers "$viewers" --page-rate 20 --pointer-rate 60 \
  --seconds "$seconds" --late-joiners 0
