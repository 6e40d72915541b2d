#!/usr/bin/env bash
# Fails unless the last ctest run in BUILD ran every test it knows, and at least one:
#   scripts/check_tests_ran.sh BUILD
# (.ci/run calls it after scripts/test.sh, so a configure that turned the tests off cannot
# pass as green.)
set -euo pipefail
build="${1:?usage: check_tests_ran.sh BUILD}"
log="$build/Testing/Temporary/LastTest.log"
[ -f "$log" ] || { echo "check_tests_ran: no ctest log in $build: no test ran" >&2; exit 1; }
known=$(ctest --test-dir "$build" -N | sed -n 's/^Total Tests: *//p')
passed=$(grep -c '^Test Passed\.' "$log" || true)
echo "check_tests_ran: $build: $passed of ${known:-0} tests passed"
if [ "${known:-0}" -lt 1 ] || [ "$passed" -ne "$known" ]; then
  echo "check_tests_ran: expected every one of at least 1 test to pass" >&2
  exit 1
fi
