#!/usr/bin/env bash
# Fails unless the last scripts/test.sh run in BUILD ran every test the build knows, at least
# one, and each of them passed (none failed, none skipped):
#   scripts/check_tests_ran.sh BUILD
# .ci/run calls it after scripts/test.sh, so a configure that turned the tests off, or tests
# that skip because an input is missing, cannot pass as green.
set -euo pipefail
build="${1:?usage: check_tests_ran.sh BUILD}"
junit="$build/ctest-junit.xml"
[ -f "$junit" ] || { echo "check_tests_ran: no $junit: no test ran" >&2; exit 1; }
known=$(ctest --test-dir "$build" -N | sed -n 's/^Total Tests: *//p')
cases=$(grep -o '<testcase ' "$junit" | wc -l)
passed=$(grep -o '<testcase [^>]*status="run"' "$junit" | wc -l)
echo "check_tests_ran: $build: $passed passed of $cases run, $known known; the 10 slowest (wall s):"
# awk reads every line (a `head` would close the pipe early: sort's SIGPIPE fails the script
# under pipefail once the list is long enough).
sed -n 's/.*<testcase name="\([^"]*\)"[^>]* time="\([0-9.]*\)".*/\2 \1/p' "$junit" | sort -rn |
  awk 'NR <= 10 { printf "  %8.2f  %s\n", $1, $2 }'
if [ "${known:-0}" -lt 1 ] || [ "$cases" -ne "$known" ] || [ "$passed" -ne "$known" ]; then
  echo "check_tests_ran: expected every one of the $known known tests (at least 1) to run and pass" >&2
  exit 1
fi
