#!/usr/bin/env bash
# The memory one blocking call touches: distinct cache lines and 4 KiB pages of code and of
# data, traced by valgrind's lackey on one rank of a 2-rank run (after 50 warm-up calls). A call
# that comes cold (after a compute phase, or on a rank the scheduler just switched in) must
# fetch all of them, each page a TLB miss; deterministic, unlike timings of cold calls here.
#   ./scripts/count-call-footprint.sh [--mpi openmpi|mpich] [COLL=broadcast BYTES=8 RANK=0]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
weft_build
coll=${COLL:-broadcast}
rank=${RANK:-0}
out=$(mktemp -d)
weft_valgrind_rank "$out" "$rank" --tool=lackey --trace-mem=yes --log-file="$out/trace.txt"
"$WEFT_MPIEXEC" -n 2 "${WEFT_MPIEXEC_FLAGS[@]}" "$out/wrap.sh" \
  "$WEFT_BUILD/tools/bench/weft-call-footprint" "$coll" "${BYTES:-8}" > "$out/run.txt" 2>&1 ||
  { cat "$out/run.txt"; exit 1; }
marker=$(sed -n "s/^rank $rank marker \(0x[0-9a-f]*\)$/\1/p" "$out/run.txt")
[ -n "$marker" ] || { cat "$out/run.txt"; echo "no marker line from rank $rank" >&2; exit 1; }
python3 - "$out/trace.txt" "$marker" "$coll" "${BYTES:-8}" "$WEFT_MPI" "$rank" << 'PY'
import sys
path, marker, coll, nbytes, mpi, rank = sys.argv[1:]
begin = int(marker, 16)
end = begin + 4096
inside = False
code, data = set(), set()
for line in open(path, errors="replace"):
    parts = line.split()
    if len(parts) != 2 or parts[0] not in ("I", "L", "S", "M"):
        continue
    addr = int(parts[1].split(",")[0], 16)
    if parts[0] == "L" and addr in (begin, end):
        if addr == end:
            break
        inside = True
        continue
    if inside:
        (code if parts[0] == "I" else data).add(addr >> 6)
if not inside:
    sys.exit("the marker loads were not in the trace")
pages = lambda lines: len({l >> 6 for l in lines})
print(f"{coll} {nbytes} B, {mpi}, rank {rank}: code {len(code)} lines in {pages(code)} pages, "
      f"data {len(data)} lines in {pages(data)} pages")
PY
rm -rf "$out"
