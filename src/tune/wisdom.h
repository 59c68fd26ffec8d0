// Wisdom: what weft-tune measured on a machine, kept in a versioned text file and used by
// selection in place of the cost model's guesses. A file holds sections, one per shape it was
// measured at (the key: ranks, node shape, MPI library, CPU model; no hostnames). A section
// holds the calibrated cost-model parameters and, per collective and size range, the recipe
// that measured fastest. The format (docs/tuning.md):
//
//   weft-wisdom 1
//   section
//   ranks 4
//   topology 2x2
//   mpi Open MPI v4.1.4, package: Debian OpenMPI, ...
//   cpu Intel(R) Xeon(R) CPU @ 2.20GHz
//   param intra.latency_us 0.84
//   range allreduce:0-4096=rexch:2
//   end 7
//
// `end N` counts the lines of the section between `section` and `end`, so a truncated file is
// refused rather than half used. '#' lines are comments (weft-tune writes its table there).
#pragma once

#include <string>
#include <vector>

#include "tune/cost_model.h"
#include "tune/overrides.h"

namespace weft::tune {

/// The version this weft reads and writes.
constexpr int kWisdomVersion = 1;

/// What makes measurements transferable: a section is used only where all of it matches.
struct WisdomKey {
  int ranks = 0;
  std::string topology;  // node shape as Topology::ShapeText gives it ("1x2", "2x2:rr", "3+1")
  std::string mpi;       // first line of MPI_Get_library_version
  std::string cpu;       // /proc/cpuinfo's model name
  bool operator==(const WisdomKey&) const = default;
};

/// One calibrated cost-model parameter (names as WisdomParamNames lists).
struct WisdomParam {
  std::string name;
  double value = 0;
};

/// One shape's measurements.
struct WisdomSection {
  WisdomKey key;
  std::vector<WisdomParam> params;
  std::vector<Override> ranges;  // first match decides, as WEFT_TUNE's entries
};

/// A wisdom file.
struct Wisdom {
  std::vector<WisdomSection> sections;
};

/// The parameter names a section may hold, each a CostModel field.
const std::vector<std::string>& WisdomParamNames();

/// Parses "NAME VALUE" (a `param` line's rest: a name WisdomParamNames lists and a number in
/// its range); false with the reason in *why.
bool ParseParamLine(const std::string& text, WisdomParam* out, std::string* why);

/// Parses a wisdom file's text; false with the line and the reason in *why (a bad version,
/// an unknown line, a number out of range, a truncated section, a bad range or recipe).
bool ParseWisdom(const std::string& text, Wisdom* out, std::string* why);

/// The text ParseWisdom reads back to an equal Wisdom (comments are not kept).
std::string WisdomText(const Wisdom& w);

/// One section's text (its identity: ranks compare the hash of it to agree).
std::string SectionText(const WisdomSection& s);

/// The section for key, or null.
const WisdomSection* FindSection(const Wisdom& w, const WisdomKey& key);

/// Why no section fits key ("" when one does): the nearest difference, for the WARN line.
std::string WhyNoSection(const Wisdom& w, const WisdomKey& key);

/// Sets the model's fields the section calibrated; others keep their values.
void ApplyParams(const WisdomSection& s, CostModel* model);

/// The value of a named parameter in model (for writing calibrations); false if unknown.
bool GetParam(const CostModel& model, const std::string& name, double* value);

/// Text of one range as WEFT_TUNE writes it: COLL:LO-HI=RECIPE (bytes as integers).
std::string OverrideText(const Override& o);

}  // namespace weft::tune
