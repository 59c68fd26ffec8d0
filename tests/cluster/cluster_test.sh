#!/usr/bin/env bash
# Runs one test across the namespace hosts and checks that MPI's traffic crossed the links.
#   cluster_test.sh MPI NP PER_HOST COMMAND [ARGS]
# COMMAND is run with CLUSTER_RUN set to the launcher for this MPI and layout (a command line:
# `$CLUSTER_RUN PROGRAM ARGS` runs a job). Exit 77 (skipped, with the reason) where the cluster
# is not up; otherwise COMMAND's status, or 1 if no byte left any host.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib.sh"
mpi=$1 np=$2 per_host=$3
shift 3
if [ ! -f $WEFT_CLUSTER_STATE/hosts ]; then
  echo "SKIP: the namespace cluster is not up (cluster.up reports why: root and network namespaces are needed)"
  exit 77
fi
tx_bytes() {  # bytes sent by every host's eth0
  local ns total=0
  for ns in $(cat $WEFT_CLUSTER_STATE/hosts); do
    total=$((total + $(ip netns exec "$ns" cat /sys/class/net/eth0/statistics/tx_bytes)))
  done
  echo $total
}
before=$(tx_bytes)
export CLUSTER_RUN="$root/scripts/cluster-run.sh --mpi $mpi -n $np --per-host $per_host"
"$@"
rc=$?
crossed=$(( $(tx_bytes) - before ))
echo "cluster_test: $np ranks, $per_host per host, $mpi: exit $rc; $crossed bytes crossed the host links"
[ $rc -ne 0 ] && exit $rc
if [ $(( (np + per_host - 1) / per_host )) -gt 1 ] && [ $crossed -le 0 ]; then
  echo "cluster_test: no traffic crossed the host links: the job did not run across hosts"
  exit 1
fi
exit 0
