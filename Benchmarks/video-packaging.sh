#!/usr/bin/env bash
# Video packaging throughput (#18): Podium's packaging of a 1080p clip against running the same
# ffmpeg ladder by hand, both on every core; then the whole server path once (upload to ready).
#
#   1. by hand: the ffmpeg command VideoPackager runs for the ladder (every rendition and the
#      playlists), printed by `podium bench package-video --print-command`, not a copy of it
#   2. `podium bench package-video`: probe and the whole VideoPackager (the ladder under prlimit,
#      then the MP4 copy, the poster and the thumbnail sprite); the ladder is timed on its own too
#   3. `podium serve`: POST /api/v1/videos, then GET /api/v1/videos/:id until it is ready, which
#      is when it plays (its first rendition: the upload's picture copied when it allows, else the
#      lowest rung, with the sound, #41), then until its
#      whole ladder is packaged (ladderComplete): time to first playable against the whole ladder
#
# Usage: Benchmarks/video-packaging.sh [seconds]   (default 600: a 10-minute clip)
# Settings: RUNS (1: runs of 1 and 2 each, the best of each reported), CLIP (a clip made before
# by this script's recipe, to save making it: the duration argument must be its length),
# BIN (.build/release), PORT (18097), STEPS (1 2 3: which of the steps above run; `STEPS=3` times
# only the server, first playable and whole ladder).
# Needs: swift build -c release --product podium; ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-600}
runs=${RUNS:-1}
steps=" ${STEPS:-1 2 3} "
bin=${BIN:-.build/release}
port=${PORT:-18097}
work=$(mktemp -d)
podium_pid=
source Benchmarks/video.sh
cleanup() {
  stop_video_podium
  rm -rf "$work"
}
trap cleanup EXIT

machine_line
echo "ffmpeg: $(ffmpeg -version | head -1 | cut -d' ' -f3)"
clip=${CLIP:-$work/clip.mp4}
start=$(now)
[[ -n ${CLIP:-} ]] || make_clip "$clip" "$duration"
printf 'clip: %s s of 1920x1080 at 30 fps with audio, %s MB, made in %.1f s\n' "$duration" \
  "$(($(stat -c %s "$clip") / 1000000))" "$(echo "$(now) - $start" | bc -l)"

if [[ $steps == *" 1 "* ]]; then
echo; echo "=== 1. the ladder by hand ==="
mapfile -t command < <("$bin/podium" bench package-video "$clip" --print-command "$work/hand")
echo "${command[*]}"
hand=
hand_cpu=
for run in $(seq "$runs"); do
  rm -rf "$work/hand"
  # Its progress report (-progress pipe:1) goes nowhere: Podium reads it, a person would not.
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${command[@]}" >/dev/null
  read -r seconds user system <"$work/time"
  cpu=$(echo "$user + $system" | bc -l)
  printf 'run %d: %.2f s (CPU %.1f s) = %.3f s of clip per second\n' "$run" "$seconds" "$cpu" \
    "$(echo "$duration / $seconds" | bc -l)"
  if [[ -z $hand ]] || (($(echo "$seconds < $hand" | bc -l))); then hand=$seconds hand_cpu=$cpu; fi
done
rm -rf "$work/hand"
fi

if [[ $steps == *" 2 "* ]]; then
echo; echo "=== 2. podium bench package-video ==="
"$bin/podium" bench package-video "$clip" --runs "$runs" | tee "$work/bench.txt"
# best: W s (CPU C s) = … s of clip per second; ladder L s (CPU c s), …
read -r whole whole_cpu ladder ladder_cpu < <(sed -nE \
  's/^best: ([0-9.]+) s \(CPU ([0-9.]+) s\).*; ladder ([0-9.]+) s \(CPU ([0-9.]+) s\).*/\1 \2 \3 \4/p' "$work/bench.txt")
fi

echo; echo "=== 3. the server: upload, then poll until ready ==="
start_video_podium "$port"
before=$(process_cpu_seconds "$podium_pid")
upload_video "$clip"
server_cpu=$(echo "$(process_cpu_seconds "$podium_pid") - $before" | bc -l)
printf 'upload (answered after ffprobe) %.2f s; first playable after %.2f s (%.0f %% of the whole)\n' \
  "$upload_seconds" "$playable_seconds" "$(echo "100 * $playable_seconds / $ready_seconds" | bc -l)"
printf 'whole ladder after %.2f s (CPU %.1f s) = %.3f s of clip per second\n' \
  "$ready_seconds" "$server_cpu" "$(echo "$duration / $ready_seconds" | bc -l)"
stop_video_podium
[[ -n ${hand:-} && -n ${whole:-} ]] || exit 0

echo; echo "=== Podium's throughput / by hand's (goal: at least 0.9): wall clock; CPU ==="
ratio() { printf '%-26s %.3f; %.3f\n' "$1" "$(echo "$hand / $2" | bc -l)" "$(echo "$hand_cpu / $3" | bc -l)"; }
ratio 'ladder alone:' "$ladder" "$ladder_cpu"
ratio 'whole packaging:' "$whole" "$whole_cpu"
ratio 'server, upload to ready:' "$ready_seconds" "$server_cpu"
