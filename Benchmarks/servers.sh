# Sourced by the live benchmarks: starts the servers under test, each pinned to core 0 (or to
# SERVER_CORES, e.g. 0,1: Podium then runs an event loop per core, nginx a worker per core), and
# cleans up on exit. Sets: work, pids, podium_pid, token, deck, nginx_worker (the first worker),
# nginx_workers; new_session prints a fresh session code.
bin=${BIN:-.build/release}
server_cores=${SERVER_CORES:-0}
ulimit -n "$(ulimit -Hn)"  # 10,000 sockets need more than the usual 1,024
work=$(mktemp -d)
pids=()
# Waits for the servers to exit, so the next script finds its ports free.
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }

# start_podium [extra serve options]: Podium on the server cores with the demo deck processed. PODIUM_LAUNCHER
# runs it under a tool ("heaptrack -o FILE"); podium_pid is then the tool's.
start_podium() {
  # shellcheck disable=SC2086 # the launcher is a command and its words
  PODIUM_ADMIN_PASSWORD=bench taskset -c "$server_cores" ${PODIUM_LAUNCHER:-} "$bin/podium" serve --host 127.0.0.1 --port 8089 \
    --data-dir "$work/podium" --log-level error "$@" > "$work/podium.log" 2>&1 &
  podium_pid=$!; pids+=("$podium_pid")
  for _ in $(seq 300); do curl -sf http://127.0.0.1:8089/healthz >/dev/null && break; sleep 0.1; done
  token=$(curl -sf -X POST http://127.0.0.1:8089/api/v1/auth/login -d '{"email":"admin","password":"bench"}' | json token)
  deck=$(curl -sf -X POST "http://127.0.0.1:8089/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/pdf' --data-binary @Public/demo/podium-demo.pdf | json id)
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:8089/api/v1/decks/$deck" -H "Authorization: Bearer $token" | grep -q '"status":"ready"' && break
    sleep 0.2
  done
}

new_session() {
  curl -sf -X POST http://127.0.0.1:8089/api/v1/sessions -H "Authorization: Bearer $token" -d "{\"deckId\":\"$deck\"}" | json code
}

# start_nchan: nginx with nchan on port 8091, one worker pinned to each server core.
start_nchan() {
  local cores masks="" core
  IFS=, read -ra cores <<< "$server_cores"
  for core in "${cores[@]}"; do
    # nginx's affinity masks: one binary digit per CPU, CPU 0 the rightmost.
    masks+=" 1$(printf '%*s' "$core" '' | tr ' ' 0)"
  done
  if [[ ! -f /usr/lib/nginx/modules/ngx_nchan_module.so ]] || ! command -v nginx >/dev/null; then
    echo "needs nginx with nchan: apt install nginx-light libnginx-mod-nchan" >&2
    exit 1
  fi
  cat > "$work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_nchan_module.so;
worker_processes ${#cores[@]};
worker_cpu_affinity$masks;
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
  local master=$!; pids+=("$master")
  sleep 1
  mapfile -t nginx_workers < <(pgrep -P "$master")
  nginx_worker=${nginx_workers[0]}
}

machine_line() { echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%F)"; }
