// Spin-wait hint shared by every busy wait.
#pragma once

namespace weft {

/// Tells the core this is a spin-wait (x86 pause: less power, no memory-order mis-speculation
/// when the awaited store lands).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace weft
