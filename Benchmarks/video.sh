# Sourced by the video benchmarks: a test clip, a Podium on a temporary data directory, an upload
# packaged to the end. The caller sets bin and work and stops what it started (podium_pid) on exit.

json() { python3 -c "import sys,json;print(json.load(sys.stdin)[\"$1\"])"; }
now() { date +%s.%N; }

# make_clip FILE SECONDS: ffmpeg's moving test pattern at 1080p30 with a 440 Hz tone, H.264/AAC in
# MP4, as a camera or a screen recorder would hand it over (the encoder's usual keyframe interval).
make_clip() {
  ffmpeg -nostdin -v error -y \
    -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$2" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$2" \
    -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart "$1"
}

# start_video_podium PORT [wrapper...]: `podium serve` on a data directory of its own under $work,
# run through the wrapper if one is given (taskset), signed in as admin. Sets podium_pid, base, token.
start_video_podium() {
  local port=$1
  shift
  PODIUM_ADMIN_PASSWORD=bench "$@" "$bin/podium" serve --host 127.0.0.1 --port "$port" \
    --data-dir "$work/podium-data" --log-level error >>"$work/podium.log" 2>&1 &
  podium_pid=$!
  base=http://127.0.0.1:$port
  for _ in $(seq 300); do curl -sf -o /dev/null "$base/healthz" && break; sleep 0.1; done
  token=$(curl -sf -X POST "$base/api/v1/auth/login" -d '{"email":"admin","password":"bench"}' | json token)
}

stop_video_podium() {
  if [[ -n "${podium_pid:-}" ]]; then
    kill "$podium_pid" 2>/dev/null || true
    wait "$podium_pid" 2>/dev/null || true
    podium_pid=
  fi
}

# upload_video FILE: uploads FILE and waits until it is packaged whole. Sets video (its id),
# upload_seconds (the upload, answered once ffprobe has checked it), playable_seconds (from the
# start of the upload until it is ready: it plays, from its first rendition when it has more than
# one rung) and ready_seconds (until its whole ladder is packaged: ladderComplete).
upload_video() {
  local start uploaded status answer
  start=$(now)
  video=$(curl -sf -X POST "$base/api/v1/videos?title=bench" -H "Authorization: Bearer $token" \
    -H 'Content-Type: video/mp4' --data-binary @"$1" | json id)
  uploaded=$(now)
  playable_seconds=
  while true; do
    answer=$(curl -sf "$base/api/v1/videos/$video" -H "Authorization: Bearer $token")
    status=$(json status <<<"$answer")
    if [[ $status == ready ]]; then
      [[ -n $playable_seconds ]] || playable_seconds=$(echo "$(now) - $start" | bc -l)
      [[ $(python3 -c "import sys,json;print(json.load(sys.stdin).get('ladderComplete', True))" <<<"$answer") == True ]] && break
    fi
    if [[ $status == failed ]]; then
      echo "packaging failed:" >&2
      echo "$answer" >&2
      return 1
    fi
    sleep 0.25
  done
  upload_seconds=$(echo "$uploaded - $start" | bc -l)
  ready_seconds=$(echo "$(now) - $start" | bc -l)
}

# process_cpu_seconds PID: user and system CPU time of a process and of the children it has waited
# for (the ffmpeg runs of a server), so far.
process_cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15 + $16 + $17) / hz}' "/proc/$1/stat"; }

machine_line() {
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u '+%F %H:%M') UTC; load $(cut -d' ' -f1-3 /proc/loadavg)"
}
