// Device-buffer helpers shared by the device tests (through the public weftDevice* calls).
#pragma once

#include <weft/weft.h>

#include <string>
#include <vector>

namespace mpt {

/// The status text and the comm's last error, for a failed case's reason.
inline std::string Why(weftResult_t r, weftComm_t c) {
  return std::string(weftGetErrorString(r)) + ": " + weftGetLastError(c);
}

/// A device buffer of n floats holding `fill` everywhere (null if allocation failed).
inline void* DeviceFloats(size_t n, float fill) {
  void* d = nullptr;
  if (weftDeviceMalloc(&d, n * sizeof(float)) != weftSuccess) return nullptr;
  std::vector<float> h(n, fill);
  if (weftDeviceMemcpy(d, h.data(), n * sizeof(float)) != weftSuccess) return nullptr;
  return d;
}

/// Elements [from, from + n) of a device buffer of floats all equal want.
inline bool AllEqual(const void* dev, size_t from, size_t n, float want) {
  std::vector<float> h(from + n);
  if (weftDeviceMemcpy(h.data(), dev, h.size() * sizeof(float)) != weftSuccess) return false;
  for (size_t i = from; i < from + n; ++i) {
    if (h[i] != want) return false;
  }
  return true;
}

}  // namespace mpt
