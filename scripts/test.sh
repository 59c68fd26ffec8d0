#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: gtest unit tests, multi-rank tests
# through mpiexec (1-4 ranks, virtual nodes, chunked paths, counts past INT_MAX), tests across
# the hosts of a network-namespace cluster (label cluster; root: skipped with the reason
# elsewhere), the torch.distributed backend against Gloo (label torch; installs Debian's
# python3-torch), examples, and the install check.
#   ./scripts/test.sh [--mpi openmpi|mpich] [--sanitize address|thread] [extra ctest flags]
# --sanitize builds into build-<mpi>-<sanitizer> and runs the subset that fits CI's time:
#   address (ASan + UBSan; any undefined behaviour fails the test): every unit test, the fuzz
#     targets (tests/fuzz), and the multi-rank tests of bad input, faults, dead peers, plans,
#     nonblocking calls, groups, v-collectives (also the node-aware alltoallv across virtual
#     nodes, and its simulator test), large counts, the collective matrix at 2 and 3 ranks and
#     at 4 across virtual nodes with the node level over shared memory (the other simulator
#     sweeps take 9 minutes under ASan on 2 cores: run them with `--sanitize address -L sim`).
#   thread (TSan): the unit tests, among them the threads racing on the program cache. The
#     multi-rank and interposer tests run MPI, whose own synchronisation TSan cannot see.
# Extra ctest flags replace the default subset.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
weft_parse_mpi "$@"
trap weft_phase_report EXIT
# Tests pin their settings: a wisdom file at the default location (weft-tune) would change the
# default choices some of them check. mp.wisdom.np2 names its own files.
export WEFT_WISDOM="${WEFT_WISDOM:-none}"
weft_install_deps
case "$WEFT_SANITIZE" in
  address)
    # MPI leaks by design; abort_on_error lets weft-fuzz save the input that crashed.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
    # Only what the subset below runs (extra ctest flags build everything): the tools, the
    # interposer and the other test programs would add minutes of ASan compiles.
    if [ ${#WEFT_ARGS[@]} -eq 0 ]; then
      export WEFT_TARGETS="weft_unit weft-fuzz weft_sim_test mp_bad_input mp_coll_matrix
        mp_dead_peer mp_faults mp_groups mp_large_count mp_nonblocking mp_plan_test mp_vcolls
        mp_progress_thread mp_gather_scatter"
    fi
    weft_build
    echo "== testing ($WEFT_MPI, ASan + UBSan)"
    cd "$WEFT_BUILD"
    t0=$SECONDS
    if [ ${#WEFT_ARGS[@]} -gt 0 ]; then
      ctest --output-on-failure --timeout 900 "${WEFT_ARGS[@]}"
    else
      ctest --output-on-failure --timeout 900 -j 2 -L 'unit|fuzz'
      ctest --output-on-failure --timeout 900 -j 2 \
        -R 'mp\.(coll_matrix\.np[23]$|coll_matrix\.np4\.vnodes2rr\.nodeshm|bad_input|plan\.np[23]$|nonblocking\.np[23]$|groups\.np3|vcolls\.np3|vcolls\.np5\.vnodes2rr|faults|dead_peer\.np|large|progress_thread\.np2|gather_scatter\.np5\.(tree3|cma|oneshot))|NodeAllToAllV'
    fi
    weft_phase_done "tests" $t0
    ;;
  thread)
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
    WEFT_TARGETS=weft_unit weft_build
    echo "== testing ($WEFT_MPI, TSan)"
    cd "$WEFT_BUILD"
    t0=$SECONDS
    ctest --output-on-failure --timeout 900 -j 2 -L unit "${WEFT_ARGS[@]}"
    weft_phase_done "tests" $t0
    ;;
  *)
    # The torch backend's tests need Debian's torch (without its desktop recommends), and
    # pybind11-dev: torch's extension headers include pybind11, which libtorch-dev does not pull in.
    # WEFT_TORCH=0 builds and tests without it (CI's second MPI: the backend runs over weft's C
    # API, which every other test there exercises).
    if [ "${WEFT_TORCH:-1}" = 0 ]; then
      WEFT_CMAKE_ARGS="${WEFT_CMAKE_ARGS:-} -DWEFT_WITH_TORCH=OFF" weft_build
    else
      WEFT_NO_RECOMMENDS=1 weft_install_pkgs python3-torch libtorch-dev pybind11-dev python3-dev python3-setuptools
      WEFT_CMAKE_ARGS="${WEFT_CMAKE_ARGS:-} -DWEFT_WITH_TORCH=ON" weft_build
    fi
    echo "== testing ($WEFT_MPI)"
    cd "$WEFT_BUILD"
    t0=$SECONDS
    if [ ${#WEFT_ARGS[@]} -gt 0 ]; then
      ctest --output-on-failure --timeout 900 "${WEFT_ARGS[@]}"
    else
      # The simulator's tests are single processes without MPI: two at a time on two cores
      # (about 11 minutes one at a time). The rest one at a time, as the multi-rank tests
      # oversubscribe the cores already.
      ctest --output-on-failure --timeout 900 -j 2 -L sim
      weft_phase_done "simulator tests" $t0
      t0=$SECONDS
      ctest --output-on-failure --timeout 900 -LE sim
    fi
    weft_phase_done "tests" $t0
    ;;
esac
