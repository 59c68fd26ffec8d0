#!/bin/sh
# weft-tune across nodes (4 ranks as 2 virtual nodes of 2): calibration measures the
# per-message terms of the network tier, LogGP's o_r from another node and the NIC's gap
# (link_message_us), which one node cannot, and weft-info shows them from the file.
#   calibrate_vnodes.sh WEFT_TUNE WEFT_INFO MPIEXEC [MPIEXEC_FLAGS...]
set -eu
tune=$1 info=$2 mpiexec=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "calibrate_vnodes.sh: FAIL: $*"
  cat "$dir/out"
  exit 1
}
WEFT_VIRTUAL_NODES=2 "$mpiexec" "$@" -n 4 "$tune" --out "$dir/w" --colls allreduce -b 8 -e 8 \
  --top 1 --reps 3 >"$dir/out" 2>&1 || fail "weft-tune exit status $?"
grep -q "^wisdom: $dir/w" "$dir/out" || fail "weft-tune wrote no wisdom"
"$info" --wisdom "$dir/w" >"$dir/out" || fail "weft-info --wisdom"
grep -q "^4 ranks, nodes 2x2" "$dir/out" || fail "no section for 2 nodes of 2"
for p in link_message_us inter.recv_overhead_us intra.recv_overhead_us; do
  grep -Eq "^  $p +[0-9.e+-]+ " "$dir/out" || fail "$p not calibrated"
done
echo "calibrate_vnodes.sh: all cases passed"
