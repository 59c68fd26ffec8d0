#!/usr/bin/env bash
# HAN's published alltoall rows (Open MPI PR 12387, 32 x 64 ranks) against weft-sim's replay
# under a cluster file (bench/hierarchy-sim/loggp-han/han-cluster.topo): the flat column with
# the algorithm Open MPI's tuned component runs at 2,048 ranks (coll_tuned_decision_fixed.c:
# modified Bruck below 1 KiB blocks, linear from there, linear_sync's default of unlimited
# requests being linear: weft's bruck and pairwise:2047), HAN's with its algorithm (nodea2a:4),
# and weft's own choice. One markdown table on stdout. Uses an existing build.
#   scripts/bench-loggp-han.sh BUILD_DIR [CLUSTER_FILE] > table.md
# TABLE=others instead: allreduce, allgather and reduce_scatter under the same network at
# 32 x 64 and 8 x 128, weft's choice against the flat radix-4 rexch and the hierarchical
# rexch/rexch, on user buffers.
set -euo pipefail
sim=$1/tools/sim/weft-sim
cluster=${2:-$(dirname "$0")/../bench/hierarchy-sim/loggp-han/han-cluster.topo}
sizes=${SIZES:-1 64 1024 8192}
declare -A flat_measured=([1]=372 [64]=15613 [1024]=30685)
declare -A han_measured=([1]=302 [64]=435 [1024]=6306)

run() {  # block bytes, then weft-sim flags -> "recipe predicted_us"
  local n=$1
  shift
  "$sim" alltoall -n "$n" -d int8 --topology "@$cluster" --mem-budget-mib 1 "$@" 2>&1 |
    awk '/^recipe:/ {r=$2} /^predicted_us:/ {p=$2} /^FAIL/ {p="FAIL"} END {print r, (p == "" ? "n/a" : p)}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-"}'; }

radices() {  # "-4,-4,-2,2,4,4": radices up to 4 over $1 ranks, reduce_scatter then allgather
  local n=$1 neg="" pos="" r
  while [ "$n" -gt 1 ]; do
    if [ $((n % 4)) -eq 0 ]; then r=4; else r=2; fi
    neg+="-$r," pos="$r,$pos" n=$((n / r))
  done
  local s="$neg$pos"
  echo "${s%,}"
}

if [ "${TABLE:-alltoall}" = others ]; then
  # User buffers (--no-zero-copy), as an MPI program's. allreduce: the vector's bytes (double);
  # allgather and reduce_scatter: each rank's block (int8), the vectors P times that.
  echo "| collective | nodes | bytes | weft's choice | its us | flat rexch us | rexch/rexch us | flat / choice | hierarchical / choice |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for coll in allreduce allgather reduce_scatter; do
    for topo in 32x64 8x128; do
      L=${topo#*x} N=${topo%x*}
      if [ "$coll" = allreduce ]; then sizes="8 65536 1048576 67108864"; else sizes="8 1024 32768"; fi
      for bytes in $sizes; do
        if [ "$coll" = allreduce ]; then ty=(-n $((bytes / 8)) -d float64); else ty=(-n "$bytes" -d int8); fi
        at=("$coll" "${ty[@]}" --topology "@$cluster" --topology "$topo" -p $((N * L))
          --no-zero-copy --mem-budget-mib 1)
        read -r cr cp < <("$sim" "${at[@]}" 2>&1 |
          awk '/^recipe:/ {r=$2} /^predicted_us:/ {p=$2} END {print r, p}')
        fp=$("$sim" "${at[@]}" --recipe "rexch:$(radices $((N * L)))" | sed -n 's/^predicted_us: //p')
        hp=$("$sim" "${at[@]}" --recipe "rexch:$(radices "$L")/rexch:$(radices "$N")" |
          sed -n 's/^predicted_us: //p')
        echo "| $coll | $topo | $bytes | $cr | $cp | $fp | $hp | $(ratio "$fp" "$cp") | $(ratio "$hp" "$cp") |"
      done
    done
  done
  exit 0
fi

echo "| block | Open MPI's flat | predicted us | measured us | pred/meas | HAN (nodea2a:4) predicted us | HAN measured us | pred/meas | weft's choice | its us | HAN measured / weft | flat predicted / weft |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in $sizes; do
  if [ "$n" -lt 1024 ]; then flat=bruck; else flat=pairwise:2047; fi
  read -r _ fp < <(run "$n" --recipe "$flat")
  read -r _ hp < <(run "$n" --recipe nodea2a:4)
  read -r wr wp < <(run "$n")
  fm=${flat_measured[$n]:-}
  hm=${han_measured[$n]:-}
  echo "| $n B | $flat | $fp | ${fm:--} | $(ratio "$fp" "$fm") | $hp | ${hm:--} | $(ratio "$hp" "$hm") | $wr | $wp | $(ratio "$hm" "$wp") | $(ratio "$fp" "$wp") |"
done
