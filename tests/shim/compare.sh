#!/usr/bin/env bash
# Runs an unmodified MPI program natively and under the interposer (through weftrun) and
# requires identical output, stdout and stderr alike: at default settings weft prints nothing
# unless something is wrong. weft's INFO log goes to files, which must show the interposer was
# active and hold no WARN line.
# usage: compare.sh WEFTRUN MPIEXEC NP PROGRAM [args] -- [mpiexec flags]
# WEFTRUN and MPIEXEC may be command lines (split at spaces), e.g. scripts/cluster-run.sh with
# its options, to run across the namespace hosts.
set -euo pipefail
read -r -a weftrun <<< "$1"
read -r -a mpiexec <<< "$2"
np=$3 prog=$4
shift 4
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
[ $# -gt 0 ] && shift
flags=("$@")
work=$(mktemp -d /tmp/weft-shim.XXXXXX)
trap 'rm -rf "$work"' EXIT
"${mpiexec[@]}" -n "$np" "${flags[@]}" "$prog" "${args[@]}" > "$work/native.out" 2> "$work/native.err" ||
  { echo "native run failed"; cat "$work/native.err"; exit 1; }
WEFT_DEBUG=INFO WEFT_DEBUG_SUBSYS=SHIM WEFT_DEBUG_FILE="$work/weft.%p.log" \
  "${weftrun[@]}" -n "$np" "${flags[@]}" "$prog" "${args[@]}" > "$work/shim.out" 2> "$work/shim.err" ||
  { echo "interposed run failed"; cat "$work/shim.err"; cat "$work"/weft.*.log 2> /dev/null | tail -20; exit 1; }
cat "$work"/weft.*.log > "$work/weft.log" 2> /dev/null || true
grep -q "interposer active" "$work/weft.log" || { echo "the interposer was not loaded"; cat "$work/shim.err"; exit 1; }
if ! diff -u "$work/native.out" "$work/shim.out" > "$work/diff"; then
  echo "stdout differs (native vs interposed):"; head -40 "$work/diff"; exit 1
fi
if ! diff -u "$work/native.err" "$work/shim.err" > "$work/diff"; then
  echo "stderr differs (native vs interposed):"; head -40 "$work/diff"; exit 1
fi
if grep " weft WARN " "$work/weft.log"; then echo "weft warned in a run that should be clean"; exit 1; fi
echo "identical: $(wc -l < "$work/native.out") lines; fallbacks noted: $(grep -c -- '-> native' "$work/weft.log" || true)"
