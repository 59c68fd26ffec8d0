#!/usr/bin/env bash
# A cluster of N hosts on this one machine, for running weft and both MPIs across hosts
# (docs/cluster.md says what it models and what it does not).
#   ./scripts/cluster.sh up [--hosts N] [--rate R]   N hosts (default 2), egress shaped to R
#                                                  (tc rate, e.g. 10gbit; default: unshaped)
#   ./scripts/cluster.sh down                        removes every namespace, link and file
#   ./scripts/cluster.sh status                      hosts, addresses, shaping, ping latency
# Needs root. Each host is a network namespace weft-hI (its own loopback and one veth, eth0,
# at 198.18.0.I/24, the RFC 2544 benchmarking range) plus a UTS namespace (hostname weft-hI).
# The veths meet at a bridge inside a switch namespace of its own (weft-sw), so nothing is
# routed to or from the machine's own network. Names resolve through /etc/netns/weft-hI/hosts,
# which `ip netns exec` binds over /etc/hosts. scripts/cluster-agent.sh runs a command on a
# host, as ssh would; scripts/cluster-run.sh launches MPI jobs across the hosts.
# `up` first takes down whatever an earlier (perhaps half-made) cluster left.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

STATE=$WEFT_CLUSTER_STATE  # uts/ (bound UTS namespaces), boot_id/ (one per host), hosts, rate
SWITCH=weft-sw
SUBNET=$WEFT_CLUSTER_SUBNET

need_root() {
  [ "$(id -u)" -eq 0 ] || { echo "cluster.sh: needs root (network namespaces)" >&2; exit 2; }
}

cluster_down() {
  local ns
  for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep -E '^weft-(h[0-9]+|sw)$' || true); do
    # Processes left on a host (a launcher killed mid-run) would keep its namespace alive.
    ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null || true
    ip netns delete "$ns" 2> /dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  if [ -d "$STATE/uts" ]; then
    local f
    for f in "$STATE"/uts/*; do
      [ -e "$f" ] || continue
      umount "$f" 2> /dev/null || true
    done
  fi
  rm -rf "$STATE"
  rmdir /etc/netns 2> /dev/null || true   # only if empty: it may hold other namespaces' files
}

# Bytes a token bucket must hold to pass RATE: a millisecond's worth, at least 256 KiB (TSO
# hands the qdisc 64 KiB segments; a bucket smaller than two of them stalls the link).
tbf_burst() {
  local bits
  bits=$(tc_rate_bits "$1")
  local b=$((bits / 8 / 1000))
  [ $b -lt 262144 ] && b=262144
  echo $b
}

tc_rate_bits() {  # 10gbit, 500mbit, 1000000 (bits/s) -> bits per second
  local r=${1,,}
  case "$r" in
    *gbit) echo $(( ${r%gbit} * 1000000000 )) ;;
    *mbit) echo $(( ${r%mbit} * 1000000 )) ;;
    *kbit) echo $(( ${r%kbit} * 1000 )) ;;
    *[!0-9]*) echo "cluster.sh: rate '$1': use Ngbit, Nmbit, Nkbit or bits/s" >&2; exit 2 ;;
    *) echo "$r" ;;
  esac
}

cluster_up() {
  local hosts=2 rate=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --hosts) hosts=$2; shift 2 ;;
      --rate) rate=$2; shift 2 ;;
      *) echo "cluster.sh up: unknown option '$1'" >&2; exit 2 ;;
    esac
  done
  [[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 64 ] ||
    { echo "cluster.sh: --hosts must be 1..64" >&2; exit 2; }
  [ -n "$rate" ] && tc_rate_bits "$rate" > /dev/null
  weft_install_pkgs iproute2 util-linux iputils-ping gcc libucx-dev
  cluster_down
  mkdir -p "$STATE/uts" "$STATE/boot_id"
  ip netns add $SWITCH
  ip -n $SWITCH link set lo up
  ip -n $SWITCH link add br0 type bridge
  ip -n $SWITCH link set br0 up
  local i hostsfile names=()
  hostsfile=$(mktemp)
  printf '127.0.0.1 localhost\n::1 localhost\n' > "$hostsfile"
  for i in $(seq 1 "$hosts"); do
    printf '%s.%d weft-h%d\n' $SUBNET "$i" "$i" >> "$hostsfile"
  done
  for i in $(seq 1 "$hosts"); do
    local ns=weft-h$i
    names+=("$ns")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip link add eth0 netns "$ns" type veth peer name "p$i" netns $SWITCH
    ip -n $SWITCH link set "p$i" master br0
    ip -n $SWITCH link set "p$i" up
    ip -n "$ns" addr add "$SUBNET.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    if [ -n "$rate" ]; then
      ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate "$rate" \
        burst "$(tbf_burst "$rate")" latency 20ms
    fi
    cat /proc/sys/kernel/random/uuid > "$STATE/boot_id/$ns"
    touch "$STATE/uts/$ns"
    unshare --uts="$STATE/uts/$ns" hostname "$ns"
    mkdir -p "/etc/netns/$ns"
    cp "$hostsfile" "/etc/netns/$ns/hosts"
  done
  rm -f "$hostsfile"
  printf '%s\n' "${names[@]}" > "$STATE/hosts"
  echo "${rate:-unshaped}" > "$STATE/rate"
  # Both ends see each other before anyone launches (the bridge learns addresses on first use).
  for i in $(seq 2 "$hosts"); do
    ip netns exec weft-h1 ping -c 1 -W 2 "$SUBNET.$i" > /dev/null ||
      { echo "cluster.sh: weft-h1 cannot reach weft-h$i" >&2; cluster_down; exit 1; }
  done
  echo "cluster up: $hosts hosts (${names[*]}), egress ${rate:-unshaped}"
}

cluster_status() {
  [ -f "$STATE/hosts" ] || { echo "cluster: down"; return 1; }
  echo "cluster: $(wc -l < "$STATE/hosts") hosts, egress $(cat "$STATE/rate")"
  local ns
  while read -r ns; do
    local addr rtt
    addr=$(ip -n "$ns" -4 -o addr show dev eth0 | awk '{print $4}')
    rtt=$(ip netns exec weft-h1 ping -c 5 -i 0.2 -q "$ns" 2> /dev/null | awk -F/ '/rtt/{print $5 " ms"}')
    echo "  $ns  $addr  hostname $("$(dirname "$0")/cluster-agent.sh" "$ns" hostname)  rtt from weft-h1 ${rtt:-unreachable}"
  done < "$STATE/hosts"
}

need_root
cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  up) cluster_up "$@" ;;
  down) cluster_down; echo "cluster down" ;;
  status) cluster_status ;;
  *) echo "usage: cluster.sh up [--hosts N] [--rate R] | down | status" >&2; exit 2 ;;
esac
