#!/bin/bash
# Measured on the namespace cluster (docs/cluster.md): allreduce at 2 hosts x 2 ranks, 10 Gbit/s
# links, Open MPI, weft against native in the same run on one weftMemAlloc arena (--memory
# shared, both sides), the model's choice and recipes forced; then the user's own buffers.
#   bench/hierarchy/zero-copy-levels/cluster.sh BUILD_DIR OUTDIR   (root; brings the cluster
#   up and down)
set -euo pipefail
build=$1 out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
"$here/scripts/cluster.sh" up --hosts 2 --rate 10gbit > /dev/null
trap '"$here/scripts/cluster.sh" down > /dev/null' EXIT
run() {  # name memory [recipe]
  local name=$1 mem=$2 recipe=${3:-}
  env WEFT_WISDOM=none ${recipe:+WEFT_RECIPE=$recipe} "$here/scripts/cluster-run.sh" \
    --mpi openmpi -n 4 --per-host 2 "$build/tools/bench/weft-bench" allreduce -b 64K -e 16M \
    -f 4 --memory "$mem" --place out -w 3 -n 10 --link-gbps 10 > "$out/$name.txt" 2>&1
}
[ -n "${WISDOM_ONLY:-}" ] || {
run shared-model shared
run shared-shmpipe shared "shmpipe/rexch:-2,2"
run shared-zerocopy shared "zerocopy/rexch:-2,2"
run shared-zerocopy-piped shared "[zerocopy/rexch:-2,2]@256K"
run host-model host
}
# WISDOM_ONLY=1 runs only this part.
# With the machine calibrated (weft-tune's parameters only: one bcast size measured), the
# model's choice again.
env WEFT_WISDOM=none "$here/scripts/cluster-run.sh" --mpi openmpi -n 4 --per-host 2 \
  "$build/tools/tune/weft-tune" --out "$out/cluster.wisdom" --colls bcast -b 8 -e 8 \
  > "$out/weft-tune.txt" 2>&1
env WEFT_WISDOM="$out/cluster.wisdom" "$here/scripts/cluster-run.sh" --mpi openmpi -n 4 \
  --per-host 2 "$build/tools/bench/weft-bench" allreduce -b 64K -e 16M -f 4 --memory shared \
  --place out -w 3 -n 10 --link-gbps 10 > "$out/shared-model-wisdom.txt" 2>&1
