#!/usr/bin/env bash
# Issue 38's inputs at the sizes the issue measured (the tests run them reduced): each row is
# one command under /usr/bin/time -v, with its exit code, wall time, peak RSS and output size.
# Not part of CI (minutes and gigabytes); docs/bench.md quotes the figures.
#
# Usage: scripts/hostile_bench.sh [CASE...]
#   devices    an .amptrace with 160,000 devices (issue: 12 s; 900k ran over 300 s)
#   props      a Kineto trace with 100,000 deviceProperties (issue: 8 s, 235 MB)
#   steps      200,000 ProfilerSteps, ~86 MB (issue: 1.5 GB RSS, a 226 MB report; goal RSS <= 0.3x input)
#   spaces     1 GiB of spaces between two events, gzip'd to ~1 MB (issue: 2.1 GB RSS)
#   longname   one kernel name of 1 GiB, gzip'd (issue: 6.2 GB RSS and exit 0; now exit 2)
#   warnings   an .amptrace with 160,000 distinct warnings: record (issue: 40 s) and analyze
#              (issue: 2.9 GB, a 275 MB report)
#   zero       gate / diff / --gpu-peaks on /dev/zero (issue: 5-16 GB; now 256 MiB then exit 2)
# Environment: BUILD_DIR (default build), CLI (the ampscope binary; default BUILD_DIR's), STEPS (200000), DEVICES (160000), PROPS (100000),
#   WARNINGS (160000), SPACES_MIB (1024), NAME_MIB (1024).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
CLI="${CLI:-$BUILD_DIR/cli/ampscope}"  # CLI=another/ampscope measures an older build
GEN="$BUILD_DIR/bench/make_hostile_inputs"
CASES=("$@")
[[ ${#CASES[@]} -eq 0 ]] && CASES=(devices props steps spaces longname warnings zero)
for tool in "$CLI" "$GEN"; do
  [[ -x "$tool" ]] || { echo "hostile_bench: build $tool first (cmake --build $BUILD_DIR --target ampscope make_hostile_inputs)"; exit 2; }
done
# record needs an injection library to name; `cp` never loads it.
if [[ -z "${AMPSCOPE_INJECT_PATH:-}" ]]; then
  AMPSCOPE_INJECT_PATH="$BUILD_DIR/collector/libampscope_inject.so"
  [[ -f "$AMPSCOPE_INJECT_PATH" ]] || AMPSCOPE_INJECT_PATH="$CLI"
  export AMPSCOPE_INJECT_PATH
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ampscope-hostile.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# row NAME OUTPUT CMD...: runs CMD, prints "NAME  exit E  W s  R MB  out O MB" (OUTPUT: a file
# whose size is shown, or -).
row() {
  local name="$1" output="$2"
  shift 2
  /usr/bin/time -v "$@" >/dev/null 2>"$WORK/time.log"
  local rc=$?
  local wall rss size="-"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$WORK/time.log")
  [[ "$output" != - && -f "$output" ]] && size=$(awk -v b="$(stat -c %s "$output")" 'BEGIN {printf "%.1f", b / 1048576}')
  printf '%-34s exit %-3s %10s  %6s MB RSS  out %s MB\n' "$name" "$rc" "$wall" "$rss" "$size"
  grep -v "^	" "$WORK/time.log" | grep -v "^Command exited" | head -2 | sed 's/^/    /'
}
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.1f", b / 1048576}'; }

for c in "${CASES[@]}"; do
  case "$c" in
    devices)
      "$GEN" devices "${DEVICES:-160000}" "$WORK/devices.amptrace"
      row "analyze ${DEVICES:-160000} devices" "$WORK/r.json" "$CLI" analyze "$WORK/devices.amptrace" -q -o "$WORK/r.json" ;;
    props)
      "$GEN" device-properties "${PROPS:-100000}" "$WORK/props.json"
      row "analyze ${PROPS:-100000} deviceProperties ($(mb "$WORK/props.json") MB)" "$WORK/r.json" \
        "$CLI" analyze "$WORK/props.json" -q -o "$WORK/r.json" ;;
    steps)
      "$GEN" steps "${STEPS:-200000}" "$WORK/steps.json"
      echo "input: ${STEPS:-200000} steps, $(mb "$WORK/steps.json") MB"
      row "analyze ${STEPS:-200000} steps" "$WORK/r.json" "$CLI" analyze "$WORK/steps.json" -q -o "$WORK/r.json"
      row "analyze ${STEPS:-200000} steps, every step in detail" "$WORK/r.json" "$CLI" analyze "$WORK/steps.json" -q --detail-steps 0 -o "$WORK/r.json" ;;
    spaces)
      "$GEN" spaces "${SPACES_MIB:-1024}" "$WORK/spaces.json.gz"
      row "analyze ${SPACES_MIB:-1024} MiB of spaces ($(mb "$WORK/spaces.json.gz") MB gz)" "$WORK/r.json" \
        "$CLI" analyze "$WORK/spaces.json.gz" -q -o "$WORK/r.json" ;;
    longname)
      "$GEN" long-name "${NAME_MIB:-1024}" "$WORK/name.json.gz"
      row "analyze a ${NAME_MIB:-1024} MiB kernel name" - "$CLI" analyze "$WORK/name.json.gz" -q -o "$WORK/r.json" ;;
    warnings)
      "$GEN" warnings "${WARNINGS:-160000}" "$WORK/w.amptrace"
      rm -rf "$WORK/rec"
      row "record, ${WARNINGS:-160000} distinct warnings" "$WORK/rec/session.json" \
        "$CLI" record -o "$WORK/rec" -- cp "$WORK/w.amptrace" "$WORK/rec/"
      row "analyze it" "$WORK/r.json" "$CLI" analyze "$WORK/w.amptrace" -q -o "$WORK/r.json" ;;
    zero)
      echo '{}' >"$WORK/a.json"
      row "gate --baseline /dev/zero" - "$CLI" gate --baseline /dev/zero --current "$WORK/a.json"
      row "diff /dev/zero" - "$CLI" diff /dev/zero "$WORK/a.json"
      row "analyze --gpu-peaks /dev/zero" - "$CLI" analyze "$WORK/a.json" --gpu-peaks /dev/zero ;;
    *) echo "hostile_bench: unknown case '$c'"; exit 2 ;;
  esac
done
