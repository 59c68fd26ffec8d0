#!/bin/bash
# Node levels over shared memory against point-to-point ones, on the namespace cluster
# (scripts/cluster.sh): 2 hosts x 2 ranks, each host's egress shaped to 10 Gbit/s, Open MPI.
# weft-bench runs weft beside the native routine on the same buffers. Per repeat:
#   model      the cost model's choice (node levels over each host's segment where it picks
#              a hierarchical recipe);
#   model-shm0 the same with WEFT_SHM=0 (node levels point-to-point);
#   allreduce with the composition forced both ways (the model picks a flat rexch at 2 x 2).
# Usage: cluster.sh OUTDIR [REPEATS [FIRST]]   (from the repository root; takes the cluster
# down; files OUTDIR/<name>-runK.txt for K = FIRST.. FIRST + REPEATS - 1)
set -euo pipefail
out=$1
repeats=${2:-2}
first=${3:-1}
mkdir -p "$out"
./scripts/cluster.sh up --hosts 2 --rate 10gbit
export WEFT_NET_GBITS=10 WEFT_WISDOM=none
bench=build-openmpi/tools/bench/weft-bench
run() {  # NAME [env...] -- weft-bench args
  local name=$1
  shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  echo "== $name: ${envs[*]} weft-bench $*" | tee "$out/$name.txt"
  env "${envs[@]}" ./scripts/cluster-run.sh --mpi openmpi -n 4 --per-host 2 "$bench" "$@" \
    --link-gbps 10 2>&1 | grep -v "PMIX ERROR" | tee -a "$out/$name.txt"
}
for ((k = first; k < first + repeats; k++)); do
  run model-run$k WEFT_SHM=1 -- all -b 64 -e 16M -f 8 -w 3 -n 10 --place out
  run model-shm0-run$k WEFT_SHM=0 -- all -b 64 -e 16M -f 8 -w 3 -n 10 --place out
  run allreduce-shmpipe-rexch2-run$k WEFT_RECIPE=shmpipe/rexch:2 -- allreduce -b 64 -e 16M -f 8 -w 3 -n 10 --place out
  run allreduce-rexch22-rexch2-run$k WEFT_RECIPE=rexch:-2,2/rexch:2 -- allreduce -b 64 -e 16M -f 8 -w 3 -n 10 --place out
done
./scripts/cluster.sh down
