#include "comm/mem_window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/log.h"

namespace weft {
namespace {

// One allocation: this rank's memory and, when shared, where every node peer's memory of the
// same allocation is mapped here.
struct Window {
  const Comm* comm = nullptr;  // null once the communicator is destroyed
  unsigned char* base = nullptr;
  size_t bytes = 0;
  std::vector<uint64_t> remote;       // node rank q's base, in q's address space
  std::vector<unsigned char*> local;  // q's memory mapped here (own: base; null: unmapped)
};

std::mutex g_mu;
std::vector<std::unique_ptr<Window>> g_windows;

void Unmap(Window& w) {
  for (size_t q = 0; q < w.local.size(); ++q) {
    if (w.local[q] != nullptr && w.local[q] != w.base) munmap(w.local[q], w.bytes);
  }
  w.local.clear();
  w.remote.clear();
}

// Maps node peers' memfds (opened through /proc/<pid>/fd, which the same ptrace rules as CMA
// govern). False with the reason in *why when any cannot be mapped.
bool MapPeers(Comm& comm, Window* w, int fd, std::string* why) {
  int P = 1, me = 0;
  PMPI_Comm_size(comm.node_comm, &P);
  PMPI_Comm_rank(comm.node_comm, &me);
  uint64_t mine[3] = {static_cast<uint64_t>(getpid()), static_cast<uint64_t>(fd),
                      reinterpret_cast<uintptr_t>(w->base)};
  std::vector<uint64_t> all(3 * P);
  if (PMPI_Allgather(mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm.node_comm) !=
      MPI_SUCCESS) {
    *why = "exchanging the allocations failed";
    return false;
  }
  w->remote.resize(P);
  w->local.assign(P, nullptr);
  bool ok = true;
  for (int q = 0; q < P; ++q) {
    w->remote[q] = all[3 * q + 2];
    if (q == me) {
      w->local[q] = w->base;
      continue;
    }
    const std::string path =
        "/proc/" + std::to_string(all[3 * q]) + "/fd/" + std::to_string(all[3 * q + 1]);
    const int pfd = ok ? open(path.c_str(), O_RDWR | O_CLOEXEC) : -1;
    void* p =
        pfd < 0 ? MAP_FAILED : mmap(nullptr, w->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    if (p == MAP_FAILED) {
      if (ok) *why = "mapping " + path + ": " + std::strerror(errno);
      ok = false;
    } else {
      w->local[q] = static_cast<unsigned char*>(p);
    }
    if (pfd >= 0) close(pfd);
  }
  int all_ok = ok;
  // Also the point after which every peer holds its own mapping: the memfd may be closed.
  if (PMPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, comm.node_comm) != MPI_SUCCESS) {
    all_ok = 0;
  }
  if (!all_ok && ok) *why = "a node peer could not map this rank's memory";
  return all_ok != 0;
}

}  // namespace

Status MemAlloc(Comm& comm, size_t bytes, void** ptr) {
  // Collective: every rank must ask for the same size (symmetric, as with shmem_malloc).
  unsigned long long ext[2] = {bytes, ~static_cast<unsigned long long>(bytes)};
  int err = PMPI_Allreduce(MPI_IN_PLACE, ext, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "weftMemAlloc: agreeing on the size");
  if (ext[0] != bytes || ~ext[1] != bytes) {
    return comm.Fail(weftInvalidArgument,
                     "weftMemAlloc: ranks asked for different sizes (this rank %zu; smallest "
                     "%llu, largest %llu); every rank must pass the same size",
                     bytes, ~ext[1], ext[0]);
  }
  if (bytes == 0) return comm.Fail(weftInvalidArgument, "weftMemAlloc: size is 0");
  auto w = std::make_unique<Window>();
  w->comm = &comm;
  w->bytes = bytes;
  std::string why;
  const int fd = memfd_create("weft-mem", MFD_CLOEXEC);
  int ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(bytes)) == 0;
  void* p = ok ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (p == MAP_FAILED) {
    why = std::strerror(errno);
    ok = 0;
  } else {
    w->base = static_cast<unsigned char*>(p);
  }
  int all_ok = ok;
  if (PMPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, comm.mpi) != MPI_SUCCESS) {
    all_ok = 0;
  }
  if (!all_ok) {
    if (w->base != nullptr) munmap(w->base, bytes);
    if (fd >= 0) close(fd);
    return comm.Fail(weftSystemError, "weftMemAlloc: %zu bytes: %s", bytes,
                     ok ? "a peer's allocation failed" : why.c_str());
  }
  // Across nodes, each node's ranks map each other's memory (hierarchical recipes' zerocopy
  // node levels read it: hierarchical.h), where the nodes have segments of their own.
  bool shared = comm.one_node_segment() || comm.nodes_share_memory;
  bool mapped = shared && MapPeers(comm, w.get(), fd, &why);
  if (shared && comm.topo.num_nodes() > 1) {
    // MapPeers agreed within the node; every rank must agree, or the zero-copy question
    // (AgreeZeroCopyShared) is asked on some nodes only.
    int all_mapped = mapped;
    if (PMPI_Allreduce(MPI_IN_PLACE, &all_mapped, 1, MPI_INT, MPI_MIN, comm.mpi) != MPI_SUCCESS) {
      all_mapped = 0;
    }
    if (mapped && !all_mapped) why = "the ranks of another node could not map each other's memory";
    mapped = all_mapped != 0;
  }
  if (!shared) {
    WEFT_INFO(kInit,
              "weftMemAlloc: the communicator has no node shared memory; the memory is not "
              "shared with peers");
  } else if (!mapped) {
    WEFT_INFO(kInit,
              "weftMemAlloc: peers cannot map each other's memory (%s); collectives on "
              "it take the usual shared-memory path",
              why.c_str());
    Unmap(*w);
    shared = false;
  }
  close(fd);  // every mapping holds the memory from here on
  // Collective and agreed (MapPeers' result is the same everywhere), so every rank agrees.
  if (shared) comm.mem_shared = true;
  *ptr = w->base;
  std::lock_guard<std::mutex> lk(g_mu);
  g_windows.push_back(std::move(w));
  return weftSuccess;
}

