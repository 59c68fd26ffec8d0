#!/bin/bash
# Measured: allreduce at 4 ranks as 2 virtual nodes of 2 (this 2-core VM, oversubscribed),
# weft against native MPI in the same run, buffers from weftMemAlloc (--memory shared, both
# sides) or the user's own (--memory host); the model's choice and recipes forced.
#   bench/hierarchy/zero-copy-levels/run.sh BUILD_DIR OUTDIR
set -euo pipefail
build=$1 out=$2
mkdir -p "$out"
run() {  # name memory [recipe]
  local name=$1 mem=$2 recipe=${3:-}
  env WEFT_VIRTUAL_NODES=2 WEFT_WISDOM=none ${recipe:+WEFT_RECIPE=$recipe} \
    mpiexec -n 4 --allow-run-as-root --oversubscribe -x WEFT_VIRTUAL_NODES -x WEFT_WISDOM \
    ${recipe:+-x WEFT_RECIPE} "$build/tools/bench/weft-bench" allreduce -b 64K -e 16M -f 4 \
    --memory "$mem" -w 3 -n 10 > "$out/$name.txt" 2>&1
}
run host-model host
run shared-model shared
run shared-shmpipe shared "shmpipe/rexch:-2,2"
run shared-zerocopy shared "zerocopy/rexch:-2,2"
run shared-zerocopy-piped shared "[zerocopy/rexch:-2,2]@64K"
