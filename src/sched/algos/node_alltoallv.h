// The node-aware alltoallv: nodea2a (node_alltoall.cc) for blocks of any size per pair. Small
// blocks for another node are coalesced: each rank hands its node peers the blocks for the
// destinations they forward to, and a forwarder sends each destination it serves one message
// holding its whole node's blocks for it. Blocks of direct_bytes or more go straight from
// source to destination (two hops and two copies cost more than a message there). Both ends of
// every block decide alike from its size, which the sender has in its sendcounts and the
// receiver in its recvcounts; a forwarder learns its node peers' sizes for the destinations it
// serves in a count exchange inside the node that runs first (NodeAllToAllVCounts), so the
// data program is built per call from what the rank then knows (RankVBlocks).
//
// Not a registered Generator: its shape is the count matrix, not a CollSpec.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/ir/program.h"
#include "topo/topology.h"

namespace weft::sched {

/// The blocks of one alltoallv in bytes, as one rank's program asks for them.
class VBlocks {
 public:
  virtual ~VBlocks() = default;
  /// Bytes rank `from` sends rank `to`.
  virtual uint64_t Bytes(int from, int to) const = 0;
  /// Where from's block for `to` starts in from's send buffer.
  virtual uint64_t SendOffset(int from, int to) const = 0;
  /// Where to's block from `from` starts in to's receive buffer.
  virtual uint64_t RecvOffset(int to, int from) const = 0;
};

/// One rank's node-aware alltoallv.
struct NodeAllToAllVShape {
  const Topology* nodes = nullptr;  // the ranks' nodes (two or more)
  int rank = 0;
  uint64_t send_bytes = 0, recv_bytes = 0;  // extents of the rank's buffers
  /// The send space is the receive buffer (MPI_IN_PLACE: blocks at the receive offsets).
  bool in_place = false;
  /// Blocks across nodes of this many bytes or more go directly.
  uint64_t direct_bytes = 8192;
  /// Network rounds (one per other node) that share one waitall.
  int rounds_per_wait = 4;
};

/// Message tag of the count exchange. The data program's messages use tag 0, so both programs
/// can run in one tag slot.
inline constexpr int kVCountsTag = 1;

/// The count exchange of `rank`: its send space holds, for each node peer p in local order, the
/// 8-byte sizes of its blocks for the destinations p forwards to (VCountsTable); its receive
/// space gets, for each node peer s in local order, s's sizes for the destinations this rank
/// forwards to.
ir::Program NodeAllToAllVCounts(const Topology& t, int rank);
/// This rank's send table for NodeAllToAllVCounts: bytes_to[d] is its block size for rank d.
std::vector<uint64_t> VCountsTable(const Topology& t, int rank,
                                   const std::vector<uint64_t>& bytes_to);

/// The data program of shape.rank.
ir::Program NodeAllToAllV(const NodeAllToAllVShape& shape, const VBlocks& blocks);

/// What a rank knows after the count exchange: its own sizes and places, and its node peers'
/// sizes for the destinations it forwards to (the receive table of NodeAllToAllVCounts). Asked
/// for anything else, Bytes returns 0 (NodeAllToAllV never asks).
class RankVBlocks final : public VBlocks {
 public:
  /// Sizes and offsets in bytes, one entry per rank.
  RankVBlocks(const Topology& t, int rank, std::vector<uint64_t> send_bytes,
              std::vector<uint64_t> send_offsets, std::vector<uint64_t> recv_bytes,
              std::vector<uint64_t> recv_offsets, const std::vector<uint64_t>& peer_table);
  uint64_t Bytes(int from, int to) const override;
  uint64_t SendOffset(int from, int to) const override;
  uint64_t RecvOffset(int to, int from) const override;

 private:
  const Topology& t_;
  int rank_;
  std::vector<uint64_t> send_bytes_, send_offsets_, recv_bytes_, recv_offsets_;
  std::vector<int> served_index_;  // per rank: its index among the served, else -1
  std::vector<uint64_t> peer_;     // [node peer local index][served index]
  size_t served_ = 0;
};

}  // namespace weft::sched
