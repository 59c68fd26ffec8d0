// Test-only fault injection: WEFT_FAULT="site:rank[,site:rank...]" makes the named step fail
// on that MPI_COMM_WORLD rank (rank * for every rank), so tests can show what the other ranks
// do when one fails. Empty by default: each check is then one load of a cached flag.
// Sites: device_setup (communicator creation's device backend), staging_copy (a staged
// device chunk's copy), exec_after_send (an execution, once its first message is posted).
#pragma once

namespace weft {

/// True when WEFT_FAULT names site for world_rank (the caller's rank in MPI_COMM_WORLD).
bool FaultAt(const char* site, int world_rank);

}  // namespace weft
