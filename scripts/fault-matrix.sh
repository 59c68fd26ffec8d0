#!/usr/bin/env bash
# The fault matrix of docs/reliability.md: one rank of 3 killed (SIGKILL) or stopped (SIGSTOP)
# during large and small calls on the shared-memory, single-copy and point-to-point paths and
# through the interposer; a node segment that cannot grow (as a full /dev/shm); 10,000
# communicators made and destroyed. For each: what every survivor returned and how long it
# took against WEFT_TIMEOUT_S, and what was left in /dev/shm. Writes OUTDIR/README.md.
#   ./scripts/fault-matrix.sh OUTDIR      (Open MPI: its launcher lets survivors run on)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=$(realpath -m "${1:?usage: fault-matrix.sh OUTDIR}")
weft_parse_mpi --mpi openmpi
weft_install_deps
weft_build
mkdir -p "$out"
bin=$WEFT_BUILD/tests/mp
timeout_s=5
count() { ls /dev/shm 2> /dev/null | grep -c '^weft-' || true; }
table="$out/README.md"
{
  echo "# Fault matrix ($(date -u +%Y-%m-%d), $(nproc) cores, Open MPI)"
  echo
  echo "Made by \`./scripts/fault-matrix.sh $1\` (tree $(git -C "$WEFT_ROOT" rev-parse --short HEAD))."
  echo "3 ranks on one node; the last rank dies (SIGKILL) or stops (SIGSTOP) 0.3 s after the"
  echo "survivors entered the call; WEFT_TIMEOUT_S=$timeout_s. Target: every survivor returns an"
  echo "error within the timeout plus one second, nothing is left in /dev/shm."
  echo
  echo "| case | survivors returned | time (s) | /dev/shm before -> after |"
  echo "|---|---|---|---|"
} > "$table"

# case NAME ENV ARGS...: one run of dead_peer at 3 ranks
run_case() {
  local name=$1 env=$2
  shift 2
  local before after lines
  before=$(count)
  lines=$(env $env WEFT_TIMEOUT_S=$timeout_s timeout 120 "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" \
    --mca orte_enable_recovery 1 -n 3 "$@" 2>&1 | grep -E "returned" || true)
  after=$(count)
  local what times
  what=$(echo "$lines" | sed -E 's/.*returned (.*) after .*/\1/' | sort | uniq -c |
    awk '{c=$1; $1=""; printf "%s%dx%s", (NR>1?"; ":""), c, $0}')
  times=$(echo "$lines" | sed -E 's/.* after ([0-9.]+) s.*/\1/' | paste -sd/ -)
  echo "| $name | ${what:-no survivor reported (hang?)} | ${times:--} | $before -> $after |" >> "$table"
  echo "$name: $what ($times s)"
}

large=4194304
run_case "shared memory, allreduce 32 MiB, SIGKILL" "" "$bin/mp_dead_peer" --count $large --any-error
run_case "shared memory, allreduce 64 B, SIGKILL" "" "$bin/mp_dead_peer" --count 8 --any-error
run_case "single copy (cma), bcast 32 MiB, SIGKILL" "WEFT_RECIPE=cma" "$bin/mp_dead_peer" --bcast \
  --count $large --any-error
run_case "point to point (ring, no segment), allreduce 32 MiB, SIGKILL" \
  "WEFT_SHM=0 WEFT_RECIPE=ring" "$bin/mp_dead_peer" --count $large --any-error
run_case "point to point (ring, no segment), allreduce 64 B, SIGKILL" \
  "WEFT_SHM=0 WEFT_RECIPE=ring" "$bin/mp_dead_peer" --count 8 --any-error
run_case "shared memory, allreduce 32 MiB, SIGSTOP" "" "$bin/mp_dead_peer" --count $large --stop
run_case "interposer (weftrun), MPI_Allreduce 8 MiB, SIGKILL" \
  "LD_PRELOAD=$WEFT_BUILD/mpi_shim/libweft_mpi.so" "-x" "LD_PRELOAD" \
  "$WEFT_BUILD/tests/shim/shim_dead_peer" --count 1048576

{
  echo
  echo "Other faults:"
  echo
  echo '```'
  WEFT_FAULT=shm_grow:0 WEFT_RECIPE=shmpipe@1M "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n 2 \
    "$bin/mp_faults" --shm-grow 2>&1 | grep -E "faults|FAIL" || true
  "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n 3 "$bin/mp_faults" --churn 10000 2>&1 |
    grep -E "churn|faults|FAIL" || true
  echo '```'
} >> "$table"
cat "$table"
