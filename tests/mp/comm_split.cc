// weftCommSplit and weftCommDup at any rank count: membership and order (key, then rank), a
// collective on each new communicator with the members' values, NOCOLOR and a bad color (that
// rank gets NULL, the others a communicator without it), a NULL newcomm, a duplicate used and
// destroyed independently of its parent, and the C++ wrappers. Public API only.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "weft/weft.h"
#include "weft/weft.hpp"

namespace {

int g_failed = 0, g_cases = 0;

void Expect(bool ok, int rank, const char* what) {
  ++g_cases;
  if (!ok) {
    ++g_failed;
    std::printf("rank %d: FAIL %s\n", rank, what);
  }
}

// On a new communicator: size, this rank's place, and an allgather + allreduce of the members'
// world ranks against `members` (world ranks in the expected order).
void CheckMembers(weftComm_t c, const std::vector<int>& members, int world_rank, const char* what) {
  int n = -1, me = -1;
  Expect(weftCommCount(c, &n) == weftSuccess && n == static_cast<int>(members.size()), world_rank,
         what);
  Expect(weftCommUserRank(c, &me) == weftSuccess && me >= 0 && me < n &&
             members[static_cast<size_t>(me)] == world_rank,
         world_rank, what);
  std::vector<int> all(members.size(), -1);
  Expect(weftAllGather(&world_rank, all.data(), 1, weftInt32, c, nullptr) == weftSuccess &&
             all == members,
         world_rank, what);
  double sum = 0, mine = world_rank + 0.5, want = 0;
  for (int m : members) want += m + 0.5;
  Expect(
      weftAllReduce(&mine, &sum, 1, weftFloat64, weftSum, c, nullptr) == weftSuccess && sum == want,
      world_rank, what);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  weftComm_t world = nullptr;
  if (weftCommInitMPI(&world, MPI_COMM_WORLD) != weftSuccess) {
    std::printf("rank %d: FAIL init\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // By parity, keys reversing the order.
  {
    weftComm_t half = nullptr;
    Expect(weftCommSplit(world, rank % 2, -rank, &half) == weftSuccess && half != nullptr, rank,
           "split by parity");
    std::vector<int> members;
    for (int r = size - 1; r >= 0; --r) {
      if (r % 2 == rank % 2) members.push_back(r);
    }
    if (half != nullptr) {
      CheckMembers(half, members, rank, "parity members (reversed by key)");
      Expect(weftCommDestroy(half) == weftSuccess, rank, "destroy the parity comm");
    }
  }
  // Equal keys: ordered by rank in the parent. Rank 0 passes NOCOLOR.
  {
    weftComm_t rest = nullptr;
    const int color = rank == 0 ? WEFT_SPLIT_NOCOLOR : 7;
    Expect(weftCommSplit(world, color, 0, &rest) == weftSuccess, rank, "split with NOCOLOR");
    Expect((rest == nullptr) == (rank == 0), rank, "NULL exactly for NOCOLOR");
    std::vector<int> members;
    for (int r = 1; r < size; ++r) members.push_back(r);
    if (rest != nullptr) {
      CheckMembers(rest, members, rank, "ranks but 0, in order");
      weftCommDestroy(rest);
    }
  }
  // The last rank passes a bad color, then (next split) a NULL newcomm: it alone gets an error;
  // the others get a communicator without it, and nobody hangs.
  for (int round = 0; round < 2; ++round) {
    const bool bad = rank == size - 1;
    weftComm_t c = nullptr;
    const weftResult_t r = round == 0 ? weftCommSplit(world, bad ? -5 : 0, 0, &c)
                                      : weftCommSplit(world, 0, 0, bad ? nullptr : &c);
    Expect(bad ? r == weftInvalidArgument && c == nullptr : r == weftSuccess && c != nullptr, rank,
           round == 0 ? "bad color refused on that rank alone" : "NULL newcomm refused");
    std::vector<int> members;
    for (int q = 0; q < size - 1; ++q) members.push_back(q);
    if (c != nullptr) {
      CheckMembers(c, members, rank, "the others, without the bad rank");
      weftCommDestroy(c);
    }
  }
  // A duplicate: same members, usable after its parent's other children are gone, destroyed
  // on its own; the parent still works after.
  {
    weftComm_t d = nullptr;
    Expect(weftCommDup(world, &d) == weftSuccess && d != nullptr, rank, "dup");
    std::vector<int> members;
    for (int q = 0; q < size; ++q) members.push_back(q);
    if (d != nullptr) {
      CheckMembers(d, members, rank, "dup members");
      Expect(weftCommDestroy(d) == weftSuccess, rank, "destroy the dup");
    }
    CheckMembers(world, members, rank, "the parent after its dup is gone");
    Expect(weftCommDup(world, nullptr) == weftInvalidArgument, rank, "dup into NULL");
  }
  // The C++ wrappers.
  try {
    weft::Communicator cw(MPI_COMM_WORLD);
    weft::Communicator top = cw.split(rank < size / 2 ? WEFT_SPLIT_NOCOLOR : 1, 0);
    Expect((top.get() == nullptr) == (rank < size / 2), rank, "C++ split: NOCOLOR is empty");
    if (top.get() != nullptr) Expect(top.size() == size - size / 2, rank, "C++ split size");
    weft::Communicator twin = cw.dup();
    Expect(twin.size() == size && twin.rank() == rank, rank, "C++ dup");
  } catch (const weft::Error& e) {
    Expect(false, rank, e.what());
  }

  weftCommDestroy(world);
  int failed = 0, cases = 0;
  MPI_Reduce(&g_failed, &failed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&g_cases, &cases, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("comm_split: %d checks over all ranks; %d passed, %d failed\n", cases,
                cases - failed, failed);
  }
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
