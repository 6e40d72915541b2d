#!/usr/bin/env bash
# Builds the fuzzers (if needed) and runs each target for SECONDS (default 60) under
# ASan + UBSan (non-recoverable), one target per core at a time (FUZZ_JOBS=N to choose), then
# prints each target's executions, coverage and crashes.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# TARGET defaults to the seven whole-pipeline targets (kineto amptrace nsys ncu report gate_config memory_snapshot);
# the reader-only targets (kineto_reader amptrace_reader nsys_reader) run the readers alone,
# many times faster, and use their format's seeds. RUNS=N stops each target after N
# executions instead of SECONDS (e.g. RUNS=10000000 scripts/fuzz.sh 0 kineto_reader);
# FUZZ_SANITIZERS=undefined fuzzes in a faster UBSan-only tree (build-fuzz-ubsan/).
# Exit code: 0 no target found anything; 1 a crash, leak, timeout, OOM or broken property
# (the input is kept under build-asan/fuzz-work/artifacts/; minimise it with
# `build-asan/fuzz/fuzz_<target> -minimize_crash=1 -runs=10000 FILE`, then commit it under
# fuzz/regressions/<target>/, see docs/fuzzing.md); 2 the fuzzers could not be built or seeded.
# The fuzzers need clang and libFuzzer (Debian: clang, libclang-rt-14-dev; scripts/setup.sh --fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(kineto amptrace nsys ncu report gate_config memory_snapshot)
runs_limit="${RUNS:-}"
case "$runs_limit" in ''|*[!0-9]*) runs_limit="" ;; esac
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
shared="$(cd .. && pwd)/shared"

# FUZZ_PREPARED=1: the tree is configured and built already (.ci/run, which runs the suite in the
# same tree meanwhile): no setup, configure or build here, only the fuzzing.
prepared="${FUZZ_PREPARED:-0}"

# FUZZ_SANITIZERS=undefined: a UBSan-only -O2 tree (build-fuzz-ubsan/), several times more
# executions per second, for long runs (docs/fuzzing.md). The default is CI's ASan+UBSan tree.
sanitizers="${FUZZ_SANITIZERS:-address,undefined}"
case "$sanitizers" in
  address,undefined)
    build=build-asan
    [ "$prepared" = 1 ] || scripts/test.sh --asan --configure-only ;;
  undefined)
    build=build-fuzz-ubsan
    [ "$prepared" = 1 ] && { echo "fuzz.sh: FUZZ_PREPARED is for the ASan+UBSan tree CI builds" >&2; exit 2; }
    scripts/setup.sh --fuzz
    compilers=()
    [ -f "$build/CMakeCache.txt" ] || compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    cmake -S . -B "$build" -G Ninja "${compilers[@]}" -DAMPSCOPE_SANITIZE=ON -DAMPSCOPE_SANITIZERS=undefined \
      -DAMPSCOPE_BUILD_FUZZERS=ON -DAMPSCOPE_BUILD_TESTS=OFF -DAMPSCOPE_BUILD_BENCH=OFF -DAMPSCOPE_BUILD_EXAMPLES=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" > /dev/null ;;
  *)
    echo "fuzz.sh: FUZZ_SANITIZERS is address,undefined (the default) or undefined, got '$sanitizers'" >&2
    exit 2 ;;
esac
work="$build/fuzz-work"
if ! ninja -C "$build" -t query ampscope_fuzzers > /dev/null 2>&1; then
  echo "fuzz.sh: $build is not a clang tree with AMPSCOPE_BUILD_FUZZERS=ON (is clang installed?)" >&2
  exit 2
fi
[ "$prepared" = 1 ] || cmake --build "$build" -j "$(nproc)" --target ampscope_fuzzers

# Seeds: generated from small shared traces and the real writers (never committed), plus the
# hand-cut pieces and every regression input in the tree.
rm -rf "$work/seeds"
mkdir -p "$work/seeds" "$work/artifacts"
if ! "$build/fuzz/ampscope_fuzz_seeds" "$work/seeds" "$shared" "$PWD"; then
  if [ "${CI:-}" = "true" ]; then
    echo "fuzz.sh: cannot generate the seed corpora (is $shared there?); CI fuzzes with all seeds or not at all" >&2
    exit 2
  fi
  echo "fuzz.sh: warning: some seeds are missing (see above); fuzzing with what there is" >&2
