// One side of a served v-collective (send or receive) as contiguous bytes, and the weft element
// type for its byte counts: shared by MPI_Alltoallv (shim_alltoallv.cc) and MPI_Allgatherv,
// MPI_Gatherv and MPI_Scatterv (shim_vcolls.cc). A side whose datatype is contiguous (dense,
// extent = size) runs on the user's buffer with byte displacements; any other layout is packed
// block by block into one contiguous buffer and unpacked after.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "shim_types.h"
#include "weft/weft.h"

namespace weft::shim {

// One side of the call (send or receive) as contiguous bytes.
class VSide {
 public:
  // counts and displs in the user's datatype. False on sizes that overflow. keep: hold a
  // duplicate of a derived t for packing and unpacking after the call returns (nonblocking).
  bool Init(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype t,
            const TypeShape& shape, MPI_Comm comm, bool keep) {
    user_ = static_cast<char*>(const_cast<void*>(buf));
    type_ = t;
    shape_ = shape;
    comm_ = comm;
    direct_ = shape.dense && static_cast<size_t>(shape.extent) == shape.size && shape.true_lb >= 0;
    // A reused side (ReusableCall) keeps its arrays' capacity: a loop allocates nothing.
    counts_.clear();
    offsets_.clear();
    user_displs_.clear();
    user_counts_.clear();
    size_t packed = 0;
    for (int j = 0; j < n; ++j) {
      if (counts[j] < 0 || displs[j] < 0) return false;
      const size_t c = static_cast<size_t>(counts[j]);
      size_t bytes = 0, at = 0;
      if (__builtin_mul_overflow(c, shape.size, &bytes)) return false;
      if (direct_) {
        if (__builtin_mul_overflow(static_cast<size_t>(displs[j]), shape.size, &at) ||
            __builtin_add_overflow(at, static_cast<size_t>(shape.true_lb), &at)) {
          return false;
        }
      } else {
        at = packed;
        if (__builtin_add_overflow(packed, bytes, &packed)) return false;
      }
      counts_.push_back(bytes);
      offsets_.push_back(at);
      user_displs_.push_back(displs[j]);
      user_counts_.push_back(counts[j]);
    }
    if (!direct_) {
      // Unpacked at completion: the program may have freed a derived type by then.
      if (keep) type_ = KeepType(t, &owned_);
      temp_.assign(std::max<size_t>(packed, 1), 0);
    }
    return true;
  }
  char* bytes() { return direct_ ? user_ : temp_.data(); }
  const std::vector<size_t>& counts() const { return counts_; }
  const std::vector<size_t>& offsets() const { return offsets_; }
  int Pack() { return Move(true); }
  int Unpack() { return Move(false); }

 private:
  int Move(bool pack) {
    if (direct_) return MPI_SUCCESS;
    for (size_t j = 0; j < counts_.size(); ++j) {
      if (counts_[j] == 0) continue;
      PackedView v;
      char* block = user_ + static_cast<MPI_Aint>(user_displs_[j]) * shape_.extent;
      if (!v.Init(block, user_counts_[j], type_, shape_, comm_, false)) return MPI_ERR_COUNT;
      char* at = temp_.data() + offsets_[j];
      if (!pack) std::memcpy(v.bytes(), at, counts_[j]);
      const int rc = pack ? v.Pack() : v.Unpack();
      if (rc != MPI_SUCCESS) return rc;
      if (pack) std::memcpy(at, v.bytes(), counts_[j]);
    }
    return MPI_SUCCESS;
  }
  char* user_ = nullptr;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;  // the program's, or owned_'s
  OwnedType owned_;
  TypeShape shape_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool direct_ = true;
  std::vector<size_t> counts_, offsets_;  // bytes
  std::vector<int> user_displs_, user_counts_;
  std::vector<char> temp_;
};

// weft's element for these byte counts: bytes while every value fits MPI's int (what weft's
// v-calls take), else elements of `unit` bytes where every value divides.
inline weftDataType_t ElementFor(std::initializer_list<const std::vector<size_t>*> all, size_t unit,
                                 size_t* es) {
  size_t top = 0;
  bool divides = unit > 1;
  for (const auto* v : all) {
    if (v == nullptr) continue;  // a side this rank does not have
    for (size_t x : *v) {
      top = std::max(top, x);
      divides = divides && x % unit == 0;
    }
  }
  *es = 1;
  if (top <= static_cast<size_t>(INT_MAX) || !divides) return weftUint8;
  *es = unit;
  switch (unit) {
    case 2:
      return weftFloat16;  // moved, never converted
    case 4:
      return weftUint32;
    case 8:
      return weftUint64;
    default:
      *es = 1;
      return weftUint8;
  }
}

// v in elements of es bytes, into *out (whose capacity a reused call keeps).
inline void DivideInto(const std::vector<size_t>& v, size_t es, std::vector<size_t>* out) {
  out->assign(v.begin(), v.end());
  for (size_t& x : *out) x /= es;
}

}  // namespace weft::shim
