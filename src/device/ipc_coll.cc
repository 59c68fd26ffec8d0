#include "device/ipc_coll.h"

#include <algorithm>
#include <vector>

#include "comm/comm.h"
#include "core/dtype.h"
#include "core/params.h"
#include "device/comm_device.h"
#include "device/device_path.h"

namespace weft::device {
namespace {

// What a rank shows its node peers of one buffer.
struct Exposed {
  IpcHandle handle;
  uint64_t offset = 0;  // of the buffer in its allocation
  int32_t present = 0;  // the rank passes this buffer
  int32_t pad = 0;
};
struct Shown {
  Exposed send, recv;
};

// Every rank's send and recv buffers as addresses this rank can use (its own as they are).
struct Mapped {
  std::vector<const char*> send;
  std::vector<char*> recv;
};

Status Expose(Backend& b, const void* p, size_t extent, Exposed* out) {
  *out = Exposed{};
  if (extent == 0 || p == nullptr) return weftSuccess;
  PtrInfo info;
  WEFT_CHECK(b.Query(p, &info));
  WEFT_CHECK(b.IpcGet(const_cast<void*>(info.base), &out->handle));
  out->offset =
      static_cast<uint64_t>(static_cast<const char*>(p) - static_cast<const char*>(info.base));
  out->present = 1;
  return weftSuccess;
}

// One small allreduce: every rank learns whether every rank got here without failing (a rank
// that failed must not leave its peers waiting, nor its peers read its buffers).
Status Agree(Comm& comm, Status mine, const char* when) {
  int ok = mine == weftSuccess ? 1 : 0;
  int err = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "device IPC collective: MPI_Allreduce");
  if (mine != weftSuccess) {
    return comm.Fail(mine, "device IPC collective, %s: %s", when, ThreadLastError());
  }
  if (!ok) return comm.Fail(weftRemoteError, "device IPC collective: a peer failed %s", when);
  return weftSuccess;
}

Status MapPeers(Comm& comm, const CollArgs& a, const Extents& e, Mapped* m) {
  Backend& b = comm.device->backend();
  Shown mine;
  Status s = Expose(b, a.send, e.send, &mine.send);
  if (s == weftSuccess) s = Expose(b, a.recv, e.recv, &mine.recv);
  std::vector<Shown> all(comm.size);
  int err =
      PMPI_Allgather(&mine, sizeof(Shown), MPI_BYTE, all.data(), sizeof(Shown), MPI_BYTE, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "device IPC collective: MPI_Allgather");
  m->send.assign(comm.size, nullptr);
  m->recv.assign(comm.size, nullptr);
  if (s == weftSuccess) s = comm.device->ipc_mappings.MakeRoom(b, 2 * comm.size);
  for (int q = 0; q < comm.size && s == weftSuccess; ++q) {
    if (q == comm.rank) {
      m->send[q] = static_cast<const char*>(a.send);
      m->recv[q] = static_cast<char*>(a.recv);
      continue;
    }
    void* p = nullptr;
    if (all[q].send.present && s == weftSuccess) {
      s = comm.device->ipc_mappings.Open(b, q, all[q].send.handle, &p);
      m->send[q] = static_cast<const char*>(p) + all[q].send.offset;
    }
    if (all[q].recv.present && s == weftSuccess) {
      s = comm.device->ipc_mappings.Open(b, q, all[q].recv.handle, &p);
      m->recv[q] = static_cast<char*>(p) + all[q].recv.offset;
    }
  }
  return Agree(comm, s, "mapping the peers' buffers");
}

// Slice r of n elements cut into p nearly equal slices: [*start, *start + *len).
void Slice(size_t n, int p, int r, size_t* start, size_t* len) {
  const size_t base = n / p, rem = n % p;
  *start = r * base + std::min<size_t>(r, rem);
  *len = base + (static_cast<size_t>(r) < rem ? 1 : 0);
}

// dst = op over every rank's src + at, for len elements, on stream (then waited for).
Status ReduceFromAll(Comm& comm, const CollArgs& a, const Mapped& m, size_t at, char* dst,
                     size_t len, Stream stream) {
  if (len == 0) return weftSuccess;
  Backend& b = comm.device->backend();
  std::vector<const void*> srcs(comm.size);
  for (int q = 0; q < comm.size; ++q) srcs[q] = m.send[q] + at;
  WEFT_CHECK(b.Reduce(dst, srcs.data(), comm.size, len, a.type, a.op, stream));
  return b.StreamSync(stream);
}

Status Copy(Backend& b, void* dst, const void* src, size_t bytes) {
  return dst == src || bytes == 0 ? weftSuccess : b.Copy(dst, src, bytes);
}

// This rank's part of the collective, once every rank's buffers are mapped; the caller agrees
// afterwards, so no rank returns (and lets its buffers change) while a peer still reads them.
Status RunMine(Comm& comm, const CollArgs& a, const Mapped& m, Stream stream) {
  Backend& b = comm.device->backend();
  const size_t es = TypeSize(a.type), block = a.count * es;
  const int me = comm.rank;
  size_t start = 0, len = 0;
  switch (a.kind) {
    case CollKind::kAllReduce: {
      Slice(a.count, comm.size, me, &start, &len);
      Status s = ReduceFromAll(comm, a, m, start * es, m.recv[me] + start * es, len, stream);
      // Every slice must be reduced before any is gathered.
      WEFT_CHECK(Agree(comm, s, "reducing its slice"));
      for (int q = 0; q < comm.size; ++q) {
        if (q == me) continue;
        Slice(a.count, comm.size, q, &start, &len);
        WEFT_CHECK(Copy(b, m.recv[me] + start * es, m.recv[q] + start * es, len * es));
      }
      return weftSuccess;
    }
    case CollKind::kReduce:
      Slice(a.count, comm.size, me, &start, &len);
      return ReduceFromAll(comm, a, m, start * es, m.recv[a.root] + start * es, len, stream);
    case CollKind::kReduceScatter:
      return ReduceFromAll(comm, a, m, me * block, m.recv[me], a.count, stream);
    case CollKind::kBroadcast:
      return Copy(b, m.recv[me], m.send[a.root], block);
    case CollKind::kAllGather:
      for (int q = 0; q < comm.size; ++q)
        WEFT_CHECK(Copy(b, m.recv[me] + q * block, m.send[q], block));
      return weftSuccess;
    case CollKind::kAllToAll:
      for (int q = 0; q < comm.size; ++q) {
        WEFT_CHECK(Copy(b, m.recv[me] + q * block, m.send[q] + me * block, block));
      }
      return weftSuccess;
    default:
      return weftInternalError;
  }
}

}  // namespace

