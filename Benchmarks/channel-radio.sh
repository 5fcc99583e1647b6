#!/usr/bin/env bash
# The channel's radio (#20): LISTENERS listeners on one station, each as a player (its own cookie
# and signed stream URL, the live playlist every target duration, each new segment once; see
# channel_radio_listeners.py), against a release Podium pinned to core 0, the listeners on core 1.
# Reports the server's CPU per listener-second: what a listener costs while listening.
#
# The station: three 60-second tones uploaded as MP3 and packaged by the server (AAC in MPEG-TS,
# ~6 s segments). Listeners are non-members with an allowance large enough not to run out, so
# every segment is counted against it as in production.
#
# Usage: Benchmarks/channel-radio.sh   Settings: LISTENERS (1000), SECONDS_PER_RUN (60), BIN
# (.build/release), PORT (18120). Needs: swift build -c release --product podium; ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/.."
listeners=${LISTENERS:-1000}
seconds=${SECONDS_PER_RUN:-60}
bin=${BIN:-.build/release}
port=${PORT:-18120}
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
podium_pid=
source Benchmarks/video.sh
trap 'stop_video_podium; rm -rf "$work"' EXIT
machine_line

PODIUM_RADIO_DAILY_MINUTES=100000 start_video_podium "$port" taskset -c 0
radio=$(curl -sf -X POST "$base/api/v1/channel/radios" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -d '{"name":"Bench","published":true}' | json id)
for frequency in 330 440 550; do
  ffmpeg -nostdin -v error -y -f lavfi -i "sine=frequency=$frequency:duration=60" -c:a libmp3lame "$work/t$frequency.mp3"
  curl -sf -o /dev/null -X POST "$base/api/v1/channel/radios/$radio/tracks?title=Tone%20$frequency" \
    -H "Authorization: Bearer $token" -H 'Content-Type: audio/mpeg' --data-binary @"$work/t$frequency.mp3"
done
for _ in $(seq 600); do
  ready=$(curl -sf "$base/api/v1/channel/radios/$radio/tracks" -H "Authorization: Bearer $token" |
    python3 -c 'import sys,json; print(sum(t["status"]=="ready" for t in json.load(sys.stdin)))')
  [[ $ready == 3 ]] && break
  sleep 0.5
done
echo "station $radio: 3 tracks ready"
sleep 20 # a full window of segments on the air

before=$(process_cpu_seconds "$podium_pid")
started=$(now)
taskset -c 1 /usr/bin/python3 Benchmarks/channel_radio_listeners.py "$base" "$radio" "$listeners" "$seconds" | tee "$work/result"
after=$(process_cpu_seconds "$podium_pid")
wall=$(echo "$(now) - $started" | bc -l)
cpu=$(echo "$after - $before" | bc -l)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$podium_pid/status")
printf '%d listeners for %.0f s: server CPU %.2f s (%.1f %% of a core), %.3f ms per listener-second, RSS %d MB\n' \
  "$listeners" "$wall" "$cpu" "$(echo "$cpu * 100 / $wall" | bc -l)" \
  "$(echo "$cpu * 1000 / ($listeners * $wall)" | bc -l)" "$((rss / 1024))"
