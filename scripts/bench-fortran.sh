#!/usr/bin/env bash
# The Fortran mini-application (examples/fortran/cg_transpose.F90: MPI_Allreduce of one double
# twice a conjugate-gradient step, MPI_Alltoall of large complex blocks every 10th step) run
# natively and unmodified under weftrun, alternating, ROUNDS rounds at 2 ranks, for two
# transpose block sizes, transposing every 10th step (the field cold from the solver's work in
# between) and every step (warm). Each run's results must be the native run's; the table gives
# the medians of the slowest rank's microseconds and native over weft. Per-call times include
# waiting for the other rank to arrive; the time per iteration is what the program feels.
#   ./scripts/bench-fortran.sh OUTDIR [--mpi openmpi|mpich]   (ROUNDS=5 by default)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
app="$WEFT_BUILD/examples/fortran/cg_transpose"
[ -x "$app" ] || { echo "no $app: the build found no MPI Fortran wrapper (install gfortran)" >&2; exit 1; }
rounds=${ROUNDS:-5}
out="$WEFT_OUTDIR/cg_transpose-$WEFT_MPI.txt"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for config in 4096:10 65536:10 4096:1 65536:1; do
  block=${config%:*} every=${config#*:}
  args=(--local 20000 --iters 400 --block "$block" --transpose-every "$every" --time)
  for round in $(seq "$rounds"); do
    for mode in native weft; do
      launcher=("$WEFT_MPIEXEC"); [ "$mode" = weft ] && launcher=("$WEFT_BUILD/weftrun")
      result=$("${launcher[@]}" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$app" "${args[@]}")
      echo "$result" | grep -v '^time_us' | sed "s/^/$config $mode result /" >> "$raw"
      echo "$result" | grep '^time_us' | sed "s/^/$config $mode /" >> "$raw"
    done
  done
done
{
  echo "# command: scripts/bench-fortran.sh OUTDIR --mpi $WEFT_MPI (ROUNDS=$rounds)"
  echo "# app: mpiexec -n 2 cg_transpose --local 20000 --iters 400 --block B --transpose-every T --time"
  echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)$(git -C "$WEFT_ROOT" diff --quiet || echo ' (modified)')"
  echo "# host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  python3 - "$raw" "$rounds" << 'PY'
import statistics, sys
rows, results = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    block, every = map(int, f[0].split(":"))
    mode = f[1]
    if f[2] == "result":
        results.setdefault((block, every, mode), set()).add(" ".join(f[3:]))
        continue
    vals = dict(zip(f[3::2], map(float, f[4::2])))
    for k, v in vals.items():
        rows.setdefault((block, every, k), {}).setdefault(mode, []).append(v)
same = all(results[(b, e, "weft")] == results[(b, e, "native")] for b, e, m in results
           if m == "native")
print(f"# results identical to native in every run: {'yes' if same else 'NO'}")
print(f"# medians of {sys.argv[2]} rounds, the slowest rank's microseconds; ratio native/weft (>1: weft faster)")
print("| alltoall block | transpose every | measure | native us | weft us | native/weft |")
print("|---|---|---|---|---|---|")
for (block, every, k), m in sorted(rows.items(), key=lambda r: (-r[0][1], r[0][0], r[0][2])):
    n, w = statistics.median(m["native"]), statistics.median(m["weft"])
    kib = block * 16 // 1024
    print(f"| {kib} KiB | {every} | {k} | {n:.1f} | {w:.1f} | {n / w:.2f} |")
PY
} > "$out"
cat "$out"
grep -q "identical to native in every run: yes" "$out"
