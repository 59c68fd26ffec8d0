#include "device/staged_coll.h"

#include <algorithm>

#include "coll/progress.h"
#include "coll/run_blocking.h"
#include "comm/comm.h"
#include "core/dtype.h"
#include "core/fault.h"
#include "core/log.h"
#include "core/params.h"
#include "device/comm_device.h"

namespace weft::device {
namespace {

// Three slots: chunk i's collective runs while chunk i+1 comes down and chunks i-1 and i-2 go
// back up, so neither copy stream waits on the other.
constexpr int kSlots = 3;

// One side (send or recv) of the call as the pipeline moves it.
struct Side {
  char* user = nullptr;  // the caller's buffer (nullptr: this rank does not touch it)
  bool device = false;
  int blocks = 0;         // 1, or P for the all-ranks side of rs/ag/a2a
  size_t slot_bytes = 0;  // staging bytes per slot (0: used in place, no staging)
  unsigned char* slots = nullptr;
};

// Everything one staged call needs, so the steps below stay small.
struct Pipe {
  Comm* comm;
  Backend* b;
  CollArgs args;
  size_t es, count, chunk;  // element size, elements per block, elements per chunk
  Side send, recv;
  Stream d2h, h2d;
  Event* ev;  // [0, kSlots): slot's d2h done; [kSlots, 2 kSlots): slot's h2d done; last: start
  bool h2d_pending[kSlots] = {false, false, false};
  size_t chunks = 1;
  // The executables every chunk runs, held for the call: one for full chunks and one for a
  // shorter last chunk (null when the count divides).
  ProgramRef full, last;
};

Status Fail(Pipe& p, const char* what) {
  return p.comm->Fail(weftUnhandledDeviceError, "%s: staging %s: %s", CollApiName(p.args.kind),
                      what, ThreadLastError());
}

// Chunk i covers elements [lo, lo + n) of every block.
size_t ChunkLo(const Pipe& p, size_t i) { return i * p.chunk; }
size_t ChunkN(const Pipe& p, size_t i) { return std::min(p.chunk, p.count - ChunkLo(p, i)); }

// The host pointer chunk i's collective reads or writes for one side.
char* HostView(const Pipe& p, const Side& s, size_t i) {
  if (s.user == nullptr) return nullptr;
  if (s.slot_bytes == 0) return s.user + ChunkLo(p, i) * p.es;  // host, one block: no copy
  return reinterpret_cast<char*>(s.slots + (i % kSlots) * s.slot_bytes);
}

// Moves chunk i of every block between the user's buffer and the slot (down: into the slot).
Status MoveBlocks(Pipe& p, const Side& s, size_t i, bool down, Stream st) {
  const size_t lo = ChunkLo(p, i), n = ChunkN(p, i), bytes = n * p.es;
  char* slot = HostView(p, s, i);
  for (int blk = 0; blk < s.blocks && bytes > 0; ++blk) {
    char* user = s.user + (blk * p.count + lo) * p.es;
    char* host = slot + blk * bytes;
    // WEFT_FAULT=staging_copy:R fails rank R's device->host copy of the second chunk.
    if (down && i == 1 && FaultAt("staging_copy", p.comm->rank)) {
      SetThreadLastError("injected fault (WEFT_FAULT=staging_copy)");
      return Fail(p, "device->host copy");
    }
    Status st_copy = s.device ? p.b->CopyAsync(down ? host : user, down ? user : host, bytes, st)
                              : p.b->Copy(down ? host : user, down ? user : host, bytes);
    if (st_copy != weftSuccess) return Fail(p, down ? "device->host copy" : "host->device copy");
  }
  return weftSuccess;
}

Status IssueDown(Pipe& p, size_t i) {
  if (p.send.slot_bytes == 0) return weftSuccess;
  WEFT_CHECK(MoveBlocks(p, p.send, i, true, p.d2h));
  if (p.b->EventRecord(p.ev[i % kSlots], p.d2h) != weftSuccess) return Fail(p, "event");
  return weftSuccess;
}

Status RunChunk(Pipe& p, size_t i) {
  const int slot = static_cast<int>(i % kSlots);
  if (p.send.slot_bytes != 0 && p.b->EventSync(p.ev[slot]) != weftSuccess)
    return Fail(p, "wait for device->host copy");
  if (p.h2d_pending[slot]) {  // the slot's results from chunk i - kSlots must be up first
    if (p.b->EventSync(p.ev[kSlots + slot]) != weftSuccess) return Fail(p, "wait");
    p.h2d_pending[slot] = false;
  }
  Executable& e = i + 1 == p.chunks && p.last ? *p.last : *p.full;
  WEFT_CHECK(e.Run(*p.comm, Bind{HostView(p, p.send, i), HostView(p, p.recv, i)}));
  if (p.recv.slot_bytes == 0) return weftSuccess;
  WEFT_CHECK(MoveBlocks(p, p.recv, i, false, p.h2d));
  if (p.b->EventRecord(p.ev[kSlots + slot], p.h2d) != weftSuccess) return Fail(p, "event");
  p.h2d_pending[slot] = true;
  return weftSuccess;
}

// Holds the executable of chunk i's shape (chunk 0's, and the last chunk's when it is
// shorter, are all a call has): the call enters the program cache once per shape, and every chunk
// is a run of one of them on its slots. A chunk's views are chunk 0's shifted (direct host sides)
// or other slots of the same pool (staged sides), so whether a chunk is in place is the same for
// all.
Status HoldChunkProgram(Pipe& p, size_t i, ProgramRef* out) {
  CollArgs h = p.args;
  h.count = ChunkN(p, i);
  h.send = HostView(p, p.send, i);
  h.recv = HostView(p, p.recv, i);
  WEFT_CHECK(ValidateArgs(*p.comm, &h));
  WEFT_CHECK(PrepareBlocking(*p.comm, &h));
  return HeldExecutable(*p.comm, h, out);
}

Status RunChunks(Pipe& p, Stream user) {
  // Order the copies after the user's earlier work on its stream.
  Event start = p.ev[2 * kSlots];
  if (p.b->EventRecord(start, user) != weftSuccess ||
      p.b->StreamWaitEvent(p.d2h, start) != weftSuccess ||
      p.b->StreamWaitEvent(p.h2d, start) != weftSuccess) {
    return Fail(p, "ordering after the user's stream");
  }
  p.chunks = p.count == 0 ? 1 : (p.count + p.chunk - 1) / p.chunk;
  WEFT_CHECK(HoldChunkProgram(p, 0, &p.full));
  const size_t last = p.chunks - 1;
  if (last > 0 && ChunkN(p, last) != ChunkN(p, 0)) WEFT_CHECK(HoldChunkProgram(p, last, &p.last));
  BusyOn busy(*p.comm);  // the chunks' waits advance the other communicators' executions
  WEFT_CHECK(IssueDown(p, 0));
  for (size_t i = 0; i < p.chunks; ++i) {
    if (i + 1 < p.chunks) WEFT_CHECK(IssueDown(p, i + 1));
    WEFT_CHECK(RunChunk(p, i));
  }
  // The user's later work follows the results; the call returns once they are in place.
  Event done = p.ev[2 * kSlots];
  if (p.b->EventRecord(done, p.h2d) != weftSuccess ||
      p.b->StreamWaitEvent(user, done) != weftSuccess || p.b->EventSync(done) != weftSuccess) {
    return Fail(p, "completion");
  }
  return weftSuccess;
}

// Blocks each side of the call has at most (P for the all-ranks side of rs/ag/a2a).
size_t WidestBlocks(const Comm& comm, CollKind k) {
  const bool all_ranks =
      k == CollKind::kReduceScatter || k == CollKind::kAllGather || k == CollKind::kAllToAll;
  return all_ranks ? static_cast<size_t>(comm.size) : 1;
}

}  // namespace

size_t StagingChunkElems(const Comm& comm, const CollArgs& a) {
  // A send is one message whatever memory the receiver uses: never cut.
  if (a.kind == CollKind::kSend || a.kind == CollKind::kRecv) return std::max<size_t>(a.count, 1);
  const size_t es = TypeSize(a.type);
  const size_t chunk_bytes = std::max<int64_t>(GetParams().WEFT_STAGING_CHUNK_BYTES, 64);
  size_t chunk = std::max<size_t>(1, chunk_bytes / (es * WidestBlocks(comm, a.kind)));
  if (chunk >= a.count) chunk = std::max<size_t>(a.count, 1);  // small: one hop
  return chunk;
}

Status RunStaged(Comm& comm, const CollArgs& a, const BufferRoute& route, Stream user) {
  CommDevice& dev = *comm.device;
  Pipe p{};
  p.comm = &comm;
  p.b = &dev.backend();
  p.args = a;
  p.es = TypeSize(a.type);
  p.count = a.count;
  Extents e;
  if (!ComputeExtents(comm, a, p.es, &e)) return weftInternalError;  // validated before
  const size_t block_bytes = a.count * p.es;
  auto side = [&](const void* user, size_t extent, bool device) {
    Side s;
    s.user = extent > 0 ? static_cast<char*>(const_cast<void*>(user)) : nullptr;
    s.device = device;
    s.blocks = block_bytes == 0 ? 1 : static_cast<int>(extent / block_bytes);
    return s;
  };
  p.send = side(a.send, e.send, route.send_device);
  p.recv = side(a.recv, e.recv, route.recv_device);
  p.chunk = StagingChunkElems(comm, a);
  for (Side* s : {&p.send, &p.recv}) {
    if (s->user != nullptr && (s->device || s->blocks > 1))
      s->slot_bytes = (p.chunk * p.es * s->blocks + 63) / 64 * 64;
  }
  StagingBuffer buf;
  WEFT_CHECK(dev.pool().Acquire(kSlots * (p.send.slot_bytes + p.recv.slot_bytes), &buf));
  p.send.slots = buf.data;
  p.recv.slots = buf.data + kSlots * p.send.slot_bytes;
  Status s = dev.Pipeline(2 * kSlots + 1, &p.d2h, &p.h2d, &p.ev);
  if (s != weftSuccess) {
    dev.pool().Release(buf);
    return comm.Fail(s, "%s: staging streams: %s", CollApiName(a.kind), ThreadLastError());
  }
  s = RunChunks(p, user);
  // Nothing may still read or write the slots when they go back to the pool (after an error
  // too).
  if (p.b->StreamSync(p.d2h) != weftSuccess || p.b->StreamSync(p.h2d) != weftSuccess) {
    if (s == weftSuccess) s = Fail(p, "stream sync");
  }
  dev.pool().Release(buf);
  // A copy or event that failed here failed on this rank alone, before or between chunks
  // whose collectives the peers run: they wait for this rank. Break the communicator, which
  // tells the node peers at once (the others give up at the deadline).
  if (s != weftSuccess) comm.Break(s);
  return s;
}

}  // namespace weft::device
