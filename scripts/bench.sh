#!/usr/bin/env bash
# Ingestion benchmark: ampscope's streaming Kineto reader (and `ampscope analyze` end to end
# when the CLI builds) next to python3's json.load on the same large trace. docs/bench.md
# explains the method and the targets.
#
# Usage: scripts/bench.sh [SIZE_MB]        (default 1024: a ~1 GB trace)
# Environment:
#   BUILD_DIR    build directory (default: build-bench, Release)
#   TRACE        use this trace instead of generating one
#   SKIP_PYTHON  1 = skip the python3 json.load row (it needs ~5-10x the file size in RAM)
# A generated trace is kept in /tmp (reused by the next run of the same size).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIZE_MB="${1:-1024}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
TRACE="${TRACE:-${TMPDIR:-/tmp}/ampscope_bench_${SIZE_MB}mb.pt.trace.json}"

echo "== build ($BUILD_DIR, Release)"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD_DIR" --target make_large_trace read_kineto
# The CLI depends on the analyzers and reports; without it that row is skipped.
if ! cmake --build "$BUILD_DIR" --target ampscope >/dev/null 2>&1; then
  echo "   (the ampscope CLI did not build: the end-to-end row is skipped)"
fi

if [[ ! -f "$TRACE" ]]; then
  echo "== generate $TRACE (~${SIZE_MB} MB)"
  "$BUILD_DIR/bench/make_large_trace" --size-mb "$SIZE_MB" --out "$TRACE"
fi
BYTES=$(stat -L -c %s "$TRACE")

# run LABEL CMD...: one run under /usr/bin/time -v; MB/s by wall and by CPU time, peak RSS.
run() {
  local label="$1"
  shift
  local log
  log="$(mktemp)"
  if ! /usr/bin/time -v "$@" >"$log.out" 2>"$log"; then
    echo "   $label: FAILED"
    tail -5 "$log.out" "$log"
    rm -f "$log" "$log.out"
    return 0
  fi
  python3 - "$label" "$BYTES" "$log" <<'PY'
import re, sys
label, size, log = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
def field(name):
    return re.search(re.escape(name) + r": (.*)", log).group(1).strip()
wall = [float(x) for x in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
secs = sum(v * 60 ** i for i, v in enumerate(reversed(wall)))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) * 1024
mb = size / 1e6
print(f"{label:<32} wall {secs:7.2f} s {mb / secs:6.0f} MB/s | cpu {cpu:7.2f} s {mb / cpu:6.0f} MB/s"
      f" | peak RSS {rss / 1e6:7.0f} MB ({rss / size:.2f}x input)")
PY
  rm -f "$log" "$log.out"
}

echo "== $TRACE: $((BYTES / 1000000)) MB uncompressed JSON"
echo "   machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (CPU MB/s is the stable figure on a shared machine)"
run "ampscope ReadKinetoTrace" "$BUILD_DIR/bench/read_kineto" "$TRACE" --quiet
if [[ -x "$BUILD_DIR/cli/ampscope" ]]; then
  out="$(mktemp -d)"
  run "ampscope analyze (end to end)" "$BUILD_DIR/cli/ampscope" analyze "$TRACE" -o "$out/report.json"
  rm -rf "$out"
fi
if [[ "${SKIP_PYTHON:-0}" != 1 ]]; then
  run "python3 json.load" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TRACE"
fi
echo "   targets (issue 2): >= 300 MB/s on one core, peak RSS <= 0.5x input"
