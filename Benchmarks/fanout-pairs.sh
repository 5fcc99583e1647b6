#!/usr/bin/env bash
# Side-by-side pairs of the live fan-out: PAIRS runs of `live-fanout.sh VIEWERS`, each on freshly
# started servers, Podium then nginx + nchan with the same generator and pinning; then the median
# ratio (Podium ÷ nchan) of each figure over the pairs, and its spread. One run says little on a
# noisy machine; the median of several pairs, each measured in the same minute, says more.
# The figures include the server CPU to welcome a viewer (connect, upgrade, hello, welcome: the
# server's CPU while the viewers connect, over their number), Podium's and nchan's and their ratio.
# Usage: Benchmarks/fanout-pairs.sh [pairs (5)] [viewers (1000)]
# Each server on core 0 and the generator on core 1; SERVER_CORES=0,1 gives both servers both cores
# (Podium an event loop per core, nginx a worker per core) with the generator still pinned to core 1
# (GENERATOR_CORE), beside them.
# Needs what live-fanout.sh needs. The runs' whole output is kept in $OUT (default a temp file).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
viewers=${2:-1000}
out=${OUT:-$(mktemp -t fanout-pairs.XXXXXX)}
: > "$out"
for i in $(seq "$pairs"); do
  echo "--- pair $i of $pairs ($viewers viewers) ---" | tee -a "$out"
  # Other work on the machine moves both servers' figures: each pair says how busy it was.
  echo "load at the start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
  Benchmarks/live-fanout.sh "$viewers" >> "$out" 2>&1 || true
done
echo "raw output: $out"
python3 Benchmarks/fanout_pairs.py "$out"