fi

# Per target: the longest input libFuzzer may build (seeds are smaller) and its extra flags.
declare -A max_len=([kineto]=131072 [amptrace]=16384 [nsys]=65536 [ncu]=65536 [report]=65536 [gate_config]=8192 [memory_snapshot]=16384
                   [kineto_reader]=16384 [amptrace_reader]=16384 [nsys_reader]=32768)
declare -A extra=([kineto]="-dict=fuzz/kineto.dict" [amptrace]="" [nsys]="" [ncu]="-dict=fuzz/ncu.dict" [report]="" [gate_config]="" [memory_snapshot]=""
                  [kineto_reader]="-dict=fuzz/kineto.dict" [amptrace_reader]="" [nsys_reader]="")
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

for target in "${targets[@]}"; do
  if [ -z "${max_len[$target]:-}" ]; then
    echo "fuzz.sh: no fuzz target named '$target'" >&2
    exit 2
  fi
done

# One target: runs it, writes its summary line to $work/$target.line and its exit code to
# $work/$target.rc.
fuzz_one() {
  local target="$1"
  local format="${target%_reader}"  # a reader target fuzzes its format's inputs
  local corpus="$work/corpus/$target"
  mkdir -p "$corpus"
  local inputs=("$corpus" "$work/seeds/$format" "fuzz/regressions/$format")
  [ -d "fuzz/corpus/$format" ] && inputs+=("fuzz/corpus/$format")
  local limit=(-max_total_time="$seconds")
  [ -n "$runs_limit" ] && limit=(-runs="$runs_limit")
  local log="$work/$target.log"
  local rc=0
  # -timeout: one input may take 30 s (a slow input is a finding); -rss_limit_mb: 2.5 GB.
  # shellcheck disable=SC2086
  "$build/fuzz/fuzz_$target" "${limit[@]}" -timeout=30 -rss_limit_mb=2560 \
      -max_len="${max_len[$target]}" -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" \
      ${extra[$target]} "${inputs[@]}" > "$log" 2>&1 || rc=$?
  local runs speed cov ft corp line why
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  corp=$(grep -oE 'corp: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  line="fuzz_$target: ${runs:-0} runs, ${speed:-0}/s, coverage ${cov:-0} edges / ${ft:-0} features, corpus ${corp:-0}"
  if [ "$rc" -ne 0 ]; then
    why=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z -]+|runtime error: .*|property failed: .*|terminate called.*' "$log" || echo "exit code $rc")
    line="$line, FAILED: $why (log: $log)"
    grep -E '^artifact_prefix|Test unit written' "$log" || true
  else
    line="$line, 0 crashes"
  fi
  echo "$line" > "$work/$target.line"
  echo "$rc" > "$work/$target.rc"
  echo "$line"
}

# Targets run side by side, one per core (FUZZ_JOBS=N to choose): each gets the whole SECONDS.
jobs="${FUZZ_JOBS:-$(nproc)}"
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac
echo "== ${#targets[@]} targets, ${runs_limit:+$runs_limit runs}${runs_limit:-${seconds}s} each, $jobs at a time"
running=0
for target in "${targets[@]}"; do
  rm -f "$work/$target.line" "$work/$target.rc"
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait || true

failed=0
summary=()
for target in "${targets[@]}"; do
  if [ ! -f "$work/$target.rc" ]; then
    summary+=("fuzz_$target: did not finish (log: $work/$target.log)")
    failed=1
    continue
  fi
  [ "$(cat "$work/$target.rc")" = 0 ] || failed=1
  summary+=("$(cat "$work/$target.line")")
done
echo
echo "== fuzz summary (${runs_limit:+$runs_limit runs}${runs_limit:-${seconds}s} per target)"
printf '%s\n' "${summary[@]}"
exit "$failed"
