// The one-node reduce_scatterv on the mailbox layout of v_mailbox.h: rank q's share of every
// rank's input is block q, so a rank sends each peer one block and receives one block (its
// own size) from each. Rank r:
//   1. waits until its peers have finished reading its mailboxes (banked, the transport
//      relaxes it);
//   2. copies each peer's block, where it fits a mailbox, into that peer's mailbox and signals;
//   3. posts a receive into scratch from each peer for its own block where that is larger than a
//      mailbox, and sends each peer's block that is larger as a message;
//   4. once the messages are in and the senders' signals seen, reduces the P pieces of its
//      block straight from their places (its own input, the mailboxes, scratch) in rank order,
//      so the op need not commute and every rank gets the bits a rank-order reduction gives;
//      signals again.
// Every rank knows every block's size (the counts array is the same everywhere), so both ends
// of a block take the same path. Zero-length blocks cost only the two signals.
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/v_mailbox.h"

namespace weft::sched {

ir::Program VMailboxReduceScatter(const VMailboxShape& sh, const std::vector<uint64_t>& blocks) {
  const int P = sh.nranks, r = sh.rank;
  CollSpec spec;
  spec.coll = Coll::kReduceScatter;
  spec.nranks = P;
  spec.dtype = sh.dtype;
  spec.op = sh.op;
  spec.in_place = sh.in_place;
  Builder b(spec, r);
  std::vector<uint64_t> at_block(P + 1, 0);  // offset of block q in every rank's input
  for (int q = 0; q < P; ++q) at_block[q + 1] = at_block[q] + blocks[q];
  b.program().send_bytes = at_block[P];
  b.program().recv_bytes = blocks[r];
  const uint64_t box = sh.mailbox_bytes, mine = blocks[r];
  const bool mail = box > 0 && P > 1;  // the same on every rank
  auto small = [&](uint64_t bytes) { return mail && bytes <= box; };
  // Mailbox of sender s for destination d (d != s), as alltoallv's.
  auto mailbox = [](int s, int d) -> uint64_t { return d < s ? d : d - 1; };
  const uint64_t boxes = static_cast<uint64_t>(MailboxCount(sh.coll, P)) * box;
  const bool banked = mail && 8 + boxes <= sh.bank_bytes;
  const uint64_t at = banked ? 8 : 0;  // after a bank's stamp
  if (mail) {
    b.NeedShm(at + boxes);
    b.program().shm_banked = banked;
    b.WaitPeers(0, 0);
  }
  // 2. The small blocks into their mailboxes.
  for (int k = 1; k < P && mail; ++k) {
    const int d = (r + k) % P;
    if (blocks[d] > 0 && small(blocks[d])) {
      b.Copy(ShmAt(r, at + mailbox(r, d) * box), SendAt(at_block[d]), blocks[d]);
    }
  }
  if (mail) b.Signal(0);
  // 3. The large ones as messages, pairwise: receive from r - k while sending to r + k.
  auto slot = [&](int s) { return ScratchAt(static_cast<uint64_t>(s < r ? s : s - 1) * mine); };
  const bool large_in = mine > 0 && !small(mine);
  if (large_in) b.NeedScratch(static_cast<uint64_t>(P - 1) * mine);
  for (int k = 1; k < P && large_in; ++k) {
    const int s = (r - k + P) % P;
    b.Recv(s, slot(s), mine);
  }
  for (int k = 1; k < P; ++k) {
    const int d = (r + k) % P;
    if (!small(blocks[d])) b.Send(d, SendAt(at_block[d]), blocks[d]);
  }
  // 4. Every piece of this rank's block, in rank order.
  if (large_in) b.WaitAll();
  std::vector<ir::Ref> pieces;
  for (int q = 0; q < P; ++q) {
    if (q == r) {
      pieces.push_back(SendAt(at_block[r]));
    } else if (large_in) {
      pieces.push_back(slot(q));
    } else {
      if (mine > 0) b.Wait(q, 0, 1);
      pieces.push_back(ShmAt(q, at + mailbox(q, r) * box));
    }
  }
  // In place the receive buffer is block r of the input: a single piece is already there.
  if (!(sh.in_place && P == 1)) b.Reduce(RecvAt(0), pieces, mine);
  if (mail) b.Signal(0);
  b.WaitAll();
  return b.Take();
}

}  // namespace weft::sched
