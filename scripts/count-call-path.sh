#!/usr/bin/env bash
# Instructions per blocking call on the latency path, counted by valgrind's callgrind on one
# rank of a 2-rank weft-bench loop (back-to-back calls, --check 0): a deterministic measure of
# weft's per-call software, which timings on this machine's moving cores cannot resolve to tens
# of instructions. Spinning in a counter wait is counted too and reported apart.
#   ./scripts/count-call-path.sh [--mpi openmpi|mpich] [COLL=broadcast BYTES=8 RANK=1 CALLS=20000]
# (KEEP=1 keeps the annotated callgrind output and says where)
# Prints, per call, the instructions under the C entry point outside counter waits (the
# software path), and apart those spent in the waits (they depend on the peer's timing).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
weft_build
coll=${COLL:-broadcast}
declare -A entry=([allreduce]=weftAllReduce [broadcast]=weftBroadcast [reduce]=weftReduce
                  [allgather]=weftAllGather [reduce_scatter]=weftReduceScatter
                  [alltoall]=weftAllToAll [alltoallv]=weftAllToAllV)
fn=${entry[$coll]:?unknown COLL $coll}
out=$(mktemp -d)
weft_valgrind_rank "$out" "${RANK:-1}" --tool=callgrind --callgrind-out-file="$out/cg.out" \
  --toggle-collect="$fn"
"$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$out/wrap.sh" "$WEFT_BUILD/tools/bench/weft-bench" \
  "$coll" -b "${BYTES:-8}" -e "${BYTES:-8}" -d double --place out -w 0 -n "${CALLS:-20000}" \
  --timing loop --check 0 > "$out/bench.txt" 2>&1 || { cat "$out/bench.txt"; exit 1; }
callgrind_annotate --inclusive=yes --tree=caller "$out/cg.out" > "$out/incl.txt" 2>/dev/null
python3 - "$out/incl.txt" "$fn" "$coll" "${BYTES:-8}" "$WEFT_MPI" << 'PY'
import re, sys
text = open(sys.argv[1]).read()
fn, coll, nbytes, mpi = sys.argv[2:]
def block(name):  # (inclusive instructions, calls) from the function's caller block
    for b in text.split("\n\n"):
        star = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\*\s+\S*:" + re.escape(name) + r"[ (\[]", b, re.M)
        if star:
            calls = sum(int(c.replace(",", "")) for c in re.findall(r"<\s+\S.*?\(([\d,]+)x\)", b))
            return int(star.group(1).replace(",", "")), calls
    return 0, 0
t, n = block(fn)
w, _ = block("weft::ScheduleTransport::WaitCounter")
if n == 0:
    sys.exit("could not find the calls of " + fn)
print(f"{coll} {nbytes} B, {mpi}, {n} calls: {(t - w) / n:.0f} instructions per call outside "
      f"counter waits (spinning in them: {w / n:.0f} more)")
PY
if [ -n "${KEEP:-}" ]; then echo "callgrind output: $out/incl.txt"; else rm -rf "$out"; fi
