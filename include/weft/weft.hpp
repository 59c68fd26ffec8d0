// weft's thin C++ API over weft.h: an RAII communicator, plan and request, std::span overloads that
// take the element type from the span, and weft::Error exceptions instead of status codes.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/weft.h"

namespace weft {

/// A failed weft call: the status code and the library's detailed text.
class Error : public std::runtime_error {
 public:
  Error(weftResult_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  /// The C status code.
  weftResult_t code() const noexcept { return code_; }

 private:
  weftResult_t code_;
};

/// Throws weft::Error for a failed status, with comm's last error text.
inline void Check(weftResult_t r, weftComm_t comm = nullptr) {
  if (r != weftSuccess) {
    throw Error(r, std::string(weftGetErrorString(r)) + ": " + weftGetLastError(comm));
  }
}

/// IEEE binary16 element, by its bits.
struct half_t {
  uint16_t bits;
};
/// bfloat16 element, by its bits.
struct bfloat16_t {
  uint16_t bits;
};

/// The weftDataType_t of a C++ element type.
template <typename T>
constexpr weftDataType_t TypeOf();
template <>
constexpr weftDataType_t TypeOf<int8_t>() {
  return weftInt8;
}
template <>
constexpr weftDataType_t TypeOf<uint8_t>() {
  return weftUint8;
}
template <>
constexpr weftDataType_t TypeOf<int32_t>() {
  return weftInt32;
}
template <>
constexpr weftDataType_t TypeOf<uint32_t>() {
  return weftUint32;
}
template <>
constexpr weftDataType_t TypeOf<int64_t>() {
  return weftInt64;
}
template <>
constexpr weftDataType_t TypeOf<uint64_t>() {
  return weftUint64;
}
template <>
constexpr weftDataType_t TypeOf<half_t>() {
  return weftFloat16;
}
template <>
constexpr weftDataType_t TypeOf<bfloat16_t>() {
  return weftBfloat16;
}
template <>
constexpr weftDataType_t TypeOf<float>() {
  return weftFloat32;
}
template <>
constexpr weftDataType_t TypeOf<double>() {
  return weftFloat64;
}

/// A persistent collective (see weftAllReduceInit and friends); freed on destruction.
class Plan {
 public:
  explicit Plan(weftPlan_t p) : plan_(p) {}
  Plan(Plan&& o) noexcept : plan_(std::exchange(o.plan_, nullptr)) {}
  Plan& operator=(Plan&& o) noexcept {
    std::swap(plan_, o.plan_);
    return *this;
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (plan_ != nullptr) weftPlanFree(plan_);
  }
  /// Starts one execution.
  void start() { Check(weftPlanStart(plan_, nullptr)); }
  /// Completes the execution.
  void wait() { Check(weftPlanWait(plan_)); }
  /// Advances it; true once complete.
  bool test() {
    int done = 0;
    Check(weftPlanTest(plan_, &done));
    return done != 0;
  }
  /// What the plan runs, in words.
  std::string describe() const {
    size_t needed = 0;
    Check(weftPlanDescribe(plan_, nullptr, 0, &needed));
    std::string s(needed, '\0');
    Check(weftPlanDescribe(plan_, s.data(), s.size(), &needed));
    s.resize(needed - 1);
    return s;
  }
  weftPlan_t get() const { return plan_; }

 private:
  weftPlan_t plan_;
};

/// A nonblocking collective in flight (see weftIAllReduce and friends). Destroying one that
/// was not completed waits for it: its buffers are in use until then.
class Request {
 public:
  Request() = default;
  explicit Request(weftRequest_t r) : req_(r) {}
  Request(Request&& o) noexcept : req_(std::exchange(o.req_, nullptr)) {}
  Request& operator=(Request&& o) noexcept {
    std::swap(req_, o.req_);
    return *this;
  }
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() {
    if (req_ != nullptr) weftRequestWait(&req_);
  }
  /// Completes the collective (throws weft::Error with its failure).
  void wait() { Check(weftRequestWait(&req_)); }
  /// Advances the communicator's requests; true once this one is complete.
  bool test() {
    int done = 0;
    Check(weftRequestTest(&req_, &done));
    return done != 0;
  }
  /// Completed (by wait or a test that returned true), or never started.
  bool done() const { return req_ == nullptr; }

