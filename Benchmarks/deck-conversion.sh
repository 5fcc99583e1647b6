#!/usr/bin/env bash
# Office deck conversion: a generated 50-slide PPTX uploaded to Podium until the deck is ready
# (convert with LibreOffice, then the PDF ingest), against doing both by hand: `soffice --headless
# --convert-to pdf` with a fresh profile, then `podium bench ingest` on its PDF.
# Usage: Benchmarks/deck-conversion.sh [slides]   (default 50; best of RUNS=3)
# Needs LibreOffice and python3-uno (scripts/setup --test) and a build; PODIUM_BIN picks it
# (default .build/release/podium: swift build -c release --product podium).
set -euo pipefail
cd "$(dirname "$0")/.."
slides=${1:-50}
runs=${RUNS:-3}
podium=${PODIUM_BIN:-.build/release/podium}
work=$(mktemp -d)
server=""
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }

/usr/bin/python3 Tests/Fixtures/office/make-corpus.py "$work" --slides "$slides"
deck="$work/big.pptx"
echo "deck: $slides slides, $(stat -c %s "$deck") bytes; $(nproc) cores; $(soffice --version | head -1)"

# By hand: LibreOffice with a profile of its own (as Podium runs it), then the PDF ingest.
best_hand=""
for run in $(seq "$runs"); do
  rm -rf "$work/hand" && mkdir -p "$work/hand"
  start=$(now)
  soffice -env:UserInstallation="file://$work/hand/profile" --headless --invisible --nologo --norestore \
    --convert-to pdf --outdir "$work/hand" "$deck" >/dev/null 2>&1
  converted=$(now)
  "$podium" bench ingest "$work/hand/big.pdf" --runs 1 >/dev/null
  end=$(now)
  t=$(echo "$end - $start" | bc -l)
  printf 'by hand, run %d: soffice %.2f s + ingest %.2f s = %.2f s\n' "$run" "$(echo "$converted - $start" | bc -l)" \
    "$(echo "$end - $converted" | bc -l)" "$t"
  if [[ -z "$best_hand" ]] || (( $(echo "$t < $best_hand" | bc -l) )); then best_hand=$t; fi
done

# Through Podium: a server of its own, the deck uploaded, polled every 50 ms until ready.
port=$(( 20000 + RANDOM % 20000 ))
PODIUM_ADMIN_PASSWORD=bench-password "$podium" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
  >"$work/server.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 300); do curl -sf "$base/api/v1/limits" >/dev/null && break; sleep 0.1; done
token=$(curl -sf -H 'Content-Type: application/json' -d '{"email":"admin","password":"bench-password"}' \
  "$base/api/v1/auth/login" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
best_podium=""
for run in $(seq "$runs"); do
  start=$(now)
  id=$(curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/octet-stream' \
    --data-binary @"$deck" "$base/api/v1/decks?title=bench-$run" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  for _ in $(seq 12000); do
    status=$(curl -sf -H "Authorization: Bearer $token" "$base/api/v1/decks/$id" \
      | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["pageCount"], len(d.get("speakerNotes") or []))')
    [[ "$status" != processing* ]] && break
    sleep 0.05
  done
  end=$(now)
  t=$(echo "$end - $start" | bc -l)
  printf 'Podium, run %d: upload to ready %.2f s (%s: status, pages, slides with notes)\n' "$run" "$t" "$status"
  [[ "$status" == ready* ]] || { echo "the deck did not become ready: $status"; tail -20 "$work/server.log"; exit 1; }
  if [[ -z "$best_podium" ]] || (( $(echo "$t < $best_podium" | bc -l) )); then best_podium=$t; fi
done
printf 'best by hand: %.2f s; best through Podium: %.2f s; ratio (by hand / Podium): %.2f\n' "$best_hand" "$best_podium" \
  "$(echo "$best_hand / $best_podium" | bc -l)"
