#!/usr/bin/env bash
# The main job: install what is missing, build, and run weft-bench for allreduce at 2 ranks,
# weft beside the system MPI's own routine in one run, in both cache regimes: hot (one buffer
# reused by every call, as OSU, IMB and nccl-tests measure) and rotated (buffers cycling through
# twice the last-level cache, as an application whose data does not stay in cache sees). Prints
# both tables and writes CSV files and plots.
#   ./scripts/demo.sh [--mpi openmpi|mpich] [extra weft-bench flags, e.g. -e 16M -d float]
# Files: out/bench-allreduce-<mpi>-<hot|rotate>.{csv,png}.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
trap weft_phase_report EXIT
weft_install_deps
weft_build
out="${WEFT_OUT:-$WEFT_ROOT/out}"  # WEFT_OUT: where the CSV files and plots go
mkdir -p "$out"
for buffers in hot rotate; do
  csv="$out/bench-allreduce-$WEFT_MPI-$buffers.csv"
  png="$out/bench-allreduce-$WEFT_MPI-$buffers.png"
  echo "== weft-bench allreduce, 2 ranks, $WEFT_MPI, buffers $buffers"
  t0=$SECONDS
  "$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$WEFT_BUILD/tools/bench/weft-bench" allreduce \
    -b 8 -e 64M -f 2 -d double -o sum -w 5 -n 20 --buffers "$buffers" --csv "$csv" "${WEFT_ARGS[@]}"
  weft_phase_done "bench ($buffers)" $t0
  /usr/bin/python3 "$WEFT_ROOT/tools/bench/plot_bench.py" "$csv" "$png" \
    --title "weft vs $WEFT_MPI, allreduce, 2 ranks, $buffers buffers ($(hostname))"
  echo "== CSV: $csv; plot: $png"
done
