#!/usr/bin/env bash
# Serving HLS segments (#18): many players fetching a packaged clip's segments at once, from Podium
# (its capability URLs, /stream/<token>/<name>, with ranges: since #37 /blobs/ serves pictures only)
# and from nginx serving the same files with sendfile; same load, same machine, same run.
#
# A clip is packaged by a running Podium (uploaded to POST /api/v1/videos); the segment list is read
# from its served playlists, as a player reads it (the master playlist, each media playlist, its
# init segment and segments), and the same files are downloaded for nginx. Each server in turn is
# pinned to core 0 (Podium sizes its event loops to its affinity: one; nginx: one worker) and wrk
# on core 1 keeps CONNECTIONS connections busy for SECONDS_PER_RUN seconds, each request the next segment of the
# list: every rendition's, as players at different points of the clip and on different links.
#
# With `pictures` instead of a clip's length, the files are a deck's page pictures instead (#42):
# the demo deck and a second deck uploaded as PDFs, each page's large, medium and thumbnail JPEG,
# served by Podium at /blobs/<name> (public, as every viewer loads them when a lecture starts) and
# by nginx from the same files; everything else is the same.
#
# Usage: Benchmarks/video-serving.sh [seconds of clip | pictures]   (default 60: 15 segments a rendition)
# Settings: CONNECTIONS (200), SECONDS_PER_RUN (20), THREADS (wrk's, 1), BIN (.build/release),
# PORT (Podium, 18098), NGINX_PORT (18099), COMPARE_BUFFERED (set: Podium is also run with
# PODIUM_NO_SENDFILE=1, reading files into buffers, between its own run and nginx's),
# COMPARE_BIN (a second build's directory, e.g. the build before a change: run beside BIN on the
# same files, the two in alternating order each round), ROUNDS (1: rounds of the servers' runs,
# one ratio each, on the same packaged files), SYSCALLS (set: after the rounds, each server again
# for SECONDS_PER_RUN under `strace -c -f`, system calls a request; slow, so not in the figures),
# PROFILE (a file: after the rounds, BIN's Podium again for SECONDS_PER_RUN under `perf record -g`,
# written there for `perf report`, then nginx's worker into PROFILE.nginx; their requests/s under
# the profiler are not in the figures either).
# Needs: swift build -c release --product podium; ffmpeg; nginx and wrk (installed with apt-get
# when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-60}
connections=${CONNECTIONS:-200}
seconds=${SECONDS_PER_RUN:-20}
threads=${THREADS:-1}
bin=${BIN:-.build/release}
port=${PORT:-18098}
nginx_port=${NGINX_PORT:-18099}
# The second deck of `pictures` (a PDF).
second_deck=${SECOND_DECK:-Tests/Fixtures/pdf/cairo-slides.pdf}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
# nginx's worker runs as an unprivileged user and must reach the files.
chmod 755 "$work"
podium_pid=
nginx_pid=
source Benchmarks/video.sh
cleanup() {
  stop_video_podium
  if [[ -n $nginx_pid ]]; then
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

missing=()
command -v nginx >/dev/null || missing+=(nginx-light)
command -v wrk >/dev/null || missing+=(wrk)
if ((${#missing[@]})); then
  echo "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

machine_line
echo "nginx $(nginx -v 2>&1 | cut -d/ -f2), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"

if [[ $duration == pictures ]]; then
  echo; echo "=== a deck's pictures in Podium (the demo deck and $(basename "$second_deck")) ==="
  start_video_podium "$port"
  curl -sf -o /dev/null -X POST "$base/api/v1/decks?title=bench" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/pdf' --data-binary @"$second_deck"
  # Every deck's pages once all are ready (the demo deck is ingested when the admin is made).
  python3 - "$base" "$token" >"$work/segments.txt" <<'PY'
import json, sys, time, urllib.request
base, token = sys.argv[1], sys.argv[2]
def get(path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)
for _ in range(600):
    decks = get("/api/v1/decks")
    if len(decks) >= 2 and all(deck["status"] == "ready" for deck in decks):
        break
    if any(deck["status"] == "failed" for deck in decks):
        sys.exit(f"a deck failed: {decks}")
    time.sleep(0.2)
else:
    sys.exit("the decks were not ready after 120 s")
for deck in decks:
    for page in get("/api/v1/decks/" + deck["id"])["pages"]:
        for key in ("imageUrl", "mediumUrl", "thumbnailUrl"):
            print(page[key])
PY
else
echo; echo "=== packaging a ${duration}-second 1080p clip in Podium ==="
make_clip "$work/clip.mp4" "$duration"
start_video_podium "$port"
upload_video "$work/clip.mp4"
printf 'ready after %.1f s\n' "$ready_seconds"
master=$(curl -sf "$base/api/v1/videos/$video" -H "Authorization: Bearer $token" | json masterPlaylistUrl)
# Playlists name what they refer to relative to themselves: all of it is beside them, under the
# master playlist's token (/stream/<token>/; it works 6 hours, across the restart below).
python3 - "$base" "$master" >"$work/segments.txt" <<'PY'
import re, sys, urllib.parse, urllib.request
base, master = sys.argv[1], sys.argv[2]
def get(path):
    with urllib.request.urlopen(base + path) as answer:
        return answer.read().decode()
def uris(path):
    text = get(path)
    names = [line for line in text.splitlines() if line and not line.startswith("#")]
    names += re.findall(r'URI="([^"]+)"', text)
    return [urllib.parse.urljoin(path, name) for name in names]
# The audio playlist is named twice (its rendition and its audio-only variant): once each here.
playlists = dict.fromkeys(uri for uri in uris(master) if uri.endswith(".m3u8"))
for uri in dict.fromkeys(uri for playlist in playlists for uri in uris(playlist)):
    print(uri)
PY
fi
stop_video_podium
segments=$(wc -l <"$work/segments.txt")

# The same files for nginx, checked against their names (a blob is named by its SHA-256).
mkdir -p "$work/www/blobs"
podium_on_core_0() { start_video_podium "$port" taskset -c 0; }
podium_on_core_0
while read -r path; do
  mkdir -p "$(dirname "$work/www$path")"
  curl -sf -o "$work/www$path" "$base$path"
  name=$(basename "$path")
  [[ $(sha256sum "$work/www$path" | cut -c1-64) == "${name%%.*}" ]] || { echo "$path: not its bytes" >&2; exit 1; }
done <"$work/segments.txt"
chmod -R a+rX "$work/www"
bytes=$(find "$work/www" -type f -exec cat {} + | wc -c)
sed 's/.*\.//' "$work/segments.txt" | sort | uniq -c | awk '{printf "%s .%s, ", $1, $2}'
printf '%d files, %.1f MB, mean %.0f KB\n' "$segments" "$(echo "$bytes / 1000000" | bc -l)" \
  "$(echo "$bytes / $segments / 1000" | bc -l)"

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
  types { video/iso.segment m4s; video/mp4 mp4; image/jpeg jpg jpeg; image/png png; image/webp webp; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/www;
  }
}
CONF
taskset -c 0 nginx -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$nginx_port$(head -1 "$work/segments.txt")" && break; sleep 0.1; done
nginx_worker=$(pgrep -P "$nginx_pid" | head -1)

echo; echo "=== a range of a file (sanity) ==="
segment=$(while read -r path; do
  if (($(stat -c %s "$work/www$path") > 1100)); then echo "$path"; break; fi
done <"$work/segments.txt")
for server in "$base" "http://127.0.0.1:$nginx_port"; do
  status=$(curl -s -o "$work/range" -w '%{http_code} %header{content-range}' -r 100-1099 "$server$segment")
  same=$(cmp -s "$work/range" <(tail -c +101 "$work/www$segment" | head -c 1000) && echo "same bytes" || echo "DIFFERENT bytes")
  echo "$server: $status, $(stat -c %s "$work/range") bytes, $same"
done

# Each request takes the next segment of the list; done() prints what the table needs.
cat >"$work/walk.lua" <<'LUA'
local paths = {}
local next_index = 0
function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
end
function request()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index])
end
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.max,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status))
end
LUA

