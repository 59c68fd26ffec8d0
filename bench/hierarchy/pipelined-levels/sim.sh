#!/usr/bin/env bash
# Predicted allreduce times, hierarchical recipe plain and pipelined across levels, under the
# default cost model (weft-sim's timing replay), counts of doubles. Usage: bench/hierarchy/pipelined-levels/sim.sh BUILD
set -euo pipefail
sim=${1:-build-openmpi}/tools/sim/weft-sim
for shape in 32x64 8x128; do
  case $shape in
    32x64) node="rexch:-4,-4,-4,4,4,4"; net="rexch:-4,-4,-2,2,4,4"; P=2048 ;;
    8x128) node="rexch:-4,-4,-4,-2,2,4,4,4"; net="rexch:-2,-2,-2,2,2,2"; P=1024 ;;
  esac
  for n in 64K 1M; do  # counts of doubles; at 8M the pipelined replay passed 11 GiB
    for r in "$node/$net" "[$node/$net]@256K" "[$node/$net]@1M" "$node/ring" "[$node/ring]@256K"; do
      us=$($sim allreduce -p $P -n $n --topology $shape --recipe "$r" 2>&1 | awk '/predicted_us/ {print $2} /FAIL/ {print "FAIL"}')
      printf '%-6s %-4s %-44s %s\n' "$shape" "$n" "$r" "$us"
    done
  done
done
