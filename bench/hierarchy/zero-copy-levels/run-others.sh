#!/bin/bash
# Measured: reduce_scatter, allgather and bcast at 4 ranks as 2 virtual nodes of 2 (this 2-core
# VM), on one weftMemAlloc arena (--memory shared, both sides), weft's zerocopy node levels
# forced against the segment's (shmpipe), native in the same run.
#   bench/hierarchy/zero-copy-levels/run-others.sh BUILD_DIR OUTDIR
set -euo pipefail
build=$1 out=$2
mkdir -p "$out"
run() {  # collective recipe name
  env WEFT_VIRTUAL_NODES=2 WEFT_WISDOM=none WEFT_RECIPE="$2" mpiexec -n 4 --allow-run-as-root \
    --oversubscribe -x WEFT_VIRTUAL_NODES -x WEFT_WISDOM -x WEFT_RECIPE \
    "$build/tools/bench/weft-bench" "$1" -b 64K -e 4M -f 4 --memory shared --place out -w 3 \
    -n 10 > "$out/$1-$3.txt" 2>&1
}
for coll in reduce_scatter allgather; do
  run $coll "zerocopy/rexch:-2,2" zerocopy
  run $coll "shmpipe/rexch:-2,2" shmpipe
done
run broadcast "zerocopy/tree:2" zerocopy
run broadcast "shmpipe/tree:2" shmpipe
