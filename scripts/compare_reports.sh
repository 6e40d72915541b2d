#!/usr/bin/env bash
# Runs `ampscope analyze` with two binaries on every shared trace (and the multi-rank job) and
# compares the JSON, Markdown and HTML reports byte by byte. A refactoring that must not change
# behaviour passes when every output is identical.
#
#   scripts/compare_reports.sh OLD_BINARY NEW_BINARY [SHARED_DIR] [WORK_DIR]
#
# SHARED_DIR defaults to $AMPSCOPE_SHARED_DIR, else ../shared beside the source root. Prints one
# line per differing output and a summary; exits 0 when all match, 1 when some differ, 2 on a
# usage error.
set -u
if [[ $# -lt 2 ]]; then
  echo "usage: $0 OLD_BINARY NEW_BINARY [SHARED_DIR] [WORK_DIR]" >&2
  exit 2
fi
old=$(realpath "$1") new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${3:-${AMPSCOPE_SHARED_DIR:-$root/../shared}}
work=${4:-$(mktemp -d)}
traces="$shared/traces"
[[ -x "$old" && -x "$new" && -d "$traces" ]] || { echo "$0: need two binaries and $traces" >&2; exit 2; }

# One case per line: name, then the analyze arguments (paths relative to $traces).
cases=()
while IFS= read -r f; do
  rel=${f#"$traces"/}
  cases+=("$(echo "$rel" | tr '/.' '__')|$rel")
done < <(find "$traces/kineto" "$traces/nsys" -type f \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | sort)
dlrm=$(cd "$traces" && ls kineto/param_dlrm_8ranks/*.json.gz 2>/dev/null | tr '\n' ' ')
[[ -n "$dlrm" ]] && cases+=("dlrm_job|$dlrm")
for p in "$traces"/memory/*.pickle; do
  [[ -f "$p" ]] && cases+=("memory_$(basename "$p" .pickle)|${p#"$traces"/}")
done

run() {  # binary, out dir, args...
  local bin=$1 out=$2; shift 2
  mkdir -p "$out"
  (cd "$traces" && "$bin" analyze -q -j 1 -o "$out/report.json" --markdown "$out/report.md" \
     --html "$out/report.html" "$@" >"$out/stdout.txt" 2>"$out/stderr.txt"; echo $? >"$out/rc")
  # The terminal summary without other outputs (the per-rank views must not depend on --html).
  (cd "$traces" && COLUMNS=120 "$bin" analyze --no-color -j 1 "$@" >"$out/terminal.txt" 2>/dev/null)
}

differ=0 same=0
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  # shellcheck disable=SC2086
  run "$old" "$work/old/$name" $args
  # shellcheck disable=SC2086
  run "$new" "$work/new/$name" $args
  for f in rc report.json report.md report.html terminal.txt; do
    a="$work/old/$name/$f" b="$work/new/$name/$f"
    if [[ ! -e "$a" && ! -e "$b" ]]; then continue; fi
    if cmp -s "$a" "$b"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "DIFFERS $name/$f"
    fi
  done
done
echo "compare_reports: $same identical, $differ differ (outputs under $work)"
[[ $differ -eq 0 ]]
