// Builders that lower one collective onto native MPI routines: the first, always-available
// execution path (and the fallback once compiled schedules exist).
#pragma once

#include <cstddef>
#include <string>

#include "call/coll_args.h"
#include "native/native_program.h"

namespace weft {

/// Lowers validated args into *p (steps bound to the call's buffers).
Status BuildNative(Comm& comm, const CollArgs& args, NativeProgram* p);

/// What a built program runs, in words (plan descriptions, INFO and TRACE logs).
std::string DescribeNative(const Comm& comm, const CollArgs& args, const NativeProgram& p);

/// Elements per native MPI call for elements of elem_bytes that MPI sees as mpi_per_elem
/// elements each (WEFT_NATIVE_CHUNK_BYTES, and never above INT_MAX MPI elements: counts are int).
size_t NativeChunkElems(size_t elem_bytes, int mpi_per_elem = 1);

// One per family; BuildNative dispatches.
Status BuildNativeReduction(Comm& comm, const CollArgs& args, NativeProgram* p);
Status BuildNativeMovement(Comm& comm, const CollArgs& args, NativeProgram* p);
Status BuildNativeVMovement(Comm& comm, const CollArgs& args, NativeProgram* p);
Status BuildNativeScan(Comm& comm, const CollArgs& args, NativeProgram* p);

}  // namespace weft
