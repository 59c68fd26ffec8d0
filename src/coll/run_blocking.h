// One blocking collective on host buffers: the program cache, building on a miss, running.
// The C API runs each call through RunHostBlocking; the device staging path holds the
// executables of its chunk shapes for the whole call (HeldExecutable) and runs every chunk on
// them, so a staged call enters the cache once per shape, not once per chunk.
#pragma once

#include "call/coll_args.h"
#include "coll/program_cache.h"

namespace weft {

/// Before a blocking collective: completes the communicator's nonblocking executions started
/// earlier (a peer may wait for this rank to advance one of them), unless args is a send or
/// receive (whose peer may start those only after this message). Sets the args' shape fields
/// that depend on the communicator's state (the same on every rank at the same call).
Status PrepareBlocking(Comm& comm, CollArgs* args);
/// The executable for validated, prepared args: comm's cached one for their shape when idle,
/// else built (and kept when small). Held by *out for as long as the caller runs it.
Status HeldExecutable(Comm& comm, const CollArgs& args, ProgramRef* out);
/// Runs validated args (host memory only) to completion on comm.
Status RunHostBlocking(Comm& comm, const CollArgs& args);

}  // namespace weft
