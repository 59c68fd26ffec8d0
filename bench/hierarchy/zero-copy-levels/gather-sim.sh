#!/bin/bash
# allgather and reduce_scatter at 32 x 64 (int8 blocks), predicted: the model's choice on the
# user's own buffers against its choice on weftMemAlloc buffers (zerocopy node levels), each
# replayed by weft-sim under the default model.   gather-sim.sh BUILD_DIR > gather-sim.md
set -euo pipefail
b=$1
pred() { "$b/tools/sim/weft-sim" "$@" --mem-budget-mib 1 | awk '/^predicted_us:/ {print $2}'; }
plan() { "$b/tools/plan/weft-plan" "$@" | awk '/^recipe:/ {print $2}'; }
echo "| collective | block | user buffers: choice | us | weftMemAlloc: choice | us | ratio |"
echo "|---|---|---|---|---|---|---|"
for coll in allgather reduce_scatter; do
  for n in 1024 4096 32768; do
    args=($coll -p 2048 -n $n -d int8 --topology 32x64)
    u=$(plan "${args[@]}" --no-zero-copy) z=$(plan "${args[@]}")
    ut=$(pred "${args[@]}" --no-zero-copy --recipe "$u") zt=$(pred "${args[@]}" --recipe "$z")
    echo "| $coll | $n B | $u | $ut | $z | $zt | $(awk -v a="$ut" -v b="$zt" 'BEGIN {printf "%.2f", a / b}') |"
  done
done
