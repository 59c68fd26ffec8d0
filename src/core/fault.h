// Test-only fault injection: WEFT_FAULT="site:rank[,site:rank...]" makes the named step fail
// on that rank (rank * for every rank), so tests can show what the other ranks do when one
// fails. Empty by default: each check is then one load of a cached flag.
// Sites: device_setup (communicator creation's device backend; rank in MPI_COMM_WORLD),
// exec_after_send (a compiled execution over MPI, right after its first message is posted;
// rank in the communicator), staging_copy (the device->host copy of a staged call's second
// chunk; rank in the communicator), shm_grow (every node segment after the process's first, as a
// full /dev/shm would; the rank in MPI_COMM_WORLD of the node's rank 0).
#pragma once

namespace weft {

/// True when WEFT_FAULT names site for rank (as the site counts ranks: see above).
bool FaultAt(const char* site, int rank);

}  // namespace weft
