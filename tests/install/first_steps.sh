#!/usr/bin/env bash
# A newcomer's first ten minutes, step by step as the README tells them, failing at the first
# wall: the README opens with the two commands; the demo prints its tables and writes its files;
# the build installs into a clean prefix; every installed program starts from there (no
# LD_LIBRARY_PATH, run from outside the build tree); weft-bench runs one small size under
# mpiexec; an unmodified C and an unmodified Fortran MPI program run under the installed
# weftrun with output identical to the native run and their collectives served.
#   first_steps.sh [--clone] ROOT BUILD MPI MPIFORT MPIEXEC [mpiexec flags...]
# MPI: openmpi or mpich. --clone: first `git clone ROOT` into a scratch folder and let the
# demo build that clone from nothing (what a newcomer does; minutes), else the demo reuses
# BUILD, which must be ROOT/build-MPI (as ctest runs it: install.first_steps).
set -euo pipefail
clone=0
[ "${1:-}" = --clone ] && { clone=1; shift; }
root=$(cd "$1" && pwd); build=$2; mpi=$3; mpifort=$4; mpiexec=$5; shift 5
flags=("$@")
work=$(mktemp -d /tmp/weft-first-steps.XXXXXX)
trap 'rm -rf "$work"' EXIT
step() { echo "== first steps: $*"; }
fail() { echo "first steps FAILED: $*" >&2; exit 1; }

if [ $clone -eq 1 ]; then
  step "git clone $root"
  git clone -q "$root" "$work/clone"
  root=$work/clone
  build=$root/build-$mpi
fi
[ "$(cd "$build" 2> /dev/null && pwd)" = "$root/build-$mpi" ] ||
  fail "the demo builds $root/build-$mpi; give that as BUILD (got $build)"

step "the README opens with the two commands"
block=$(awk '/^```sh$/ {on = 1; next} on && /^```$/ {exit} on' "$root/README.md")
grep -q '^\./scripts/demo\.sh' <<< "$block" || fail "README's first sh block has no ./scripts/demo.sh"
grep -q '^\./scripts/test\.sh' <<< "$block" || fail "README's first sh block has no ./scripts/test.sh"

step "./scripts/demo.sh --mpi $mpi (small sizes)"
WEFT_OUT=$work/out "$root/scripts/demo.sh" --mpi "$mpi" -e 1K -w 1 -n 3 > "$work/demo.log" 2>&1 ||
  { cat "$work/demo.log"; fail "demo.sh"; }
for buffers in hot rotate; do
  for ext in csv png; do
    [ -s "$work/out/bench-allreduce-$mpi-$buffers.$ext" ] ||
      { cat "$work/demo.log"; fail "demo wrote no $buffers $ext"; }
  done
done
grep -Eq '^ +1024 ' "$work/demo.log" || { cat "$work/demo.log"; fail "demo printed no 1 KiB row"; }

step "cmake --install into a clean prefix"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
cd "$work"  # nothing below may lean on the build tree
unset LD_LIBRARY_PATH
for exe in "$prefix"/bin/*; do
  rc=0
  out=$("$exe" --help 2>&1) || rc=$?
  [ $rc -eq 0 ] || fail "$(basename "$exe") --help: exit $rc ($out)"
  grep -qi usage <<< "$out" || fail "$(basename "$exe") --help printed no usage: $out"
done
echo "   --help: $(cd "$prefix/bin" && echo *)"
"$prefix/bin/weft-info" > "$work/info.txt" || fail "weft-info"
grep -q "weft build" "$work/info.txt" || fail "weft-info printed no build"
"$prefix/bin/weft-sim" allreduce -p 7 -n 1001 | grep -q '^PASS' || fail "weft-sim allreduce -p 7"
"$prefix/bin/weft-plan" allreduce -p 6 -n 4096 > /dev/null || fail "weft-plan"
out=$("$mpiexec" -n 2 "${flags[@]}" "$prefix/bin/weft-bench" allreduce -b 8 -e 64 -w 1 -n 3) ||
  fail "installed weft-bench under mpiexec: $out"
grep -Eq '^ +64 ' <<< "$out" || fail "installed weft-bench printed no 64-byte row: $out"

step "an unmodified C program under the installed weftrun"
mpicc=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
"$mpicc" -O2 "$root/tests/install/plain_mpi.c" -o "$work/plain_mpi"
served() {  # LOG FUNCTION: fails unless every rank's weft-stats line says weft served calls
  local lines
  lines=$(grep "weft-stats $2 " "$1") || fail "no weft-stats line for $2"
  ! grep -q "weft=0 " <<< "$lines" || fail "$2 not served: $lines"
}
native=$("$mpiexec" -n 2 "${flags[@]}" "$work/plain_mpi")
weft=$("$prefix/bin/weftrun" -n 2 "${flags[@]}" "$work/plain_mpi")
[ "$native" = "$weft" ] || fail "C output differs: native '$native', weftrun '$weft'"
WEFT_STATS=1 "$prefix/bin/weftrun" -n 2 "${flags[@]}" "$work/plain_mpi" > "$work/c.log" 2>&1
for f in MPI_Allreduce MPI_Bcast MPI_Alltoall MPI_Allgather; do served "$work/c.log" $f; done
echo "   $weft"

step "an unmodified Fortran program under the installed weftrun"
[ -n "$mpifort" ] || fail "no MPI Fortran compiler (install gfortran, then reconfigure)"
"$mpifort" -O2 -cpp -ffree-line-length-none -J "$work" "$root/examples/fortran/cg_transpose.F90" \
  -o "$work/cg_transpose"
args=(--local 2000 --iters 20 --block 512 --transpose-every 5)
native=$("$mpiexec" -n 2 "${flags[@]}" "$work/cg_transpose" "${args[@]}")
weft=$("$prefix/bin/weftrun" -n 2 "${flags[@]}" "$work/cg_transpose" "${args[@]}")
[ "$native" = "$weft" ] || fail "Fortran output differs: native '$native', weftrun '$weft'"
WEFT_STATS=1 "$prefix/bin/weftrun" -n 2 "${flags[@]}" "$work/cg_transpose" "${args[@]}" \
  > "$work/f.log" 2>&1
for f in MPI_Allreduce MPI_Alltoall; do served "$work/f.log" $f; done
echo "   $(head -1 <<< "$weft")"
step "all passed"
