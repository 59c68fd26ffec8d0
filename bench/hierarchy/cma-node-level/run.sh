#!/usr/bin/env bash
# The cma node level (the user's own buffers read by single copy) against the other node
# levels and the flat exchange, allreduce 64 KiB-4 MiB at 4 ranks: on 2 virtual nodes of one
# machine, and on the namespace cluster (2 hosts x 2 ranks, egress shaped to 10 Gbit/s), each
# recipe forced in turn, twice, weft beside native MPI in every run.
#   bench/hierarchy/cma-node-level/run.sh BUILD_DIR OUTDIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$(realpath "$1")/tools/bench/weft-bench
out=$2
mkdir -p "$out"
recipes=("" "shmpipe/rexch:-2,2" "cma/rexch:-2,2" "[cma/rexch:-2,2]@64K" "rexch:-2,-2,2,2")
flags=(allreduce -b 64K -e 4M -f 4 -w 3 -n 10 --place out)
for rep in 1 2; do
  for r in "${recipes[@]}"; do
    echo "== vnodes2 recipe='${r:-default}' run $rep"
    mpiexec -n 4 --allow-run-as-root --oversubscribe -x WEFT_VIRTUAL_NODES=2 \
      ${r:+-x WEFT_RECIPE=$r} "$bench" "${flags[@]}"
  done
done > "$out/vnodes2.txt" 2>&1
"$root/scripts/cluster.sh" up --hosts 2 --rate 10gbit
for rep in 1 2; do
  for r in "${recipes[@]}"; do
    echo "== cluster-10gbit recipe='${r:-default}' run $rep"
    env WEFT_NET_GBITS=10 ${r:+WEFT_RECIPE=$r} "$root/scripts/cluster-run.sh" -n 4 --per-host 2 \
      "$bench" "${flags[@]}" --link-gbps 10 2>&1 | grep -v "PMIX ERROR"
  done
done > "$out/cluster-10gbit.txt" 2>&1
"$root/scripts/cluster.sh" down
