# Shared by demo.sh and test.sh: choose the MPI (--mpi openmpi|mpich), install what is missing
# from Debian's packages, and configure + build into build-<mpi>/.
# Debian's alternatives keep mpicc/mpiexec pointing at one MPI when both are installed, so
# every tool is called by its explicit name (mpicc.openmpi, mpiexec.mpich, ...).

WEFT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WEFT_MPI=openmpi
# The namespace cluster (scripts/cluster.sh): its state (bound namespaces, boot ids, host list)
# and the /24 its hosts' addresses come from (RFC 2544's benchmarking range).
WEFT_CLUSTER_STATE=/run/weft-cluster
WEFT_CLUSTER_SUBNET=198.18.0

weft_parse_mpi() {  # sets WEFT_MPI from --mpi NAME, WEFT_SANITIZE from --sanitize NAME; other
  WEFT_ARGS=()    # args go to WEFT_ARGS
  WEFT_SANITIZE=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --mpi) WEFT_MPI=$2; shift 2 ;;
      --mpi=*) WEFT_MPI=${1#--mpi=}; shift ;;
      --sanitize) WEFT_SANITIZE=$2; shift 2 ;;
      --sanitize=*) WEFT_SANITIZE=${1#--sanitize=}; shift ;;
      *) WEFT_ARGS+=("$1"); shift ;;
    esac
  done
  case "$WEFT_MPI" in
    openmpi|mpich) ;;
    *) echo "unknown --mpi '$WEFT_MPI' (openmpi or mpich)" >&2; exit 2 ;;
  esac
  case "$WEFT_SANITIZE" in
    ""|address|thread) ;;
    *) echo "unknown --sanitize '$WEFT_SANITIZE' (address or thread)" >&2; exit 2 ;;
  esac
  WEFT_BUILD="$WEFT_ROOT/build-$WEFT_MPI${WEFT_SANITIZE:+-$WEFT_SANITIZE}"
  WEFT_MPICC=/usr/bin/mpicc.$WEFT_MPI
  WEFT_MPIEXEC=/usr/bin/mpiexec.$WEFT_MPI
  if [ "$WEFT_MPI" = openmpi ]; then
    WEFT_MPIEXEC_FLAGS=(--allow-run-as-root --oversubscribe)
  else
    WEFT_MPIEXEC_FLAGS=()
  fi
}

weft_install_deps() {
  local pkgs=(cmake g++ gfortran make pkg-config libgtest-dev python3-matplotlib python3-mpi4py python3-numpy)
  if [ "$WEFT_MPI" = openmpi ]; then pkgs+=(openmpi-bin libopenmpi-dev); else pkgs+=(mpich libmpich-dev); fi
  weft_install_pkgs "${pkgs[@]}"
}

weft_install_pkgs() {  # PKG...: installs those of Debian's packages that are missing
  # (WEFT_NO_RECOMMENDS=1: without the packages they recommend)
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing: ${missing[*]} (log: /tmp/weft-apt.log)"
  local t0=$SECONDS
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  local extra=()
  [ -n "${WEFT_NO_RECOMMENDS:-}" ] && extra=(--no-install-recommends)
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${extra[@]}" "${missing[@]}" \
    > /tmp/weft-apt.log 2>&1 ||
    { cat /tmp/weft-apt.log; echo "apt-get install failed" >&2; exit 1; }
  weft_phase_done "install ${#missing[@]} packages" $t0
}

weft_build() {
  echo "== building weft against $WEFT_MPI in $WEFT_BUILD (log: $WEFT_BUILD.build.log)"
  local type=Release t0=$SECONDS
  [ -n "${WEFT_SANITIZE:-}" ] && type=RelWithDebInfo
  cmake -S "$WEFT_ROOT" -B "$WEFT_BUILD" -DCMAKE_BUILD_TYPE=$type -DWEFT_SANITIZE="${WEFT_SANITIZE:-}" \
    -DMPI_C_COMPILER="$WEFT_MPICC" -DMPIEXEC_EXECUTABLE="$WEFT_MPIEXEC" ${WEFT_CMAKE_ARGS:-} \
    > "$WEFT_BUILD.configure.log" 2>&1 ||
    { cat "$WEFT_BUILD.configure.log"; exit 1; }
  # WEFT_TARGETS: build only these targets (the sanitizer runs need only their tests).
  # make's percentage lines show progress; the whole output goes to the log.
  local rc=0
  cmake --build "$WEFT_BUILD" -j "$(nproc)" ${WEFT_TARGETS:+--target $WEFT_TARGETS} 2>&1 |
    tee "$WEFT_BUILD.build.log" | weft_progress || rc=$?
  if [ "$rc" -ne 0 ]; then  # callers set pipefail: make's status, not the filter's
    # The compiler's own output in full: every line but make's progress lines.
    grep -v -E '^\[ *[0-9]+%\] (Building|Linking|Built|Generating)|^(Scanning|Consolidate)' \
      "$WEFT_BUILD.build.log"
    echo "build failed (full log: $WEFT_BUILD.build.log)" >&2
    exit 1
  fi
  weft_phase_done "build ($WEFT_MPI${WEFT_SANITIZE:+, $WEFT_SANITIZE})" $t0
}

weft_progress() {  # filters make's "[ 42%] Building ..." lines into progress: one line
  # rewritten in place on a terminal, else a line at every 10%
  local line pct last=-1
  while IFS= read -r line; do
    [[ $line =~ ^\[\ *([0-9]+)%\] ]] || continue
    pct=${BASH_REMATCH[1]}
    if [ -t 1 ]; then
      printf '\r   %3d%% %-70.70s' "$pct" "${line#*] }"
    elif [ $((pct / 10)) -ne $((last / 10)) ] || [ "$last" -lt 0 ]; then
      echo "   $pct%"
    fi
    last=$pct
  done
  [ -t 1 ] && printf '\r%80s\r' ""
  return 0
}

WEFT_PHASES=()
weft_phase_done() {  # NAME T0: records that phase NAME, begun at $SECONDS T0, is done
  WEFT_PHASES+=("$1: $(($SECONDS - $2)) s")
}

weft_phase_report() {  # prints each recorded phase's time
  [ ${#WEFT_PHASES[@]} -eq 0 ] && return 0
  local IFS=';'
  echo "== time: ${WEFT_PHASES[*]}" | sed 's/;/; /g'
}

weft_valgrind_rank() {  # DIR RANK VALGRIND_ARGS...: writes DIR/wrap.sh, which runs the program
  # it is given under valgrind (with those arguments) on that MPI rank and plainly elsewhere
  command -v valgrind > /dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
  local dir=$1 rank=$2 rank_var=OMPI_COMM_WORLD_RANK
  shift 2
  [ "$WEFT_MPI" = mpich ] && rank_var=PMI_RANK
  cat > "$dir/wrap.sh" << WRAP
#!/usr/bin/env bash
if [ "\${$rank_var}" = "$rank" ]; then exec valgrind -q $* "\$@"; fi
exec "\$@"
WRAP
  chmod +x "$dir/wrap.sh"
}

weft_bench_start() {  # OUTDIR [--mpi NAME]: sets WEFT_OUTDIR (made), WEFT_MPI; builds
  WEFT_OUTDIR="$(realpath -m "$1")"; shift
  weft_parse_mpi "$@"
  weft_build
  mkdir -p "$WEFT_OUTDIR"
}
