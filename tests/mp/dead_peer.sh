#!/bin/sh
# Kills one of NP ranks in the middle of a shared-memory collective (dead_peer.cc) and checks
# that every survivor reported "survivor ok" and that no weft segment is left in /dev/shm.
# The launcher must let survivors run on after a rank dies: Open MPI does with
# orte_enable_recovery; MPICH 4.0.2's Hydra ends the job about a second after a death whatever
# its flags, so there the rank is stopped instead (--stop; see dead_peer.cc).
# Usage: dead_peer.sh NP DEAD_PEER_BIN MPIEXEC [mpiexec flags...]
# DEAD_PEER_AGREE=1: the rank dies before a zero-copy call, while the survivors agree on it
# (dead_peer.cc --agree).
np="$1"; bin="$2"; mpiexec="$3"; shift 3
# A dead peer must be noticed within a second whatever the deadline, so that run has a long one;
# a stopped peer is only given up at the deadline, so that run has a short one.
case "$("$mpiexec" --version 2>&1)" in
  *"Open MPI"*|*OpenRTE*) keep="--mca orte_enable_recovery 1"; deadline=60 ;;
  *HYDRA*|*Hydra*) keep=""; mode="--stop"; deadline=3 ;;
  *) echo "unknown launcher $mpiexec"; exit 1 ;;
esac
count() { ls /dev/shm 2>/dev/null | grep -c '^weft-'; }
before=$(count)
out=$(WEFT_TIMEOUT_S=$deadline timeout 120 "$mpiexec" $keep "$@" -n "$np" "$bin" $mode ${DEAD_PEER_AGREE:+--agree} 2>&1)
echo "$out"
after=$(count)
ok=$(echo "$out" | grep -c "survivor ok")
echo "survivors ok: $ok of $((np - 1)); weft segments in /dev/shm before: $before, after: $after"
test "$ok" -eq $((np - 1)) && test "$after" -le "$before"
