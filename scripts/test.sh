#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: gtest unit tests, multi-rank tests
# through mpiexec (1-4 ranks, virtual nodes, chunked paths, counts past INT_MAX), examples,
# and the install check.
#   ./scripts/test.sh [--mpi openmpi|mpich] [extra ctest flags, e.g. -L unit]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
weft_install_deps
weft_build
echo "== testing ($WEFT_MPI)"
cd "$WEFT_BUILD"
ctest --output-on-failure --timeout 900 "${WEFT_ARGS[@]}"
