// Builds the executable form of a call: a compiled schedule where a generator accepts the
// shape, else the native MPI routine (the fallback).
#pragma once

#include <string>

#include "coll/coll_args.h"
#include "core/hot_path.h"
#include "native/native_program.h"

namespace weft {

/// Builds validated args into *p: compiled first, native MPI otherwise.
Status BuildCollective(Comm& comm, const CollArgs& args, NativeProgram* p) WEFT_COLD;
/// What the built program runs, in words (plan descriptions, logs).
std::string DescribeCollective(const Comm& comm, const CollArgs& args, const NativeProgram& p);

}  // namespace weft
