#!/usr/bin/env bash
# Regret before and after tuning (docs/tuning.md), per configuration: weft-tune --regret with
# no wisdom (the cost model alone, WEFT_WISDOM=none), then weft-tune writing wisdom, then
# --regret again with that wisdom; and the simulator's prediction for every point-to-point
# recipe timed in the first run, under the calibrated parameters, against the measurement.
# Each file holds its command.
#   ./scripts/bench-tuning.sh OUTDIR [--mpi openmpi|mpich]
# Configurations: 2 ranks on one node (8 B-64 MiB); 4 ranks on 2 virtual nodes of 2
# (8 B-16 MiB: 4 ranks on this 2-core machine are oversubscribed and slow).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
tune="$WEFT_BUILD/tools/tune/weft-tune"
sim="$WEFT_BUILD/tools/sim/weft-sim"
tree=$(git -C "$WEFT_ROOT" rev-parse --short HEAD)

config() {  # name ranks vnodes topology end
  local name="$1" np="$2" vnodes="$3" topo="$4" end="$5"
  local d="$outdir/$name-$WEFT_MPI" sizes=(-b 8 -e "$end" -f 4)
  mkdir -p "$d"
  step() {  # file wisdom args...
    local f="$1" wisdom="$2"; shift 2
    local cmd=(env WEFT_VIRTUAL_NODES="$vnodes" WEFT_WISDOM="$wisdom"
               "$WEFT_MPIEXEC" -n "$np" "${WEFT_MPIEXEC_FLAGS[@]}" "$tune" "$@")
    { echo "# command: ${cmd[*]}"; echo "# tree: $tree"; "${cmd[@]}" 2>/dev/null; } > "$d/$f"
    echo "wrote $d/$f"
  }
  step regret-model.txt none --regret "${sizes[@]}" --csv "$d/regret-model.csv"
  step tune.txt none --out "$d/wisdom" "${sizes[@]}"
  step regret-wisdom.txt "$d/wisdom" --regret "${sizes[@]}" --csv "$d/regret-wisdom.csv"
  # Predicted against measured: point-to-point recipes of the model run (the simulator has no
  # model of the shared-memory schedules' cache behaviour; docs/intra-node.md).
  {
    echo "# weft-sim --wisdom $d/wisdom (calibrated parameters) against $d/regret-model.csv"
    printf "%-15s %10s  %-26s %12s %12s %9s\n" collective bytes recipe measured_us predicted_us pred/meas
    tail -n +2 "$d/regret-model.csv" | while IFS=, read -r coll bytes recipe us model def; do
      [ "$def" = 0 ] || continue
      case "$recipe" in oneshot|shmpipe*|cma*|zerocopy*) continue ;; esac
      local topo_args=()
      [ "$topo" = 1 ] || topo_args=(--topology "$topo")
      local p
      p=$("$sim" "$coll" -p "$np" -n $((bytes / 4)) -d float --recipe "$recipe" "${topo_args[@]}" \
            --wisdom "$d/wisdom" --mem-budget-mib 64 | sed -n 's/^predicted_us: //p')
      awk -v c="$coll" -v b="$bytes" -v r="$recipe" -v m="$us" -v p="$p" \
        'BEGIN { printf "%-15s %10d  %-26s %12.2f %12.2f %9.2f\n", c, b, r, m, p, p / m }'
    done
  } > "$d/sim-vs-measured.txt"
  echo "wrote $d/sim-vs-measured.txt"
}
config 2ranks 2 1 1 64M
config 4ranks-2vnodes 4 2 2x2 16M
