#!/usr/bin/env bash
# weft's three paths for device buffers, side by side on the emulated device (docs/devices.md):
# staged through host memory (WEFT_DEVICE_IPC=0), device to device between node peers (IPC,
# the default), and handed to a device-aware MPI (WEFT_EMULATED_MPI_AWARE=1, IPC off). Each
# weft-bench run also times the hand-staged baselines (stage_reuse, stage_alloc) and the
# native routine on host buffers, so every row has its reference from the same run. With and
# without a PCIe-like copy cost (50 us + 4 GB/s per copy touching device memory).
#   ./scripts/bench-device-paths.sh OUTDIR [--mpi openmpi|mpich] [ROUNDS=3 ELEMENTS=2M NP=2]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_bench_start "$@"
outdir="$WEFT_OUTDIR"
bench="$WEFT_BUILD/tools/bench/weft-bench"
declare -A path_env=([staged]="WEFT_DEVICE_IPC=0" [ipc]="WEFT_DEVICE_IPC=1"
                     [direct]="WEFT_DEVICE_IPC=0 WEFT_EMULATED_MPI_AWARE=1")
declare -A cost_env=([free]="" [pcie]="WEFT_EMULATED_COPY_LATENCY_US=50 WEFT_EMULATED_COPY_GBPS=4")
for round in $(seq 1 "${ROUNDS:-3}"); do
  for cost in free pcie; do
    for path in staged ipc direct; do
      f="$outdir/allreduce-$path-$cost-$WEFT_MPI-round$round.txt"
      cmd=("$WEFT_MPIEXEC" -n "${NP:-2}" "${WEFT_MPIEXEC_FLAGS[@]}" "$bench" allreduce
           --memory device --elements "${ELEMENTS:-2M}" -w 3 -n 10 --place out
           --modes host,stage_alloc,stage_reuse,weft --csv "${f%.txt}.csv")
      envs="WEFT_DEVICE=emulated ${path_env[$path]} ${cost_env[$cost]}"
      { echo "# command: $envs ${cmd[*]}"
        echo "# tree: $(git -C "$WEFT_ROOT" rev-parse --short HEAD)"
        env $envs "${cmd[@]}" 2>&1; } > "$f"
      echo "wrote $f"
    done
  done
done
