#!/usr/bin/env bash
# What ssh is to a real cluster: runs a command on one host of scripts/cluster.sh, inside that
# host's network and UTS namespaces (its address, its hostname, its /etc/hosts).
#   cluster-agent.sh [ssh-style options] HOST COMMAND...
# Open MPI's plm_rsh_agent and MPICH hydra's -launcher-exec call it as they would call ssh, so
# ssh's options are accepted and ignored (-x, -o OPT, -p PORT, -l USER, ...), and the command
# words are joined and run by a shell, as sshd would. Inside the namespaces the working
# directory and environment are this process's (one machine, one file system).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
STATE=$WEFT_CLUSTER_STATE
while [ $# -gt 0 ]; do
  case "$1" in
    -[bcDeFIiLlmOopQRSWw]) shift 2 ;;   # ssh options that take a value
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: cluster-agent.sh HOST COMMAND..." >&2; exit 255; }
host=${1%%.*}
shift
[ -e "$STATE/uts/$host" ] ||
  { echo "cluster-agent: no host '$host' (is the cluster up? scripts/cluster.sh status)" >&2; exit 255; }
[ $# -gt 0 ] || { echo "cluster-agent: no command (interactive logins are not offered)" >&2; exit 255; }
# Every host has its own boot id, as separate machines do: UCX (MPICH's transport here) takes
# two processes with one boot id to share a machine and would move their messages through
# shared memory, never through the link. `ip netns exec` gives the command a mount namespace of
# its own, so the bind is seen by it alone.
exec ip netns exec "$host" nsenter --uts="$STATE/uts/$host" -- /bin/sh -c \
  'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec /bin/sh -c "$1"' \
  "$STATE/boot_id/$host" "$*"
