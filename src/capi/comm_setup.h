// Creating and freeing a communicator: the host part (comm/comm.h), then each layer above it
// (the device backend and binding, the program cache). It sits at the top of the layers so
// that comm/ knows none of those it owns (comm.h's LayerOwned).
#pragma once

#include "comm/comm.h"

namespace weft {

/// Collective over user: creates a communicator. On failure *out is null, nothing is left, and
/// the text is in the thread's last error.
Status CreateComm(MPI_Comm user, Comm** out);
/// Frees comm: its memory windows' ties, cached executables (they own MPI datatypes), the
/// device state (drains the staging streams), then the host part.
Status DestroyComm(Comm* comm);

}  // namespace weft
