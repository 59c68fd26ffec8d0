#!/bin/bash
# Predicted times of the cost model's choice across nodes, with the node levels allowed over
# each node's segment (the library's default) and without (--no-node-shm, as WEFT_SHM=0 makes
# them). weft-sim's timing replay under the default model; data checked at a count that fits.
# Usage: sim.sh BUILD_DIR > sim.txt
set -euo pipefail
sim="${1:-build-openmpi}/tools/sim/weft-sim"
row() {  # coll topology count
  local a b
  a=$("$sim" "$1" -n "$3" --topology "$2" --mem-budget-mib 2048 | awk '/^recipe:/{r=$2}/^predicted_us:/{p=$2}END{print r, p}')
  b=$("$sim" "$1" -n "$3" --topology "$2" --mem-budget-mib 2048 --no-node-shm | awk '/^recipe:/{r=$2}/^predicted_us:/{p=$2}END{print r, p}')
  set -- "$1" "$2" "$3" $a $b
  printf '%-14s %-6s %8s  %-28s %10s  %-40s %10s  %5.2fx\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
    "$(echo "$7 / $5" | bc -l)"
}
printf '%-14s %-6s %8s  %-28s %10s  %-40s %10s  %6s\n' coll topo count "node shm: recipe" us \
  "point-to-point: recipe" us gain
for topo in 4x16 8x64 32x64; do
  for n in 1 1024 65536 1048576; do
    for c in allreduce bcast reduce; do row $c $topo $n; done
  done
  for n in 1 64 1024; do
    for c in reduce_scatter allgather; do row $c $topo $n; done
  done
done
