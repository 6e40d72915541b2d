#!/usr/bin/env bash
# Installs what ampscope needs to build and test, from Debian 12's archive only.
# Safe to run again: it installs only what is missing.
#   scripts/setup.sh            build + test dependencies
#   scripts/setup.sh --browser  also Chromium (for the HTML report's browser test)
#   scripts/setup.sh --libtorch also libtorch-dev (for examples/amp_trainer)
#   scripts/setup.sh --fuzz     also clang and libFuzzer (the sanitizer tree and scripts/fuzz.sh)
set -euo pipefail

pkgs=(build-essential cmake ninja-build pkg-config
      nlohmann-json3-dev libfmt-dev libcli11-dev zlib1g-dev libisal-dev libsqlite3-dev
      googletest libgtest-dev libgmock-dev libbenchmark-dev python3 python3-yaml protobuf-compiler
      sqlite3 python3-pandas  # the --sqlite test: the sqlite3 shell and pandas run docs/sqlite_schema.md's queries
      python3-matplotlib  # docs/python.md's plotting cell, run by its test (docs_python)
      python3-distributed  # scripts/dask_analyze.py: the per-rank map as Dask tasks (and its CTest)
      python3-venv python3-wheel  # README.md's offline `pip install ./python` into a venv (python_pip_install)
      tmux  # tmux: the terminal-width test runs the CLI in 80- and 120-column windows
      lld)  # the linker of every tree (CMakeLists.txt, AMPSCOPE_USE_LLD): links in ~40% of GNU ld's CPU time
for arg in "$@"; do
  case "$arg" in
    --browser) pkgs+=(chromium) ;;
    --libtorch) pkgs+=(libtorch-dev) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all packages present"
  exit 0
fi
echo "setup.sh: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
