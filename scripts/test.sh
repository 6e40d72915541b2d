#!/usr/bin/env bash
# Sets up, builds and runs every test. This is what CI runs (.ci/run).
#   scripts/test.sh                   normal build (build/), the whole suite
#   scripts/test.sh --asan            ASan+UBSan build (build-asan/), the whole suite; with clang
#                                     the same tree also builds the fuzzers (scripts/fuzz.sh)
#   scripts/test.sh ... --configure-only   only (re)configure the build folder
#   scripts/test.sh ... --build-only       set up, configure and build, run no test
#   scripts/test.sh ... --test-only        only run the suite of a folder already built (no setup,
#                                          configure or build: .ci/run fuzzes beside it)
# Every option the suite needs is set on each run, whatever an earlier configure of the same
# folder left in its cache (scripts/demo.sh configures build/ without tests), and ctest fails
# when it finds no test.
set -euo pipefail
cd "$(dirname "$0")/.."

asan=0
configure_only=0
build_only=0
test_only=0
for arg in "$@"; do
  case "$arg" in
    --asan) asan=1 ;;
    --configure-only) configure_only=1 ;;
    --build-only) build_only=1 ;;
    --test-only) test_only=1 ;;
    *) echo "test.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

options=(-DAMPSCOPE_BUILD_TESTS=ON -DAMPSCOPE_BUILD_EXAMPLES=ON -DAMPSCOPE_WERROR=ON)
compilers=()
build=build
[ "$asan" = 1 ] && build=build-asan
if [ "$test_only" = 1 ] && [ ! -f "$build/CMakeCache.txt" ]; then
  echo "test.sh: --test-only needs $build built first (scripts/test.sh $([ "$asan" = 1 ] && echo "--asan ")--build-only)" >&2
  exit 2
fi
if [ "$test_only" = 1 ]; then
  :
elif [ "$asan" = 1 ]; then
  build=build-asan
  scripts/setup.sh --browser --libtorch --fuzz
  # -O1: sanitizers at -O0 make the suite and the fuzzers several times slower. Line tables
  # are all a sanitizer report needs (file:line in each frame); full -g makes the compile and
  # the links of this tree much slower on CI's two cores (gcc's spelling of it is -g1).
  debug=-g1
  command -v clang++ > /dev/null && debug=-gline-tables-only
  options+=(-DAMPSCOPE_SANITIZE=ON -DAMPSCOPE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
            "-DCMAKE_CXX_FLAGS_DEBUG=-O1 $debug" "-DCMAKE_C_FLAGS_DEBUG=-O1 $debug")
  if command -v clang++ > /dev/null; then
    # One clang tree serves the sanitized suite and libFuzzer (fuzz/CMakeLists.txt).
    compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    options+=(-DAMPSCOPE_BUILD_FUZZERS=ON)
  else
    options+=(-DAMPSCOPE_BUILD_FUZZERS=OFF)
  fi
else
  build=build
  scripts/setup.sh --browser --libtorch
  options+=(-DAMPSCOPE_SANITIZE=OFF -DAMPSCOPE_BUILD_FUZZERS=OFF -DAMPSCOPE_BUILD_BENCH=ON)
fi
if [ "$test_only" = 0 ]; then
  # The compiler can only be chosen when the folder is first configured.
  [ -f "$build/CMakeCache.txt" ] && compilers=()
  cmake -S . -B "$build" -G Ninja "${compilers[@]}" "${options[@]}"
  [ "$configure_only" = 1 ] && exit 0
fi

# CPU seconds (user + sys) of this shell's finished children into $cpu_s, from bash's `times`
# (run in this shell, not a subshell, whose children are not ours): unlike wall time, it does not
# grow when other work shares the machine.
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
children_cpu() {
  times > "$times_file"
  cpu_s=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%d", t }' "$times_file")
}
took() {  # took START_SECONDS START_CPU: $took_text = "W min S s wall, C min S s CPU"
  local wall=$((SECONDS - $1))
  children_cpu
  local cpu=$((cpu_s - $2))
  took_text="$((wall / 60)) min $((wall % 60)) s wall, $((cpu / 60)) min $((cpu % 60)) s CPU"
}

jobs=$(nproc)
children_cpu
start=$SECONDS start_cpu=$cpu_s
if [ "$test_only" = 0 ]; then
  cmake --build "$build" -j "$jobs"
fi
took "$start" "$start_cpu"
built=$took_text
if [ "$build_only" = 1 ]; then
  echo
  echo "test.sh: $build: build $built"
  exit 0
fi
children_cpu
start=$SECONDS start_cpu=$cpu_s
# The JUnit file is what scripts/check_tests_ran.sh reads (LastTest.log is rewritten by any
# later ctest call, even `ctest -N`).
rc=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$jobs" --output-junit "$PWD/$build/ctest-junit.xml" || rc=$?
took "$start" "$start_cpu"
echo
echo "test.sh: $build: build $built; tests $took_text"
exit "$rc"
