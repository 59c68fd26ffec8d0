#include "shim_state.h"

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "core/log.h"
#include "core/params.h"
#include "shim_requests.h"
#include "shim_stats.h"

namespace weft::shim {
namespace {

std::mutex g_mu;                                // lazy setup and the set of attached comms
std::atomic<int> g_keyval{MPI_KEYVAL_INVALID};  // read by every call, set once under g_mu
std::set<weftComm_t> g_attached;  // to destroy at MPI_Finalize (MPI_COMM_WORLD is never freed)
weftComm_t const kFailed = reinterpret_cast<weftComm_t>(uintptr_t{1});  // setup failed marker

const char* ReasonText(Fallback why) {
  switch (why) {
    case Fallback::kDisabled:
      return "WEFT_DISABLE=1";
    case Fallback::kInterComm:
      return "inter-communicator";
    case Fallback::kDatatype:
      return "a datatype or count weft does not serve (a reduction over mixed or unserved basic "
             "types, or a count MPI itself must report)";
    case Fallback::kOp:
      return "reduction op weft does not serve (user-defined, MINLOC/MAXLOC, logical, bitwise)";
    case Fallback::kUneven:
      return "unequal counts across nodes (MPI_Allgatherv, MPI_Reduce_scatter)";
    case Fallback::kSetupFailed:
      return "weft's setup failed on this communicator";
    case Fallback::kMismatch:
      return "send and receive type signatures differ";
    case Fallback::kNotSetUp:
      return "a nonblocking call on a communicator weft is not set up on yet (it sets up at "
             "the communicator's creation by MPI_Comm_dup/split/create or its first blocking "
             "collective)";
    case Fallback::kMpiRoutine:
      return "weft would run the MPI library's routine here (a v-collective across nodes, "
             "WEFT_ALLTOALLV=native, or where the model keeps MPI's)";
    default:
      return "?";
  }
}

// Advanced whenever an attached communicator goes (freed, or at MPI_Finalize): CommFor's
// per-thread memory of its last lookup is valid only at the value it was made under, so a
// handle that MPI reuses for a new communicator is looked up again.
std::atomic<uint64_t> g_comm_generation{0};

// Attribute delete callback: the user freed the communicator, so weft's goes too.
int DeleteAttr(MPI_Comm, int, void* value, void*) {
  auto comm = static_cast<weftComm_t>(value);
  g_comm_generation.fetch_add(1, std::memory_order_acq_rel);
  {
    // Not attached any more: already released at MPI_Finalize (Open MPI deletes
    // MPI_COMM_WORLD's attributes after MPI_COMM_SELF's).
    std::lock_guard<std::mutex> lk(g_mu);
    if (comm == kFailed || g_attached.erase(comm) == 0) return MPI_SUCCESS;
  }
  weftCommDestroy(comm);
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, with MPI still working: release
// every communicator weft still holds.
int FinalizeCleanup(MPI_Comm, int, void*, void*) {
  PrintStats();
  ReleasePersistentAtFinalize();
  g_comm_generation.fetch_add(1, std::memory_order_acq_rel);
  std::set<weftComm_t> left;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    left.swap(g_attached);
  }
  for (weftComm_t c : left) weftCommDestroy(c);
  return MPI_SUCCESS;
}

}  // namespace

void NoteFallback(Fallback why, const char* fn) {
  WEFT_INFO(kShim, "%s -> native: %s", fn, ReasonText(why));
  CountCall(fn, false);
}

void OnInit() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_keyval.load() != MPI_KEYVAL_INVALID) return;
  int keyval = MPI_KEYVAL_INVALID;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &DeleteAttr, &keyval, nullptr) !=
      MPI_SUCCESS) {
    WEFT_WARN(kShim, "MPI_Comm_create_keyval failed: every call goes to the native routine");
    return;
  }
  int self_key = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &FinalizeCleanup, &self_key, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, self_key, nullptr);
  g_keyval.store(keyval);
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  SetLogRank(rank);
  WEFT_INFO(kShim, "weft MPI interposer active");
}

weftComm_t CommFor(MPI_Comm comm, Fallback* why, bool set_up) {
  if (GetParams().WEFT_DISABLE) {
    *why = Fallback::kDisabled;
    return nullptr;
  }
  if (g_keyval.load() == MPI_KEYVAL_INVALID) OnInit();  // MPI was up before the shim loaded
  const int keyval = g_keyval.load();
  if (keyval == MPI_KEYVAL_INVALID) {
    *why = Fallback::kSetupFailed;
    return nullptr;
  }
  // The last communicator this thread served, remembered: MPI's attribute lookup cost about
  // 240 instructions of every interposed call (callgrind, Open MPI).
  struct Last {
    MPI_Comm comm;
    weftComm_t wc = nullptr;
    uint64_t generation = 0;
  };
  thread_local Last last;
  const uint64_t generation = g_comm_generation.load(std::memory_order_acquire);
  if (last.wc != nullptr && last.comm == comm && last.generation == generation) return last.wc;
  void* value = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS) {
    *why = Fallback::kSetupFailed;  // an invalid communicator: MPI's routine reports it
    return nullptr;
  }
  if (!found && !set_up) {
    *why = Fallback::kNotSetUp;
    return nullptr;
  }
  if (!found) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
      *why = Fallback::kInterComm;
      return nullptr;
    }
    // Collective: every rank of comm arrives here in the same call. No lock is held across
    // it: another thread may be attaching another communicator, whose peers could be waiting
    // on this one. Two threads never attach the same communicator at once, because MPI
    // forbids concurrent collectives on one communicator.
    weftComm_t wc = nullptr;
    // weftCommInitMPI agrees across the ranks whether setup worked, so every rank makes the
    // same choice here (a rank that served calls while another went native would hang both).
    if (weftCommInitMPI(&wc, comm) != weftSuccess) {
      WEFT_WARN(kShim, "weft setup failed on a communicator: %s", weftGetLastError(nullptr));
      wc = kFailed;
    } else {
      std::lock_guard<std::mutex> lk(g_mu);
      g_attached.insert(wc);
    }
    if (PMPI_Comm_set_attr(comm, keyval, wc) != MPI_SUCCESS && wc != kFailed) {
      {
        std::lock_guard<std::mutex> lk(g_mu);
        g_attached.erase(wc);
      }
      weftCommDestroy(wc);
      wc = kFailed;  // MPI reports the same on every rank for one communicator
    }
    value = wc;
  }
  if (value == kFailed) {
    *why = Fallback::kSetupFailed;
    return nullptr;
  }
  last = {comm, static_cast<weftComm_t>(value), generation};
  return last.wc;
}

