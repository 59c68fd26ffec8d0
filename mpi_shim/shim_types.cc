#include "shim_types.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <vector>

namespace weft::shim {
namespace {

std::once_flag g_keyval_once;
int g_keyval = MPI_KEYVAL_INVALID;  // caches a TypeShape on each derived type described

int DeleteShape(MPI_Datatype, int, void* value, void*) {
  delete static_cast<TypeShape*>(value);
  return MPI_SUCCESS;
}

constexpr int kMaxDepth = 64;  // types nest this deep at most (MPI builds them bottom up)

bool IsNamed(MPI_Datatype t) {
  int ni, na, nd, combiner;
  return PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
         combiner == MPI_COMBINER_NAMED;
}

// The one basic type of several parts of a signature, skipping parts that contribute no
// bytes (a struct member of block length 0 changes nothing in the signature).
struct BasicMerge {
  bool any = false;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  void Add(const TypeShape& part, bool contributes) {
    if (!contributes || part.size == 0) return;
    if (!any) {
      any = true;
      basic = part.basic;
    } else if (basic != part.basic) {
      basic = MPI_DATATYPE_NULL;
    }
  }
};

bool Describe(MPI_Datatype t, TypeShape* out, int depth);

// Whether a derived type's elements are dense, from its constructor and its parts. Only the
// constructors that commonly describe contiguous data are recognised; anything else packs,
// which is always correct.
bool DerivedDense(int combiner, const std::vector<int>& ints, const std::vector<MPI_Aint>& addrs,
                  const std::vector<TypeShape>& parts) {
  if (parts.size() != 1) return false;
  const TypeShape& in = parts[0];
  const bool packed_inner = in.dense && static_cast<size_t>(in.extent) == in.size;
  switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      return in.dense;
    case MPI_COMBINER_CONTIGUOUS:
      return in.dense && (ints[0] <= 1 || packed_inner);
    case MPI_COMBINER_VECTOR:  // count, blocklength, stride (in elements)
      return packed_inner && (ints[0] <= 1 || ints[1] == ints[2]);
    case MPI_COMBINER_HVECTOR:  // count, blocklength; stride in bytes
      return packed_inner && (ints[0] <= 1 || addrs[0] == ints[1] * in.extent);
    default:
      return false;
  }
}

bool DescribeDerived(MPI_Datatype t, int combiner, int ni, int na, int nd, TypeShape* out,
                     int depth) {
  std::vector<int> ints(ni);
  std::vector<MPI_Aint> addrs(na);
  std::vector<MPI_Datatype> types(nd);
  if (PMPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), types.data()) !=
      MPI_SUCCESS) {
    return false;
  }
  std::vector<TypeShape> parts(nd);
  bool ok = true;
  for (int i = 0; i < nd; ++i) ok = ok && Describe(types[i], &parts[i], depth + 1);
  for (MPI_Datatype& inner : types) {
    if (!IsNamed(inner)) PMPI_Type_free(&inner);  // get_contents hands out derived types
  }
  if (!ok) return false;
  BasicMerge merge;
  for (int i = 0; i < nd; ++i) {
    // A struct's block lengths follow its count in ints; a zero-length block adds nothing.
    const bool contributes = combiner != MPI_COMBINER_STRUCT || ints[1 + i] > 0;
    merge.Add(parts[i], contributes);
  }
  out->basic = merge.basic;
  out->dense = DerivedDense(combiner, ints, addrs, parts);
  return true;
}

bool Describe(MPI_Datatype t, TypeShape* out, int depth) {
  if (depth > kMaxDepth) return false;
  int ni, na, nd, combiner;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return false;
  MPI_Count size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size < 0 ||
      PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(t, &true_lb, &true_extent) != MPI_SUCCESS) {
    return false;
  }
  *out = TypeShape{};
  out->size = static_cast<size_t>(size);
  out->extent = extent;
  out->true_lb = true_lb;
  if (combiner == MPI_COMBINER_NAMED) {
    out->basic = t;
    out->dense = true_extent == size;  // pair types such as MPI_DOUBLE_INT have a gap
  } else if (!DescribeDerived(t, combiner, ni, na, nd, out, depth)) {
    return false;
  }
  // Whatever the constructor, bytes spread wider than the signature cannot be dense.
  if (out->dense && true_extent != size) out->dense = false;
  return true;
}

}  // namespace

namespace {

// Predefined handles keep their meaning while MPI runs (they are never freed, so no derived
// type can take one's value): a thread remembers the last few it described, sparing the five
// MPI queries a description costs (about 350 instructions per served v-call side, callgrind).
struct NamedShape {
  bool used = false;
  MPI_Datatype type;
  TypeShape shape;
};
constexpr int kNamedShapes = 4;

}  // namespace

