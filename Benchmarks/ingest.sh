#!/usr/bin/env bash
# PDF ingest throughput: Podium's whole pipeline against running pdftoppm by hand on every core.
# Usage: Benchmarks/ingest.sh [pages]   (default 300). Needs a release build:
#   swift build -c release --product podium
set -euo pipefail
cd "$(dirname "$0")/.."
pages=${1:-300}
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A deck of $pages pages: the demo deck's six slides over and over.
demo=Public/demo/podium-demo.pdf
repeats=$(( (pages + 5) / 6 ))
args=()
for _ in $(seq "$repeats"); do args+=("$demo"); done
qpdf --empty --pages "${args[@]}" -- "$work/all.pdf"
qpdf --empty --pages "$work/all.pdf" "1-$pages" -- "$work/deck.pdf"
echo "deck: $(pdfinfo "$work/deck.pdf" | awk '/^Pages:/ {print $2}') pages, $cores cores"

# By hand: the same three renditions pdftoppm makes for Podium, the page range split over cores.
start=$(date +%s.%N)
chunk=$(( (pages + cores - 1) / cores ))
for size in 1920 960 320; do
  for ((first = 1; first <= pages; first += chunk)); do
    last=$(( first + chunk - 1 < pages ? first + chunk - 1 : pages ))
    pdftoppm -jpeg -jpegopt quality=85 -scale-to "$size" -f "$first" -l "$last" "$work/deck.pdf" "$work/hand-$size-$first" &
  done
  wait
done
pdftotext -layout "$work/deck.pdf" "$work/deck.txt"
end=$(date +%s.%N)
hand=$(echo "$pages / ($end - $start)" | bc -l)
printf 'pdftoppm by hand: %.2f s = %.1f pages/s\n' "$(echo "$end - $start" | bc -l)" "$hand"

.build/release/podium bench ingest "$work/deck.pdf" --runs 3
