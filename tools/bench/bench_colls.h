// What weft-bench runs: each collective's buffer shape and bandwidth factors, its native MPI
// and weft calls on the same buffers, and validation against check/reference.h.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bench_options.h"

namespace bench {

/// Which implementation a measurement is of. The device modes (bench_device.h) run on device
/// buffers: kStageAlloc/kStageReuse stage them through host memory by hand around the native
/// routine (a new host allocation per call, or buffers made once); kWeftDevice hands them to
/// weft; the copy modes time the copies alone.
enum class Impl {
  kNative,
  kWeft,
  kCopyD2H,
  kCopyH2D,
  kCopyRoundtrip,
  kStageAlloc,
  kStageReuse,
  kWeftDevice
};

struct DeviceScratch;

/// A v-collective's arrays at one sweep point, in elements: weft's (size_t) and MPI's (int).
/// alltoallv has both sides; allgatherv, gatherv and reduce_scatterv their one array on the
/// receive side (recvcounts), scatterv on the send side (sendcounts).
struct VLayout {
  std::vector<size_t> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<int> mpi_send_counts, mpi_send_displs, mpi_recv_counts, mpi_recv_displs;
  bool fits_int = true;  // every value fits MPI's int
};

/// Sizes of one collective at one sweep point.
struct Shape {
  size_t count = 0;                  // the API's count argument
  size_t send_bytes = 0;             // per-rank send buffer
  size_t recv_bytes = 0;             // per-rank receive buffer
  size_t buf_bytes = 0;              // one in-place buffer
  double alg_bytes = 0;              // bytes in nccl-tests' algbw
  double bus_factor = 1;             // busbw = algbw * bus_factor
  std::shared_ptr<const VLayout> v;  // the v-collectives only
};

/// The communicators and settings every call uses.
struct Ctx {
  MPI_Comm mpi;  // native MPI's communicator (a duplicate of MPI_COMM_WORLD)
  weftComm_t comm;
  int rank, size;
  Coll coll;
  weftDataType_t type;
  weftRedOp_t op;
  int root;
  DeviceScratch* dev = nullptr;            // device buffers of the device modes (--memory device)
  bool nonblocking = false;                // post the nonblocking call, then wait (--nonblocking)
  VPattern vpattern = VPattern::kUniform;  // the v-collectives' block sizes (--vpattern)
};

/// Posts native MPI's nonblocking routine (MPI_Iallreduce, ...) into *req.
int PostNative(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
               MPI_Request* req);
/// Posts weft's nonblocking routine (weftIAllReduce, ...) into *req.
int PostWeft(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
             weftRequest_t* req);
/// The native MPI routine on host buffers (in place: recv is the buffer); with x.nonblocking,
/// the nonblocking one and a wait.
int RunNative(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv);
/// weft's routine on whatever memory send/recv are (x.nonblocking: posted, then waited for).
int RunWeft(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv);
/// Shape for a per-rank send buffer of about `bytes` (counts round down).
Shape ShapeOf(const Ctx& x, size_t bytes);
/// True when native MPI has this (type, op) (no fp16/bf16, no Avg) and count fits an int.
bool NativeSupports(const Ctx& x, const Shape& s);
/// Runs one call. For in_place, `recv` is the single buffer and `send` is ignored.
/// Returns 0 on success, else prints the error and returns non-zero.
int RunOnce(Impl impl, const Ctx& x, const Shape& s, bool in_place, unsigned char* send,
            unsigned char* recv);
/// Fills the inputs with check/reference.h's data, runs once, counts wrong elements here.
size_t Validate(Impl impl, const Ctx& x, const Shape& s, bool in_place, unsigned char* send,
                unsigned char* recv);

}  // namespace bench
