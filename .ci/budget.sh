# Sourced by .ci/run: the run's time budget. Every command runs with what is left of it (GNU
# timeout, which stops the command's whole process group), so a run that passes the budget
# stops there and fails with one clear line, instead of running on to CI's own hard limit.
#   budget_start MINUTES    the budget, counted from the start of the script (bash's SECONDS)
#   budget_step TITLE       prints the step's title and the minutes so far
#   budget_run CMD ARGS...  runs CMD within what is left; exits with its status, or 1 past the budget
#   budget_done             prints the total; fails if it is past the budget
# tests/ci/budget_test.sh tests it.

budget_start() {
  case "${1:-}" in
    ''|*[!0-9]*|0) echo ".ci/run: the budget must be a whole number of minutes, got '${1:-}'" >&2; exit 2 ;;
  esac
  _budget_s=$(($1 * 60))
  _budget_step="start"
}

_budget_clock() { echo "$((SECONDS / 60)) min $((SECONDS % 60)) s"; }

_budget_over() {
  echo >&2
  echo "=== .ci/run: FAILED: past the time budget of $((_budget_s / 60)) min, in step \"$_budget_step\"" \
       "($(_budget_clock) so far). CI is to take at most 30 min from a fresh clone on 2 cores;" \
       "docs/fuzzing.md (\"Measured time of .ci/run\") says how to measure it and what keeps it there." >&2
  exit 1
}

budget_step() {
  _budget_step="$*"
  echo
  echo "=== .ci/run: $* ($((SECONDS / 60)) min so far)"
}

budget_run() {
  local left=$((_budget_s - SECONDS))
  [ "$left" -gt 0 ] || _budget_over
  local rc=0
  # -k: a command that ignores SIGTERM is killed 30 s later.
  timeout -k 30 "$left" "$@" || rc=$?
  if [ "$rc" -ne 0 ]; then
    [ "$SECONDS" -ge "$_budget_s" ] && _budget_over
    exit "$rc"
  fi
}

budget_done() {
  [ "$SECONDS" -ge "$_budget_s" ] && _budget_over
  budget_step "done in $(_budget_clock)"
}
