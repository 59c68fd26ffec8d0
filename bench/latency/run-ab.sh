#!/usr/bin/env bash
# A/B of two libweft.so builds under one weft-bench binary (LD_LIBRARY_PATH), native MPI and
# weft in every run, rounds alternating old/new. OLD_<mpi> and NEW_<mpi> are the library
# folders; OUT the folder for the outputs (default: this script's); run from the repository
# root:
#   OLD_openmpi=/tmp/wt-093/build-openmpi/src NEW_openmpi=build-openmpi/src \
#   OLD_mpich=/tmp/wt-093/build-mpich/src NEW_mpich=build-mpich/src \
#   bench/latency/run-ab.sh
set -euo pipefail
out=${OUT:-$(dirname "$0")}
mkdir -p "$out"
for mpi in openmpi mpich; do
  old=OLD_$mpi new=NEW_$mpi
  if [ $mpi = openmpi ]; then run=(mpiexec.openmpi --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH)
  else run=(mpiexec.mpich -genvall); fi
  bench=build-$mpi/tools/bench/weft-bench
  for round in 1 2 3; do
    for lib in old new; do
      dir=${!old}; [ $lib = new ] && dir=${!new}
      export LD_LIBRARY_PATH=$(realpath "$dir")
      "${run[@]}" -n 2 $bench all -b 8 -e 4K -f 8 -d double --place out -w 200 -n 2000 \
        --timing loop > "$out/loop-np2-$mpi-$lib-$round.txt" 2>&1
      "${run[@]}" -n 2 $bench all -b 8 -e 4K -f 8 -d double --place out -w 100 -n 2000 \
        > "$out/percall-np2-$mpi-$lib-$round.txt" 2>&1
      "${run[@]}" -n 4 $bench broadcast -b 8 -e 4K -f 8 -d double --place out -w 50 -n 500 \
        > "$out/percall-np4-bcast-$mpi-$lib-$round.txt" 2>&1
      unset LD_LIBRARY_PATH
    done
  done
done
