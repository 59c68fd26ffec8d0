// The one-node v-collectives (alltoallv, allgatherv, gatherv, scatterv, reduce_scatterv): every
// block of at most `mailbox_bytes` passes through the sender's part of the node segment, which
// holds one mailbox per destination (one in all where a rank sends one block, or the same block
// to everyone); larger blocks go as MPI messages (inside a node, the MPI library's own shared
// memory or single copy). Both ends of a block decide alike from its size, which the sender has
// in its send counts and the receiver in its receive counts, and the mailbox size depends only
// on the collective and the rank count: no rank needs a count it was not given, so a call needs
// no count exchange, and a rank's program is a function of its own arrays (cached under them,
// coll/program_cache.h). Where the mailboxes fit in a latency bank the program is banked, as
// oneshot is.
//
// Not a registered Generator: its shape is the rank's count arrays, not a CollSpec.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/algos/node_alltoallv.h"
#include "sched/ir/program.h"

namespace weft::sched {

/// The v-collectives the mailbox schedule serves.
enum class VColl { kAllToAllV, kAllGatherV, kGatherV, kScatterV, kReduceScatterV };

/// One rank's one-node v-collective.
struct VMailboxShape {
  VColl coll = VColl::kAllToAllV;
  int nranks = 1, rank = 0;
  uint64_t send_bytes = 0, recv_bytes = 0;  // extents of the rank's buffers
  /// MPI_IN_PLACE at this rank: its block to itself is already where it belongs, and an
  /// alltoallv's or allgatherv's blocks leave from its receive buffer (VBlocks::SendOffset is
  /// then an offset in it).
  bool in_place = false;
  /// Bytes of each mailbox: blocks up to this size pass through shared memory. 0: every block
  /// between ranks is a message (no node segment).
  uint64_t mailbox_bytes = 0;
  /// Bytes of a latency bank (shm_segment.h): where 8 bytes of stamp and the mailboxes fit in
  /// one (a function of the collective, P and the mailbox size alone, so the same on every
  /// rank), the program is banked: calls in a row take the banks in turn and need not wait at
  /// their start for the peers to finish reading the last one. 0: never banked.
  uint64_t bank_bytes = 0;
  /// Element type and op of a reduce_scatterv (the others move bytes).
  weftDataType_t dtype = weftUint8;
  weftRedOp_t op = weftSum;
};

/// Mailboxes in a rank's part of the segment: one per other rank, or one where a rank sends one
/// block or the same block to everyone (allgatherv, gatherv).
int MailboxCount(VColl coll, int nranks);

/// The default mailbox: the largest that keeps the program banked (whole cache lines), else
/// (more than 128 ranks for alltoallv) 1 MiB split over the mailboxes, 4-32 KiB.
uint64_t DefaultMailboxBytes(VColl coll, int nranks, uint64_t bank_bytes);

/// The program of shape.rank; it asks `blocks` only about its own sends and receives.
ir::Program VMailbox(const VMailboxShape& shape, const VBlocks& blocks);

/// The program of shape.rank for a reduce_scatterv (v_reduce_scatter.cc): block q of every
/// rank's input, block_bytes[q] bytes after the blocks before it, is reduced in rank order into
/// rank q's receive buffer. Every rank passes the same block_bytes (MPI requires it), so each
/// knows every block's path.
ir::Program VMailboxReduceScatter(const VMailboxShape& shape,
                                  const std::vector<uint64_t>& block_bytes);

/// What a rank of a one-node v-collective knows: its own sizes and places, one entry per rank.
/// Asked about a block neither sent nor received by `rank`, Bytes returns 0.
class OwnVBlocks final : public VBlocks {
 public:
  OwnVBlocks(int rank, std::vector<uint64_t> send_bytes, std::vector<uint64_t> send_offsets,
             std::vector<uint64_t> recv_bytes, std::vector<uint64_t> recv_offsets)
      : rank_(rank),
        send_bytes_(std::move(send_bytes)),
        send_offsets_(std::move(send_offsets)),
        recv_bytes_(std::move(recv_bytes)),
        recv_offsets_(std::move(recv_offsets)) {}
  uint64_t Bytes(int from, int to) const override {
    return from == rank_ ? send_bytes_[to] : to == rank_ ? recv_bytes_[from] : 0;
  }
  uint64_t SendOffset(int from, int to) const override {
    return from == rank_ ? send_offsets_[to] : 0;
  }
  uint64_t RecvOffset(int to, int from) const override {
    return to == rank_ ? recv_offsets_[from] : 0;
  }

 private:
  int rank_;
  std::vector<uint64_t> send_bytes_, send_offsets_, recv_bytes_, recv_offsets_;
};

}  // namespace weft::sched
