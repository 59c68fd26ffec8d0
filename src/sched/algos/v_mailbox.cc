// The one-node v-collectives (v_mailbox.h says what they do and why). Rank r:
//   1. waits until its peers have finished reading its part of the segment (the segment's
//      entry rule; banked, the transport relaxes it);
//   2. in an in-place alltoallv copies its large blocks aside (the receives below land on
//      them); copies its small blocks into its mailboxes and signals;
//   3. posts its receives and sends for the large blocks, pairwise from the next rank on;
//   4. copies its own block, then each small block addressed to it from the sender's mailbox,
//      waiting only for the senders it reads from, and signals again;
//   5. completes its messages.
// Zero-length blocks cost nothing but the two signals, which every rank gives (the segment's
// counters must advance alike everywhere).
#include "sched/algos/v_mailbox.h"

#include <algorithm>

#include "sched/algos/builder.h"

namespace weft::sched {
namespace {

// A rank's single block goes to everyone (allgatherv) or to the root alone (gatherv).
bool OneBlock(VColl c) { return c == VColl::kAllGatherV || c == VColl::kGatherV; }

}  // namespace

int MailboxCount(VColl coll, int nranks) { return OneBlock(coll) ? 1 : std::max(1, nranks - 1); }

uint64_t DefaultMailboxBytes(VColl coll, int nranks, uint64_t bank_bytes) {
  const uint64_t boxes = static_cast<uint64_t>(MailboxCount(coll, nranks));
  const uint64_t banked = bank_bytes > 8 ? (bank_bytes - 8) / boxes / 64 * 64 : 0;
  if (banked >= 64) return banked;
  // Measured at 2 ranks (weft-bench alltoallv, hot buffers, loop timing): 16 KiB blocks through
  // shared memory took 2.2 us for the call, as MPI messages 7.3 us (native MPI_Alltoallv 6.8).
  const uint64_t share = (uint64_t{1} << 20) / boxes;
  return std::clamp<uint64_t>(share / 64 * 64, 4096, 32768);
}

ir::Program VMailbox(const VMailboxShape& sh, const VBlocks& vb) {
  const int P = sh.nranks, r = sh.rank;
  CollSpec spec;
  spec.coll = Coll::kAllToAll;
  spec.nranks = P;
  spec.dtype = weftUint8;
  spec.in_place = sh.in_place;
  Builder b(spec, r);
  // In place, an alltoallv's or allgatherv's blocks leave from the receive buffer; a scatterv
  // root's still leave from its send buffer.
  const bool from_recv =
      sh.in_place && (sh.coll == VColl::kAllToAllV || sh.coll == VColl::kAllGatherV);
  b.program().send_bytes = from_recv ? sh.recv_bytes : sh.send_bytes;
  b.program().recv_bytes = sh.recv_bytes;
  const uint64_t box = sh.mailbox_bytes;
  const bool mail = box > 0 && P > 1;  // the same on every rank
  auto small = [&](uint64_t bytes) { return mail && bytes <= box; };
  const bool one = OneBlock(sh.coll);
  // Mailbox of sender s for destination d (d != s).
  auto mailbox = [&](int s, int d) -> uint64_t { return one ? 0 : (d < s ? d : d - 1); };
  auto own = [&](int to) {
    return from_recv ? RecvAt(vb.SendOffset(r, to)) : SendAt(vb.SendOffset(r, to));
  };

  // A bank's first 8 bytes are the transport's stamp: its mailboxes start after it.
  const uint64_t boxes = static_cast<uint64_t>(MailboxCount(sh.coll, P)) * box;
  const bool banked = mail && 8 + boxes <= sh.bank_bytes;
  const uint64_t at = banked ? 8 : 0;
  if (mail) {
    b.NeedShm(at + boxes);
    b.program().shm_banked = banked;
    b.WaitPeers(0, 0);
  }
  // 2. An in-place alltoallv receives each block where the one it sends that peer lay: large
  // blocks leave from scratch.
  std::vector<ir::Ref> from(P);
  uint64_t aside = 0;
  for (int d = 0; d < P; ++d) {
    from[d] = own(d);
    const uint64_t n = vb.Bytes(r, d);
    if (!sh.in_place || sh.coll != VColl::kAllToAllV || d == r || small(n) || n == 0) continue;
    from[d] = ScratchAt(aside);
    aside += n;
    b.NeedScratch(aside);
    b.Copy(from[d], own(d), n);
  }
  bool boxed = false;  // one block (allgatherv) is copied in once
  for (int k = 1; k < P && mail; ++k) {
    const int d = (r + k) % P;
    const uint64_t n = vb.Bytes(r, d);
    if (n == 0 || !small(n) || (one && boxed)) continue;
    b.Copy(ShmAt(r, at + mailbox(r, d) * box), own(d), n);
    boxed = one;
  }
  if (mail) b.Signal(0);
  // 3. Large blocks, pairwise: receive from r - k while sending to r + k.
  for (int k = 1; k < P; ++k) {
    const int s = (r - k + P) % P;
    const uint64_t n = vb.Bytes(s, r);
    if (!small(n)) b.Recv(s, RecvAt(vb.RecvOffset(r, s)), n);
  }
  for (int k = 1; k < P; ++k) {
    const int d = (r + k) % P;
    const uint64_t n = vb.Bytes(r, d);
    if (!small(n)) b.Send(d, from[d], n);
  }
  // 4. Its own block, then the mailboxes addressed to it.
  if (!sh.in_place) {
    b.Copy(RecvAt(vb.RecvOffset(r, r)), SendAt(vb.SendOffset(r, r)), vb.Bytes(r, r));
  }
  for (int k = 1; k < P && mail; ++k) {
    const int s = (r - k + P) % P;
    const uint64_t n = vb.Bytes(s, r);
    if (n == 0 || !small(n)) continue;
    b.Wait(s, 0, 1);
    b.Copy(RecvAt(vb.RecvOffset(r, s)), ShmAt(s, at + mailbox(s, r) * box), n);
  }
  if (mail) b.Signal(0);
  b.WaitAll();
  return b.Take();
}

}  // namespace weft::sched
