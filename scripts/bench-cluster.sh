#!/usr/bin/env bash
# weft-bench across the namespace hosts (scripts/cluster.sh), weft beside the MPI's native
# routine in one run: every collective at 2 hosts x 2 ranks with each host's link shaped to
# 10 Gbit/s and unshaped, and at 2 hosts x 1 rank shaped (the layout that does not
# oversubscribe a 2-core machine); under Open MPI each again with HAN as the native side.
#   ./scripts/bench-cluster.sh OUTDIR [--mpi openmpi|mpich] [weft-bench flags]
# Writes OUTDIR/<mpi>-<layout>-<link>[-han][-runK].{txt,csv} and OUTDIR/conditions-<mpi>.txt
# (link latency, one TCP stream's rate, cores, versions); takes the cluster down at the end.
# Shaped runs set WEFT_NET_GBITS to the rate (weft's cost model then knows the link).
# BENCH_LINKS (default "10gbit unshaped") and BENCH_LAYOUTS ("2x2 2x1"; 2x1 runs shaped only)
# choose a subset; BENCH_REPEAT=N runs each N times (files -run1..N) for medians
# (tools/bench/summarize_runs.py).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=$1
shift
weft_bench_start "$out" "$@"
bench_flags=(all -b 64 -e 16M -f 8 -w 3 -n 10 --place out "${WEFT_ARGS[@]}")
cond="$WEFT_OUTDIR/conditions-$WEFT_MPI.txt"
{
  echo "date: $(date -u +%FT%TZ)"; echo "cores: $(nproc)"; echo "kernel: $(uname -r)"
  echo "mpi: $("$WEFT_MPIEXEC" --version 2>&1 | head -1)"
  echo "weft: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"
  echo "weft-bench flags: ${bench_flags[*]}"
} > "$cond"
repeat=${BENCH_REPEAT:-1}
run() {  # NAME NP PER_HOST [env...]: weft-bench, BENCH_REPEAT times
  local name=$1 np=$2 per_host=$3 k file
  shift 3
  for ((k = 1; k <= repeat; k++)); do
    file="$WEFT_OUTDIR/$WEFT_MPI-$name"
    [ "$repeat" -gt 1 ] && file+="-run$k"
    echo "== $(basename "$file")"
    env "$@" "$WEFT_ROOT/scripts/cluster-run.sh" --mpi "$WEFT_MPI" -n "$np" --per-host "$per_host" \
      "$WEFT_BUILD/tools/bench/weft-bench" "${bench_flags[@]}" $link_flag --csv "$file.csv" 2>&1 |
      grep -v "PMIX ERROR" | tee "$file.txt"
  done
}
layouts=" ${BENCH_LAYOUTS:-2x2 2x1} "
for link in ${BENCH_LINKS:-10gbit unshaped}; do
  if [ $link = unshaped ]; then
    "$WEFT_ROOT/scripts/cluster.sh" up --hosts 2; link_flag=""
  else
    "$WEFT_ROOT/scripts/cluster.sh" up --hosts 2 --rate $link; link_flag="--link-gbps ${link%gbit}"
  fi
  # weft's cost model is told the link's rate where it is shaped (the machine fact a user
  # states, as with --link-gbps); unshaped, it keeps its default (100 Gbit/s).
  if [ $link = unshaped ]; then unset WEFT_NET_GBITS; else export WEFT_NET_GBITS=${link%gbit}; fi
  "$WEFT_ROOT/scripts/cluster.sh" status | sed "s/^/[$link] /" >> "$cond"
  # One TCP stream weft-h1 -> weft-h2: what the kernel carries on these cores, the ceiling
  # under any MPI's TCP transport.
  tp=$WEFT_ROOT/tools/cluster/tcp_throughput.py
  "$WEFT_ROOT/scripts/cluster-agent.sh" weft-h2 "python3 $tp serve 5201" &
  echo "[$link] tcp stream weft-h1 -> weft-h2: $("$WEFT_ROOT/scripts/cluster-agent.sh" weft-h1 \
    "python3 $tp send weft-h2 5201 2048")" >> "$cond"
  wait
  if [[ "$layouts" == *" 2x2 "* ]]; then
    run 2x2-$link 4 2
    [ "$WEFT_MPI" = openmpi ] && run 2x2-$link-han 4 2 OMPI_MCA_coll_han_priority=100
  fi
  if [[ "$layouts" == *" 2x1 "* && $link != unshaped ]]; then
    run 2x1-$link 2 1
    [ "$WEFT_MPI" = openmpi ] && run 2x1-$link-han 2 1 OMPI_MCA_coll_han_priority=100
  fi
done
"$WEFT_ROOT/scripts/cluster.sh" down
echo "== tables and CSV in $WEFT_OUTDIR"
