#!/usr/bin/env bash
# Tests .ci/budget.sh, the time budget of .ci/run:
#   tests/ci/budget_test.sh PATH/TO/.ci/budget.sh
# Each case runs in its own bash, with the budget set to a few seconds (budget_start takes
# minutes; the cases set its seconds directly), and checks the exit status, the one FAILED line
# and that nothing the stopped command started is left running.
set -uo pipefail
budget_sh="${1:?usage: budget_test.sh BUDGET_SH}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_case NAME SCRIPT: runs SCRIPT after sourcing budget.sh with a budget of 3 s; leaves the
# exit status in $rc, stdout in $work/NAME.out, stderr in $work/NAME.err, seconds taken in $took.
run_case() {
  local name="$1" script="$2" start=$SECONDS
  bash -c "set -euo pipefail; source '$budget_sh'; budget_start 1; _budget_s=3; $script" \
    > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  took=$((SECONDS - start))
}

# A command past the budget is stopped, with its children, and the run fails saying where.
marker="29.$$"  # a sleep no other process runs
run_case over 'budget_step "slow step"; budget_run bash -c "sleep '"$marker"' & sleep '"$marker"'; wait"; echo not reached'
[ "$rc" -eq 1 ] || fail "over budget: exit status $rc, expected 1"
[ "$took" -le 10 ] || fail "over budget: took ${took}s, expected the budget of 3 s (plus a little)"
grep -q 'FAILED: past the time budget of 0 min, in step "slow step"' "$work/over.err" ||
  fail "over budget: no FAILED line naming the step in: $(cat "$work/over.err")"
grep -q 'not reached' "$work/over.out" && fail "over budget: the script went on after the budget"
sleep 1
if pgrep -f "sleep $marker" > /dev/null; then
  fail "over budget: the stopped command's children are still running"
  pkill -f "sleep $marker"
fi

# A command that fails within the budget: its own status, no budget message.
run_case fails 'budget_step "failing step"; budget_run bash -c "exit 3"; echo not reached'
[ "$rc" -eq 3 ] || fail "failing command: exit status $rc, expected 3"
grep -q 'FAILED: past' "$work/fails.err" && fail "failing command: reported as over budget"
grep -q 'not reached' "$work/fails.out" && fail "failing command: the script went on"

# Commands within the budget: the run goes on and ends with its total.
run_case fine 'budget_step "quick step"; budget_run true; budget_run sleep 1; budget_done'
[ "$rc" -eq 0 ] || fail "within budget: exit status $rc, expected 0 ($(cat "$work/fine.err"))"
grep -q '=== .ci/run: quick step (0 min so far)' "$work/fine.out" || fail "within budget: no step line"
grep -q '=== .ci/run: done in 0 min [0-9] s' "$work/fine.out" || fail "within budget: no total line"

# A run whose steps were each within what was left, but whose total passed it, fails at the end.
run_case late 'budget_step "last step"; budget_run true; _budget_s=0; budget_done; echo not reached'
[ "$rc" -eq 1 ] || fail "late: exit status $rc, expected 1"
grep -q 'FAILED: past the time budget' "$work/late.err" || fail "late: no FAILED line"

# No command starts once the budget is spent.
run_case spent '_budget_s=0; budget_step "next step"; budget_run echo started'
[ "$rc" -eq 1 ] || fail "spent: exit status $rc, expected 1"
grep -q started "$work/spent.out" && fail "spent: a command started after the budget"

# A budget that is not a whole number of minutes is refused.
rc=0
bash -c "source '$budget_sh'; budget_start 4x" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "bad budget: exit status $rc, expected 2"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "budget_test: all cases passed"
