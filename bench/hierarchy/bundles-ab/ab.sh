#!/usr/bin/env bash
# A/B of the block-placed bundles: weft-bench at 4 ranks on 2 virtual nodes, the tree before
# (d067693) and after, the composition forced (the model takes a flat rexch at 2 x 2), alternating, three rounds; the w/n column normalises by native in the run.
out=$1; mkdir -p "$out"
for rep in 1 2 3; do
  for tree in old new; do
    b=/tmp/oldtree/build/tools/bench/weft-bench; [ $tree = new ] && b=/work/main/build-openmpi/tools/bench/weft-bench
    for coll in allgather reduce_scatter; do
      env WEFT_VIRTUAL_NODES=2 WEFT_RECIPE=shmpipe/rexch:-2,2 mpiexec -n 4 --allow-run-as-root --oversubscribe $b $coll \
        -b 4K -e 1M -f 4 -d double --place out -w 3 -n 10 > "$out/$coll-$tree-$rep.txt" 2>&1
    done
  done
done
