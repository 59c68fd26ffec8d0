// Node-shared memory from weftMemAlloc (NCCL's ncclMemAlloc and OpenSHMEM's symmetric heap are
// the models): each rank's allocation is a memfd mapping that every node peer maps too, so a
// collective whose buffers lie in such memory on every rank reads and writes the peers'
// buffers directly (the zerocopy schedule): no copy into a shared segment, no system call per
// copy. The memfd has no name, so nothing can be left in /dev/shm; the memory is returned once
// this rank and every peer that mapped it have unmapped it (weftMemFree).
#pragma once

#include <cstddef>
#include <cstdint>

#include "comm/comm.h"
#include "core/status.h"

namespace weft {

/// Collective over comm: allocates bytes (the same on every rank) of memory the node peers map
/// (across nodes, the ranks of each node map each other's). On a communicator without node
/// shared memory (WEFT_SHM=0) or when some peers cannot map it (ptrace rules), the memory is
/// still returned, unshared on every rank, with an INFO line.
Status MemAlloc(Comm& comm, size_t bytes, void** ptr);
/// Frees memory from MemAlloc (this rank's memory and its mappings of the peers').
Status MemFree(void* ptr);
/// Whether [p, p + n) lies inside one shared allocation of comm (n == 0: always).
bool InSharedWindow(const Comm& comm, const void* p, size_t n);
/// Where node rank q's address `remote` (in q's address space, inside one of comm's shared
/// allocations) is mapped in this process, or null.
unsigned char* PeerWindowAddress(const Comm& comm, int node_rank, uint64_t remote);
/// Calls from this many bytes per rank (count x element) ask whether zero copy applies.
inline constexpr uint64_t kZeroCopyMinBytes = 64u << 10;
/// Forgets comm (at its destruction): its allocations stay valid until weftMemFree.
void DetachWindows(const Comm& comm);

}  // namespace weft
