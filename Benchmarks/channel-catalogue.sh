#!/usr/bin/env bash
# The channel's catalogue API under load (#20): requests/s and latency of the category list and of
# a search, each asked cold (a client with nothing cached: 200 and the whole body) and revalidated
# (`If-Modified-Since` with the list's Last-Modified: 304, no body), as native apps and the
# channel page ask.
#
# A Podium on a data directory of its own packages one short clip; the admin publishes it CHANNEL_VIDEOS
# times as channel videos in CATEGORIES categories (each a sub-category), with titles and
# descriptions to search. Podium is pinned to core 0 (one event loop), wrk to core 1; every
# request carries one `podium_viewer` cookie, as a returning browser does (without it each answer
# would also set a new one).
#
# Usage: Benchmarks/channel-catalogue.sh
# Settings: CONNECTIONS (50), SECONDS_PER_RUN (10), CATEGORIES (20), CHANNEL_VIDEOS (500),
# BIN (.build/release), PORT (18111).
# Needs: swift build -c release --product podium; ffmpeg; wrk (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${CONNECTIONS:-50}
seconds=${SECONDS_PER_RUN:-10}
categories=${CATEGORIES:-20}
videos=${CHANNEL_VIDEOS:-500}
bin=${BIN:-.build/release}
port=${PORT:-18111}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
podium_pid=
source Benchmarks/video.sh
cleanup() {
  stop_video_podium
  rm -rf "$work"
}
trap cleanup EXIT
command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wrk >/dev/null

machine_line
echo "$(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), podium at $bin"

echo; echo "=== a 4-second clip packaged, published $videos times in $categories categories ==="
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=640x360:rate=25:duration=4" -c:v libx264 -preset ultrafast \
  -pix_fmt yuv420p "$work/clip.mp4"
start_video_podium "$port" taskset -c 0
upload_video "$work/clip.mp4"
python3 - "$base" "$token" "$video" "$categories" "$videos" <<'PY'
import json, random, sys, urllib.request
base, token, video, categories, videos = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def post(path, body):
    request = urllib.request.Request(base + "/api/v1/channel" + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)
random.seed(20)
words = "prague brno vltava dumplings goulash castle bridge lesson kitchen folk music festival village river".split()
tops = [post("/videos/categories", {"name": f"Category {n}"})["id"] for n in range(categories)]
subs = [post("/videos/categories", {"name": f"Sub {n}", "parentId": top})["id"] for n, top in enumerate(tops)]
for n in range(videos):
    k = n % categories
    title = " ".join(random.sample(words, 3)).capitalize() + f" {n}"
    post("/videos", {"videoId": video, "categoryId": tops[k], "subcategoryId": subs[k], "title": title,
        "description": " ".join(random.choice(words) for _ in range(30)), "published": True,
        "chapters": [{"start": 0, "title": "Start"}, {"start": 2, "title": "Middle"}]})
PY
cookie="podium_viewer=v_benchbenchbenchbench0001"
search="/api/v1/channel/videos?search=vltava%20bridge&limit=50"
list="/api/v1/channel/videos/categories"
# The Last-Modified of a GET (a HEAD is not routed on the API).
modified() { curl -s -D - -o /dev/null -H "Cookie: $cookie" "$base$1" | tr -d '\r' | sed -n 's/^last-modified: //Ip'; }
for path in "$list" "$search"; do
  printf '%s: %s bytes, %s\n' "$path" "$(curl -sf -H "Cookie: $cookie" "$base$path" | wc -c)" \
    "$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $cookie" -H "If-Modified-Since: $(modified "$path")" "$base$path") when revalidated"
done

cat >"$work/report.lua" <<'LUA'
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.max,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status))
end
LUA

# load NAME PATH [HEADER]: wrk on core 1; prints requests/s, p50, p99, max, the server's CPU.
load() {
  local before after extra=()
  [[ -n ${3:-} ]] && extra=(-H "$3")
  before=$(process_cpu_seconds "$podium_pid")
  taskset -c 1 wrk -t 1 -c "$connections" -d "${seconds}s" --timeout 10s -s "$work/report.lua" -H "Cookie: $cookie" \
    "${extra[@]}" "$base$2" >"$work/wrk-$1.txt"
  after=$(process_cpu_seconds "$podium_pid")
  read -r _ requests micros p50 p99 max errors non2xx < <(grep '^RESULT' "$work/wrk-$1.txt")
  local wall
  wall=$(echo "$micros / 1000000" | bc -l)
  printf '%-26s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms  server CPU %.2f s/s  errors %d, non-2xx %d\n' \
    "$1" "$(echo "$requests / $wall" | bc -l)" "$(echo "$p50 / 1000" | bc -l)" "$(echo "$p99 / 1000" | bc -l)" \
    "$(echo "$max / 1000" | bc -l)" "$(echo "($after - $before) / $wall" | bc -l)" "$errors" "$non2xx"
}

echo; echo "=== $connections connections, ${seconds} s each (wrk on core 1, Podium alone on core 0) ==="
load "categories, cold" "$list"
load "categories, revalidated" "$list" "If-Modified-Since: $(modified "$list")"
load "search, cold" "$search"
load "search, revalidated" "$search" "If-Modified-Since: $(modified "$search")"
