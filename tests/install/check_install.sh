#!/usr/bin/env bash
# Installs a build tree into a scratch prefix, builds tests/install/consumer.c against it twice
# (find_package(weft) and pkg-config), and runs both at 2 and 3 ranks.
# usage: check_install.sh BUILD_DIR MPIEXEC [mpiexec flags...]
set -euo pipefail
build=$(cd "$1" && pwd); mpiexec=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/weft-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
mpicc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" -DMPI_C_COMPILER="$mpicc" > "$work/configure.log"
cmake --build "$work/cmake" > "$work/build.log"
libdir=$(dirname "$(find "$work/prefix" -name 'libweft.so' | head -1)")
PKG_CONFIG_PATH="$libdir/pkgconfig" cc "$here/consumer.c" -o "$work/consumer_pc" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs weft) -Wl,-rpath,"$libdir"
for n in 2 3; do
  for exe in "$work/cmake/consumer" "$work/consumer_pc"; do
    out=$("$mpiexec" -n "$n" "$@" "$exe")
    echo "np=$n $(basename "$exe"): $out"
    grep -q "Correct: YES" <<< "$out"
  done
done
