#!/usr/bin/env bash
# Signed segment serving (#20): the radio's segments through Podium's per-person signed URLs
# (/stream/<token>/<sequence>.ts: an HMAC checked per request, the sequence mapped to its blob by
# the schedule in memory, the listener's allowance counted) against nginx's secure_link (an MD5
# of the expiry, the path and a secret, checked per request) serving the same files. Each server
# alone on core 0 (Podium sizes its event loops to its affinity: one; nginx: one worker), wrk on
# core 1 keeping CONNECTIONS connections busy for SECONDS_PER_RUN seconds, each request the next
# segment of the list.
#
# Usage: Benchmarks/channel-signed-segments.sh   Settings: CONNECTIONS (100), SECONDS_PER_RUN (20),
# BIN (.build/release), PORT (18121), NGINX_PORT (18122).
# Needs: swift build -c release --product podium; ffmpeg; nginx (with secure_link) and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${CONNECTIONS:-100}
seconds=${SECONDS_PER_RUN:-20}
bin=${BIN:-.build/release}
port=${PORT:-18121}
nginx_port=${NGINX_PORT:-18122}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
chmod 755 "$work"
podium_pid=
nginx_pid=
source Benchmarks/video.sh
cleanup() {
  stop_video_podium
  [[ -n $nginx_pid ]] && { kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
machine_line
echo "nginx $(nginx -v 2>&1 | cut -d/ -f2), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"

# A station of one 120-second track: 20 segments of ~6 s.
PODIUM_RADIO_DAILY_MINUTES=100000 start_video_podium "$port" taskset -c 0
radio=$(curl -sf -X POST "$base/api/v1/channel/radios" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -d '{"name":"Bench","published":true}' | json id)
ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=440:duration=120" -c:a libmp3lame "$work/t.mp3"
curl -sf -o /dev/null -X POST "$base/api/v1/channel/radios/$radio/tracks?title=Tone" \
  -H "Authorization: Bearer $token" -H 'Content-Type: audio/mpeg' --data-binary @"$work/t.mp3"
for _ in $(seq 600); do
  status=$(curl -sf "$base/api/v1/channel/radios/$radio/tracks" -H "Authorization: Bearer $token" |
    python3 -c 'import sys,json; print(json.load(sys.stdin)[0]["status"])')
  [[ $status == ready ]] && break
  sleep 0.5
done
# Wait until the first loop's segments are all on the air, then take the stream URL of one listener.
cookie="podium_viewer=v_benchbenchbenchbenchbenc"
sleep 122
url=$(curl -sf -H "Cookie: $cookie" "$base/api/v1/channel/radios/$radio/stream" | json url)
prefix=${url%live.m3u8}
mkdir -p "$work/www/seg"
: >"$work/podium-paths.txt"
for sequence in $(seq 0 19); do
  echo "$prefix$sequence.ts" >>"$work/podium-paths.txt"
  curl -sf -H "Cookie: $cookie" -o "$work/www/seg/$sequence.ts" "$base$prefix$sequence.ts"
done
chmod -R a+rX "$work/www"
bytes=$(cat "$work/www/seg/"*.ts | wc -c)
printf '20 segments, mean %.0f KB\n' "$(echo "$bytes / 20 / 1000" | bc -l)"

# nginx secure_link: ?md5=<base64url md5 of "expires uri secret">&expires=<unix time>.
secret=benchsecret
expires=$(($(date +%s) + 6 * 3600))
: >"$work/nginx-paths.txt"
for sequence in $(seq 0 19); do
  uri="/seg/$sequence.ts"
  md5=$(printf '%s' "$expires$uri $secret" | openssl md5 -binary | openssl base64 | tr +/ -_ | tr -d =)
  echo "$uri?md5=$md5&expires=$expires" >>"$work/nginx-paths.txt"
done
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log error;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path $work/nginx-body;
  proxy_temp_path $work/nginx-proxy;
  fastcgi_temp_path $work/nginx-fastcgi;
  uwsgi_temp_path $work/nginx-uwsgi;
  scgi_temp_path $work/nginx-scgi;
  types { video/mp2t ts; }
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/www;
    location /seg/ {
      secure_link \$arg_md5,\$arg_expires;
      secure_link_md5 "\$secure_link_expires\$uri $secret";
      if (\$secure_link = "") { return 403; }
      if (\$secure_link = "0") { return 410; }
    }
  }
}
CONF
taskset -c 0 nginx -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$nginx_port$(head -1 "$work/nginx-paths.txt")" && break; sleep 0.1; done
nginx_worker=$(pgrep -P "$nginx_pid" | head -1)
echo "sanity: nginx $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$nginx_port/seg/0.ts?md5=forged&expires=$expires") for a forged link," \
  "Podium $(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $cookie" "$base/stream/forged.token/0.ts")"

cat >"$work/walk.lua" <<'LUA'
local paths = {}
local next_index = 0
local cookie = os.getenv("COOKIE")
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
end
function request()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index], cookie and { Cookie = cookie } or nil)
end
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.max,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status))
end
LUA

load() {
  local before after
  before=$(process_cpu_seconds "$3")
  COOKIE=$5 taskset -c 1 wrk -t 1 -c "$connections" -d "${seconds}s" --timeout 10s -s "$work/walk.lua" "$2" -- "$4" >"$work/wrk-$1.txt"
  after=$(process_cpu_seconds "$3")
  read -r _ requests body micros p50 p99 max errors non2xx < <(grep '^RESULT' "$work/wrk-$1.txt")
  local wall
  wall=$(echo "$micros / 1000000" | bc -l)
  printf '%-7s %6.0f req/s %7.1f MB/s  p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  server CPU %.2f s/s  errors %d, non-2xx %d\n' \
    "$1" "$(echo "$requests / $wall" | bc -l)" "$(echo "$body / $wall / 1000000" | bc -l)" \
    "$(echo "$p50 / 1000" | bc -l)" "$(echo "$p99 / 1000" | bc -l)" "$(echo "$max / 1000" | bc -l)" \
    "$(echo "($after - $before) / $wall" | bc -l)" "$errors" "$non2xx"
  eval "rps_$1=$(echo "$requests / $wall" | bc -l)"
}

echo; echo "=== $connections connections for ${seconds} s (wrk on core 1, each server alone on core 0) ==="
load podium "$base" "$podium_pid" "$work/podium-paths.txt" "$cookie"
stop_video_podium
load nginx "http://127.0.0.1:$nginx_port" "$nginx_worker" "$work/nginx-paths.txt" ""
printf 'ratio Podium / nginx: %.3f (requests/s)\n' "$(echo "$rps_podium / $rps_nginx" | bc -l)"
