// Where a call's buffers live and so which path runs it: host buffers go straight to the
// compiled schedules; device buffers are checked (right device, inside their allocation) and
// go to a native device path where one applies, else to the staging pipeline.
#pragma once

#include "call/coll_args.h"
#include "device/backend.h"

namespace weft::device {

/// The memory of each buffer this rank touches.
struct BufferRoute {
  bool send_device = false, recv_device = false;
  bool any_device() const { return send_device || recv_device; }
};

/// Classifies args' buffers on comm (validated args). Fails with weftInvalidArgument for a
/// device buffer on another device than comm's or running past its allocation.
Status RouteBuffers(Comm& comm, const CollArgs& args, BufferRoute* out);

}  // namespace weft::device