bool DescribeType(MPI_Datatype t, TypeShape* out) {
  if (t == MPI_DATATYPE_NULL) return false;
  thread_local NamedShape named[kNamedShapes];
  thread_local int next_named = 0;
  for (const NamedShape& n : named) {
    if (n.used && n.type == t) {
      *out = n.shape;
      return true;
    }
  }
  if (IsNamed(t)) {
    if (!Describe(t, out, 0)) return false;
    named[next_named] = {true, t, *out};
    next_named = (next_named + 1) % kNamedShapes;
    return true;
  }
  std::call_once(g_keyval_once, [] {
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, &DeleteShape, &g_keyval, nullptr);
  });
  void* cached = nullptr;
  int found = 0;
  if (g_keyval != MPI_KEYVAL_INVALID &&
      PMPI_Type_get_attr(t, g_keyval, &cached, &found) == MPI_SUCCESS && found) {
    *out = *static_cast<TypeShape*>(cached);
    return true;
  }
  if (!Describe(t, out, 0)) return false;
  if (g_keyval != MPI_KEYVAL_INVALID) {
    auto* keep = new TypeShape(*out);
    if (PMPI_Type_set_attr(t, g_keyval, keep) != MPI_SUCCESS) delete keep;
  }
  return true;
}

MPI_Datatype KeepType(MPI_Datatype t, OwnedType* owned) {
  int ints = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  if (PMPI_Type_get_envelope(t, &ints, &addresses, &types, &combiner) != MPI_SUCCESS ||
      combiner == MPI_COMBINER_NAMED) {
    return t;  // predefined (the program cannot free it), or MPI will report the handle
  }
  return owned->Dup(t) == MPI_SUCCESS ? owned->get() : t;
}

bool PackedView::Init(const void* buf, size_t count, MPI_Datatype t, const TypeShape& shape,
                      MPI_Comm comm, bool keep) {
  if (shape.size != 0 && count > SIZE_MAX / shape.size) return false;
  user_ = static_cast<char*>(const_cast<void*>(buf));
  count_ = count;
  type_ = t;
  shape_ = shape;
  comm_ = comm;
  nbytes_ = count * shape.size;
  if (shape.dense && (count <= 1 || static_cast<size_t>(shape.extent) == shape.size)) {
    bytes_ = user_ + shape.true_lb;
    temp_.reset();  // a reused view (ReusableCall) may hold an earlier call's packed copy
    return true;
  }
  // Packed and unpacked with the program's type: keep a duplicate of a derived one, which the
  // program may free while the call is pending (MPICH's nonblocking2 frees it before MPI_Wait;
  // unpacking with the freed handle failed an assertion inside MPICH).
  if (keep && nbytes_ > 0) type_ = KeepType(t, &owned_);
  temp_.reset(new char[nbytes_ > 0 ? nbytes_ : 1]);
  bytes_ = temp_.get();
  return true;
}

int PackedView::Pack() { return temp_ ? Move(true) : MPI_SUCCESS; }

int PackedView::Unpack() { return temp_ ? Move(false) : MPI_SUCCESS; }

int PackedView::Move(bool pack) {
  if (nbytes_ == 0) return MPI_SUCCESS;
  // MPI_Pack counts bytes in an int: move at most INT_MAX bytes of whole elements at a time.
  if (shape_.size > static_cast<size_t>(INT_MAX)) return MPI_ERR_COUNT;
  const size_t per_piece = static_cast<size_t>(INT_MAX) / shape_.size;
  for (size_t first = 0; first < count_; first += per_piece) {
    const size_t n = std::min(per_piece, count_ - first);
    char* elems = user_ + static_cast<MPI_Aint>(first) * shape_.extent;
    char* packed = bytes_ + first * shape_.size;
    const int packed_bytes = static_cast<int>(n * shape_.size);
    int position = 0;
    int rc =
        pack ? PMPI_Pack(elems, static_cast<int>(n), type_, packed, packed_bytes, &position, comm_)
             : PMPI_Unpack(packed, packed_bytes, &position, elems, static_cast<int>(n), type_,
                           comm_);
    if (rc != MPI_SUCCESS) return rc;
    // On one host MPI packs the signature's bytes as they are, which is what lets ranks with
    // different layouts exchange packed data; anything else is an error, not a guess.
    if (position != packed_bytes) return MPI_ERR_TRUNCATE;
  }
  return MPI_SUCCESS;
}

}  // namespace weft::shim
