#!/usr/bin/env bash
# End-to-end test on CPU: `ampscope record -- amp_trainer ...` then `ampscope analyze`.
#
#   tests/e2e/trainer_e2e.sh AMPSCOPE AMP_TRAINER WORKDIR CASE
#
# CASE picks the trainer flags (one planted problem each, or none). For every case:
#   - record exits 0, writes one .amptrace and a session.json with exit_code 0;
#   - the trainer's own output is intact (5 step lines and the summary), and the collector did
#     not change what it computed (healthy case: same loss/scale lines as a run without ampscope);
#   - analyze exits 0 and its report says: 5 steps detected (analysed, or left out as leading
#     warm-up steps with a reason), source "nvtx" (the trainer's "step" ranges);
#     "no GPU activity was recorded" (diagnostics), as this machine has no CUDA device;
#   - case-specific checks (see CASES below).
# Expected values come from the trainer's design (5 steps requested, NVTX "step" ranges, the
# planted sleep), not from ampscope's output.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 AMPSCOPE AMP_TRAINER WORKDIR CASE" >&2
  exit 2
fi
ampscope=$1
trainer=$2
workdir=$3
case_name=$4

readonly steps=5
# Small model on one thread: the CI machine is small and shared.
common=(--device cpu --threads 1 --steps "$steps" --dim 64 --vocab 256 --seq 16 --batch 4)
flags=()
expect_skipped=0
min_step_us=0
expect_healthy=0
expect_finding=""
case "$case_name" in
  healthy) expect_healthy=1 ;;
  sync_every) flags=(--sync-every 1) ;;
  fp32_head) flags=(--fp32-head) ;;
  no_autocast) flags=(--no-autocast) ;;
  alloc_churn) flags=(--alloc-churn) ;;
  # The sleep is inside the "dataloader" range, inside "step": every step lasts at least 40 ms,
  # and the data loader's share of the step (host ranges only, no GPU needed) is reported.
  loader_delay) flags=(--loader-delay-ms 40); min_step_us=40000; expect_finding=dataloader_bottleneck ;;
  # bf16 on CPU does not overflow at 1e9 (fp32 range): no skipped step, the scale stays 1e9.
  init_scale) flags=(--init-scale 1e9) ;;
  # One overflowing step: the scaler skips exactly that step.
  overflow) flags=(--overflow-at-step 2); expect_skipped=1 ;;
  *) echo "trainer_e2e: unknown case '$case_name'" >&2; exit 2 ;;
esac

fail() {
  echo "FAIL [$case_name]: $*" >&2
  exit 1
}

dir="$workdir/$case_name"
rm -rf "$dir"
mkdir -p "$dir"
rec="$dir/rec"

echo "== record: $trainer ${common[*]} ${flags[*]}"
set +e
"$ampscope" record -o "$rec" -- "$trainer" "${common[@]}" "${flags[@]}" >"$dir/record.out" 2>"$dir/record.err"
rc=$?
set -e
cat "$dir/record.out"
if [ -s "$dir/record.err" ]; then
  echo "-- stderr:"
  cat "$dir/record.err"
fi
[ "$rc" -eq 0 ] || fail "ampscope record exited $rc"

# The trainer's output passes through unchanged.
step_lines=$(grep -c '^step [0-9]*/'"$steps"' ' "$dir/record.out" || true)
[ "$step_lines" -eq "$steps" ] || fail "expected $steps step lines from the trainer, got $step_lines"
grep -q "^summary: steps=$steps skipped=$expect_skipped " "$dir/record.out" ||
  fail "trainer summary does not say steps=$steps skipped=$expect_skipped"

