// One blocking collective on host buffers: the program cache, building on a miss, running.
// The C API and the device staging path (which runs each staged chunk through it) share it.
#pragma once

#include "call/coll_args.h"

namespace weft {

/// Runs validated args (host memory only) to completion on comm.
Status RunHostBlocking(Comm& comm, const CollArgs& args);

}  // namespace weft
