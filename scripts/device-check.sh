#!/usr/bin/env bash
# The device check, for a machine with a GPU: builds weft with the CUDA backend, runs the
# device tests (emulated backend, then the real devices: the matrix with the IPC path on and
# off), and the device benchmark, writing
# everything under OUTDIR. Also useful without a GPU: it then shows the CUDA backend compiles
# and runs the emulated part.
#   ./scripts/device-check.sh OUTDIR [--mpi openmpi|mpich]
set -uo pipefail
OUT=${1:?usage: scripts/device-check.sh OUTDIR [--mpi openmpi|mpich]}
shift
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
weft_install_deps
WEFT_CMAKE_ARGS="-DWEFT_WITH_CUDA=ON" weft_build || exit 1
cp "$WEFT_BUILD.configure.log" "$OUT/configure.log"
BIN=$WEFT_BUILD
run() { echo "+ $*"; "$@"; }
status=0
{
  date -u
  uname -a
  nvidia-smi || echo "nvidia-smi: not available"
  "$BIN/tools/info/weft-info" | head -12
} > "$OUT/machine.txt" 2>&1

echo "== device tests on the emulated backend"
(cd "$BIN" && ctest -L device --output-on-failure) > "$OUT/ctest-emulated.txt" 2>&1 || status=1
tail -3 "$OUT/ctest-emulated.txt"

GPUS=$(WEFT_DEVICE=cuda "$BIN/tools/info/weft-info" --devices 2>/dev/null || echo 0)
if [ "${GPUS:-0}" -gt 0 ]; then
  NP=$(( GPUS < 2 ? 2 : (GPUS > 4 ? 4 : GPUS) ))
  echo "== $GPUS CUDA device(s): matrix and staging benchmark at $NP ranks"
  # Chunks of 4 KiB: most calls agree on a path, so the matrix runs each path on the GPU:
  # NCCL (nccl1), the IPC path (ipc1) and the staging pipeline (ipc0).
  for path in nccl1 ipc1 ipc0; do
    case $path in
      nccl1) penv="WEFT_NCCL=1" ;;
      ipc1) penv="WEFT_DEVICE_IPC=1" ;;
      ipc0) penv="WEFT_DEVICE_IPC=0" ;;
    esac
    for mem in device mixed; do
      run env WEFT_DEVICE=cuda $penv WEFT_STAGING_CHUNK_BYTES=4096 \
        "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n "$NP" "$BIN/tests/mp/mp_coll_matrix" --quick \
        --memory "$mem" > "$OUT/matrix-cuda-$mem-$path.txt" 2>&1 || status=1
      tail -1 "$OUT/matrix-cuda-$mem-$path.txt"
    done
  done
  # The allreduce on each path against staging by hand (IPC, then staged).
  for ipc in 1 0; do
    run env WEFT_DEVICE=cuda WEFT_DEVICE_IPC=$ipc "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" \
      -n "$NP" "$BIN/tools/bench/weft-bench" allreduce --memory device -b 1M -e 64M -f 4 -w 3 \
      -n 10 --place out --csv "$OUT/bench-cuda-allreduce-ipc$ipc.csv" \
      > "$OUT/bench-cuda-allreduce-ipc$ipc.txt" 2>&1 || status=1
  done
  for coll in reduce_scatter allgather broadcast alltoall; do
    run env WEFT_DEVICE=cuda "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n "$NP" \
      "$BIN/tools/bench/weft-bench" "$coll" --memory device -b 64K -e 64M -f 4 -w 3 -n 10 \
      --place out --csv "$OUT/bench-cuda-$coll.csv" > "$OUT/bench-cuda-$coll.txt" 2>&1 || status=1
  done
else
  echo "== no CUDA device: the CUDA backend was compiled, nothing ran on a GPU" | tee "$OUT/no-gpu.txt"
fi
echo "== results in $OUT (status $status)"
exit $status
