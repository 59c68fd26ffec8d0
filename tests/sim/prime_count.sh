#!/bin/sh
# weft-sim at 127 ranks (prime) against 128 ranks, 1 MiB fp64 allreduce, recipes chosen by the
# cost model: both PASS, and the prime count's predicted time is within 1.5x of the power of
# two's. (The model is deterministic: this checks the schedules, not the machine.)
set -e
sim="$1"
p127=$("$sim" allreduce -p 127 -n 128K) || { echo "$p127"; exit 1; }
p128=$("$sim" allreduce -p 128 -n 128K) || { echo "$p128"; exit 1; }
echo "$p127"; echo "$p128"
t127=$(echo "$p127" | sed -n 's/^predicted_us: //p')
t128=$(echo "$p128" | sed -n 's/^predicted_us: //p')
awk -v a="$t127" -v b="$t128" 'BEGIN { r = a / b; printf "ratio 127/128: %.3f\n", r; exit !(r <= 1.5) }'
