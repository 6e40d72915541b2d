#!/usr/bin/env bash
# Sets up, builds, and analyses the bundled sample trace.
#   scripts/demo.sh [TRACE]   (default: sample_traces/scenario_sync_bound.json.gz)
set -euo pipefail
cd "$(dirname "$0")/.."
trace="${1:-sample_traces/scenario_sync_bound.json.gz}"

scripts/setup.sh
cmake -S . -B build -G Ninja -DAMPSCOPE_BUILD_TESTS=OFF -DAMPSCOPE_BUILD_BENCH=OFF
cmake --build build -j "$(nproc)" --target ampscope
mkdir -p out
build/cli/ampscope analyze "$trace" -o out/report.json --html out/report.html \
    --markdown out/summary.md --chrome-trace out/trace.json
echo
echo "Wrote out/report.json, out/report.html, out/summary.md and out/trace.json (open in https://ui.perfetto.dev)."
