// The single C boundary's guard: every extern "C" entry runs its body through Guarded, so no
// C++ exception crosses into the caller; checks shared by the entries live here too.
#pragma once

#include <exception>
#include <new>

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
/// A stream argument: NULL, or a stream of comm's device backend (weftInvalidArgument
/// otherwise; weftNotSupported when the backend has no devices at all).
Status CheckStreamArg(const char* fn, Comm& comm, const void* stream);

}  // namespace weft
