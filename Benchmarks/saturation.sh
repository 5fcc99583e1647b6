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
ulimit -n "$(ulimit -Hn)"
bin=${BIN:-.build/release}
if [[ ! -f /usr/lib/nginx/modules/ngx_nchan_module.so ]] || ! command -v nginx >/dev/null; then
  echo "needs nginx with nchan: apt install nginx-light libnginx-mod-nchan" >&2
  exit 1
fi
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# Podium on core 0; the presenter may send as fast as it likes.
PODIUM_ADMIN_PASSWORD=bench taskset -c 0 "$bin/podium" serve --host 127.0.0.1 --port 8089 \
  --data-dir "$work/podium" --log-level error --socket-message-rate 1000000 > "$work/podium.log" 2>&1 &
podium_pid=$!; pids+=("$podium_pid")
for _ in $(seq 100); do curl -sf http://127.0.0.1:8089/healthz >/dev/null && break; sleep 0.1; done
token=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/auth/login -d '{"email":"admin","password":"bench"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["token"])')
deck=$(curl -sf -X POST "http://127.0.0.1:8089/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | python3 -c 'import sys,json;print(json.load(sys.stdin)["id"])')
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:8089/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break; sleep 0.2
done

# nginx + nchan on core 0, one worker.
cat > "$work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_nchan_module.so;
worker_processes 1;
worker_cpu_affinity 01;
worker_rlimit_nofile 20000;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log error;
events { worker_connections 19000; }
http {
  access_log off;
  client_body_temp_path $work/nginx-body;
  server {
    listen 127.0.0.1:8091;
    location ~ /pub/(\w+)$ { nchan_publisher; nchan_channel_id \$1; nchan_message_buffer_length 100; }
    location ~ /sub/(\w+)$ { nchan_subscriber websocket; nchan_channel_id \$1; }
  }
}
CONF
nginx -c "$work/nginx.conf" &
nginx_master=$!; pids+=("$nginx_master")
sleep 1
nginx_worker=$(pgrep -P "$nginx_master" | head -1)

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%F)"
for n in "${counts[@]}"; do
  code=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/sessions -H "Authorization: Bearer $token" \
    -d "{\"deckId\":\"$deck\"}" | python3 -c 'import sys,json;print(json.load(sys.stdin)["code"])')
  echo; echo "=== saturation, $n viewers ==="
  taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$podium_pid" || true
  echo
  taskset -c 1 "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/sat$n" --nchan-pub "http://127.0.0.1:8091/pub/sat$n" \
    --viewers "$n" --saturate --window "$window" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$nginx_worker" || true
done
