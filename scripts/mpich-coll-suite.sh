#!/usr/bin/env bash
# MPICH's own collective tests (test/mpi/coll of Debian's mpich 4.0.2 source package), built
# against the chosen MPI and run unmodified at NP ranks, natively and under weftrun at the
# default log level. Every test that passes natively must pass under the interposer, with
# stdout and stderr identical. Prints one line per test and a summary; exits 1 on a test that
# passes natively and fails under weftrun.
#   ./scripts/mpich-coll-suite.sh [--mpi openmpi|mpich] [--np N] [--only REGEX] [OUTFILE]
# The source comes from Debian's deb-src archive through apt (a source list of its own, so the
# system's apt setup is untouched), into third_party/ (ignored by git), and is built once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
np=2 only="" outfile=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --np) np=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --mpi|--mpi=*) args+=("$1"); [ "$1" = --mpi ] && { args+=("$2"); shift; }; shift ;;
    *) outfile=$1; shift ;;
  esac
done
weft_parse_mpi "${args[@]}"
weft_install_deps
command -v xz > /dev/null || apt-get install -y -qq xz-utils > /dev/null
weft_build

third=$WEFT_ROOT/third_party
src=$third/mpich-4.0.2
if [ ! -d "$src/test/mpi/coll" ]; then
  echo "== fetching MPICH's test suite (Debian source package mpich)"
  apt_dir=$third/apt
  mkdir -p "$apt_dir/lists/partial"
  cat > "$apt_dir/src.sources" << 'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt_dir"
            -o Dir::State::Lists="$apt_dir/lists")
  apt-get "${apt_opts[@]}" update > "$apt_dir/update.log" 2>&1
  (cd "$third" && apt-get "${apt_opts[@]}" source --download-only mpich=4.0.2-3 > "$apt_dir/source.log" 2>&1)
  tar -C "$third" -xJf "$third/mpich_4.0.2.orig.tar.xz" mpich-4.0.2/test/mpi
fi
suite=$third/suite-$WEFT_MPI
if [ ! -x "$suite/coll/allred" ]; then
  echo "== configuring and building the suite against $WEFT_MPI in $suite (several minutes)"
  mkdir -p "$suite"
  (cd "$suite" && "$src/test/mpi/configure" CC="$WEFT_MPICC" MPICC="$WEFT_MPICC" \
    --enable-fortran=none --disable-cxx --disable-romio --disable-spawn --disable-rma \
    --disable-part --enable-strictmpi > configure.log 2>&1) || { tail -20 "$suite/configure.log"; exit 1; }
  # The suite still calls MPI-1 functions (MPI_Type_hvector) that Open MPI's header hides
  # unless asked; MPI 4 calls missing from Open MPI 4.1 (MPI_Allreduce_init) leave those
  # tests unbuilt (-k), and they are listed as such.
  cppflags=""
  [ "$WEFT_MPI" = openmpi ] && cppflags=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0
  for d in dtpools util coll; do
    make -k -C "$suite/$d" -j "$(nproc)" CPPFLAGS="$cppflags" > "$suite/make-$d.log" 2>&1 || true
  done
fi

weftrun=$WEFT_BUILD/weftrun
pass_native=0 pass_weft=0 regress=0 total=0
report=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # OUT ERR CMD...: 0 when the test passed
  local out=$1 err=$2
  shift 2
  (cd "$suite/coll" && timeout 60 "$@" < /dev/null > "$out" 2> "$err") && grep -q "No Errors" "$out"
}
while read -r prog procs rest; do
  case "$prog" in ''|'#'*|@*) continue ;; esac
  [ -n "$only" ] && ! [[ "$prog $rest" =~ $only ]] && continue
  targs=()
  for w in $rest; do
    case "$w" in arg=*) targs+=("${w#arg=}") ;; esac
  done
  name="$prog ${targs[*]}"
  total=$((total + 1))
  if [ ! -x "$suite/coll/$prog" ]; then
    echo "not built: $name" >> "$report"
    continue
  fi
  native=FAIL weft=FAIL same=""
  if run "$work/n.out" "$work/n.err" "$WEFT_MPIEXEC" "${WEFT_MPIEXEC_FLAGS[@]}" -n "$np" "./$prog" "${targs[@]}"; then
    native=pass
    pass_native=$((pass_native + 1))
  fi
  if run "$work/w.out" "$work/w.err" "$weftrun" "${WEFT_MPIEXEC_FLAGS[@]}" -n "$np" "./$prog" "${targs[@]}"; then
    weft=pass
    pass_weft=$((pass_weft + 1))
  fi
  if [ "$native" = pass ]; then
    if [ "$weft" != pass ]; then
      regress=$((regress + 1))
    elif ! cmp -s "$work/n.out" "$work/w.out" || ! cmp -s "$work/n.err" "$work/w.err"; then
      same=" (output differs)"
      regress=$((regress + 1))
    fi
  fi
  printf '%-6s %-6s %s%s\n' "$native" "$weft" "$name" "$same" | tee -a "$report"
done < <(cat "$suite/coll/testlist" "$suite/coll/testlist.dtp")
summary="mpich-coll-suite ($WEFT_MPI, $np ranks): $total tests; native $pass_native pass; weftrun $pass_weft pass; $regress pass natively and fail or differ under weftrun"
echo "$summary"
if [ -n "$outfile" ]; then
  { echo "native weft   test"; cat "$report"; echo; echo "$summary"; } > "$outfile"
fi
rm -f "$report"
[ "$regress" -eq 0 ]
