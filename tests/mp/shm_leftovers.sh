#!/bin/sh
# Runs plan_test at 3 ranks on the shared-memory schedule and checks that no weft segment was
# left in /dev/shm (segments are unlinked as soon as every rank has mapped them).
# Usage: shm_leftovers.sh PLAN_TEST MPIEXEC [mpiexec flags...]
test_bin="$1"; shift
count() { ls /dev/shm 2>/dev/null | grep -c '^weft-'; }
before=$(count)
WEFT_RECIPE=copyin "$@" -n 3 "$test_bin" || exit 1
after=$(count)
echo "weft segments in /dev/shm before: $before, after: $after"
test "$after" -le "$before"