bool IpcEligible(Comm& comm, const CollArgs& a, const BufferRoute& route) {
  Backend& b = comm.device->backend();
  if (GetParams().WEFT_DEVICE_IPC == 0 || !b.caps().ipc || comm.topo.num_nodes() != 1 ||
      comm.size < 2 || !CoveredDeviceToDevice(a)) {
    return false;
  }
  Extents e;
  if (!ComputeExtents(comm, a, TypeSize(a.type), &e)) return false;
  // A handle names a whole allocation: the offset of a buffer in it must be known.
  auto mapped = [&b](const void* p, size_t extent, bool device) {
    if (extent == 0) return true;
    PtrInfo info;
    return device && b.Query(p, &info) == weftSuccess && info.kind == MemKind::kDevice &&
           info.size > 0;
  };
  return mapped(a.send, e.send, route.send_device) && mapped(a.recv, e.recv, route.recv_device);
}

Status RunIpc(Comm& comm, const CollArgs& a, Stream stream) {
  Backend& b = comm.device->backend();
  Extents e;
  if (!ComputeExtents(comm, a, TypeSize(a.type), &e)) return weftInternalError;  // validated
  // Inputs are ready on every rank once each waited for its stream before the exchange.
  if (b.StreamSync(stream) != weftSuccess) {
    return comm.Fail(weftUnhandledDeviceError, "%s: %s", CollApiName(a.kind), ThreadLastError());
  }
  Mapped m;
  WEFT_CHECK(MapPeers(comm, a, e, &m));
  WEFT_CHECK(Agree(comm, RunMine(comm, a, m, stream), "running its part"));
  ++comm.device->ipc_calls;
  return weftSuccess;
}

}  // namespace weft::device
