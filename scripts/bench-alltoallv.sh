#!/usr/bin/env bash
# weft-bench alltoallv (uniform and skewed blocks, --vpattern) beside MPI_Alltoallv: on 2
# virtual nodes of 2 ranks and 3 of 2, and across 2 namespace hosts of 2 ranks at 10 Gbit/s
# (scripts/cluster.sh, brought up and down here); each with the model's choice and with the
# node-aware schedule forced (WEFT_TUNE=alltoall:*=nodea2a, which alltoallv follows). Then 3
# hosts of 2 ranks, where the model picks the node-aware schedule, against WEFT_ALLTOALLV=native. Each file
# holds its command. This machine has 2 cores: 4 and 6 ranks are oversubscribed, so compare
# columns of one file.
#   ./scripts/bench-alltoallv.sh OUTDIR [--mpi openmpi|mpich]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
bench="$WEFT_BUILD/tools/bench/weft-bench"
sizes=(-b 64 -e 4M -f 8 -d double --place out -w 3 -n 10)
record() {  # file command...
  local f="$1"; shift
  { echo "# command: $*"; echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"; "$@"; } > "$f"
  echo "wrote $f"
}
for pattern in uniform skewed; do
  for np in 4 6; do
    nodes=$((np / 2))
    for mode in model node; do
      tune=""; [ "$mode" = node ] && tune="alltoall:*=nodea2a"
      record "$outdir/vnodes${nodes}x2-$pattern-$mode-$WEFT_MPI.txt" \
        env WEFT_VIRTUAL_NODES="$nodes" WEFT_TUNE="$tune" WEFT_DEBUG=INFO WEFT_DEBUG_SUBSYS=COLL \
        "$WEFT_MPIEXEC" -n "$np" "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" alltoallv --vpattern "$pattern" \
        "${sizes[@]}"
    done
  done
done
trap '"$WEFT_ROOT/scripts/cluster.sh" down' EXIT
"$WEFT_ROOT/scripts/cluster.sh" up --hosts 2 --rate 10gbit
for pattern in uniform skewed; do
  for mode in model node; do
    tune=""; [ "$mode" = node ] && tune="alltoall:*=nodea2a"
    record "$outdir/cluster2x2-$pattern-$mode-$WEFT_MPI.txt" \
      env WEFT_TUNE="$tune" "$WEFT_ROOT/scripts/cluster-run.sh" --mpi "$WEFT_MPI" -n 4 --per-host 2 \
      "$bench" alltoallv --vpattern "$pattern" "${sizes[@]}" --link-gbps 10
  done
done
"$WEFT_ROOT/scripts/cluster.sh" down
"$WEFT_ROOT/scripts/cluster.sh" up --hosts 3 --rate 10gbit
for mode in auto native; do
  record "$outdir/cluster3x2-uniform-$mode-$WEFT_MPI.txt" \
    env WEFT_ALLTOALLV="$mode" "$WEFT_ROOT/scripts/cluster-run.sh" --mpi "$WEFT_MPI" -n 6 \
    --per-host 2 "$bench" alltoallv --vpattern uniform "${sizes[@]}" --link-gbps 10
done
