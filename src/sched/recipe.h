// A Recipe says how to build one collective: which generator, its factors and the chunk size
// of the pipelining pass. One canonical text form round-trips, used by WEFT_RECIPE, logs and
// weft-plan:   rexch:-4,-2,2,4@64K     ring     tree:4@256K     shift:3     rexch:-4,4/ring
// Chunk sizes take K, M, G suffixes (powers of two). A one-level recipe applies to the whole
// communicator; "NODE/NET" composes a recipe inside each node with one across nodes, and
// "[NODE/NET]@1M" runs that composition chunk by chunk, pipelined across the levels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::sched {

/// The generator name of a hierarchical recipe (one recipe per level in Recipe::levels).
inline constexpr const char* kHierarchical = "hier";

/// Generator, factors, chunking; or, for ranks on several nodes, one such recipe per level.
struct Recipe {
  std::string generator;
  std::vector<int> factors;  // signed; the generator says what they mean
  uint64_t chunk_bytes = 0;  // 0: no chunking (hierarchical: of the whole composition)
  /// Hierarchical (generator kHierarchical): the node level's recipe, then the network
  /// level's; text "NODE/NET", e.g. rexch:-4,4/ring. Empty for a one-level recipe.
  std::vector<Recipe> levels = {};
  bool operator==(const Recipe& o) const {
    return generator == o.generator && factors == o.factors && chunk_bytes == o.chunk_bytes &&
           levels == o.levels;
  }
};

/// The canonical text. rexch factors are ordered reduce_scatter radices, then unmatched
/// (full-exchange) radices, then the allgather radices in the order they run.
std::string RecipeText(const Recipe& r);
/// Parses the text form; false with the reason in *why (unknown generator, bad factor, ...).
bool ParseRecipe(const std::string& text, Recipe* out, std::string* why);
/// The largest chunk a recipe may name (@1G).
inline constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 30;
/// Parses "64K", "1M", "4096" into bytes; false on anything else or on overflow.
bool ParseBytes(const std::string& text, uint64_t* out);
/// Bytes as the shortest exact text with a suffix ("64K", "3000").
std::string BytesText(uint64_t bytes);

}  // namespace weft::sched
