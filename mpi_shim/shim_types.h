// What the interposer knows of an MPI datatype. MPI lets the ranks of one collective pass
// different datatypes as long as their type signatures (the sequence of basic types) match,
// so whether weft serves a call may depend only on the signature, never on a rank's own
// handle or layout: a rank whose layout has gaps packs its data into a contiguous buffer,
// runs the same schedule as the others and unpacks the result.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

namespace weft::shim {

/// One element of an MPI datatype: its signature (shared by every rank) and its layout (this
/// rank's own).
struct TypeShape {
  size_t size = 0;       ///< bytes of the signature of one element (MPI_Type_size)
  MPI_Aint extent = 0;   ///< distance between consecutive elements
  MPI_Aint true_lb = 0;  ///< where a dense element's bytes start, from the element's address
  MPI_Datatype basic = MPI_DATATYPE_NULL;  ///< the one basic type of the signature, else NULL
  bool dense = false;  ///< one element's bytes lie in signature order without gaps
};

/// Describes t (cached on derived types as an attribute, which MPI drops with the type).
/// False where MPI cannot describe it (an invalid handle).
bool DescribeType(MPI_Datatype t, TypeShape* out);

/// A duplicate of a derived datatype that the interposer owns, freed with it: MPI lets a
/// program free a datatype while an operation that uses it is pending (MPI_Type_free), so a
/// nonblocking call that unpacks at its completion must not use the program's handle.
class OwnedType {
 public:
  OwnedType() = default;
  OwnedType(OwnedType&& o) noexcept : t_(o.t_) { o.t_ = MPI_DATATYPE_NULL; }
  OwnedType& operator=(OwnedType&& o) noexcept {
    if (this != &o) {
      Reset();
      t_ = o.t_;
      o.t_ = MPI_DATATYPE_NULL;
    }
    return *this;
  }
  OwnedType(const OwnedType&) = delete;
  OwnedType& operator=(const OwnedType&) = delete;
  ~OwnedType() { Reset(); }
  /// Holds a duplicate of t (MPI error code).
  int Dup(MPI_Datatype t) {
    Reset();
    return PMPI_Type_dup(t, &t_);
  }
  MPI_Datatype get() const { return t_; }

 private:
  void Reset() {
    if (t_ == MPI_DATATYPE_NULL) return;
    // A persistent request's views may be destroyed at exit, after MPI_Finalize, where the
    // handle went with MPI and calling MPI is erroneous.
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized) PMPI_Type_free(&t_);
    t_ = MPI_DATATYPE_NULL;
  }
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

/// The handle to use for t after the call that passed it returns: t where it is predefined,
/// else a duplicate that *owned holds (t itself where MPI cannot duplicate it: whether a call
/// is served must not depend on one rank's resources).
MPI_Datatype KeepType(MPI_Datatype t, OwnedType* owned);

/// count elements of one rank's datatype seen as contiguous bytes in signature order: the
/// user's own memory where the layout is dense, else a temporary buffer that Pack fills from
/// the user's layout and Unpack copies back into it (with a duplicate of a derived datatype,
/// which the program may free before a nonblocking call completes).
class PackedView {
 public:
  /// Views count elements of t (shape from DescribeType) at buf. Checks that the bytes fit a
  /// size_t; false (nothing allocated) if not. keep: hold a duplicate of a derived t (KeepType)
  /// for a Pack or Unpack after the call returns; false where the call is complete when it
  /// returns (CallArgs::blocking) or the caller holds one.
  bool Init(const void* buf, size_t count, MPI_Datatype t, const TypeShape& shape, MPI_Comm comm,
            bool keep);
  /// The contiguous bytes (count * shape.size of them).
  char* bytes() const { return bytes_; }
  size_t size() const { return nbytes_; }
  /// Copies the user's elements into bytes() (nothing to do when dense). MPI error code.
  int Pack();
  /// Copies bytes() back into the user's elements (nothing to do when dense). MPI error code.
  int Unpack();

 private:
  int Move(bool pack);
  char* user_ = nullptr;
  size_t count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;  // the program's, or owned_'s
  OwnedType owned_;
  TypeShape shape_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  char* bytes_ = nullptr;
  size_t nbytes_ = 0;
  std::unique_ptr<char[]> temp_;
};

}  // namespace weft::shim
