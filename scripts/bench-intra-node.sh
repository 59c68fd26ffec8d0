#!/usr/bin/env bash
# The intra-node tables of bench/: weft-bench runs, each repeated REPEATS times (this machine's
# runs are bimodal, see docs/intra-node.md), written under OUTDIR with the command in each file.
#   ./scripts/bench-intra-node.sh OUTDIR [--mpi openmpi|mpich] [REPEATS=3 in the environment]
# BENCHES (environment, default all) picks runs by name: allreduce-np2 all-np2 all-np4
# latency-np2 (8 B-4 KiB, back-to-back calls) shared-np2 (buffers from weftMemAlloc).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
repeats="${REPEATS:-3}"
bench="$WEFT_BUILD/tools/bench/weft-bench"
benches="${BENCHES:-allreduce-np2 all-np2 all-np4 latency-np2 shared-np2}"
run() {  # name ranks args...
  local name="$1" np="$2"; shift 2
  [[ " $benches " == *" $name "* ]] || return 0
  for i in $(seq 1 "$repeats"); do
    local f="$outdir/$name-$WEFT_MPI-run$i.txt"
    local cmd=("$WEFT_MPIEXEC" -n "$np" "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" "$@" --csv "${f%.txt}.csv")
    { echo "# command: ${cmd[*]}"; echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"; "${cmd[@]}"; } > "$f"
    echo "wrote $f"
  done
}
run allreduce-np2 2 allreduce -b 8 -e 64M -f 4 -d double --place both -w 5 -n 20
run all-np2 2 all -b 8 -e 16M -f 8 -d double --place out -w 5 -n 20
run all-np4 4 all -b 8 -e 4M -f 16 -d double --place out -w 3 -n 10
run latency-np2 2 all -b 8 -e 4K -f 8 -d double --place out -w 200 -n 2000 --timing loop
run shared-np2 2 all -b 64K -e 16M -f 4 -d double --place out -w 3 -n 10 --memory shared
