#!/usr/bin/env bash
# Regret before and after tuning (docs/tuning.md), per configuration: weft-tune --regret with
# no wisdom (the model's defaults, WEFT_WISDOM=none); weft-tune writing wisdom; --regret with
# the wisdom's calibrated parameters alone (its ranges removed: the calibrated model); and
# --regret with the whole wisdom. Then the simulator's prediction for every point-to-point
# recipe timed in the calibrated-model run, under the calibrated parameters, against the
# measurement. Each file holds its command.
#   ./scripts/bench-tuning.sh OUTDIR [--mpi openmpi|mpich]
# Configurations (BENCH_CONFIGS, default all): 2ranks (one node, 8 B-64 MiB, x4); 4ranks-2vnodes
# (2 virtual nodes of 2; 8 B-2 MiB, x8: 4 ranks on this 2-core machine are oversubscribed and
# a regret run of every candidate took over 12 minutes to 4 MiB); cluster-2x1 (2 namespace
# hosts of scripts/cluster.sh, 1 rank each, links shaped to 10 Gbit/s; 8 B-2 MiB, x8; the
# cluster is taken down at the end). weft-tune's progress goes to DIR/progress.log.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
tune="$WEFT_BUILD/tools/tune/weft-tune"
sim="$WEFT_BUILD/tools/sim/weft-sim"
tree=$(git -C "$WEFT_ROOT" rev-parse --short HEAD)

config() {  # name ranks topology end factor launcher...
  local name="$1" np="$2" topo="$3" end="$4" factor="$5"
  shift 5
  local launch=("$@") d="$outdir/$name-$WEFT_MPI" sizes=(-b 8 -e "$end" -f "$factor")
  mkdir -p "$d"
  step() {  # file wisdom args...
    local f="$1" wisdom="$2"; shift 2
    local cmd=(env WEFT_WISDOM="$wisdom" "${launch[@]}" "$tune" "$@")
    { echo "# command: ${cmd[*]}"; echo "# tree: $tree"; "${cmd[@]}" 2>>"$d/progress.log" |
        grep -v "PMIX ERROR"; } > "$d/$f"
    echo "wrote $d/$f"
  }
  step regret-model.txt none --regret "${sizes[@]}"
  step tune.txt none --out "$d/wisdom" "${sizes[@]}"
  # The calibrated model alone: the section without its ranges ("end" recounted).
  awk '/^#/ {print; next}
       /^section$/ {n = 0; print; next}
       /^range / {next}
       /^end / {print "end " n; next}
       {if (n != "") n++; print}' "$d/wisdom" > "$d/wisdom-params"
  step regret-calibrated.txt "$d/wisdom-params" --regret "${sizes[@]}" --csv "$d/regret-calibrated.csv"
  step regret-wisdom.txt "$d/wisdom" --regret "${sizes[@]}"
  # Predicted against measured: point-to-point recipes.
  local topo_arg=""
  [ "$topo" = 1 ] || topo_arg=$topo
  "$WEFT_ROOT/scripts/sim-vs-measured.sh" "$sim" "$d/regret-calibrated.csv" "$d/wisdom" "$np" \
    $topo_arg > "$d/sim-vs-measured.txt"
  echo "wrote $d/sim-vs-measured.txt"
}
configs=" ${BENCH_CONFIGS:-2ranks 4ranks-2vnodes cluster-2x1} "
if [[ "$configs" == *" 2ranks "* ]]; then
  config 2ranks 2 1 64M 4 "$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}"
fi
if [[ "$configs" == *" 4ranks-2vnodes "* ]]; then
  config 4ranks-2vnodes 4 2x2 2M 8 env WEFT_VIRTUAL_NODES=2 "$WEFT_MPIEXEC" -n 4 "${WEFT_MPIEXEC_FLAGS[@]}"
fi
if [[ "$configs" == *" cluster-2x1 "* ]]; then
  "$WEFT_ROOT/scripts/cluster.sh" up --hosts 2 --rate 10gbit
  config cluster-2x1 2 2x1 2M 8 "$WEFT_ROOT/scripts/cluster-run.sh" --mpi "$WEFT_MPI" -n 2 --per-host 1
  "$WEFT_ROOT/scripts/cluster.sh" down
fi
