// Single copy between the processes of a node: process_vm_readv / process_vm_writev move bytes
// straight between one process's buffer and another's (Linux CMA, the kernel-assisted analogue
// of XPMEM), so a peer's user buffer is reached without a copy through shared memory. Whether
// the kernel permits it (ptrace rules: Yama's ptrace_scope, containers, differing users) is
// probed once per communicator; where it is not, weft falls back to the shared-memory slots.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <string>

#include "core/status.h"

namespace weft::cma {

/// Reads n bytes at `remote` in process pid into `local`, in pieces (one call moves at most
/// 1 GiB, and a short transfer is resumed). On failure: weftSystemError with the reason in *why.
Status Read(pid_t pid, const void* remote, void* local, size_t n, std::string* why);
/// Writes n bytes from `local` to `remote` in process pid (same pieces and errors as Read).
Status Write(pid_t pid, void* remote, const void* local, size_t n, std::string* why);

/// Collective over node_comm: true on every rank when every rank could read a word of its
/// neighbour's memory with Read (and saw the right value); otherwise false everywhere, with
/// this rank's reason in *why (empty when another rank failed).
bool Probe(MPI_Comm node_comm, std::string* why);

}  // namespace weft::cma
