#!/usr/bin/env bash
# How long StrokeOutline (PodiumCore) takes to outline and simplify one stroke of 4,000 points:
# the timing that StrokeOutlineTests used to assert, measured here instead (docs/performance.md,
# Storyboards). Builds the release benchmark, then runs it; RUNS outlines (default 20).
#
#   Benchmarks/stroke-outline.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product stroke-outline -debug-info-format none >&2
exec .build/release/stroke-outline "${1:-20}"
