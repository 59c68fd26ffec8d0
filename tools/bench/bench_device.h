// weft-bench's device experiment (--memory device): for each size, every mode of --modes on
// device buffers of the active backend, one row each, so a staging backend can be judged
// against the obvious alternatives in one run (docs/benchmarking.md, "Device buffers").
#pragma once

#include <string>
#include <vector>

#include "bench_colls.h"
#include "bench_output.h"

namespace bench {

/// Device buffers and their host counterparts for one sweep point.
struct DeviceScratch {
  void* send = nullptr;
  void* recv = nullptr;
  std::vector<unsigned char> hsend, hrecv;  // host buffers of host / stage_reuse / copies
};

/// The Impl of a --modes name ("stage_reuse"); false for an unknown name.
bool ParseMode(const std::string& name, Impl* out);
/// The --modes name of a device-experiment Impl.
const char* ModeName(Impl impl);
/// Runs a device mode with host-memory inputs and outputs (for Validate): uploads send and
/// recv, runs, downloads recv.
int RunDeviceViaHost(Impl impl, const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                     unsigned char* recv);
/// The whole device experiment; returns false on a failed call. *wrong sums #wrong.
bool RunDeviceBench(Ctx& x, const Options& o, std::vector<Record>* rows, long long* wrong);

}  // namespace bench