 private:
  weftRequest_t req_ = nullptr;
};

/// Runs the weft calls body makes as one group (weftGroupStart/weftGroupEnd): they start
/// together when body returns, which is when this returns, complete.
template <typename Body>
void group(Body&& body) {
  Check(weftGroupStart());
  try {
    body();
  } catch (...) {
    weftGroupEnd();  // runs what was queued; body's exception is the one reported
    throw;
  }
  Check(weftGroupEnd());
}

/// An RAII communicator over an MPI communicator (collective to create and destroy).
class Communicator {
 public:
  explicit Communicator(MPI_Comm mpi_comm) { Check(weftCommInitMPI(&comm_, mpi_comm)); }
  Communicator(Communicator&& o) noexcept : comm_(std::exchange(o.comm_, nullptr)) {}
  Communicator& operator=(Communicator&& o) noexcept {
    std::swap(comm_, o.comm_);
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() {
    if (comm_ != nullptr) weftCommDestroy(comm_);
  }

  int rank() const {
    int r = 0;
    Check(weftCommUserRank(comm_, &r), comm_);
    return r;
  }
  int size() const {
    int n = 0;
    Check(weftCommCount(comm_, &n), comm_);
    return n;
  }
  weftComm_t get() const { return comm_; }

  /// Collective (weftCommSplit): the communicator of the ranks passing this color, ordered
  /// by key; an empty one (get() == nullptr) where color is WEFT_SPLIT_NOCOLOR.
  Communicator split(int color, int key) const {
    weftComm_t c = nullptr;
    Check(weftCommSplit(comm_, color, key, &c), comm_);
    return Communicator(Adopt{}, c);
  }
  /// Collective (weftCommDup): an independent communicator over the same ranks.
  Communicator dup() const {
    weftComm_t c = nullptr;
    Check(weftCommDup(comm_, &c), comm_);
    return Communicator(Adopt{}, c);
  }

  /// recv = op over ranks of send (equal sizes).
  template <typename T>
  void allreduce(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(send.size(), recv.size(), "allreduce");
    Check(weftAllReduce(send.data(), recv.data(), send.size(), TypeOf<T>(), op, comm_, nullptr),
          comm_);
  }
  /// In-place allreduce.
  template <typename T>
  void allreduce(std::span<T> inout, weftRedOp_t op = weftSum) {
    Check(weftAllReduce(inout.data(), inout.data(), inout.size(), TypeOf<T>(), op, comm_, nullptr),
          comm_);
  }
  /// recv (used at root only) = op over ranks of send.
  template <typename T>
  void reduce(std::span<const T> send, std::span<T> recv, int root, weftRedOp_t op = weftSum) {
    if (rank() == root) Same(send.size(), recv.size(), "reduce");
    Check(weftReduce(send.data(), recv.data(), send.size(), TypeOf<T>(), op, root, comm_, nullptr),
          comm_);
  }
  /// In-place broadcast of buf from root.
  template <typename T>
  void broadcast(std::span<T> buf, int root) {
    Check(weftBroadcast(buf.data(), buf.data(), buf.size(), TypeOf<T>(), root, comm_, nullptr),
          comm_);
  }
  /// recv = every rank's send, in rank order (recv.size() == size() * send.size()).
  template <typename T>
  void allgather(std::span<const T> send, std::span<T> recv) {
    Same(send.size() * size(), recv.size(), "allgather");
    Check(weftAllGather(send.data(), recv.data(), send.size(), TypeOf<T>(), comm_, nullptr), comm_);
  }
  /// recv = this rank's block of the reduction (send.size() == size() * recv.size()).
  template <typename T>
  void reduce_scatter(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(recv.size() * size(), send.size(), "reduce_scatter");
    Check(weftReduceScatter(send.data(), recv.data(), recv.size(), TypeOf<T>(), op, comm_, nullptr),
          comm_);
  }
  /// Block r of send goes to rank r (equal sizes, divisible by size()).
  template <typename T>
  void alltoall(std::span<const T> send, std::span<T> recv) {
    Same(send.size(), recv.size(), "alltoall");
    if (send.size() % size() != 0)
      throw Error(weftInvalidArgument, "alltoall: size not divisible by ranks");
    Check(weftAllToAll(send.data(), recv.data(), send.size() / size(), TypeOf<T>(), comm_, nullptr),
          comm_);
  }
  /// recv (used at root only) = every rank's send, in rank order.
  template <typename T>
  void gather(std::span<const T> send, std::span<T> recv, int root) {
    if (rank() == root) Same(send.size() * size(), recv.size(), "gather");
    Check(weftGather(send.data(), recv.data(), send.size(), TypeOf<T>(), root, comm_, nullptr),
          comm_);
  }
  /// recv = block rank() of root's send (send used at root only).
  template <typename T>
  void scatter(std::span<const T> send, std::span<T> recv, int root) {
    if (rank() == root) Same(recv.size() * size(), send.size(), "scatter");
    Check(weftScatter(send.data(), recv.data(), recv.size(), TypeOf<T>(), root, comm_, nullptr),
          comm_);
  }
  /// recv gets rank r's send at displs[r] (counts[r] elements; counts and displs have size()
  /// entries).
  template <typename T>
  void allgatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> counts,
                  std::span<const size_t> displs) {
    Arrays(counts, displs, "allgatherv");
    Check(weftAllGatherV(send.data(), send.size(), recv.data(), counts.data(), displs.data(),
                         TypeOf<T>(), comm_, nullptr),
          comm_);
  }
  /// sendcounts[r] elements at send + sdispls[r] go to rank r; recvcounts[r] from rank r land
  /// at recv + rdispls[r].
  template <typename T>
  void alltoallv(std::span<const T> send, std::span<const size_t> sendcounts,
                 std::span<const size_t> sdispls, std::span<T> recv,
                 std::span<const size_t> recvcounts, std::span<const size_t> rdispls) {
    Arrays(sendcounts, sdispls, "alltoallv");
    Arrays(recvcounts, rdispls, "alltoallv");
    Check(weftAllToAllV(send.data(), sendcounts.data(), sdispls.data(), recv.data(),
                        recvcounts.data(), rdispls.data(), TypeOf<T>(), comm_, nullptr),
          comm_);
  }
  /// Nonblocking alltoallv (the arrays are copied at the call).
  template <typename T>
  Request ialltoallv(std::span<const T> send, std::span<const size_t> sendcounts,
                     std::span<const size_t> sdispls, std::span<T> recv,
                     std::span<const size_t> recvcounts, std::span<const size_t> rdispls) {
    Arrays(sendcounts, sdispls, "ialltoallv");
    Arrays(recvcounts, rdispls, "ialltoallv");
    weftRequest_t r = nullptr;
    Check(weftIAllToAllV(send.data(), sendcounts.data(), sdispls.data(), recv.data(),
                         recvcounts.data(), rdispls.data(), TypeOf<T>(), comm_, &r),
          comm_);
    return Request(r);
  }
  /// gather with a count per rank: rank r's send lands at root's recv + displs[r] (counts and
  /// displs are read at the root only).
  template <typename T>
  void gatherv(std::span<const T> send, std::span<T> recv, std::span<const size_t> counts,
               std::span<const size_t> displs, int root) {
    if (rank() == root) Arrays(counts, displs, "gatherv");
    Check(weftGatherV(send.data(), send.size(), recv.data(), counts.data(), displs.data(),
                      TypeOf<T>(), root, comm_, nullptr),
          comm_);
  }
  /// scatter with a count per rank: rank r's recv gets counts[r] elements from root's send +
  /// displs[r].
  template <typename T>
  void scatterv(std::span<const T> send, std::span<const size_t> counts,
                std::span<const size_t> displs, std::span<T> recv, int root) {
    if (rank() == root) Arrays(counts, displs, "scatterv");
    Check(weftScatterV(send.data(), counts.data(), displs.data(), recv.data(), recv.size(),
                       TypeOf<T>(), root, comm_, nullptr),
          comm_);
  }
  /// reduce_scatter with a count per rank: recv = this rank's block (counts[rank()] elements)
  /// of the reduction of send (the sum of counts).
  template <typename T>
  void reduce_scatter_v(std::span<const T> send, std::span<T> recv, std::span<const size_t> counts,
                        weftRedOp_t op = weftSum) {
    Arrays(counts, counts, "reduce_scatter_v");
    Check(weftReduceScatterV(send.data(), recv.data(), counts.data(), TypeOf<T>(), op, comm_,
                             nullptr),
          comm_);
  }
  /// Inclusive prefix reduction over ranks 0..rank().
  template <typename T>
  void scan(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(send.size(), recv.size(), "scan");
    Check(weftScan(send.data(), recv.data(), send.size(), TypeOf<T>(), op, comm_, nullptr), comm_);
  }
  /// Exclusive prefix reduction over ranks 0..rank()-1 (rank 0's recv is left untouched).
  template <typename T>
  void exscan(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(send.size(), recv.size(), "exscan");
    Check(weftExScan(send.data(), recv.data(), send.size(), TypeOf<T>(), op, comm_, nullptr),
          comm_);
  }
  void barrier() { Check(weftBarrier(comm_, nullptr), comm_); }
  template <typename T>
  void send(std::span<const T> buf, int peer) {
    Check(weftSend(buf.data(), buf.size(), TypeOf<T>(), peer, comm_, nullptr), comm_);
  }
  template <typename T>
  void recv(std::span<T> buf, int peer) {
    Check(weftRecv(buf.data(), buf.size(), TypeOf<T>(), peer, comm_, nullptr), comm_);
  }
  /// Nonblocking allreduce: the buffers are in use until the request completes.
  template <typename T>
  Request iallreduce(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(send.size(), recv.size(), "iallreduce");
    weftRequest_t r = nullptr;
    Check(weftIAllReduce(send.data(), recv.data(), send.size(), TypeOf<T>(), op, comm_, &r), comm_);
    return Request(r);
  }
  /// Nonblocking in-place allreduce.
  template <typename T>
  Request iallreduce(std::span<T> inout, weftRedOp_t op = weftSum) {
    weftRequest_t r = nullptr;
    Check(weftIAllReduce(inout.data(), inout.data(), inout.size(), TypeOf<T>(), op, comm_, &r),
          comm_);
    return Request(r);
  }
  /// Nonblocking reduce to root.
  template <typename T>
  Request ireduce(std::span<const T> send, std::span<T> recv, int root, weftRedOp_t op = weftSum) {
    if (rank() == root) Same(send.size(), recv.size(), "ireduce");
    weftRequest_t r = nullptr;
    Check(weftIReduce(send.data(), recv.data(), send.size(), TypeOf<T>(), op, root, comm_, &r),
          comm_);
    return Request(r);
  }
  /// Nonblocking in-place broadcast.
  template <typename T>
  Request ibroadcast(std::span<T> buf, int root) {
    weftRequest_t r = nullptr;
    Check(weftIBroadcast(buf.data(), buf.data(), buf.size(), TypeOf<T>(), root, comm_, &r), comm_);
    return Request(r);
  }
  /// Nonblocking allgather.
  template <typename T>
  Request iallgather(std::span<const T> send, std::span<T> recv) {
    Same(send.size() * size(), recv.size(), "iallgather");
    weftRequest_t r = nullptr;
    Check(weftIAllGather(send.data(), recv.data(), send.size(), TypeOf<T>(), comm_, &r), comm_);
    return Request(r);
  }
  /// Nonblocking reduce_scatter.
  template <typename T>
  Request ireduce_scatter(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(recv.size() * size(), send.size(), "ireduce_scatter");
    weftRequest_t r = nullptr;
    Check(weftIReduceScatter(send.data(), recv.data(), recv.size(), TypeOf<T>(), op, comm_, &r),
          comm_);
    return Request(r);
  }
  /// Nonblocking alltoall.
  template <typename T>
  Request ialltoall(std::span<const T> send, std::span<T> recv) {
    Same(send.size(), recv.size(), "ialltoall");
    if (send.size() % size() != 0)
      throw Error(weftInvalidArgument, "ialltoall: size not divisible by ranks");
    weftRequest_t r = nullptr;
    Check(weftIAllToAll(send.data(), recv.data(), send.size() / size(), TypeOf<T>(), comm_, &r),
          comm_);
    return Request(r);
  }
  /// Nonblocking barrier.
  Request ibarrier() {
    weftRequest_t r = nullptr;
    Check(weftIBarrier(comm_, &r), comm_);
    return Request(r);
  }
  /// A persistent allreduce bound to these buffers.
  template <typename T>
  Plan allreduce_init(std::span<const T> send, std::span<T> recv, weftRedOp_t op = weftSum) {
    Same(send.size(), recv.size(), "allreduce_init");
    weftPlan_t p = nullptr;
    Check(weftAllReduceInit(send.data(), recv.data(), send.size(), TypeOf<T>(), op, comm_, &p),
          comm_);
    return Plan(p);
  }

 private:
  struct Adopt {};
  Communicator(Adopt, weftComm_t c) : comm_(c) {}
  static void Same(size_t a, size_t b, const char* what) {
    if (a != b) throw Error(weftInvalidArgument, std::string(what) + ": buffer sizes do not match");
  }
  void Arrays(std::span<const size_t> counts, std::span<const size_t> displs,
              const char* what) const {
    const size_t n = static_cast<size_t>(size());
    if (counts.size() != n || displs.size() != n) {
      throw Error(weftInvalidArgument,
                  std::string(what) + ": count arrays need one entry per rank");
    }
  }
  weftComm_t comm_ = nullptr;
};

}  // namespace weft
