#!/bin/bash
# usage: run.sh PLAN OUT
PLAN=$1; OUT=$2; : > $OUT
for topo in "2:" "4:" "8:" "4:2x2" "8:2x4" "16:4x4" "32:4x8" "32:8x4"; do
  p=${topo%%:*}; t=${topo#*:}; targ=""; [ -n "$t" ] && targ="--topology $t"
  for coll in allreduce reduce_scatter allgather bcast reduce alltoall; do
    for bytes in 8 1024 65536 1048576 16777216; do
      n=$((bytes/4)); [ $n -lt 1 ] && n=1
      case $coll in reduce_scatter|allgather|alltoall) n=$((n/p)); [ $n -lt 2 ] && n=2;; esac
      for zc in "" "--no-zero-copy"; do
        r=$($PLAN $coll -p $p -n $n -d fp32 $targ $zc 2>&1 | grep "^recipe:" | sed 's/ (chosen.*//; s/recipe: //')
        echo "$coll p=$p topo=$t n=$n $zc | $r" >> $OUT
      done
    done
  done
done