# load NAME URL PID: wrk on core 1 against a server whose CPU is read from PID.
load() {
  local before after
  before=$(process_cpu_seconds "$3")
  taskset -c 1 /usr/bin/time -f '%U %S' -o "$work/wrk-time" wrk -t "$threads" -c "$connections" -d "${seconds}s" --timeout 10s -s "$work/walk.lua" "$2" \
    -- "$work/segments.txt" >"$work/wrk-$1.txt"
  after=$(process_cpu_seconds "$3")
  read -r _ requests body micros p50 p99 max errors non2xx < <(grep '^RESULT' "$work/wrk-$1.txt")
  local wall client
  wall=$(echo "$micros / 1000000" | bc -l)
  client=$(awk -v wall="$wall" '{print ($1 + $2) / wall}' "$work/wrk-time")
  printf '%-7s %6.0f req/s %7.1f MB/s  p50 %6.1f ms  p99 %6.1f ms  max %6.1f ms  ' \
    "$1" "$(echo "$requests / $wall" | bc -l)" "$(echo "$body / $wall / 1000000" | bc -l)" \
    "$(echo "$p50 / 1000" | bc -l)" "$(echo "$p99 / 1000" | bc -l)" "$(echo "$max / 1000" | bc -l)"
  printf 'server CPU %.2f s/s, %.3f ms a request  wrk CPU %.2f s/s  errors %d, non-2xx %d\n' \
    "$(echo "($after - $before) / $wall" | bc -l)" "$(echo "($after - $before) * 1000 / $requests" | bc -l)" \
    "$client" "$errors" "$non2xx"
  eval "rps_$1=$(echo "$requests / $wall" | bc -l)"
  eval "mbps_$1=$(echo "$body / $wall / 1000000" | bc -l)"
  eval "cpu_$1=$(echo "($after - $before) * 1000 / $requests" | bc -l)"
}

