#!/usr/bin/env bash
# Runs weft-bench (the main job) at 2 ranks over every collective, small sizes, both places,
# and checks what a user reads from it: exit status 0 (it exits 1 on any wrong element or
# failure), no wrong elements, a native and a weft row in the CSV for every collective, the
# copy bandwidth measured at the start and the end, and a floor column on every table row.
# usage: check_bench.sh WEFT_BENCH MPIEXEC [mpiexec flags...]
set -euo pipefail
bench=$1; mpiexec=$2; shift 2
work=$(mktemp -d /tmp/weft-bench-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$mpiexec" -n 2 "$@" "$bench" all -b 8 -e 64K -f 32 -d double --place both -w 2 -n 5 \
  --csv "$work/out.csv" > "$work/out.txt"
cat "$work/out.txt"
fail() { echo "check_bench: $*" >&2; exit 1; }
grep -q "^# wrong elements: weft 0, native 0" "$work/out.txt" || fail "wrong elements reported"
grep -q "^# node copy bandwidth: [0-9.]* GB/s" "$work/out.txt" || fail "no start bandwidth"
grep -q "^# node copy bandwidth at the end: [0-9.]* GB/s" "$work/out.txt" || fail "no end bandwidth"
for c in allreduce reduce_scatter allgather broadcast reduce alltoall alltoallv allgatherv gatherv \
         scatterv reduce_scatterv; do
  for impl in native weft; do
    # 8 B, 256 B, 8 KiB out of place and in place (the kinds of P blocks per rank skip 8 B: one
    # element per rank needs 16 B).
    n=$(grep -c "^$c,[0-9]*,[0-9]*,double,[a-z]*,-\?[0-9]*,[01],$impl," "$work/out.csv" || true)
    [ "$n" -ge 4 ] || fail "$c: $n $impl rows in the CSV, expected at least 4"
  done
done
# Every table row ends in two floor percentages.
rows=$(grep -c "^ *[0-9]" "$work/out.txt" || true)
floors=$(grep -cE "^ *[0-9].*[0-9.]+x +[0-9.]+% +[0-9.]+%$" "$work/out.txt" || true)
[ "$rows" -ge 24 ] && [ "$rows" -eq "$floors" ] || fail "$rows table rows, $floors with floor columns"
echo "check_bench: ok ($rows rows)"
