#!/usr/bin/env bash
# Predicted times at scale (weft-sim, timing replay under the cost model): the node-aware
# alltoall against the flat pairwise exchange and Bruck at 32 nodes x 64 ranks under two sets
# of network parameters, hierarchical against flat allreduce at 32 x 64 (block and
# round-robin) and 8 x 128, and allgather and reduce_scatter at 32 x 64 and 8 x 128; one
# markdown table per run into OUTDIR. Uses an existing build.
#   scripts/bench-hierarchy-sim.sh BUILD_DIR OUTDIR
# ALLTOALL=0 skips the alltoall tables; ALLREDUCE_TOPOS="8x128" limits the allreduce ones,
# ZEROCOPY_TOPOS those of allreduce on weftMemAlloc buffers, GATHER_TOPOS those of allgather
# and reduce_scatter (32x64 8x128; "" skips them).
set -euo pipefail
alltoall=${ALLTOALL:-1}
allreduce_topos=${ALLREDUCE_TOPOS-32x64 32x64:rr 8x128}
gather_topos=${GATHER_TOPOS-32x64 8x128}
zerocopy_topos=${ZEROCOPY_TOPOS-32x64 32x64:rr 8x128}
sim=$1/tools/sim/weft-sim
out=$2
mkdir -p "$out"
# Network parameter sets. "default": weft's model as shipped (100 Gbit/s node link, 2 us,
# no per-message link cost). "han-cluster": the cluster of HAN's measurements (Open MPI PR
# 12387: 32 hpc7g / hpc6id instances, 64 cores each, 200 Gbit/s EFA by the instances'
# datasheet); 7.5 us latency, fitted so that Open MPI's pairwise exchange, one exchange a round
# (weft's pairwise:1), reproduces the 15,613 us HAN's authors measured for their flat
# algorithm at 64 B (2,047 rounds of 7.6 us); no per-message link time (HAN's own 435 us at
# 64 B, over the 330 us that node's 7.9 MiB take at 200 Gbit/s, leaves at most 0.05 us for
# each of its 1,984 messages a node). Open MPI's tuned component in fact runs modified Bruck at
# 2,048 ranks below 1 KiB blocks and linear from there (coll_tuned_decision_fixed.c), not
# pairwise: scripts/bench-loggp-han.sh replays those, with a per-message NIC cost.
declare -A nets=([default]="" [han-cluster]="--net-gbits 200 --net-latency-us 7.5")

radices() {  # "-4,-4,-2,2,4,4": reduce_scatter and allgather radices up to 4 over $1 ranks
  local n=$1 f=() r
  while [ "$n" -gt 1 ]; do
    if [ $((n % 4)) -eq 0 ]; then r=4; else r=2; fi
    f+=("$r")
    n=$((n / r))
  done
  local neg="" pos=""
  for r in "${f[@]}"; do neg+="-$r,"; pos="$r,$pos"; done
  local s="$neg$pos"
  echo "${s%,}"
}

predict() {  # args for weft-sim -> predicted microseconds (or FAIL)
  { "$sim" "$@" --mem-budget-mib 1 2>&1 || true; } |
    awk '/^predicted_us:/ {p=$2} /^FAIL|usage/ {p="FAIL"} END {print (p == "" ? "n/a" : p)}'
}

ratio() {  # a / b, or n/a where either is not a time
  awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "n/a"}'
}

