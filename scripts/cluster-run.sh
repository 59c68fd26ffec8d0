#!/usr/bin/env bash
# Runs an MPI job across the hosts of scripts/cluster.sh with the MPI's own launcher: mpirun or
# hydra starts inside the first host and reaches the others through scripts/cluster-agent.sh,
# as it would through ssh; ranks fill the hosts in order, K per host.
#   ./scripts/cluster-run.sh [--mpi openmpi|mpich] -n N --per-host K [--weftrun PATH]
#                            [--mpiexec-arg ARG]... PROGRAM [ARGS]
# --weftrun runs the job through that weftrun (the interposer preloaded on every rank) instead
# of the plain mpiexec. Environment variables WEFT_*, UCX_*, ASAN_/UBSAN_OPTIONS and LD_PRELOAD
# reach every rank under both MPIs. Exit status: the job's; 2 for bad usage or a cluster that
# is down or too small. docs/cluster.md explains each MPI setting below.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
STATE=$WEFT_CLUSTER_STATE
SUBNET=$WEFT_CLUSTER_SUBNET.0/24

mpi=openmpi np="" per_host="" weftrun="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) mpi=$2; shift 2 ;;
    -n|-np) np=$2; shift 2 ;;
    --per-host) per_host=$2; shift 2 ;;
    --weftrun) weftrun=$(realpath "$2"); shift 2 ;;
    --mpiexec-arg) extra+=("$2"); shift 2 ;;
    --) shift; break ;;
    -*) echo "cluster-run: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: cluster-run.sh [--mpi M] -n N --per-host K PROGRAM [ARGS]" >&2; exit 2; }
[[ "$np" =~ ^[1-9][0-9]*$ && "$per_host" =~ ^[1-9][0-9]*$ ]] ||
  { echo "cluster-run: -n and --per-host must be positive integers" >&2; exit 2; }
[ -f "$STATE/hosts" ] || { echo "cluster-run: the cluster is down (scripts/cluster.sh up)" >&2; exit 2; }
nhosts=$(( (np + per_host - 1) / per_host ))
mapfile -t hosts < "$STATE/hosts"
[ "$nhosts" -le ${#hosts[@]} ] ||
  { echo "cluster-run: $np ranks at $per_host per host need $nhosts hosts; the cluster has ${#hosts[@]}" >&2; exit 2; }
host_list=""
for ((i = 0; i < nhosts; i++)); do host_list+="${host_list:+,}${hosts[$i]}:$per_host"; done
agent=$here/cluster-agent.sh
prog=("$@")
[ -e "${prog[0]}" ] && prog[0]=$(realpath "${prog[0]}")

case "$mpi" in
  openmpi)
    launcher=(/usr/bin/mpiexec.openmpi)
    # ob1 + the tcp BTL: Open MPI's own TCP path between hosts, vader (shared memory) inside one;
    # the interfaces are pinned to the cluster's subnet so neither the BTL nor the daemons' out-
    # of-band channel tries loopback or another namespace's address.
    flags=(--allow-run-as-root --oversubscribe --host "$host_list" -n "$np"
           --bind-to none --mca plm_rsh_agent "$agent" --mca pml ob1 --mca btl self,vader,tcp
           --mca btl_tcp_if_include $SUBNET --mca oob_tcp_if_include $SUBNET)
    # Every namespace host offers all of the machine's cores, so Open MPI never sees that the
    # hosts together oversubscribe them, and its waits spin without yielding: at 2 hosts x 2
    # ranks on 2 cores a 1 KiB allreduce took 16 ms (CFS time slices), 128 us with yielding.
    if [ "$np" -gt "$(nproc)" ] && [ -z "${OMPI_MCA_mpi_yield_when_idle:-}" ]; then
      flags+=(--mca mpi_yield_when_idle 1)
    fi
    for v in $(compgen -e); do
      case "$v" in WEFT_*|UCX_*|ASAN_OPTIONS|UBSAN_OPTIONS|TSAN_OPTIONS|LD_PRELOAD) flags+=(-x "$v") ;; esac
    done
    ;;
  mpich)
    launcher=(/usr/bin/mpiexec.mpich)
    flags=(-launcher ssh -launcher-exec "$agent" -hosts "$host_list" -n "$np")
    # Hydra hands every rank the launcher's environment, so the workaround for UCX's finalize
    # hang (tools/cluster/ucx_finalize_no_flush.c) reaches each rank through LD_PRELOAD.
    fix=$STATE/libucx_finalize_no_flush.so
    if [ ! -f "$fix" ]; then
      gcc -shared -fPIC -O2 -o "$fix" "$WEFT_ROOT/tools/cluster/ucx_finalize_no_flush.c" -lucp ||
        { echo "cluster-run: could not build $fix (needs libucx-dev)" >&2; exit 2; }
    fi
    export LD_PRELOAD="$fix${LD_PRELOAD:+:$LD_PRELOAD}"
    ;;
  *) echo "cluster-run: unknown --mpi '$mpi' (openmpi or mpich)" >&2; exit 2 ;;
esac
[ -n "$weftrun" ] && launcher=("$weftrun")
cmd=$(printf '%q ' "${launcher[@]}" "${flags[@]}" "${extra[@]}" "${prog[@]}")
exec "$agent" "${hosts[0]}" "cd $(printf '%q' "$PWD") && exec $cmd"
