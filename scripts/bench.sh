#!/usr/bin/env bash
# Input benchmarks (issues 2, 13 and 16): ampscope's Kineto reader next to the baselines the
# issues name, on generated traces, in one run. docs/bench.md explains the method and quotes
# the figures.
#
# Usage: scripts/bench.sh [CASE...]     CASE: gzip | plain | unique | all (default: all)
#   gzip    a ~400 MB trace gzip'd with -1: read vs `zcat FILE > /dev/null` (goal: <= 0.6x)
#   plain   a ~400 MB plain JSON trace: read vs python3's json.load (goal: >= 25x faster,
#           peak RSS <= 0.3x the input)
#   unique  2 M events with all-unique 1 KB names (issue 16's memory case): peak RSS
#   ranks   32 rank files of RANK_MB (35) MB: `analyze -j 2` vs `-j 1`, time and peak RSS next to
#           one rank's (goal: >= 1.55x faster, RSS <= 3x one rank + 50 MB)
#   scaling 8, 32 and 128 rank files of SCALE_MB (8) MB with -j $(nproc): time vs bytes / cores
#   merge   `ampscope merge` of 1,024 rank summaries (goal: < 1 s)
# Environment:
#   BUILD_DIR    build directory (default: build-bench, configured Release)
#   SKIP_BUILD   1 = use BUILD_DIR as it is
#   SIZE_MB      size of the gzip and plain traces, uncompressed (default 400)
#   RUNS         runs of each row (default 3); rows are interleaved round by round, so every
#                row of a case sees the same machine load
#   NICE         niceness of the measured commands (default 10)
#   BASELINE     another ampscope binary (an older build): every ampscope row is measured with it
#                too, in the same rounds, as "ROW [baseline]", with the ratio baseline / this
# Generated traces go to a temporary folder (under $TMPDIR) that is deleted at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
SIZE_MB="${SIZE_MB:-400}"
RUNS="${RUNS:-3}"
NICE="${NICE:-10}"
CASES=("$@")
[[ ${#CASES[@]} -eq 0 || "${CASES[0]}" == all ]] && CASES=(gzip plain unique ranks scaling merge)
RANK_MB="${RANK_MB:-35}"
SCALE_MB="${SCALE_MB:-8}"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  echo "== build ($BUILD_DIR, Release)"
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_TESTS=OFF \
    -DAMPSCOPE_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" --target make_large_trace read_kineto ampscope
fi
GEN="${GEN:-$BUILD_DIR/bench/make_large_trace}"
READ="$BUILD_DIR/bench/read_kineto"
CLI="$BUILD_DIR/cli/ampscope"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ampscope-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# measure ROW CMD...: one run under /usr/bin/time -v, appended to $WORK/results as
# "row<TAB>wall_s<TAB>cpu_s<TAB>rss_kb". The command's stdout goes to /dev/null unless it
# redirects itself (sh -c).
measure() {
  local row="$1"
  shift
  if ! nice -n "$NICE" /usr/bin/time -v "$@" >/dev/null 2>"$WORK/time.log"; then
    echo "   $row: FAILED"
    tail -5 "$WORK/time.log"
    return 1
  fi
  python3 - "$row" "$WORK/time.log" >>"$WORK/results" <<'PY'
import re, sys
row, log = sys.argv[1], open(sys.argv[2]).read()
field = lambda name: re.search(re.escape(name) + r": (.*)", log).group(1).strip()
wall = sum(float(v) * 60 ** i for i, v in enumerate(reversed(field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"))))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
print(f"{row}\t{wall:.3f}\t{cpu:.3f}\t{field('Maximum resident set size (kbytes)')}")
PY
}

# cli ROW ARGS...: measure this build's ampscope, and BASELINE's when set (same round).
cli() {
  local row="$1"
  shift
  measure "$row" "$CLI" "$@"
  if [[ -n "${BASELINE:-}" ]]; then measure "$row [baseline]" "$BASELINE" "$@"; fi
}

# summary BYTES [RATIO...]: min and median of each row; RATIO is "A|B" (median wall of A over B).
summary() {
  python3 - "$WORK/results" "$@" <<'PY'
import statistics, sys
path, size, ratios = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for line in open(path):
    row, wall, cpu, rss = line.rstrip("\n").split("\t")
    rows.setdefault(row, []).append((float(wall), float(cpu), int(rss) * 1024))
for row, runs in rows.items():
    w, c, r = (sorted(x[i] for x in runs) for i in range(3))
    med = statistics.median
    print(f"   {row:<40} wall min {w[0]:7.2f} med {med(w):7.2f} s | cpu min {c[0]:7.2f} med {med(c):7.2f} s"
          f" | peak RSS min {r[0] / 1e6:6.0f} med {med(r) / 1e6:6.0f} MB ({med(r) / size:.2f}x input) | {len(runs)} runs")
ratios += [f"{row}|{row[:-len(' [baseline]')]}" for row in rows if row.endswith(" [baseline]")]
for ratio in ratios:
    a, b = ratio.split("|")
    wa = statistics.median(x[0] for x in rows[a]); wb = statistics.median(x[0] for x in rows[b])
    ca = statistics.median(x[1] for x in rows[a]); cb = statistics.median(x[1] for x in rows[b])
    print(f"   median wall '{a}' / '{b}' = {wa / wb:.2f}x (cpu {ca / cb:.2f}x)")
PY
  rm -f "$WORK/results"
}

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); runs niced ($NICE)"

for case in "${CASES[@]}"; do
  case "$case" in
    gzip)
      F="$WORK/trace.json.gz"
      "$GEN" --size-mb "$SIZE_MB" --gzip --gzip-level 1 --out "$F" >/dev/null
      U=$(zcat "$F" | wc -c)
      echo "== gzip: $(( $(stat -c %s "$F") / 1000000 )) MB .json.gz (gzip -1) of $((U / 1000000)) MB JSON"
      for _ in $(seq "$RUNS"); do
        measure "zcat FILE > /dev/null" sh -c 'zcat "$1" > /dev/null' sh "$F"
        measure "read_kineto FILE (threads: all cores)" "$READ" "$F" --quiet
        measure "read_kineto FILE --threads 1" "$READ" "$F" --quiet --threads 1
        cli "ampscope analyze FILE -o r.json" analyze "$F" -o "$WORK/r.json"
      done
      summary "$U" "read_kineto FILE (threads: all cores)|zcat FILE > /dev/null" \
        "read_kineto FILE --threads 1|zcat FILE > /dev/null" "ampscope analyze FILE -o r.json|zcat FILE > /dev/null"
      echo "   goal (issue 13): ampscope <= 0.6x zcat's time"
      rm -f "$F" ;;
    plain)
      F="$WORK/trace.json"
      "$GEN" --size-mb "$SIZE_MB" --out "$F" >/dev/null
      U=$(stat -c %s "$F")
      echo "== plain: $((U / 1000000)) MB JSON"
      for _ in $(seq "$RUNS"); do
        measure "python3 json.load" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$F"
        measure "read_kineto FILE (threads: all cores)" "$READ" "$F" --quiet
        measure "read_kineto FILE --threads 1" "$READ" "$F" --quiet --threads 1
        cli "ampscope analyze FILE -o r.json" analyze "$F" -o "$WORK/r.json"
      done
      summary "$U" "python3 json.load|read_kineto FILE (threads: all cores)" \
        "python3 json.load|read_kineto FILE --threads 1" "python3 json.load|ampscope analyze FILE -o r.json"
      echo "   goal (issue 13): ampscope >= 25x faster than json.load, peak RSS <= 0.3x the input"
      rm -f "$F" ;;
    unique)
      F="$WORK/unique.json"
      # 27 repetitions of the 75,695-event template: 2.04 M events, each name 1 KB and unique.
      "$GEN" --repeat 27 --unique-names 1024 --out "$F" >/dev/null
      U=$(stat -c %s "$F")
      echo "== unique: $((U / 1000000)) MB JSON, 2.04 M events with all-unique 1 KB names"
      for _ in $(seq "$RUNS"); do
        measure "read_kineto FILE" "$READ" "$F" --quiet
        cli "ampscope analyze FILE -o r.json" analyze "$F" -o "$WORK/r.json"
        cli "ampscope analyze ... --chrome-trace c.json" analyze "$F" -o "$WORK/r.json" \
          --chrome-trace "$WORK/c.json"
      done
      summary "$U"
      echo "   goal (issue 16): peak RSS near 0.3x the input (was 6.7 GB, 10.8 GB with --chrome-trace)"
      rm -f "$F" ;;
    ranks)
      # One generated rank, copied: every file is its own rank file (distinct paths).
      mkdir -p "$WORK/ranks"
      "$GEN" --size-mb "$RANK_MB" --out "$WORK/ranks/rank00.json" >/dev/null
      for i in $(seq -w 1 31); do cp "$WORK/ranks/rank00.json" "$WORK/ranks/rank$i.json"; done
      U=$(stat -c %s "$WORK/ranks/rank00.json")
      echo "== ranks: 32 rank files of $((U / 1000000)) MB JSON"
      for _ in $(seq "$RUNS"); do
        cli "one rank: analyze rank00 -j 1" analyze "$WORK/ranks/rank00.json" -j 1 -q -o "$WORK/r.json"
        cli "32 ranks: analyze -j 1" analyze "$WORK"/ranks/*.json -j 1 -q -o "$WORK/r.json"
        cli "32 ranks: analyze -j 2" analyze "$WORK"/ranks/*.json -j 2 -q -o "$WORK/r.json"
      done
      summary "$U" "32 ranks: analyze -j 1|32 ranks: analyze -j 2"
      echo "   goal (issue 13): -j 2 >= 1.55x faster than -j 1; peak RSS <= 3x one rank's + 50 MB"
      rm -rf "$WORK/ranks" ;;
    scaling)
      mkdir -p "$WORK/scale"
      "$GEN" --size-mb "$SCALE_MB" --out "$WORK/scale/rank000.json" >/dev/null
      U=$(stat -c %s "$WORK/scale/rank000.json")
      for i in $(seq -w 1 127); do cp "$WORK/scale/rank000.json" "$WORK/scale/rank$(printf %03d $((10#$i))).json"; done
      echo "== scaling: 8, 32, 128 rank files of $((U / 1000000)) MB, -j $(nproc)"
      for _ in $(seq "$RUNS"); do
        for n in 8 32 128; do
          cli "$n ranks" analyze $(ls "$WORK"/scale/*.json | head -n "$n") -q -o "$WORK/r.json"
        done
      done
      summary "$U" "32 ranks|8 ranks" "128 ranks|32 ranks"
      echo "   linear in bytes / cores: each ratio near 4.00x (4x the ranks, the same cores)"
      rm -rf "$WORK/scale" ;;
    merge)
      # 1,024 summaries: the 8 DLRM ranks' summaries, each copied 128 times under new rank numbers.
      mkdir -p "$WORK/sum"
      DLRM="$ROOT/../shared/traces/kineto/param_dlrm_8ranks"
      for f in "$DLRM"/*.json.gz; do
        "$CLI" analyze "$f" -q --summary-out "$WORK/sum/$(basename "$f" .json.gz).summary.json"
      done
      python3 - "$WORK/sum" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
base = sorted(glob.glob(os.path.join(d, "*.summary.json")))
for i in range(1024):
    s = json.load(open(base[i % len(base)]))
    s["rank"]["rank"] = s["rank"]["input"]["trace_rank"] = i
    s["rank"]["input"]["path"] = s["rank"]["input_path"] = "rank%04d.json.gz" % i
    s["rank"]["input"]["world_size"] = 1024
    json.dump(s, open(os.path.join(d, "r%04d.summary.json" % i), "w"), separators=(",", ":"))
for b in base:
    os.remove(b)
PY
      B=$(cat "$WORK"/sum/r*.summary.json | wc -c)
      echo "== merge: 1,024 summaries, $((B / 1000)) kB in all ($((B / 1024)) bytes each)"
      for _ in $(seq "$RUNS"); do
        cli "merge 1024 summaries -o r.json" merge "$WORK"/sum/r*.summary.json -q -o "$WORK/r.json"
      done
      summary "$B"
      echo "   goal (issue 13): under 1 s"
      # The same summaries gzip'd (what --summary-out r.summary.json.gz writes): the same report.
      gzip -6 -n "$WORK"/sum/r*.summary.json
      G=$(cat "$WORK"/sum/r*.summary.json.gz | wc -c)
      echo "== merge: the same 1,024 summaries gzip'd, $((G / 1000)) kB in all ($((G / 1024)) bytes each)"
      # This build only: BASELINE may predate gzip'd summaries.
      for _ in $(seq "$RUNS"); do
        measure "merge 1024 gzip'd summaries -o g.json" "$CLI" merge "$WORK"/sum/r*.summary.json.gz -q -o "$WORK/g.json"
      done
      summary "$G"
      cmp "$WORK/r.json" "$WORK/g.json" && echo "   the same report as from the plain summaries"
      rm -rf "$WORK/sum" ;;
    *) echo "unknown case $case (gzip | plain | unique | ranks | scaling | merge | all)" >&2; exit 2 ;;
  esac
  rm -f "$WORK/r.json" "$WORK/c.json"
done
