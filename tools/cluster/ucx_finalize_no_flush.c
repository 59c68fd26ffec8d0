/* Preloaded into MPICH jobs on the namespace cluster (scripts/cluster-run.sh), native and weft
 * runs alike. Debian's MPICH 4.0.2 (ch4:ucx) closes every UCX endpoint in MPI_Finalize with
 * ucp_disconnect_nb and spins until all close, then enters a PMI barrier that makes no UCX
 * progress. Over UCX 1.13's TCP transport a close needs the peer's progress, so a rank whose
 * peers already sit in the barrier spins for ever (openucx/ucx#8738). Measured on this cluster
 * (2 hosts x 2 ranks, an 8 MB allreduce then MPI_Finalize): 16 of 25 runs hung; with this
 * file, 0 of 20.
 * Skipping the close loses nothing a correct MPI program can see: a rank leaves the PMI barrier,
 * and only then destroys its endpoints (ucp_worker_destroy), once every rank has entered
 * MPI_Finalize, so every message was already received and every send already completed.
 */
#include <ucp/api/ucp.h>

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  (void)ep;
  return NULL; /* UCS_OK: nothing to wait for */
}
