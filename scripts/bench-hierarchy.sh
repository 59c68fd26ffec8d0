#!/usr/bin/env bash
# Real runs across (virtual) nodes: weft-bench at 4 ranks on 2 virtual nodes of 2, placed in
# blocks and round-robin, for the collectives that have node-aware recipes, with the cost
# model's choice and with each node-aware or hierarchical recipe forced; each file holds its
# command. On this 2-core machine 4 ranks are oversubscribed: compare columns of one file.
#   ./scripts/bench-hierarchy.sh OUTDIR [--mpi openmpi|mpich]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
bench="$WEFT_BUILD/tools/bench/weft-bench"
run() {  # name placement recipe collective args...
  local name="$1" placement="$2" recipe="$3"; shift 3
  local f="$outdir/$name-$WEFT_MPI.txt"
  local cmd=(env WEFT_VIRTUAL_NODES=2 WEFT_VIRTUAL_PLACEMENT="$placement" WEFT_RECIPE="$recipe"
             "$WEFT_MPIEXEC" -n 4 "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" "$@" --csv "${f%.txt}.csv")
  { echo "# command: ${cmd[*]}"; echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"; "${cmd[@]}"; } > "$f"
  echo "wrote $f"
}
sizes=(-b 8 -e 1M -f 8 -d double --place out -w 3 -n 10)
for placement in block rr; do
  run "alltoall-model-$placement" "$placement" "" alltoall "${sizes[@]}"
  run "alltoall-nodea2a-$placement" "$placement" nodea2a:4 alltoall "${sizes[@]}"
  run "alltoall-pairwise-$placement" "$placement" pairwise:4 alltoall "${sizes[@]}"
  for coll in allreduce reduce_scatter allgather; do
    run "$coll-model-$placement" "$placement" "" "$coll" "${sizes[@]}"
    run "$coll-hier-$placement" "$placement" "rexch:-2,2/rexch:-2,2" "$coll" "${sizes[@]}"
  done
done