for net in default han-cluster; do
  if [ "$alltoall" = 1 ]; then
    f="$out/alltoall-32x64-$net.md"
    {
      echo "# alltoall at 32 nodes x 64 ranks, predicted (weft-sim, network: $net ${nets[$net]})"
      echo
      echo "| block | weft's choice | its us | pairwise:1 us | pairwise:4 us | bruck us |" \
        "nodea2a:4 us | pairwise:1 / nodea2a | pairwise:4 / nodea2a |"
      echo "|---|---|---|---|---|---|---|---|---|"
    } > "$f"
    for n in 1 64 1024 8192 65536; do
      plan=$("${sim%/sim/weft-sim}/plan/weft-plan" alltoall -p 2048 -n $n -d int8 --topology 32x64 \
        ${nets[$net]} | awk '/^recipe:/ {print $2}')
      ch=$(predict alltoall -n $n -d int8 --topology 32x64 --recipe "$plan" ${nets[$net]})
      p1=$(predict alltoall -n $n -d int8 --topology 32x64 --recipe pairwise:1 ${nets[$net]})
      pw=$(predict alltoall -n $n -d int8 --topology 32x64 --recipe pairwise:4 ${nets[$net]})
      br=$(predict alltoall -n $n -d int8 --topology 32x64 --recipe bruck ${nets[$net]})
      na=$(predict alltoall -n $n -d int8 --topology 32x64 --recipe nodea2a:4 ${nets[$net]})
      echo "| $n B | $plan | $ch | $p1 | $pw | $br | $na | $(ratio "$p1" "$na") |" \
        "$(ratio "$pw" "$na") |" >> "$f"
    done
    cat "$f"
  fi
  [ "$net" = default ] || continue
  for topo in $allreduce_topos; do
    f="$out/allreduce-${topo/:/}-$net.md"
    {
      echo "# allreduce (double) at $topo, predicted (weft-sim, network: $net ${nets[$net]})"
      echo
      echo "| bytes | model's choice | its us | flat rexch | its us | best hierarchical | its us |"
      echo "|---|---|---|---|---|---|---|"
    } > "$f"
    p=${topo%%:*}
    L=${p#*x} N=${p%x*}
    P=$((N * L))
    for bytes in 8 8192 65536 1048576 16777216; do
      n=$((bytes / 8))
      plan=$("${sim%/sim/weft-sim}/plan/weft-plan" allreduce -p $P -n $n --topology $topo \
        --no-zero-copy | awk '/^recipe:/ {print $2}')
      chosen=$(predict allreduce -n $n --topology $topo --recipe "$plan")
      flat_r="rexch:$(radices $P)"
      flat=$(predict allreduce -n $n --topology $topo --recipe "$flat_r")
      best="" best_us=""
      for h in "rexch:$(radices $L)/rexch:$(radices $N)" "rexch:$(radices $L)/ring"; do
        us=$(predict allreduce -n $n --topology $topo --recipe "$h")
        if [ -z "$best_us" ] || awk -v a="$us" -v b="$best_us" 'BEGIN {exit !(a < b)}'; then
          best=$h best_us=$us
        fi
      done
      echo "| $bytes | $plan | $chosen | $flat_r | $flat | $best | $best_us |" >> "$f"
    done
    cat "$f"
  done
done

# allreduce on buffers from weftMemAlloc (the node level reads the peers' buffers: zerocopy,
# pipelined across levels) against the user's own buffers (--no-zero-copy), the flat radix-4
# rexch, and a flat rexch whose factors follow the nodes (radix L inside the node, N across:
# node-aware under block placement, though selection does not offer it).
for topo in $zerocopy_topos; do
  f="$out/allreduce-${topo/:/}-zerocopy.md"
  {
    echo "# allreduce (double) at $topo, predicted (weft-sim, network: default)"
    echo
    echo "| bytes | user buffers: choice | its us | weftMemAlloc: choice | its us |" \
      "flat rexch us | node-factored flat | its us | flat rexch / weftMemAlloc choice |" \
      "node-factored / weftMemAlloc choice | user choice / weftMemAlloc choice |" \
      "best flat, pipelined or not | its us | best flat / weftMemAlloc choice |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  } > "$f"
  p=${topo%%:*}
  L=${p#*x} N=${p%x*}
  P=$((N * L))
  for bytes in 65536 1048576 16777216; do
    n=$((bytes / 8))
    user=$("${sim%/sim/weft-sim}/plan/weft-plan" allreduce -p $P -n $n --topology $topo \
      --no-zero-copy | awk '/^recipe:/ {print $2}')
    user_us=$(predict allreduce -n $n --topology $topo --recipe "$user" --no-zero-copy)
    zc=$("${sim%/sim/weft-sim}/plan/weft-plan" allreduce -p $P -n $n --topology $topo |
      awk '/^recipe:/ {print $2}')
    zc_us=$(predict allreduce -n $n --topology $topo --recipe "$zc")
    flat=$(predict allreduce -n $n --topology $topo --recipe "rexch:$(radices $P)")
    # Radices up to 64 (rexch's largest): a node of 128 is -64,-2 in, 2,64 out.
    if [ "$L" -le 64 ]; then nf="rexch:-$L,-$N,$N,$L"
    else nf="rexch:-64,-$((L / 64)),-$N,$N,$((L / 64)),64"; fi
    nf_us=$(predict allreduce -n $n --topology $topo --recipe "$nf")
    # Flat recipes pipelined too (chunks of a quarter, an eighth and a sixteenth of the vector
    # in whole pages, as selection offers the compositions'): the best of the lot.
    bf="rexch:$(radices $P)" bf_us=$flat
    if awk -v a="$nf_us" -v b="$bf_us" 'BEGIN {exit !(a < b)}'; then bf=$nf bf_us=$nf_us; fi
    for k in 4 8 16; do
      c=$((bytes / k / 4096 * 4096))
      [ "$c" -ge 4096 ] || continue
      for r in "rexch:$(radices $P)" "$nf"; do
        us=$(predict allreduce -n $n --topology $topo --recipe "$r@$((c / 1024))K")
        if awk -v a="$us" -v b="$bf_us" 'BEGIN {exit !(a + 0 > 0 && a < b)}'; then
          bf="$r@$((c / 1024))K" bf_us=$us
        fi
      done
    done
    echo "| $bytes | $user | $user_us | $zc | $zc_us | $flat | $nf | $nf_us |" \
      "$(ratio "$flat" "$zc_us") | $(ratio "$nf_us" "$zc_us") | $(ratio "$user_us" "$zc_us") |" \
      "$bf | $bf_us | $(ratio "$bf_us" "$zc_us") |" >> "$f"
  done
  cat "$f"
done

# allgather and reduce_scatter (int8 blocks, so the block is the count): the model's choice
# (the user's own buffers) against the flat radix-4 rexch, the flat ring and the point-to-point
# composition rexch/rexch; and its choice on buffers from weftMemAlloc (zerocopy node levels,
# pipelined across levels).
# Sizes are per-rank blocks; the whole buffer is P blocks (64 MiB at 2,048 x 32 KiB).
for coll in allgather reduce_scatter; do
  for topo in $gather_topos; do
    f="$out/$coll-$topo-default.md"
    p=${topo%%:*}
    L=${p#*x} N=${p%x*}
    P=$((N * L))
    {
      echo "# $coll (int8 blocks) at $topo, predicted (weft-sim, network: default)"
      echo
      echo "| block | buffer | model's choice | its us | flat rexch us | flat ring us |" \
        "rexch/rexch us | best flat / choice | weftMemAlloc: choice | its us |" \
        "best flat / weftMemAlloc choice |"
      echo "|---|---|---|---|---|---|---|---|---|---|---|"
    } > "$f"
    for n in 8 1024 4096 32768; do
      plan=$("${sim%/sim/weft-sim}/plan/weft-plan" $coll -p $P -n $n -d int8 --topology $topo \
        --no-zero-copy | awk '/^recipe:/ {print $2}')
      chosen=$(predict $coll -n $n -d int8 --topology $topo --recipe "$plan" --no-zero-copy)
      zc=$("${sim%/sim/weft-sim}/plan/weft-plan" $coll -p $P -n $n -d int8 --topology $topo |
        awk '/^recipe:/ {print $2}')
      zc_us=$(predict $coll -n $n -d int8 --topology $topo --recipe "$zc")
      if [ $coll = allgather ]; then f4=$(radices $P | tr ',' '\n' | grep -v -- - | paste -sd,)
      else f4=$(radices $P | tr ',' '\n' | grep -- - | paste -sd,); fi
      rx=$(predict $coll -n $n -d int8 --topology $topo --recipe "rexch:$f4")
      rg=$(predict $coll -n $n -d int8 --topology $topo --recipe ring)
      hr=$(predict $coll -n $n -d int8 --topology $topo \
        --recipe "rexch:$(radices $L)/rexch:$(radices $N)")
      best=$(awk -v a="$rx" -v b="$rg" 'BEGIN {print (a + 0 < b + 0 ? a : b)}')
      echo "| $n B | $((n * P / 1024)) KiB | $plan | $chosen | $rx | $rg | $hr |" \
        "$(ratio "$best" "$chosen") | $zc | $zc_us | $(ratio "$best" "$zc_us") |" >> "$f"
    done
    cat "$f"
  done
done
