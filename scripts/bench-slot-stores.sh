#!/usr/bin/env bash
# A/B of how shared-memory slots are written (docs/intra-node.md, "Cache distance"): weft-bench
# runs of every collective at 64 KiB, 1 MiB and 16 MiB on 2 ranks, with WEFT_SHM_STREAM=0
# (plain stores), 1 (streaming stores) and auto (the placement probe decides), in turn, ROUNDS
# times. Native and weft are interleaved in each run; the probe's INFO line (logged at
# communicator creation whatever the mode) records whether the ranks shared a cache then.
#   ./scripts/bench-slot-stores.sh OUTDIR [--mpi openmpi|mpich] [ROUNDS=3 in the environment]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
bench="$WEFT_BUILD/tools/bench/weft-bench"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for mode in 0 1 auto; do
    f="$outdir/stores-$mode-$WEFT_MPI-round$round.txt"
    cmd=("$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" all -b 64K -e 16M -f 16
         -d double --place out -w 3 -n 10 --csv "${f%.txt}.csv")
    { echo "# command: WEFT_SHM_STREAM=$mode WEFT_DEBUG=INFO WEFT_DEBUG_SUBSYS=COLL ${cmd[*]}"
      echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"
      WEFT_SHM_STREAM=$mode WEFT_DEBUG=INFO WEFT_DEBUG_SUBSYS=COLL "${cmd[@]}" 2>&1 |
        grep -v "recipe " ; } > "$f"
    echo "wrote $f"
  done
done
