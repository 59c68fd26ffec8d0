#!/usr/bin/env bash
# Nonblocking collectives at 2 ranks, weft beside the MPI's native routine in one run:
# weft-bench blocking and --nonblocking (post, then wait), alternated BENCH_REPEAT times (3) so
# drift falls on both, and once with --overlap (OSU's overlap per size and side).
#   ./scripts/bench-nonblocking.sh OUTDIR [--mpi openmpi|mpich] [weft-bench flags]
# Writes OUTDIR/<mpi>-{blocking,nonblocking}-runK.{txt,csv}, OUTDIR/<mpi>-overlap.txt and
# OUTDIR/<mpi>-summary.md (medians over the runs: tools/bench/summarize_runs.py, and weft's
# nonblocking time over its blocking time per size).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=$1
shift
weft_bench_start "$out" "$@"
bench="$WEFT_BUILD/tools/bench/weft-bench"
flags=(allreduce -b 8 -e 16M -f 4 -w 3 -n 15 --place out "${WEFT_ARGS[@]}")
repeat=${BENCH_REPEAT:-3}
base="$WEFT_OUTDIR/$WEFT_MPI"
for ((k = 1; k <= repeat; k++)); do
  for mode in blocking nonblocking; do
    extra=()
    [ "$mode" = nonblocking ] && extra=(--nonblocking)
    echo "== $mode run $k"
    "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n 2 "$bench" "${flags[@]}" "${extra[@]}" \
      --csv "$base-$mode-run$k.csv" > "$base-$mode-run$k.txt"
  done
done
# Back-to-back calls (--timing loop) from 64 KiB: the steadier measure of weft's nonblocking
# path against its blocking one (per-call timing here swings by 1.5x between runs).
for ((k = 1; k <= repeat; k++)); do
  for mode in blocking nonblocking; do
    extra=()
    [ "$mode" = nonblocking ] && extra=(--nonblocking)
    echo "== loop $mode run $k"
    "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n 2 "$bench" allreduce -b 64K -e 4M -f 4 -w 3 \
      -n 20 --place out --timing loop "${extra[@]}" --csv "$base-loop-$mode-run$k.csv" \
      > "$base-loop-$mode-run$k.txt"
  done
done
echo "== overlap"
"$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n 2 "$bench" all -b 1K -e 4M -f 8 -w 3 -n 15 \
  --place out --nonblocking --overlap -c 0 > "$base-overlap.txt"
{
  echo "# $WEFT_MPI, 2 ranks, weft $(git -C "$WEFT_ROOT" rev-parse --short HEAD), $(date -u +%F)"
  echo
  echo "## blocking calls (medians of $repeat runs)"
  python3 "$WEFT_ROOT/tools/bench/summarize_runs.py" "$base"-blocking-run*.csv
  echo
  echo "## nonblocking calls (post, then wait; medians of $repeat runs)"
  python3 "$WEFT_ROOT/tools/bench/summarize_runs.py" "$base"-nonblocking-run*.csv
  echo
  echo "## weft nonblocking / weft blocking (median times)"
  python3 - "$base" "$repeat" << 'PY'
import csv, statistics, sys
base, repeat = sys.argv[1], int(sys.argv[2])
def table(prefix, title):
    blk, nb = medians(prefix + "blocking"), medians(prefix + "nonblocking")
    print(title)
    print()
    print("| bytes | blocking us | nonblocking us | nonblocking / blocking |")
    print("|---:|---:|---:|---:|")
    for b in sorted(blk):
        print(f"| {b} | {blk[b]:.2f} | {nb[b]:.2f} | {nb[b] / blk[b]:.3f} |")
    print()
def medians(mode):
    t = {}
    for k in range(1, repeat + 1):
        for row in csv.DictReader(open(f"{base}-{mode}-run{k}.csv")):
            if row["impl"] == "weft":
                t.setdefault(int(row["bytes"]), []).append(float(row["time_us"]))
    return {b: statistics.median(v) for b, v in t.items()}
table("", "each call timed alone after a barrier:")
table("loop-", "blocks of 20 calls back to back (--timing loop):")
PY
} > "$base-summary.md"
cat "$base-summary.md"
