#!/usr/bin/env bash
# Live fan-out: Podium against nginx + nchan, same generator, same machine, same run.
# The server under test is pinned to core 0, the generator to core 1; loopback only. SERVER_CORES=0,1
# gives each server both cores (Podium an event loop per core, nginx a worker per core), the
# generator still on GENERATOR_CORE (1) beside it.
# Each run also has LATE_JOINERS (default 50) viewers joining one at a time while events flow: hello to
# welcome and, for Podium, to the current page's image fetched.
# TRACE=<dir> writes Podium's command-path trace (PODIUM_TRACE_COMMAND_PATH), the generator's page
# trace and the server's threads' waits for a core into <dir>, and prints where a page command's
# time went (Benchmarks/command_path.py). NCHAN=0 runs Podium alone (a trace needs no nchan).
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
generator_core=${GENERATOR_CORE:-1}
trace=${TRACE:-}
with_nchan=${NCHAN:-1}

source Benchmarks/servers.sh
if [[ -n $trace ]]; then
  mkdir -p "$trace"
  export PODIUM_TRACE_COMMAND_PATH=$trace/server.trace
fi
start_podium
unset PODIUM_TRACE_COMMAND_PATH
nchan_pids=()
if [[ $with_nchan == 1 ]]; then
  start_nchan
  for worker in "${nginx_workers[@]}"; do nchan_pids+=(--server-pid "$worker"); done
fi

machine_line
echo "server cores: $server_cores; generator core: $generator_core"
for n in "${counts[@]}"; do
  code=$(new_session)
  echo; echo "=== $n viewers ==="
  traced=()
  if [[ -n $trace ]]; then
    # Each thread's CPU and time waiting for a core (/proc/<tid>/schedstat) before and after publishing.
    threads="for t in /proc/$podium_pid/task/*; do echo \"\${t##*/}|\$(cat \$t/comm)|\$(cat \$t/schedstat)\"; done"
    traced=(--trace "$trace/generator-$n.trace" --before-publishing "$threads > $trace/threads-before-$n"
      --after-publishing "$threads > $trace/threads-after-$n")
  fi
  taskset -c "$generator_core" "$bin/podium-load" --podium "ws://127.0.0.1:8089/api/v1/sessions/$code/live" --token "$token" \
    --viewers "$n" --page-rate "$page_rate" --pointer-rate "$pointer_rate" --seconds "$seconds" \
    --late-joiners "$late_joiners" --server-pid "$podium_pid" "${traced[@]}" || true
  if [[ -n $trace ]]; then
    sleep 1.5  # the server writes its trace once a second
    python3 Benchmarks/command_path.py "$trace/server.trace" "$trace/generator-$n.trace" "$trace/threads-before-$n" \
      "$trace/threads-after-$n" || true
  fi
  [[ $with_nchan == 1 ]] || continue
  echo
  taskset -c "$generator_core" "$bin/podium-load" --nchan-sub "ws://127.0.0.1:8091/sub/bench$n" --nchan-pub "http://127.0.0.1:8091/pub/bench$n" \
    --viewers "$n" --page-rate "$page_rate" --pointer-rate "$pointer_rate" --seconds "$seconds" \
    --late-joiners "$late_joiners" "${nchan_pids[@]}" || true
done
