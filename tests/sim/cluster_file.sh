#!/bin/sh
# weft-sim --topology @FILE with a cluster file: its `param` lines set the cost model as the
# same values given by flags do (equal predictions), a gap changes the prediction, and a bad
# parameter is refused with its line.
set -e
sim="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/cluster" <<'END'
# two nodes of four ranks, a slow NIC
2x4
param inter.latency_us 7.5
param link_message_us 2
param inter.recv_overhead_us 0.3
END
predict() { "$sim" alltoall -n 16 -d int8 --recipe pairwise:7 "$@" | sed -n 's/^predicted_us: //p'; }
from_file=$(predict --topology "@$dir/cluster")
from_flags=$(predict --topology 2x4 --net-latency-us 7.5 --net-message-us 2 --recv-overhead-us 0.3)
no_gap=$(predict --topology 2x4 --net-latency-us 7.5 --recv-overhead-us 0.3)
echo "file $from_file flags $from_flags no-gap $no_gap"
[ -n "$from_file" ] && [ "$from_file" = "$from_flags" ]
# 16 messages out of a node at 2 us each
awk -v a="$from_file" -v b="$no_gap" 'BEGIN { exit !(a >= 16 * 2 && a > b) }'
printf '2x4\nparam link_message_us -1\n' >"$dir/bad"
if out=$("$sim" alltoall -n 16 --topology "@$dir/bad" 2>&1); then
  echo "a negative gap was accepted: $out"; exit 1
fi
echo "$out" | grep -q "line 2: parameter link_message_us has a bad value" || { echo "$out"; exit 1; }
echo PASS
