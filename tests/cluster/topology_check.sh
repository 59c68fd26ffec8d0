#!/usr/bin/env bash
# weft finds the hosts: rank 0 dumps the topology weft built for a job across the namespace
# hosts (WEFT_TOPO_DUMP_FILE), and weft-info must print the expected layout.
#   topology_check.sh WEFT_INFO EXPECTED PROGRAM   (run by cluster_test.sh: $CLUSTER_RUN is set)
set -uo pipefail
info=$1 expected=$2 prog=$3
dump=$(mktemp /tmp/weft-cluster-topo.XXXXXX)
trap 'rm -f "$dump"' EXIT
WEFT_TOPO_DUMP_FILE=$dump $CLUSTER_RUN "$prog" > /dev/null || { echo "the job failed"; exit 1; }
layout=$("$info" --topology "$dump") || { echo "weft-info could not read the dump"; exit 1; }
echo "weft sees: $layout"
[ "$layout" = "$expected" ] || { echo "expected: $expected"; exit 1; }