void SetUpEagerly(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || !GetParams().WEFT_SHIM_EAGER_SETUP) return;
  Fallback why = Fallback::kDisabled;
  CommFor(comm, &why);
}

namespace {

// Fortran's named integer and real types, whose widths are the MPI build's (MPI_INTEGER and
// MPI_REAL are 4 bytes with gfortran's defaults), and the complex types, whose elements weft
// sums as pairs of reals (SumOnly): weft's type for each by its size, looked up once. A type
// this MPI lacks is MPI_DATATYPE_NULL, whose size query fails.
bool SizedReductionType(MPI_Datatype t, weftDataType_t* out) {
  struct Sized {
    MPI_Datatype mpi;
    weftDataType_t weft;
  };
  static const std::vector<Sized> kSized = [] {
    std::vector<Sized> v;
    auto add = [&v](MPI_Datatype m, bool real, int parts) {
      int size = 0;
      if (m == MPI_DATATYPE_NULL || PMPI_Type_size(m, &size) != MPI_SUCCESS) return;
      const int width = size / parts;
      if (real && width == 4) v.push_back({m, weftFloat32});
      if (real && width == 8) v.push_back({m, weftFloat64});
      if (!real && width == 1) v.push_back({m, weftInt8});
      if (!real && width == 4) v.push_back({m, weftInt32});
      if (!real && width == 8) v.push_back({m, weftInt64});
    };
    for (MPI_Datatype m : {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER4, MPI_INTEGER8}) add(m, false, 1);
    for (MPI_Datatype m : {MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8}) add(m, true, 1);
    for (MPI_Datatype m : {MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16,
                           MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX}) {
      add(m, true, 2);
    }
    return v;
  }();
  for (const Sized& s : kSized) {
    if (t == s.mpi) {
      *out = s.weft;
      return true;
    }
  }
  return false;
}

}  // namespace

bool ReductionType(MPI_Datatype t, weftDataType_t* out) {
  static const struct {
    MPI_Datatype mpi;
    weftDataType_t weft;
  } kMap[] = {
      {MPI_INT8_T, weftInt8},     {MPI_SIGNED_CHAR, weftInt8},
      {MPI_UINT8_T, weftUint8},   {MPI_UNSIGNED_CHAR, weftUint8},
      {MPI_INT32_T, weftInt32},   {MPI_INT, weftInt32},
      {MPI_UINT32_T, weftUint32}, {MPI_UNSIGNED, weftUint32},
      {MPI_INT64_T, weftInt64},   {MPI_LONG_LONG, weftInt64},
      {MPI_UINT64_T, weftUint64}, {MPI_UNSIGNED_LONG_LONG, weftUint64},
      {MPI_FLOAT, weftFloat32},   {MPI_DOUBLE, weftFloat64},
  };
  for (const auto& m : kMap) {
    if (t == m.mpi) {
      *out = m.weft;
      return true;
    }
  }
  // long is 64-bit on LP64 systems (the only ones weft builds for).
  static_assert(sizeof(long) == 8, "weft assumes LP64");
  if (t == MPI_LONG) {
    *out = weftInt64;
    return true;
  }
  if (t == MPI_UNSIGNED_LONG) {
    *out = weftUint64;
    return true;
  }
  return SizedReductionType(t, out);
}

bool SumOnly(MPI_Datatype t) {
  for (MPI_Datatype c : {MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX8, MPI_COMPLEX16,
                         MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX}) {
    if (t == c) return true;
  }
  return false;
}

bool ReductionOp(MPI_Op op, weftRedOp_t* out) {
  if (op == MPI_SUM)
    *out = weftSum;
  else if (op == MPI_PROD)
    *out = weftProd;
  else if (op == MPI_MAX)
    *out = weftMax;
  else if (op == MPI_MIN)
    *out = weftMin;
  else
    return false;
  return true;
}

int MpiErrorFrom(weftResult_t r, MPI_Comm comm, const char* fn) {
  WEFT_WARN(kShim, "%s failed in weft: %s: %s", fn, weftGetErrorString(r),
            weftGetLastError(nullptr));
  int code = r == weftInvalidArgument ? MPI_ERR_ARG : MPI_ERR_OTHER;
  PMPI_Comm_call_errhandler(comm, code);  // aborts under MPI_ERRORS_ARE_FATAL, as MPI would
  return code;
}

}  // namespace weft::shim
