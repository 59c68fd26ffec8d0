#include "comms.h"

#include <mpi.h>

#include <mutex>
#include <set>
#include <stdexcept>

namespace weft_torch {
namespace {

std::mutex g_mu;
std::set<weftComm_t> g_comms;  // made here and not yet destroyed
bool g_we_initialised = false;
bool g_shut_down = false;

void EnsureMpi() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (fin || g_shut_down) throw std::runtime_error("weft backend: MPI is already finalized");
  if (!init) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
      throw std::runtime_error("weft backend: MPI_Init_thread failed");
    }
    g_we_initialised = true;
  }
}

}  // namespace

void Check(weftResult_t r, weftComm_t comm, const char* what) {
  if (r == weftSuccess) return;
  throw std::runtime_error(std::string("weft backend: ") + what + ": " + weftGetErrorString(r) +
                           ": " + weftGetLastError(comm));
}

void WorldRankSize(int* rank, int* size) {
  std::lock_guard<std::mutex> lk(g_mu);
  EnsureMpi();
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

weftComm_t MakeComm(const std::vector<int64_t>& world_ranks) {
  std::lock_guard<std::mutex> lk(g_mu);
  EnsureMpi();
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  bool whole = static_cast<int>(world_ranks.size()) == world;
  for (size_t i = 0; whole && i < world_ranks.size(); ++i) whole = world_ranks[i] == int64_t(i);
  weftComm_t comm = nullptr;
  if (whole) {
    Check(weftCommInitMPI(&comm, MPI_COMM_WORLD), nullptr, "creating the world communicator");
  } else {
    // Only the members call: MPI_Comm_create_group is collective over the group alone.
    std::vector<int> ranks(world_ranks.begin(), world_ranks.end());
    MPI_Group all, part;
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &part);
    const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, part, /*tag=*/0x77f7, &sub);
    MPI_Group_free(&part);
    MPI_Group_free(&all);
    if (rc != MPI_SUCCESS || sub == MPI_COMM_NULL) {
      throw std::runtime_error("weft backend: MPI_Comm_create_group failed for a sub-group");
    }
    const weftResult_t r = weftCommInitMPI(&comm, sub);  // weft works on its own duplicate
    MPI_Comm_free(&sub);
    Check(r, nullptr, "creating a sub-group's communicator");
  }
  g_comms.insert(comm);
  return comm;
}

void ReleaseComm(weftComm_t comm) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_shut_down || g_comms.erase(comm) == 0) return;
  weftCommDestroy(comm);
}

void Shutdown() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_shut_down) return;
  g_shut_down = true;
  for (weftComm_t c : g_comms) weftCommDestroy(c);
  g_comms.clear();
  int fin = 0;
  MPI_Finalized(&fin);
  if (g_we_initialised && !fin) MPI_Finalize();
}

bool IsShutDown() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_shut_down;
}

}  // namespace weft_torch
