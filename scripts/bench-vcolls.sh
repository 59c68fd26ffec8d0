#!/usr/bin/env bash
# The v-collectives and the scans at 2 ranks beside native MPI (weft-bench allgatherv,
# gatherv, scatterv, reduce_scatterv, alltoallv with --vpattern uniform and sparse; scan and
# exscan), in both cache regimes (--buffers hot and rotate), through the C API. One file per
# (collective, pattern, regime), each holding its command.
#   ./scripts/bench-vcolls.sh OUTDIR [--mpi openmpi|mpich]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
bench="$WEFT_BUILD/tools/bench/weft-bench"
sizes=(-b 8 -e 16M -f 8 -d double --place out -w 3 -n 10)
record() {  # file command...
  local f="$1"; shift
  { echo "# command: $*"; echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"; "$@"; } > "$f"
  echo "wrote $f"
}
for buffers in hot rotate; do
  for coll in allgatherv gatherv scatterv reduce_scatterv alltoallv; do
    for pattern in uniform sparse; do
      record "$outdir/$coll-$pattern-$buffers-$WEFT_MPI.txt" \
        "$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" "$coll" --vpattern "$pattern" \
        --buffers "$buffers" "${sizes[@]}"
    done
  done
  for coll in scan exscan; do
    record "$outdir/$coll-$buffers-$WEFT_MPI.txt" \
      "$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" "$coll" --buffers "$buffers" \
      "${sizes[@]}"
  done
done
