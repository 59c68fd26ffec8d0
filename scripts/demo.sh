#!/usr/bin/env bash
# The main job: install what is missing, build, and run weft-bench for allreduce at 2 ranks,
# weft beside the system MPI's own routine in one run; prints the table, writes CSV and a plot.
#   ./scripts/demo.sh [--mpi openmpi|mpich] [extra weft-bench flags, e.g. -e 16M -d float]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
weft_install_deps
weft_build
out="$WEFT_ROOT/out"
mkdir -p "$out"
csv="$out/bench-allreduce-$WEFT_MPI.csv"
png="$out/bench-allreduce-$WEFT_MPI.png"
echo "== weft-bench allreduce, 2 ranks, $WEFT_MPI"
"$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$WEFT_BUILD/tools/bench/weft-bench" allreduce \
  -b 8 -e 64M -f 2 -d double -o sum -w 5 -n 20 --csv "$csv" "${WEFT_ARGS[@]}"
/usr/bin/python3 "$WEFT_ROOT/tools/bench/plot_bench.py" "$csv" "$png" \
  --title "weft vs $WEFT_MPI, allreduce, 2 ranks ($(hostname))"
echo "== table: above; CSV: $csv; plot: $png"
