#!/usr/bin/env bash
# Sets up, builds, and analyses the bundled sample trace.
#   scripts/demo.sh [TRACE]   (default: sample_traces/scenario_sync_bound.json.gz)
#   scripts/demo.sh --configure-only   only configure build/ as the demo does (CI uses it to
#                                      check that scripts/test.sh runs tests after it)
# It shares build/ with scripts/test.sh, which sets the options it needs itself, so the two
# commands work in either order.
set -euo pipefail
cd "$(dirname "$0")/.."
configure_only=0
if [ "${1:-}" = "--configure-only" ]; then
  configure_only=1
  shift
fi
trace="${1:-sample_traces/scenario_sync_bound.json.gz}"

scripts/setup.sh
cmake -S . -B build -G Ninja -DAMPSCOPE_BUILD_TESTS=OFF -DAMPSCOPE_BUILD_BENCH=OFF
[ "$configure_only" = 1 ] && exit 0
cmake --build build -j "$(nproc)" --target ampscope
mkdir -p out
build/cli/ampscope analyze "$trace" -o out/report.json --html out/report.html \
    --markdown out/summary.md --chrome-trace out/trace.json
echo
echo "Wrote out/report.json, out/report.html, out/summary.md and out/trace.json (open in https://ui.perfetto.dev)."
