// The torch.distributed backend on weft, for torch 1.13's c10d::ProcessGroup (the only file
// that depends on c10d's classes: torch 2's c10d::Backend base would sit in a file beside it).
// Every collective starts weft's nonblocking call and returns a Work that completes it; sends
// and receives wait in a per-group queue and run together, as one weft group, when any of them
// is waited for (so a ring of isend/irecv cannot deadlock), matched in order per peer as NCCL
// matches them (torch's tag is not used).
#include <torch/extension.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "comms.h"
#include "tensor_args.h"

namespace weft_torch {
namespace {

using c10d::OpType;

// One collective's weft requests and what to do once they complete.
class WeftWork : public c10d::Work {
 public:
  WeftWork(int rank, OpType type, weftComm_t comm, std::vector<at::Tensor> outputs)
      : c10d::Work(rank, type), comm_(comm), outputs_(std::move(outputs)) {}
  ~WeftWork() override {
    // Dropped without a wait (async_op=True never waited): complete it, the buffers are ours.
    if (!done_ && !IsShutDown()) {
      try {
        Complete();
      } catch (...) {
      }
    }
  }

  std::vector<weftRequest_t> requests;
  std::function<void()> finish;       // copy-backs and unpacking, after the requests complete
  std::function<void()> before_wait;  // runs queued sends and receives (point-to-point)

  bool isCompleted() override {
    if (done_) return true;
    if (before_wait) {  // a send or receive: asking runs the queued ones, as waiting does
      Complete();
      return true;
    }
    for (weftRequest_t& r : requests) {
      int flag = 0;
      if (r != nullptr) Check(weftRequestTest(&r, &flag), comm_, "test");
      if (r != nullptr) return false;
    }
    Complete();
    return true;
  }
  bool isSuccess() const override { return done_; }
  bool wait(std::chrono::milliseconds /*timeout: WEFT_TIMEOUT_S bounds every weft wait*/) override {
    Complete();
    return true;
  }
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    // DDP's communication hooks chain on this future, which completes here, before it is
    // handed out: without weft's optional progress thread (WEFT_PROGRESS_THREAD) nothing
    // would advance the request meanwhile.
    Complete();
    auto fut =
        c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
    fut->markCompleted(c10::IValue(outputs_));
    return fut;
  }

 private:
  void Complete() {
    std::lock_guard<std::mutex> lk(mu_);
    if (done_) return;
    if (before_wait) before_wait();
    for (weftRequest_t& r : requests) {
      if (r != nullptr) Check(weftRequestWait(&r), comm_, "wait");
    }
    if (finish) finish();
    done_ = true;
  }

  weftComm_t comm_;
  std::vector<at::Tensor> outputs_;
  std::mutex mu_;
  bool done_ = false;
};

class ProcessGroupWeft : public c10d::ProcessGroup {
 public:
  ProcessGroupWeft(int rank, int size, weftComm_t comm)
      : c10d::ProcessGroup(rank, size), comm_(comm) {}
  ~ProcessGroupWeft() override { ReleaseComm(comm_); }

