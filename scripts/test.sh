#!/usr/bin/env bash
# Sets up, builds and runs every test. This is what CI runs (.ci/run).
#   scripts/test.sh            normal build (build/)
#   scripts/test.sh --asan     ASan+UBSan build (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
extra=()
if [ "${1:-}" = "--asan" ]; then
  build=build-asan
  extra=(-DAMPSCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DAMPSCOPE_BUILD_BENCH=OFF)
fi

scripts/setup.sh --browser --libtorch
jobs=$(nproc)
cmake -S . -B "$build" -G Ninja -DAMPSCOPE_WERROR=ON -DAMPSCOPE_BUILD_EXAMPLES=ON "${extra[@]}"
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
