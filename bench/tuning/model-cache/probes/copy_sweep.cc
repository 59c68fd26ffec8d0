// Probe (bench/tuning/model-cache): memcpy rate by working set (source + destination),
// run as two processes at once as a collective's ranks copy.
//   g++ -O2 -o copy_sweep copy_sweep.cc && (./copy_sweep > a.txt & ./copy_sweep > b.txt; wait)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  for (size_t ws = 128 << 10; ws <= (64u << 20); ws *= 2) {
    const size_t n = ws / 2;
    std::vector<unsigned char> a(n, 1), b(n, 2);
    std::vector<double> t;
    const int reps = static_cast<int>(std::max<size_t>(7, (64u << 20) / n));
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      std::memcpy(i % 2 ? a.data() : b.data(), i % 2 ? b.data() : a.data(), n);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("working set %8zu KiB  memcpy %5.1f GB/s\n", ws >> 10, n / t[t.size() / 2] / 1e9);
  }
}
