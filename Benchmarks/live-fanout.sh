#!/usr/bin/env bash
# Live fan-out: Podium against nginx + nchan, same generator, same machine, same run.
# The server under test is pinned to core 0, the generator to core 1; loopback only.
# Each run also has LATE_JOINERS (default 50) viewers joining one at a time while events flow: hello to
# welcome and, for Podium, to the current page's image fetched.
# Usage: Benchmarks/live-fanout.sh [viewers...]   (default: 1000 5000 10000)
# Needs: swift build -c release --product podium && swift build -c release --product podium-load; apt install nginx-light libnginx-mod-nchan
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-1000 5000 10000}")
[[ $# -gt 0 ]] || counts=(1000 5000 10000)
page_rate=${PAGE_RATE:-20}
pointer_rate=${POINTER_RATE:-60}
seconds=${SECONDS_PER_RUN:-10}
late_joiners=${LATE_JOINERS:-50}
ulimit -n "$(ulimit -Hn)"  # 10,000 sockets need more than the usual 1,024
bin=${BIN:-.build/release}
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# Podium on core 0.
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
  echo; echo "=== $n viewers ==="
  taskset -c 1 "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$n" --page-rate "$page_rate" --pointer-rate "$pointer_rate" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$podium_pid" || true
  echo
  taskset -c 1 "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/bench$n" --nchan-pub "http://127.0.0.1:8091/pub/bench$n" \
    --viewers "$n" --page-rate "$page_rate" --pointer-rate "$pointer_rate" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$nginx_worker" || true
done
