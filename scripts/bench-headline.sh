#!/usr/bin/env bash
# The README's headline table: scripts/demo.sh (weft-bench allreduce, 2 ranks, 8 B-64 MiB, both
# cache regimes) against Open MPI and against MPICH, ROUNDS times each (default 1), MPIs
# alternating; writes each run's tables, CSV files and plots, and table.md (speedups per run).
#   ./scripts/bench-headline.sh OUTDIR [extra weft-bench flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1"); shift
mkdir -p "$out"
: > "$out/table.md"
for round in $(seq 1 "${ROUNDS:-1}"); do
  for mpi in openmpi mpich; do
    dir=$out/round$round
    mkdir -p "$dir"
    echo "== round $round, $mpi"
    WEFT_OUT=$dir "$root/scripts/demo.sh" --mpi "$mpi" "$@" > "$dir/demo-$mpi.txt" 2>&1 ||
      { cat "$dir/demo-$mpi.txt"; exit 1; }
  done
  { echo "Round $round (out of place, in place in parentheses):"; echo
    /usr/bin/python3 "$root/tools/bench/headline_table.py" "$out/round$round"; echo; } >> "$out/table.md"
done
cat "$out/table.md"
