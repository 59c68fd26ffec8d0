// Runs a collective on device buffers through host staging: each buffer is cut into chunks
// (WEFT_STAGING_CHUNK_BYTES per side), and chunk i+1's device->host copy and chunk i-1's
// host->device copy run on the communicator's copy streams while the host runs chunk i's
// collective (weft's compiled schedules on the staging buffers). Small buffers take one hop.
// The copies are ordered after the work already on the user's stream, and that stream's later
// work after the results land; the call returns once they have.
#pragma once

#include "call/coll_args.h"
#include "device/backend.h"
#include "device/buffer_route.h"

namespace weft::device {

/// Elements per chunk of a staged call, from the arguments and the rank count only (never from
/// where this rank's buffers live), so every rank cuts a call into the same collectives.
size_t StagingChunkElems(const Comm& comm, const CollArgs& args);
/// Runs validated args whose buffers `route` describes (host-only ranks run it too when
/// another rank stages).
Status RunStaged(Comm& comm, const CollArgs& args, const BufferRoute& route, Stream stream);

}  // namespace weft::device
