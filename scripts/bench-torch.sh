#!/usr/bin/env bash
# torch.distributed on weft against Gloo (tools/torch_bench.py) at 2 ranks and at 4 ranks on
# 2 virtual nodes, and DDP step times at 2 ranks, into OUTDIR; builds weft and the torch backend
# first.
#   scripts/bench-torch.sh OUTDIR [--mpi mpich]
set -euo pipefail
out=$1
shift
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
weft_install_deps
WEFT_NO_RECOMMENDS=1 weft_install_pkgs python3-torch libtorch-dev pybind11-dev python3-dev python3-setuptools
WEFT_CMAKE_ARGS="${WEFT_CMAKE_ARGS:-} -DWEFT_WITH_TORCH=ON" weft_build
mkdir -p "$out"
export PYTHONPATH="$WEFT_BUILD/python" GLOO_SOCKET_IFNAME=${GLOO_SOCKET_IFNAME:-lo}
flags=()
[ "$WEFT_MPI" = openmpi ] && flags=(--allow-run-as-root --oversubscribe)
MASTER_PORT=29681 "$WEFT_MPIEXEC" -n 2 "${flags[@]}" /usr/bin/python3 "$WEFT_ROOT/tools/torch_bench.py" \
  | tee "$out/torch-np2-$WEFT_MPI.txt"
WEFT_VIRTUAL_NODES=2 MASTER_PORT=29682 "$WEFT_MPIEXEC" -n 4 "${flags[@]}" \
  /usr/bin/python3 "$WEFT_ROOT/tools/torch_bench.py" --sizes 4K,1M,16M \
  | tee "$out/torch-np4-2nodes-$WEFT_MPI.txt"
for batch in 32 4; do
  MASTER_PORT=29683 "$WEFT_MPIEXEC" -n 2 "${flags[@]}" /usr/bin/python3 \
    "$WEFT_ROOT/tools/torch_bench.py" --ddp --batch $batch | tee -a "$out/torch-ddp-np2-$WEFT_MPI.txt"
done
