// Composition in the ir: a Program written for a group of ranks (a node, or one rank per node)
// is appended to a rank's Program with its peers renamed to communicator ranks and its buffer
// spaces placed inside the rank's own. The composed Program is an ordinary one: the verifier,
// the simulator, the passes and the interpreter see no difference.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/ir/program.h"

namespace weft::sched::passes {

/// Where a group's Program lands in the composed one.
struct EmbedMap {
  std::vector<int> ranks;  // group rank -> communicator rank
  ir::Ref send, recv;      // where the group Program's send and receive buffers start
  uint64_t scratch = 0;    // offset of its scratch in the composed scratch
  int step_base = 0;       // its step s becomes step_base + s in the composed program
  /// The group is this rank's whole node in local order (group rank i is node rank i), so the
  /// part may use the node segment: its slots keep their node ranks, and its counter waits
  /// move past the signals out's earlier parts made. Every node rank runs the same node parts
  /// and each signals a counter alike (the shared-memory generators are symmetric), so this
  /// rank's own count is each peer's.
  bool node = false;
  /// Scattered placement: where non-empty, block k of the part's send (receive) buffer, bytes
  /// [k block, (k + 1) block), lands at send_blocks[k] (recv_blocks[k]) instead of
  /// contiguously at send (recv). A hierarchical allgather's node part writes every block to
  /// its rank's place this way, and a reduce_scatter's reads them from there, instead of
  /// through a staging copy of the whole buffer. Copies and reduces that span blocks are split
  /// at their boundaries; sends and receives must stay within one block (Scatterable).
  uint64_t block = 0;
  std::vector<ir::Ref> send_blocks = {}, recv_blocks = {};
  /// A node part that reads or writes its peers' buffers (zero copy): per node rank q, where
  /// q's part send (receive) buffer lies in q's call buffers (refs of space kSend or kRecv):
  /// one ref, its start; or, with `block` set, one per block, as send_blocks places this
  /// rank's. The part's peer_send / peer_recv refs of q land there. Empty: the part names no
  /// peer buffer.
  std::vector<std::vector<ir::Ref>> peer_send = {}, peer_recv = {};
  /// A node part's closing waits on counter 0 (every peer is done with this rank's buffers and
  /// slots) are left out: for a node part that a later node part follows, whose entry wait asks
  /// the same before anything shared is touched again, where what runs between touches nothing a
  /// peer may still read. Messages that follow then leave without waiting for the node's slowest
  /// rank.
  bool drop_exit_waits = false;
};

/// Whether part's `space` (kSend or kRecv) can be scattered in blocks of `block` bytes: every
/// send and receive that touches it lies within one block (copies and reduces are split).
bool Scatterable(const ir::Program& part, ir::Space space, uint64_t block);

/// Appends `part` to `out`, mapped by `map`; out's scratch grows to hold part's, and its slots
/// to hold a node part's. A part with node-peer spaces or node counters must be a node part
/// (map.node), and its slots only (no single copy: a peer's part buffers are not its call's);
/// out is never banked (a later part's slots follow an earlier part's, not the last call's). Its
/// numbered steps move up by map.step_base (out's steps grow to cover them), so a composition of
/// parts whose steps are numbered alike on every rank can be pipelined by the chunking pass; a part
/// without numbered steps leaves out with none.
void Embed(const ir::Program& part, const EmbedMap& map, ir::Program* out);

}  // namespace weft::sched::passes
