// MPI and weft communicators for the torch backend, free of torch headers: MPI initialised
// once if the program did not, the world communicator, and a sub-group's communicator made by
// its members alone (torch creates a group's backend only on the ranks in it).
#pragma once

#include <string>
#include <vector>

#include "weft/weft.h"

namespace weft_torch {

/// This process's rank and size in MPI_COMM_WORLD, initialising MPI (thread level MULTIPLE
/// requested) if the program has not. Throws std::runtime_error if MPI is finalised.
void WorldRankSize(int* rank, int* size);
/// A weft communicator over the world ranks listed (in group rank order); all of MPI_COMM_WORLD
/// when the list is every rank in order. Collective over the listed ranks only.
weftComm_t MakeComm(const std::vector<int64_t>& world_ranks);
/// Destroys a communicator made here (a process group going away); nothing after Shutdown.
void ReleaseComm(weftComm_t comm);
/// Destroys every communicator made here and finalises MPI if this module initialised it.
/// Called once at interpreter exit; later calls into the backend throw.
void Shutdown();
/// True once Shutdown ran.
bool IsShutDown();
/// Throws std::runtime_error with weft's text when r is not weftSuccess.
void Check(weftResult_t r, weftComm_t comm, const char* what);

}  // namespace weft_torch
