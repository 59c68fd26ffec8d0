// The single C boundary's guard: every extern "C" entry runs its body through Guarded, so no
// C++ exception crosses into the caller; checks shared by the entries live here too.
#pragma once

#include <exception>
#include <new>

#include "call/coll_args.h"
#include "comm/comm.h"
#include "core/status.h"

namespace weft {

/// Runs body() and turns any exception into a status with its text recorded.
template <typename F>
weftResult_t Guarded(const char* fn, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return FailNoComm(weftSystemError, "%s: out of host memory", fn);
  } catch (const std::exception& e) {
    return FailNoComm(weftInternalError, "%s: internal error: %s", fn, e.what());
  } catch (...) {
    return FailNoComm(weftInternalError, "%s: internal error (unknown exception)", fn);
  }
}

/// weftInvalidUsage unless comm is a live communicator.
Status CheckComm(const char* fn, const Comm* comm);
/// The front of every collective and point-to-point call, blocking or not: the
/// communicator, the stream, the arguments (validated; an error seen by one rank only breaks
/// the communicator, or with WEFT_CHECK_ARGS=1 is agreed by all), the memory the buffers are
/// in. Calls on device buffers run their device path here (*served); host calls leave with
/// zero copy agreed, ready for the host core. grouped: the call is inside a group, which takes
/// host buffers only.
Status PrepareCall(const char* fn, Comm* comm, void* stream, CollArgs* args, bool* served,
                   bool grouped = false);
/// A blocking call (or, inside a group, one added to it): PrepareCall, then the host core.
weftResult_t RunBlocking(CollArgs a, Comm* comm, void* stream);
/// A nonblocking call: PrepareCall, then a request started on comm's queue into *request.
weftResult_t StartNonblocking(CollArgs a, Comm* comm, weftRequest_t* request);
/// A stream argument: NULL, or a stream of comm's device backend (weftInvalidArgument
/// otherwise; weftNotSupported when the backend has no devices at all).
Status CheckStreamArg(const char* fn, Comm& comm, const void* stream);

}  // namespace weft
