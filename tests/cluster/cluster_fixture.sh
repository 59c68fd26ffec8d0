#!/usr/bin/env bash
# ctest fixture for the cluster tests: `up` brings up 3 namespace hosts (scripts/cluster.sh),
# `down` removes them. Where the machine cannot make network namespaces (not root, no
# iproute2, a container without CAP_SYS_ADMIN) `up` reports itself skipped (exit 77) with the
# reason, and every cluster test does the same.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
  up)
    if [ "$(id -u)" -ne 0 ]; then echo "SKIP: the cluster tests need root (network namespaces)"; exit 77; fi
    if ! command -v ip > /dev/null || ! ip netns add weft-probe 2> /tmp/weft-netns-probe.err; then
      echo "SKIP: this machine cannot make network namespaces: $(cat /tmp/weft-netns-probe.err 2> /dev/null)"
      exit 77
    fi
    ip netns delete weft-probe
    "$root/scripts/cluster.sh" up --hosts 3 && "$root/scripts/cluster.sh" status
    ;;
  down) "$root/scripts/cluster.sh" down ;;
  *) echo "usage: cluster_fixture.sh up|down"; exit 2 ;;
esac
