// Chooses the process's backend once, from WEFT_DEVICE.
#include "device/backend.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "comm/comm.h"
#include "core/build_config.h"
#include "core/build_info.h"
#include "core/log.h"
#include "core/params.h"
#include "device/binding.h"

namespace weft::device {
namespace {

struct Chosen {
  std::unique_ptr<Backend> backend;
  Status status = weftSuccess;
  std::string why;
};

Chosen Choose() {
  Chosen c;
  const std::string want = GetParams().WEFT_DEVICE;
  const char* cuda_why = "this build has no CUDA backend (WEFT_WITH_CUDA=OFF or nvcc not found)";
  if (want == "emulated") {
    c.backend.reset(MakeEmulatedBackend());
  } else if (want == "cuda" || want == "auto") {
    Backend* b = Built("cuda") ? MakeCudaBackend(&cuda_why) : nullptr;
    if (b != nullptr) {
      c.backend.reset(b);
    } else if (want == "cuda") {
      c.status = Built("cuda") ? weftUnhandledDeviceError : weftInvalidArgument;
      c.why = std::string("WEFT_DEVICE=cuda: ") + cuda_why;
    } else {
      WEFT_INFO(kInit, "device backend: host (%s)", cuda_why);
    }
  } else if (want != "host") {
    c.status = weftInvalidArgument;
    c.why = "WEFT_DEVICE=" + want + " is not a backend (auto, host, emulated" +
            (Built("cuda") ? ", cuda)" : "; cuda is not built)");
  }
  if (!c.backend) c.backend.reset(MakeHostBackend());
  // Before any communicator exists (device memory allocated before weftCommInitMPI), the
  // launcher's local rank is the best guess; BindDevice confirms or corrects it at comm init.
  const char* var = nullptr;
  int hint = LocalRankHint(&var);
  Binding early;
  if (c.backend->DeviceCount() > 0 && hint >= 0 &&
      ChooseDevice(c.backend->DeviceCount(), GetParams().WEFT_DEVICES, hint, 1, &early) ==
          weftSuccess &&
      c.backend->SetDevice(early.device) == weftSuccess) {
    WEFT_INFO(kDevice, "early device %d from %s=%d", early.device, var, hint);
  }
  WEFT_INFO(kInit, "device backend: %s, %d device(s)", c.backend->name(), c.backend->DeviceCount());
  return c;
}

}  // namespace

Status GetBackend(Backend** out) {
  static Chosen chosen = Choose();  // thread-safe initialization
  *out = chosen.backend.get();
  if (chosen.status != weftSuccess) return FailNoComm(chosen.status, "%s", chosen.why.c_str());
  return weftSuccess;
}

Status PageableHostAlloc(size_t bytes, void** ptr, bool* pinned) {
  *pinned = false;
  *ptr = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (*ptr == nullptr) return FailNoComm(weftSystemError, "staging: out of host memory");
  return weftSuccess;
}

Status PageableHostFree(void* ptr) {
  std::free(ptr);
  return weftSuccess;
}

bool Built(const char* name) {
  std::string n = name;
  if (n == "host" || n == "emulated") return true;
  if (n == "cuda") return WEFT_WITH_CUDA_BUILT != 0;
  return false;
}

const char* BuiltNames() { return BuiltDeviceBackends(); }

#if !WEFT_WITH_CUDA_BUILT
Backend* MakeCudaBackend(const char** why) {
  *why = "this build has no CUDA backend";
  return nullptr;
}
#endif

}  // namespace weft::device
