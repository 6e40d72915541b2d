#!/usr/bin/env bash
# Runs `ampscope analyze` on every shared trace (each Kineto trace and nsys export alone, the
# 8-rank DLRM job together, each memory snapshot) and
# writes the JSON, Markdown and HTML reports into OUT_DIR, one folder per case. Run it with the
# binary before and after a refactoring and compare the folders (`diff -r`): a refactoring that
# changes no behaviour leaves them byte-identical.
#
#   scripts/report_snapshots.sh BINARY OUT_DIR [SHARED_DIR]
#
# SHARED_DIR defaults to $AMPSCOPE_SHARED_DIR, else ../shared from the source root. The exit
# status of each run is written to OUT_DIR/<case>/rc (a refused input is a result too).
set -u
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BINARY OUT_DIR [SHARED_DIR]" >&2
  exit 2
fi
bin=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${3:-${AMPSCOPE_SHARED_DIR:-$root/../shared}}
traces=$shared/traces
[[ -d $traces ]] || { echo "$0: no traces under $shared" >&2; exit 2; }
mkdir -p "$out"

run_case() {  # name, then the analyze arguments
  local name=$1; shift
  local dir=$out/$name
  mkdir -p "$dir"
  "$bin" analyze -q -j 2 "$@" -o "$dir/report.json" --markdown "$dir/report.md" \
    --html "$dir/report.html" >"$dir/stdout" 2>"$dir/stderr"
  echo $? >"$dir/rc"
}

while IFS= read -r f; do
  name=$(echo "${f#"$traces"/}" | tr '/' '_')
  run_case "$name" "$f"
done < <(find "$traces/kineto" "$traces/nsys" -type f \( -name '*.json' -o -name '*.json.gz' \
           -o -name '*.sqlite' \) ! -path '*/param_dlrm_8ranks/*' | sort)

mapfile -t dlrm < <(find "$traces/kineto/param_dlrm_8ranks" -name '*.json.gz' | sort)
[[ ${#dlrm[@]} -gt 0 ]] && run_case dlrm_job "${dlrm[@]}"

for p in "$traces"/memory/*.pickle; do
  [[ -f $p ]] && run_case "memory_$(basename "$p")" "$p"
done

echo "$out"
