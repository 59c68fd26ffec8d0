// Finding a communicator's wisdom (tune/wisdom.h): the file named by WEFT_WISDOM, else the
// default location when it exists, read and parsed once per process; the section whose key
// matches the communicator. Problems are WARNed once per process and reason, and the cost
// model is used; ranks then agree on the section (comm.cc) before any of them uses it.
#pragma once

#include <memory>
#include <string>

#include "topo/topology.h"
#include "tune/wisdom.h"

namespace weft {

/// This process's key for a communicator of `ranks` ranks on `topo`'s nodes.
tune::WisdomKey MachineKey(const Topology& topo, int ranks);

/// Where weft looks for wisdom when WEFT_WISDOM is empty: $XDG_CONFIG_HOME/weft/wisdom, else
/// $HOME/.config/weft/wisdom ("" when neither variable is set).
std::string DefaultWisdomPath();

/// The wisdom section for key, or null (no file, a file that does not parse, no section for
/// this shape: each WARNed once per process, except a missing default file; a missing section,
/// the same on every rank, only where `report_shape` (the communicator's rank 0)).
std::shared_ptr<const tune::WisdomSection> LoadWisdomFor(const tune::WisdomKey& key,
                                                         bool report_shape);

}  // namespace weft
