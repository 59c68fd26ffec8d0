#!/bin/sh
# Wisdom end to end at 2 ranks (docs/tuning.md): weft-tune writes a file, weft-info reads it,
# the library uses a section's winners, and every bad case falls back to the cost model with
# one WARN and correct results: ranks holding different files, a truncated file, another
# version, another shape. Ends with a short weft-tune --regret.
#   wisdom.sh WEFT_TUNE WEFT_INFO COLL_MATRIX PER_RANK_ENV MPIEXEC [MPIEXEC_FLAGS...]
set -eu
tune=$1 info=$2 matrix=$3 per_rank=$4
shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "wisdom.sh: FAIL: $*"
  [ -f "$dir/out" ] && cat "$dir/out"
  exit 1
}
launch() { n=$1; shift; "$MPIEXEC" $FLAGS -n "$n" "$@" >"$dir/out" 2>&1 || fail "exit status $? of $*"; }
MPIEXEC=$1
shift
FLAGS="$*"
matrix_ok() { grep -Eq "coll_matrix: [0-9]+ cases per rank; [0-9]+ passed, 0 failed" "$dir/out"; }

# 1. A real file from a short sweep; weft-info shows its section.
launch 2 "$tune" --out "$dir/w" --colls allreduce,bcast -b 64 -e 4K -f 8 --reps 3
grep -q "^wisdom: $dir/w" "$dir/out" || fail "weft-tune wrote no wisdom"
"$info" --wisdom "$dir/w" >"$dir/out" || fail "weft-info --wisdom"
grep -q "^2 ranks, nodes 1x2" "$dir/out" || fail "no 2-rank section"
grep -q "intra.latency_us" "$dir/out" || fail "no calibrated latency"
grep -q "intra.recv_overhead_us" "$dir/out" || fail "no calibrated receive overhead"
! grep -q "link_message_us" "$dir/out" || fail "a network gap measured on one node"

# 2. The file's ranges replaced by one the default never picks on one node (point to point).
awk '/^#/ {print; next}
     /^section$/ {n = 0; print; next}
     /^range / {next}
     /^end / {print "range allreduce:*=rexch:2"; print "end " n + 1; next}
     {if (n != "") n++; print}' "$dir/w" >"$dir/forced"
WEFT_WISDOM="$dir/forced" WEFT_DEBUG=INFO WEFT_DEBUG_SUBSYS=COLL \
  launch 2 "$matrix" --quick --seed 21 --counts 0,7,1000
matrix_ok || fail "wrong results under wisdom"
grep -q 'wisdom range allreduce:\*=rexch:2 decides allreduce P=2 count=1000' "$dir/out" ||
  fail "the wisdom range did not decide"
# Quiet by default: a matching file prints nothing.
WEFT_WISDOM="$dir/forced" launch 2 "$matrix" --quick --seed 22 --counts 7
matrix_ok || fail "wrong results"
[ "$(grep -c . "$dir/out")" -eq 1 ] || fail "output beside the matrix's own line"

# 3. Rank 0 holds another file than rank 1: no rank uses wisdom, one WARN.
WEFT_DEBUG_SUBSYS=ALL WEFT_DEBUG=INFO \
  launch 2 "$per_rank" WEFT_WISDOM "$dir/forced" "$dir/w" "$matrix" --quick --seed 23 --counts 1000
matrix_ok || fail "wrong results with different files"
grep -q "ranks hold different wisdom" "$dir/out" || fail "no WARN for different files"
! grep -q "wisdom range" "$dir/out" || fail "a rank used its wisdom alone"

# 4. Broken files: the model, one WARN each, nothing else changes.
head -c -12 "$dir/forced" >"$dir/truncated"
sed 's/^weft-wisdom 1/weft-wisdom 2/' "$dir/forced" >"$dir/v2"
for f in truncated v2; do
  WEFT_WISDOM="$dir/$f" launch 2 "$matrix" --quick --seed 24 --counts 1000
  matrix_ok || fail "wrong results with $f"
  grep -q "WARN.*wisdom $dir/$f ignored: line" "$dir/out" || fail "no WARN for $f"
done
# Another shape: a 2-rank file at 3 ranks.
WEFT_WISDOM="$dir/forced" launch 3 "$matrix" --quick --seed 25 --counts 1000
matrix_ok || fail "wrong results at 3 ranks"
grep -q "WARN.*not used for 3 ranks on 1x3: it has no section for 3 ranks" "$dir/out" ||
  fail "no WARN for another shape"
[ "$(grep -c "not used for" "$dir/out")" -eq 1 ] || fail "not one WARN for another shape"

# 5. Regret: the default choice against every candidate, with the file in use.
WEFT_WISDOM="$dir/w" launch 2 "$tune" --regret --colls allreduce -b 64 -e 4K -f 8 --reps 3
grep -q "wisdom in use" "$dir/out" || fail "regret run without the wisdom"
grep -Eq "^regret: median [0-9.]+ max [0-9.]+ rows 3$" "$dir/out" || fail "no regret line"
echo "wisdom.sh: all cases passed"
