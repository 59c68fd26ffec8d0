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
# DEAD_PEER_MPI names the MPI where MPIEXEC cannot say (scripts/cluster-run.sh);
# DEAD_PEER_DEADLINE, DEAD_PEER_ARGS (extra arguments of dead_peer.cc, e.g. --any-error) and
# DEAD_PEER_JOB_TIMEOUT serve the runs across hosts, where a dead rank on another host is seen
# only through MPI, and where Open MPI 4.1.4's mpirun with orte_enable_recovery stays up after
# every survivor has left (measured: until killed), so the job is ended by the timeout; the
# verdict is the survivors' lines and /dev/shm, never the launcher's exit status.
mpi=${DEAD_PEER_MPI:-}
if [ -z "$mpi" ]; then
  case "$("$mpiexec" --version 2>&1)" in
    *"Open MPI"*|*OpenRTE*) mpi=openmpi ;;
    *HYDRA*|*Hydra*) mpi=mpich ;;
    *) echo "unknown launcher $mpiexec"; exit 1 ;;
  esac
fi
mode=""
case "$mpi" in
  openmpi) export OMPI_MCA_orte_enable_recovery=1; deadline=${DEAD_PEER_DEADLINE:-60} ;;
  *) mode="--stop"; deadline=3 ;;
esac
count() { ls /dev/shm 2>/dev/null | grep -c '^weft-'; }
before=$(count)
run() {
  WEFT_TIMEOUT_S=$deadline timeout "${DEAD_PEER_JOB_TIMEOUT:-120}" "$mpiexec" "$@" -n "$np" "$bin" $mode ${DEAD_PEER_AGREE:+--agree} ${DEAD_PEER_ARGS:-} 2>&1
}
out=$(run "$@")
# Open MPI 4.1.4's own daemon (orted) can crash while it handles the killed rank's abort
# (SIGSEGV in pmix_server_log_fn -> orte_rml_oob_send_buffer_nb, 3 s into the run): seen once
# in five runs of cluster.dead_peer.2x2, and then no rank on that host survives, whatever weft
# does. That case alone runs once more, and says so; the verdict below is unchanged.
case "$out" in
  *pmix_server_log_fn*)
    echo "$out"
    echo "dead_peer: the launcher's daemon crashed (above), not a rank; running once more"
    out=$(run "$@") ;;
esac
echo "$out"
after=$(count)
ok=$(echo "$out" | grep -c "survivor ok")
echo "survivors ok: $ok of $((np - 1)); weft segments in /dev/shm before: $before, after: $after"
test "$ok" -eq $((np - 1)) && test "$after" -le "$before"
