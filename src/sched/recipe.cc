#include "sched/recipe.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "sched/algos/generator.h"

namespace weft::sched {
namespace {

// rexch: negatives as given, then positives without a negative partner, then the mirrored
// allgather radices (reverse of the negatives).
std::vector<int> CanonicalRexch(const std::vector<int>& f) {
  std::vector<int> neg, pos, out;
  for (int x : f) (x < 0 ? neg : pos).push_back(x);
  std::vector<int> unmatched = neg;
  std::vector<int> full;
  for (int x : pos) {
    auto it = std::find(unmatched.begin(), unmatched.end(), -x);
    if (it != unmatched.end()) {
      unmatched.erase(it);
    } else {
      full.push_back(x);
    }
  }
  if (!unmatched.empty()) return f;  // not a valid allreduce form; keep as written
  out = neg;
  out.insert(out.end(), full.begin(), full.end());
  for (auto it = neg.rbegin(); it != neg.rend(); ++it) out.push_back(-*it);
  return out;
}

}  // namespace

bool ParseBytes(const std::string& text, uint64_t* out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  uint64_t v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE) return false;
  std::string suffix(end);
  int shift = 0;
  if (suffix == "K" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "m")
    shift = 20;
  else if (suffix == "G" || suffix == "g")
    shift = 30;
  else if (!suffix.empty())
    return false;
  if (shift > 0 && v > (UINT64_MAX >> shift)) return false;  // the suffix would overflow
  *out = v << shift;
  return true;
}

std::string BytesText(uint64_t b) {
  if (b != 0 && b % (1ull << 30) == 0) return std::to_string(b >> 30) + "G";
  if (b != 0 && b % (1ull << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b != 0 && b % (1ull << 10) == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

std::string RecipeText(const Recipe& r) {
  if (!r.levels.empty()) {
    std::string s;
    for (const Recipe& l : r.levels) {
      if (!s.empty()) s += '/';
      s += RecipeText(l);
    }
    if (r.chunk_bytes == 0) return s;
    return "[" + s + "]@" + BytesText(r.chunk_bytes);
  }
  std::string s = r.generator;
  const std::vector<int> f = r.generator == "rexch" ? CanonicalRexch(r.factors) : r.factors;
  // Appended piece by piece: `"," + std::to_string(..)` trips a false -Wstringop-overflow of
  // GCC 12 once link-time optimisation inlines it.
  for (size_t i = 0; i < f.size(); ++i) {
    s += i == 0 ? ':' : ',';
    s += std::to_string(f[i]);
  }
  if (r.chunk_bytes) {
    s += '@';
    s += BytesText(r.chunk_bytes);
  }
  return s;
}

bool ParseRecipe(const std::string& text, Recipe* out, std::string* why) {
  if (!text.empty() && text[0] == '[') {  // [NODE/NET]@SIZE: pipelined across levels
    const size_t close = text.find("]@");
    Recipe h;
    if (close == std::string::npos || text.find('/') > close) {
      *why = "a bracketed recipe is [NODE/NET]@SIZE";
      return false;
    }
    if (!ParseRecipe(text.substr(1, close - 1), &h, why)) return false;
    const std::string size = text.substr(close + 2);
    if (!ParseBytes(size, &h.chunk_bytes) || h.chunk_bytes == 0 || h.chunk_bytes > kMaxChunkBytes) {
      *why = "bad chunk size '" + size + "' (e.g. 1M, at most 1G)";
      return false;
    }
    *out = h;
    return true;
  }
  const size_t slash = text.find('/');
  if (slash != std::string::npos) {
    Recipe h{kHierarchical, {}, 0, {Recipe{}, Recipe{}}};
    if (text.find('/', slash + 1) != std::string::npos) {
      *why = "two levels at most (NODE/NET)";
      return false;
    }
    const char* names[2] = {"node", "network"};
    const std::string parts[2] = {text.substr(0, slash), text.substr(slash + 1)};
    for (int l = 0; l < 2; ++l) {
      std::string w;
      if (!ParseRecipe(parts[l], &h.levels[l], &w)) {
        *why = std::string(names[l]) + " level '" + parts[l] + "': " + w;
        return false;
      }
    }
    *out = h;
    return true;
  }
  Recipe r;
  std::string body = text;
  const size_t at = body.find('@');
  if (at != std::string::npos) {
    if (!ParseBytes(body.substr(at + 1), &r.chunk_bytes) || r.chunk_bytes == 0) {
      *why = "bad chunk size '" + body.substr(at + 1) + "' (e.g. 64K)";
      return false;
    }
    // A chunk is held in scratch or in every rank's node slot at once: past 1 GiB it is no
    // pipeline, only a way to exhaust memory.
    if (r.chunk_bytes > kMaxChunkBytes) {
      *why = "chunk size '" + body.substr(at + 1) + "' is over the 1G limit";
      return false;
    }
    body = body.substr(0, at);
  }
  const size_t colon = body.find(':');
  r.generator = body.substr(0, colon);
  if (FindGenerator(r.generator) == nullptr) {
    std::string names;
    for (const Generator* g : AllGenerators())
      names += std::string(names.empty() ? "" : ", ") + g->name();
    *why = "unknown generator '" + r.generator + "' (known: " + names + ")";
    return false;
  }
  if (colon != std::string::npos) {
    std::string list = body.substr(colon + 1);
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      if (comma == std::string::npos) comma = list.size();
      const std::string tok = list.substr(pos, comma - pos);
      char* end = nullptr;
      const long v = std::strtol(tok.c_str(), &end, 10);
      if (tok.empty() || *end != '\0' || v == 0 || v < -65536 || v > 65536) {
        *why = "bad factor '" + tok + "'";
        return false;
      }
      r.factors.push_back(static_cast<int>(v));
      pos = comma + 1;
    }
  }
  if (r.generator == "rexch") r.factors = CanonicalRexch(r.factors);
  *out = r;
  return true;
}

}  // namespace weft::sched