# A build's run on the prepared files: NAME DIRECTORY [environment...].
run_podium() {
  local name=$1 dir=$2
  shift 2
  bin=$dir podium_on_core_0_with "$@"
  load "$name" "$base" "$podium_pid"
  stop_video_podium
}
podium_on_core_0_with() { start_video_podium "$port" env "$@" taskset -c 0; }
stop_video_podium
main_bin=$bin
rounds=${ROUNDS:-1}
echo; echo "=== $connections connections for ${seconds} s (wrk on core 1, each server alone on core 0), $rounds round(s) ==="
for round in $(seq "$rounds"); do
  ((rounds > 1)) && echo "--- round $round, $(uptime | sed 's/.*load/load/')"
  # Before and after take turns going first, so that neither always follows nginx.
  if [[ -n ${COMPARE_BIN:-} ]] && ((round % 2 == 1)); then run_podium before "$COMPARE_BIN"; fi
  run_podium podium "$main_bin"
  if [[ -n ${COMPARE_BIN:-} ]] && ((round % 2 == 0)); then run_podium before "$COMPARE_BIN"; fi
  if [[ -n ${COMPARE_BUFFERED:-} ]]; then
    # The same server reading files into buffers (PODIUM_NO_SENDFILE): what sendfile is worth.
    run_podium buffers "$main_bin" PODIUM_NO_SENDFILE=1
  fi
  load nginx "http://127.0.0.1:$nginx_port" "$nginx_worker"
  printf 'ratio Podium / nginx: %.3f (requests/s), %.3f (MB/s), %.2f (CPU a request)\n' \
    "$(echo "$rps_podium / $rps_nginx" | bc -l)" "$(echo "$mbps_podium / $mbps_nginx" | bc -l)" \
    "$(echo "$cpu_podium / $cpu_nginx" | bc -l)"
  if [[ -n ${COMPARE_BIN:-} ]]; then
    printf 'ratio before / nginx: %.3f (requests/s), %.3f (MB/s), %.2f (CPU a request)\n' \
      "$(echo "$rps_before / $rps_nginx" | bc -l)" "$(echo "$mbps_before / $mbps_nginx" | bc -l)" \
      "$(echo "$cpu_before / $cpu_nginx" | bc -l)"
  fi
  if [[ -n ${COMPARE_BUFFERED:-} ]]; then
    printf 'ratio Podium without sendfile / nginx: %.3f (requests/s), %.3f (MB/s)\n' \
      "$(echo "$rps_buffers / $rps_nginx" | bc -l)" "$(echo "$mbps_buffers / $mbps_nginx" | bc -l)"
  fi
done

# System calls a request: strace -c on the server's process (all its threads) during a run.
syscalls() {
  local name=$1 url=$2 pid=$3
  strace -q -c -f -p "$pid" -o "$work/strace-$name.txt" &
  local tracer=$!
  sleep 1
  load "$name" "$url" "$pid" >/dev/null
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
  local requests
  requests=$(grep '^RESULT' "$work/wrk-$name.txt" | cut -d' ' -f2)
  awk -v name="$name" -v requests="$requests" '
    $NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ { calls[$NF == "total" ? "all" : $NF] = $4 }
    END {
      printf "%-7s %d requests under strace; system calls a request:", name, requests
      for (call in calls) if (calls[call] / requests >= 0.05) printf " %s %.2f", call, calls[call] / requests
      printf "\n"
    }' "$work/strace-$name.txt"
}
# A server's run under `perf record -g` of its process: NAME URL PID OUTPUT.
profiled() {
  perf record -q -g -F 1999 -p "$3" -o "$4" &
  local profiler=$!
  sleep 1
  load "$1" "$2" "$3"
  kill -INT "$profiler"
  wait "$profiler" 2>/dev/null || true
}
if [[ -n ${PROFILE:-} ]]; then
  echo; echo "=== profile (perf record -g, ${seconds} s) into $PROFILE ==="
  bin=$main_bin podium_on_core_0_with
  profiled podium "$base" "$podium_pid" "$PROFILE"
  stop_video_podium
  # nginx's worker the same way, into $PROFILE.nginx: where its CPU a request goes, beside Podium's.
  profiled nginx "http://127.0.0.1:$nginx_port" "$nginx_worker" "$PROFILE.nginx"
fi
if [[ -n ${SYSCALLS:-} ]]; then
  echo; echo "=== system calls (strace -c -f, ${seconds} s each) ==="
  if [[ -n ${COMPARE_BIN:-} ]]; then
    bin=$COMPARE_BIN podium_on_core_0_with
    syscalls before "$base" "$podium_pid"
    stop_video_podium
  fi
  bin=$main_bin podium_on_core_0_with
  syscalls podium "$base" "$podium_pid"
  stop_video_podium
  syscalls nginx "http://127.0.0.1:$nginx_port" "$nginx_worker"
fi
