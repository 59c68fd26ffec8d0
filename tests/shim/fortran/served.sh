#!/usr/bin/env bash
# Runs a Fortran program under weftrun with WEFT_STATS=1 and requires every rank's counts to be
# exactly the expected ones: each call served once (not twice, as when a binding's call reached
# two entry points, and not left to MPI), and nothing else counted.
# usage: served.sh WEFTRUN NP PROGRAM EXPECTED [NAME=WEFT/NATIVE ...] -- [mpiexec flags]
# EXPECTED lists "function weft native" per line; NAME=WEFT/NATIVE overrides one line.
set -euo pipefail
weftrun=$1 np=$2 prog=$3 expected=$4
shift 4
declare -A want
while read -r fn w n; do
  case "$fn" in ""|\#*) continue ;; esac
  want[$fn]="weft=$w native=$n"
done < "$expected"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  fn=${1%%=*} counts=${1#*=}
  want[$fn]="weft=${counts%/*} native=${counts#*/}"
  shift
done
[ $# -gt 0 ] && shift
work=$(mktemp -d /tmp/weft-fortran.XXXXXX)
trap 'rm -rf "$work"' EXIT
WEFT_STATS=1 "$weftrun" -n "$np" "$@" "$prog" > "$work/out" 2> "$work/err" ||
  { echo "interposed run failed"; cat "$work/out" "$work/err"; exit 1; }
grep -q "all correct" "$work/out" || { echo "wrong results:"; cat "$work/out"; exit 1; }
fail=0
for fn in "${!want[@]}"; do
  got=$(grep -c "^weft-stats $fn ${want[$fn]}\$" "$work/err" || true)
  if [ "$got" != "$np" ]; then
    echo "$fn: expected '${want[$fn]}' on $np ranks, got:"
    grep "^weft-stats $fn " "$work/err" || echo "  (no line)"
    fail=1
  fi
done
extra=$(grep "^weft-stats " "$work/err" | awk '{print $2}' | sort -u | while read -r fn; do
  [ -n "${want[$fn]:-}" ] || echo "$fn"; done)
[ -z "$extra" ] || { echo "counted but not expected: $extra"; fail=1; }
[ $fail -eq 0 ] || exit 1
echo "served as expected: ${#want[@]} functions on $np ranks"
