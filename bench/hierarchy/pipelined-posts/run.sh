#!/bin/bash
# Measured: reduce_scatter and allgather at 4 ranks as 2 virtual nodes of 2 (this 2-core VM,
# oversubscribed), weft against native MPI in the same run, buffers from weftMemAlloc
# (--memory shared, both sides): the model's choice, and the zerocopy composition forced
# unchunked and pipelined across levels.
#   bench/hierarchy/pipelined-posts/run.sh BUILD_DIR OUTDIR
set -euo pipefail
build=$1 out=$2
mkdir -p "$out"
run() {  # name collective [recipe]
  local name=$1 coll=$2 recipe=${3:-}
  env WEFT_VIRTUAL_NODES=2 WEFT_WISDOM=none ${recipe:+WEFT_RECIPE=$recipe} \
    mpiexec -n 4 --allow-run-as-root --oversubscribe -x WEFT_VIRTUAL_NODES -x WEFT_WISDOM \
    ${recipe:+-x WEFT_RECIPE} "$build/tools/bench/weft-bench" "$coll" -b 64K -e 4M -f 4 \
    --memory shared --place out -w 3 -n 10 > "$out/$name.txt" 2>&1
}
for coll in reduce_scatter allgather; do
  run "$coll-model" "$coll"
  run "$coll-zerocopy" "$coll" "zerocopy/rexch:-2,2"
  run "$coll-zerocopy-piped" "$coll" "[zerocopy/rexch:-2,2]@64K"
done