  const std::string getBackendName() const override { return "weft"; }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override {
    auto w = NewWork(OpType::ALLREDUCE, tensors);
    AddAllReduce(*w, tensors, opts.reduceOp.op_);
    return w;
  }

  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override {
    auto w = NewWork(OpType::ALLREDUCE_COALESCED, tensors);
    for (at::Tensor& t : tensors) {
      std::vector<at::Tensor> one{t};
      AddAllReduce(*w, one, opts.reduceOp.op_);
    }
    return w;
  }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override {
    const Staged s = One(tensors, "broadcast");
    auto w = NewWork(OpType::BROADCAST, tensors);
    Start(*w, "broadcast", [&](weftRequest_t* r) {
      return weftIBroadcast(s.flat.data_ptr(), s.flat.data_ptr(), s.flat.numel(), TypeOf(s.flat),
                            static_cast<int>(opts.rootRank), comm_, r);
    });
    Then(*w, [s] { s.CopyBack(); });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override {
    const Staged s = One(tensors, "reduce");
    const weftRedOp_t op = OpOf(opts.reduceOp.op_);
    auto w = NewWork(OpType::REDUCE, tensors);
    Start(*w, "reduce", [&](weftRequest_t* r) {
      return weftIReduce(s.flat.data_ptr(), s.flat.data_ptr(), s.flat.numel(), TypeOf(s.flat), op,
                         static_cast<int>(opts.rootRank), comm_, r);
    });
    const bool root = getRank() == opts.rootRank;
    Then(*w, [s, root] {
      if (root) s.CopyBack();
    });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions&) override {
    const Staged in = One(inputs, "allgather");
    if (outputs.size() != 1 || static_cast<int>(outputs[0].size()) != getSize()) {
      throw std::invalid_argument("weft backend: allgather needs one output list of world size");
    }
    CheckSameShape(outputs[0], in.flat, "allgather");
    at::Tensor flat = TakeScratch(getSize() * in.flat.numel(), in.flat.options());
    auto w = NewWork(OpType::ALLGATHER, outputs[0]);
    Start(*w, "allgather", [&](weftRequest_t* r) {
      return weftIAllGather(in.flat.data_ptr(), flat.data_ptr(), in.flat.numel(), TypeOf(in.flat),
                            comm_, r);
    });
    std::vector<at::Tensor> outs = outputs[0];
    Then(*w, [this, flat, outs] {
      Unflatten(flat, outs);
      GiveScratch(flat);
    });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions&) override {
    CheckTensor(input, "_allgather_base");
    CheckTensor(output, "_allgather_base");
    if (output.numel() != input.numel() * getSize() ||
        output.scalar_type() != input.scalar_type()) {
      throw std::invalid_argument(
          "weft backend: _allgather_base: output must be world size x input");
    }
    const Staged in(input), out(output);
    std::vector<at::Tensor> outs{output};
    auto w = NewWork(OpType::_ALLGATHER_BASE, outs);
    Start(*w, "_allgather_base", [&](weftRequest_t* r) {
      return weftIAllGather(in.flat.data_ptr(), out.flat.data_ptr(), in.flat.numel(),
                            TypeOf(in.flat), comm_, r);
    });
    Then(*w, [out] { out.CopyBack(); });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override {
    const Staged in = One(inputs, "gather");
    const int root = static_cast<int>(opts.rootRank);
    const bool at_root = getRank() == root;
    std::vector<at::Tensor> outs;
    at::Tensor flat;
    if (at_root) {
      if (outputs.size() != 1 || static_cast<int>(outputs[0].size()) != getSize()) {
        throw std::invalid_argument(
            "weft backend: gather needs one output list of world size at the root");
      }
      outs = outputs[0];
      CheckSameShape(outs, in.flat, "gather");
      flat = TakeScratch(getSize() * in.flat.numel(), in.flat.options());
    }
    auto w = NewWork(OpType::GATHER, outs);
    Start(*w, "gather", [&](weftRequest_t* r) {
      return weftIGather(in.flat.data_ptr(), at_root ? flat.data_ptr() : nullptr, in.flat.numel(),
                         TypeOf(in.flat), root, comm_, r);
    });
    if (at_root) {
      Then(*w, [this, flat, outs] {
        Unflatten(flat, outs);
        GiveScratch(flat);
      });
    }
    return w;
  }

  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override {
    const Staged out = One(outputs, "scatter");
    const int root = static_cast<int>(opts.rootRank);
    const bool at_root = getRank() == root;
    at::Tensor flat;
    if (at_root) {
      if (inputs.size() != 1 || static_cast<int>(inputs[0].size()) != getSize()) {
        throw std::invalid_argument(
            "weft backend: scatter needs one input list of world size at the root");
      }
      CheckSameShape(inputs[0], out.flat, "scatter");
      flat = Flatten(inputs[0]);
    }
    auto w = NewWork(OpType::SCATTER, outputs);
    Start(*w, "scatter", [&](weftRequest_t* r) {
      return weftIScatter(at_root ? flat.data_ptr() : nullptr, out.flat.data_ptr(),
                          out.flat.numel(), TypeOf(out.flat), root, comm_, r);
    });
    Then(*w, [this, out, flat] {
      out.CopyBack();
      if (flat.defined()) GiveScratch(flat);
    });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override {
    const Staged out = One(outputs, "reduce_scatter");
    if (inputs.size() != 1 || static_cast<int>(inputs[0].size()) != getSize()) {
      throw std::invalid_argument(
          "weft backend: reduce_scatter needs one input list of world size");
    }
    CheckSameShape(inputs[0], out.flat, "reduce_scatter");
    at::Tensor flat = Flatten(inputs[0]);
    const weftRedOp_t op = OpOf(opts.reduceOp.op_);
    auto w = NewWork(OpType::REDUCE_SCATTER, outputs);
    Start(*w, "reduce_scatter", [&](weftRequest_t* r) {
      return weftIReduceScatter(flat.data_ptr(), out.flat.data_ptr(), out.flat.numel(),
                                TypeOf(out.flat), op, comm_, r);
    });
    Then(*w, [this, out, flat] {
      out.CopyBack();
      GiveScratch(flat);
    });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override {
    CheckTensor(input, "_reduce_scatter_base");
    CheckTensor(output, "_reduce_scatter_base");
    if (input.numel() != output.numel() * getSize() ||
        output.scalar_type() != input.scalar_type()) {
      throw std::invalid_argument(
          "weft backend: _reduce_scatter_base: input must be world size x output");
    }
    const Staged in(input), out(output);
    const weftRedOp_t op = OpOf(opts.reduceOp.op_);
    std::vector<at::Tensor> outs{output};
    auto w = NewWork(OpType::_REDUCE_SCATTER_BASE, outs);
    Start(*w, "_reduce_scatter_base", [&](weftRequest_t* r) {
      return weftIReduceScatter(in.flat.data_ptr(), out.flat.data_ptr(), out.flat.numel(),
                                TypeOf(out.flat), op, comm_, r);
    });
    Then(*w, [out, in] { out.CopyBack(); });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions&) override {
    CheckTensor(input, "alltoall_base");
    CheckTensor(output, "alltoall_base");
    if (output.scalar_type() != input.scalar_type()) {
      throw std::invalid_argument("weft backend: alltoall_base: input and output dtypes differ");
    }
    const Staged in(input), out(output);
    std::vector<at::Tensor> outs{output};
    auto w = NewWork(OpType::ALLTOALL_BASE, outs);
    const size_t P = static_cast<size_t>(getSize());
    if (output_splits.empty() && input_splits.empty()) {
      if (input.numel() != output.numel() || input.numel() % getSize() != 0) {
        throw std::invalid_argument(
            "weft backend: alltoall_base: equal splits need equal sizes divisible by world size");
      }
      Start(*w, "alltoall_base", [&](weftRequest_t* r) {
        return weftIAllToAll(in.flat.data_ptr(), out.flat.data_ptr(), in.flat.numel() / P,
                             TypeOf(in.flat), comm_, r);
      });
    } else {
      std::vector<size_t> sc, sd, rc, rd;
      Splits(input, input_splits, &sc, &sd, "input");
      Splits(output, output_splits, &rc, &rd, "output");
      Start(*w, "alltoall_base", [&](weftRequest_t* r) {
        return weftIAllToAllV(in.flat.data_ptr(), sc.data(), sd.data(), out.flat.data_ptr(),
                              rc.data(), rd.data(), TypeOf(in.flat), comm_, r);
      });
    }
    Then(*w, [out, in] { out.CopyBack(); });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions&) override {
    const size_t P = static_cast<size_t>(getSize());
    if (outputs.size() != P || inputs.size() != P) {
      throw std::invalid_argument("weft backend: alltoall needs world size inputs and outputs");
    }
    std::vector<size_t> sc(P), sd(P), rc(P), rd(P);
    size_t s_total = 0, r_total = 0;
    for (size_t i = 0; i < P; ++i) {
      CheckTensor(inputs[i], "alltoall");
      CheckTensor(outputs[i], "alltoall");
      if (inputs[i].scalar_type() != inputs[0].scalar_type() ||
          outputs[i].scalar_type() != inputs[0].scalar_type()) {
        throw std::invalid_argument("weft backend: alltoall: every tensor needs one dtype");
      }
      sc[i] = inputs[i].numel();
      sd[i] = s_total;
      s_total += sc[i];
      rc[i] = outputs[i].numel();
      rd[i] = r_total;
      r_total += rc[i];
    }
    at::Tensor send = Flatten(inputs);
    at::Tensor recv = TakeScratch(static_cast<int64_t>(r_total), inputs[0].options());
    auto w = NewWork(OpType::ALLTOALL, outputs);
    Start(*w, "alltoall", [&](weftRequest_t* r) {
      return weftIAllToAllV(send.data_ptr(), sc.data(), sd.data(), recv.data_ptr(), rc.data(),
                            rd.data(), TypeOf(send), comm_, r);
    });
    std::vector<at::Tensor> outs = outputs;
    Then(*w, [this, recv, outs, send] {
      Unflatten(recv, outs);
      GiveScratch(recv);
      GiveScratch(send);
    });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions&) override {
    auto w = NewWork(OpType::BARRIER, {});
    Start(*w, "barrier", [&](weftRequest_t* r) { return weftIBarrier(comm_, r); });
    return w;
  }

  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int) override {
    const Staged s = One(tensors, "send");
    return QueuePointToPoint(
        OpType::SEND, tensors,
        [this, s, dst] {
          Check(weftSend(s.flat.data_ptr(), s.flat.numel(), TypeOf(s.flat), dst, comm_, nullptr),
                comm_, "send");
        },
        nullptr);
  }

  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int) override {
    const Staged s = One(tensors, "recv");
    return QueuePointToPoint(
        OpType::RECV, tensors,
        [this, s, src] {
          Check(weftRecv(s.flat.data_ptr(), s.flat.numel(), TypeOf(s.flat), src, comm_, nullptr),
                comm_, "recv");
        },
        [s] { s.CopyBack(); });
  }

 private:
  c10::intrusive_ptr<WeftWork> NewWork(OpType type, std::vector<at::Tensor> outputs) {
    if (IsShutDown()) throw std::runtime_error("weft backend: used after interpreter shutdown");
    return c10::make_intrusive<WeftWork>(getRank(), type, comm_, std::move(outputs));
  }

  // Starts one nonblocking weft call into w.
  template <typename Call>
  void Start(WeftWork& w, const char* what, Call call) {
    weftRequest_t r = nullptr;
    Check(call(&r), comm_, what);
    w.requests.push_back(r);
  }

  static void Then(WeftWork& w, std::function<void()> f) {
    if (!w.finish) {
      w.finish = std::move(f);
      return;
    }
    auto before = std::move(w.finish);
    w.finish = [before, f] {
      before();
      f();
    };
  }

  void AddAllReduce(WeftWork& w, std::vector<at::Tensor>& tensors, int red_op) {
    const Staged s = One(tensors, "allreduce");
    const weftRedOp_t op = OpOf(red_op);
    Start(w, "allreduce", [&](weftRequest_t* r) {
      return weftIAllReduce(s.flat.data_ptr(), s.flat.data_ptr(), s.flat.numel(), TypeOf(s.flat),
                            op, comm_, r);
    });
    Then(w, [s] { s.CopyBack(); });
  }

  static Staged One(std::vector<at::Tensor>& tensors, const char* what) {
    if (tensors.size() != 1) {
      throw std::invalid_argument(std::string("weft backend: ") + what +
                                  " takes one tensor per call (one device per process)");
    }
    CheckTensor(tensors[0], what);
    return Staged(tensors[0]);
  }

  // The list forms pack their tensors into one staging tensor (and unpack from it) in list order.
  at::Tensor Flatten(const std::vector<at::Tensor>& ts) {
    int64_t n = 0;
    for (const at::Tensor& t : ts) n += t.numel();
    at::Tensor flat = TakeScratch(n, ts.at(0).options());
    int64_t at = 0;
    for (const at::Tensor& t : ts) {
      flat.narrow(0, at, t.numel()).copy_(t.reshape({-1}));
      at += t.numel();
    }
    return flat;
  }

  static void Unflatten(const at::Tensor& flat, const std::vector<at::Tensor>& outs) {
    int64_t at = 0;
    for (const at::Tensor& o : outs) {
      o.copy_(flat.narrow(0, at, o.numel()).view(o.sizes()));
      at += o.numel();
    }
  }

  // Staging tensors for the list forms, kept for reuse: a fresh large tensor is memory the
  // kernel maps page by page on first touch, which on this VM cost more than the collective
  // (scripts/bench-torch.sh, 2 ranks, the 16 MiB allgather row: 130 ms with a new staging
  // tensor per call, 5.7 ms with reuse). kScratchKept are kept; past that the smallest goes.
  at::Tensor TakeScratch(int64_t n, const at::TensorOptions& options) {
    {
      std::lock_guard<std::mutex> lk(scratch_mu_);
      for (size_t i = 0; i < scratch_.size(); ++i) {
        at::Tensor& t = scratch_[i];
        if (t.scalar_type() == options.dtype().toScalarType() && t.numel() >= n) {
          at::Tensor found = std::move(t);
          scratch_.erase(scratch_.begin() + static_cast<std::ptrdiff_t>(i));
          return found.narrow(0, 0, n);
        }
      }
    }
    return at::empty({n}, options);
  }

  void GiveScratch(const at::Tensor& view) {
    // The whole storage goes back, not the view handed out.
    const int64_t elems = static_cast<int64_t>(view.storage().nbytes() / view.element_size());
    at::Tensor whole = at::empty({0}, view.options()).set_(view.storage(), 0, {elems});
    std::lock_guard<std::mutex> lk(scratch_mu_);
    scratch_.push_back(std::move(whole));
    if (scratch_.size() > kScratchKept) {
      auto smallest = std::min_element(
          scratch_.begin(), scratch_.end(),
          [](const at::Tensor& a, const at::Tensor& b) { return a.numel() < b.numel(); });
      scratch_.erase(smallest);
    }
  }

  // Split sizes along dim 0 as element counts and displacements.
  void Splits(const at::Tensor& t, const std::vector<int64_t>& splits, std::vector<size_t>* c,
              std::vector<size_t>* d, const char* which) const {
    const size_t P = static_cast<size_t>(getSize());
    const int64_t rows = t.dim() > 0 ? t.size(0) : 1;
    const size_t row = rows > 0 ? static_cast<size_t>(t.numel() / rows) : 0;
    c->assign(P, 0);
    d->assign(P, 0);
    size_t at = 0;
    for (size_t i = 0; i < P; ++i) {
      const int64_t n = splits.empty() ? rows / static_cast<int64_t>(P) : splits[i];
      if (n < 0) throw std::invalid_argument("weft backend: alltoall_base: a negative split size");
      (*c)[i] = static_cast<size_t>(n) * row;
      (*d)[i] = at;
      at += (*c)[i];
    }
    if (!splits.empty() && splits.size() != P) {
      throw std::invalid_argument(std::string("weft backend: alltoall_base: ") + which +
                                  " split sizes need one entry per rank");
    }
    if (at != static_cast<size_t>(t.numel())) {
      throw std::invalid_argument(std::string("weft backend: alltoall_base: ") + which +
                                  " split sizes do not add up to the tensor's first dimension");
    }
  }

  // Sends and receives wait here until one of them is waited for; then all queued so far run
  // as one weft group (started together, in the order queued).
  c10::intrusive_ptr<c10d::Work> QueuePointToPoint(OpType type, std::vector<at::Tensor>& tensors,
                                                   std::function<void()> op,
                                                   std::function<void()> after) {
    auto w = NewWork(type, tensors);
    {
      std::lock_guard<std::mutex> lk(p2p_mu_);
      p2p_queue_.push_back(std::move(op));
    }
    w->before_wait = [this] { FlushPointToPoint(); };
    if (after) Then(*w, std::move(after));
    return w;
  }

  void FlushPointToPoint() {
    std::vector<std::function<void()>> ops;
    {
      std::lock_guard<std::mutex> lk(p2p_mu_);
      ops.swap(p2p_queue_);
    }
    if (ops.empty()) return;
    Check(weftGroupStart(), comm_, "group start");
    std::exception_ptr failed;
    for (auto& op : ops) {
      try {
        op();
      } catch (...) {
        if (!failed) failed = std::current_exception();
      }
    }
    const weftResult_t r = weftGroupEnd();
    if (failed) std::rethrow_exception(failed);
    Check(r, comm_, "sends and receives");
  }

  static constexpr size_t kScratchKept = 4;

  weftComm_t comm_;
  std::mutex scratch_mu_;
  std::vector<at::Tensor> scratch_;
  std::mutex p2p_mu_;
  std::vector<std::function<void()>> p2p_queue_;
};

c10::intrusive_ptr<c10d::ProcessGroup> CreateProcessGroup(int rank, int size,
                                                          std::vector<int64_t> world_ranks) {
  if (static_cast<int>(world_ranks.size()) != size || rank < 0 || rank >= size) {
    throw std::invalid_argument("weft backend: the group's ranks do not match its size");
  }
  weftComm_t comm = MakeComm(world_ranks);
  int wrank = -1, wsize = -1;
  weftCommUserRank(comm, &wrank);
  weftCommCount(comm, &wsize);
  if (wrank != rank || wsize != size) {
    ReleaseComm(comm);
    throw std::runtime_error("weft backend: torch's rank " + std::to_string(rank) + " of " +
                             std::to_string(size) + " is MPI's rank " + std::to_string(wrank) +
                             " of " + std::to_string(wsize) +
                             ": launch with mpiexec or weftrun, one process per rank");
  }
  return c10::make_intrusive<ProcessGroupWeft>(rank, size, comm);
}

}  // namespace
}  // namespace weft_torch

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "weft's torch.distributed backend (torch 1.13 ProcessGroup)";
  m.def("create_process_group", &weft_torch::CreateProcessGroup,
        "A weft process group over the given MPI world ranks (in group rank order)");
  m.def(
      "mpi_world",
      [] {
        int rank = 0, size = 0;
        weft_torch::WorldRankSize(&rank, &size);
        return std::make_pair(rank, size);
      },
      "(rank, size) in MPI_COMM_WORLD, initialising MPI if needed");
  m.def("shutdown", &weft_torch::Shutdown, "Frees weft's communicators and finalises MPI");
}