Status MemFree(void* ptr) {
  std::unique_ptr<Window> w;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (auto it = g_windows.begin(); it != g_windows.end(); ++it) {
      if ((*it)->base == ptr) {
        w = std::move(*it);
        g_windows.erase(it);
        break;
      }
    }
  }
  if (!w) {
    return FailNoComm(weftInvalidArgument, "weftMemFree: %p did not come from weftMemAlloc", ptr);
  }
  Unmap(*w);
  munmap(w->base, w->bytes);
  return weftSuccess;
}

bool InSharedWindow(const Comm& comm, const void* p, size_t n) {
  if (n == 0) return true;
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lk(g_mu);
  for (const auto& w : g_windows) {
    const auto b = reinterpret_cast<uintptr_t>(w->base);
    if (w->comm == &comm && !w->local.empty() && a >= b && a - b <= w->bytes &&
        n <= w->bytes - (a - b)) {
      return true;
    }
  }
  return false;
}

unsigned char* PeerWindowAddress(const Comm& comm, int q, uint64_t remote) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (const auto& w : g_windows) {
    if (w->comm != &comm || q < 0 || static_cast<size_t>(q) >= w->local.size()) continue;
    if (remote >= w->remote[q] && remote - w->remote[q] < w->bytes) {
      return w->local[q] + (remote - w->remote[q]);
    }
  }
  return nullptr;
}

void DetachWindows(const Comm& comm) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (auto& w : g_windows) {
    if (w->comm == &comm) w->comm = nullptr;
  }
}

}  // namespace weft
