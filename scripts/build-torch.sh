#!/usr/bin/env bash
# Builds weft's torch backend (python/weft_torch) into BUILD_DIR/python against Debian's
# python3-torch and the libweft already built in BUILD_DIR.
#   scripts/build-torch.sh BUILD_DIR [openmpi|mpich]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
mpi=${2:-openmpi}
pc=ompi-c
[ "$mpi" = mpich ] && pc=mpich
cd "$root/python"
WEFT_BUILD_DIR="$build" WEFT_MPI_PKG=$pc /usr/bin/python3 setup.py -q build_ext \
  --build-lib "$build/python" --build-temp "$build/python-tmp" > "$build/python-build.log" 2>&1 ||
  { cat "$build/python-build.log"; exit 1; }
cp -r "$root/python/weft_torch/__init__.py" "$build/python/weft_torch/"
echo "weft_torch built in $build/python"