shopt -s nullglob
traces=("$rec"/*.amptrace)
shopt -u nullglob
[ "${#traces[@]}" -eq 1 ] || fail "expected one .amptrace in $rec, found ${#traces[@]}"
[ -f "$rec/session.json" ] || fail "no session.json in $rec"

if [ "$expect_healthy" -eq 1 ]; then
  # The same run without ampscope: identical losses, scales and skips (host_ms aside).
  "$trainer" "${common[@]}" "${flags[@]}" >"$dir/bare.out" 2>"$dir/bare.err" || fail "bare trainer run failed"
  strip() { grep '^step ' "$1" | sed 's/ host_ms=.*//'; }
  if ! diff <(strip "$dir/bare.out") <(strip "$dir/record.out") >"$dir/bare.diff"; then
    cat "$dir/bare.diff"
    fail "the trainer computed different values under ampscope record"
  fi
fi

echo "== analyze ${traces[0]}"
set +e
"$ampscope" analyze "${traces[0]}" -o "$dir/report.json" --quiet >"$dir/analyze.out" 2>"$dir/analyze.err"
rc=$?
set -e
cat "$dir/analyze.out" "$dir/analyze.err"
[ "$rc" -eq 0 ] || fail "ampscope analyze exited $rc"
[ -s "$dir/report.json" ] || fail "no report.json"

args=("$dir/report.json" "$rec/session.json" "$steps" "$min_step_us" "$expect_healthy" "$expect_finding")
python3 - "${args[@]}" <<'EOF' || fail "report checks"
import json, re, sys

report_path, session_path = sys.argv[1], sys.argv[2]
steps, min_step_us, healthy, expect_finding = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
report = json.load(open(report_path))
session = json.load(open(session_path))
problems = []

def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        problems.append(what)

check(session.get("exit_code") == 0, f"session.json exit_code == 0 (got {session.get('exit_code')!r})")

st = report.get("steps", {})
# The trainer's first step does one-time work (allocations, first calls) and may be left out as
# warm-up (docs/findings.md, "Trace integrity"): every step is detected, and the analysed ones
# and the leading warm-up steps left out are the 5 together.
check(st.get("detected") == steps, f"steps.detected == {steps} (got {st.get('detected')!r})")
left_out = [f for f in st.get("flagged") or [] if f.get("excluded")]
check(all(f.get("kind") == "warmup" and f.get("reason") for f in left_out),
      f"only warm-up steps, with a reason, are left out (got {left_out})")
check(st.get("count") + len(left_out) == steps,
      f"steps.count + warm-up steps left out == {steps} (got {st.get('count')!r} + {len(left_out)})")
analysed = steps - len(left_out)
check(st.get("source") == "nvtx", f"steps.source == 'nvtx' (got {st.get('source')!r})")
durations = st.get("durations_us") or []
check(len(durations) == analysed, f"{analysed} step durations (got {len(durations)})")
if min_step_us > 0:
    check(all(d >= min_step_us for d in durations),
          f"every step lasts >= {min_step_us:.0f} us, the planted loader sleep (got {[round(d) for d in durations]})")
windows = st.get("windows")
if windows is not None:
    check(len(windows) == analysed and all(w.get("name") == "step" for w in windows),
          f"steps.windows: {analysed} windows named 'step' (got {[w.get('name') for w in windows]})")

# No CUDA device here: the report must say so plainly, not look like a broken run.
diag = report.get("diagnostics", {})
counters = diag.get("counters", {}) or {}
messages = diag.get("messages", []) or []
said = counters.get("no_gpu_activity") or any(
    m.get("code") == "no_gpu_activity" or re.search(r"no GPU activity", str(m.get("message", "")), re.I) for m in messages)
check(bool(said), "diagnostics say that no GPU activity was recorded")
errors = [m for m in messages if m.get("severity") == "error"]
check(not errors, f"no diagnostics of severity error (got {[m.get('code') for m in errors]})")

ids = [f.get("id") for f in report.get("findings", [])]
if expect_finding:
    check(expect_finding in ids, f"finding {expect_finding} (got {ids})")

if healthy:
    loud = [f.get("id") for f in report.get("findings", []) if f.get("severity") in ("warning", "critical")]
    check(not loud, f"healthy run: no warning/critical findings (got {loud})")

sys.exit(1 if problems else 0)
EOF
echo "PASS [$case_name]"
