// Builds the executable form of a call: a compiled schedule where a generator accepts the
// shape, else the native MPI routine (the fallback).
#pragma once

#include <string>

#include "call/coll_args.h"
#include "coll/executable.h"
#include "core/hot_path.h"

namespace weft {

/// Builds validated args into *out: compiled first, native MPI otherwise.
Status BuildCollective(Comm& comm, const CollArgs& args,
                       std::unique_ptr<Executable>* out) WEFT_COLD;
/// What the built executable runs, in words (plan descriptions, logs).
std::string DescribeCollective(const Comm& comm, const CollArgs& args, const Executable& e);

}  // namespace weft
