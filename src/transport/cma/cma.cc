#include "transport/cma/cma.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace weft::cma {
namespace {

constexpr size_t kPiece = size_t{1} << 30;  // well under the 2 GiB a call may move

template <bool kWrite>
Status Move(pid_t pid, void* remote, void* local, size_t n, std::string* why) {
  auto* r = static_cast<unsigned char*>(remote);
  auto* l = static_cast<unsigned char*>(local);
  while (n > 0) {
    const size_t len = std::min(n, kPiece);
    iovec liov{l, len}, riov{r, len};
    const ssize_t got = kWrite ? process_vm_writev(pid, &liov, 1, &riov, 1, 0)
                               : process_vm_readv(pid, &liov, 1, &riov, 1, 0);
    if (got <= 0) {
      *why = std::string(kWrite ? "process_vm_writev" : "process_vm_readv") + " of " +
             std::to_string(len) + " bytes, process " + std::to_string(pid) + ": " +
             (got == 0 ? "no progress" : std::strerror(errno));
      return weftSystemError;
    }
    r += got;
    l += got;
    n -= static_cast<size_t>(got);
  }
  return weftSuccess;
}

}  // namespace

Status Read(pid_t pid, const void* remote, void* local, size_t n, std::string* why) {
  return Move<false>(pid, const_cast<void*>(remote), local, n, why);
}

Status Write(pid_t pid, void* remote, const void* local, size_t n, std::string* why) {
  return Move<true>(pid, remote, const_cast<void*>(local), n, why);
}

bool Probe(MPI_Comm node_comm, std::string* why) {
  int rank = 0, n = 1;
  PMPI_Comm_rank(node_comm, &rank);
  PMPI_Comm_size(node_comm, &n);
  // Each rank offers one word (its rank, scrambled) and reads its right neighbour's.
  volatile uint64_t word = 0x5eed0000ull + static_cast<uint64_t>(rank);
  uint64_t mine[2] = {static_cast<uint64_t>(getpid()),
                      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&word))};
  std::vector<uint64_t> all(2 * static_cast<size_t>(n));
  int ok =
      PMPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, node_comm) == MPI_SUCCESS;
  if (!ok) *why = "MPI_Allgather of the probe's addresses failed";
  const int right = (rank + 1) % n;
  uint64_t seen = 0;
  if (ok && n > 1) {
    const pid_t pid = static_cast<pid_t>(all[2 * right]);
    const auto* addr = reinterpret_cast<const void*>(static_cast<uintptr_t>(all[2 * right + 1]));
    ok = Read(pid, addr, &seen, sizeof seen, why) == weftSuccess &&
         seen == 0x5eed0000ull + static_cast<uint64_t>(right);
    if (!ok && why->empty()) *why = "read a wrong value from a peer";
  }
  int every = 0;  // also: peers are done reading
  if (PMPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, node_comm) != MPI_SUCCESS) return false;
  return every == 1;
}

}  // namespace weft::cma
