#include "fuzz_targets.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/spec_args.h"
#include "compile/compile.h"
#include "sched/ir/text.h"
#include "sched/recipe.h"
#include "topo/topology.h"
#include "tune/wisdom.h"

namespace weft::fuzz {
namespace {

void Require(bool ok, const char* what, const std::string& detail) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// A recipe that parses prints canonically and parses back; one a small call accepts builds.
void Recipe(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  sched::Recipe r;
  std::string why;
  if (!sched::ParseRecipe(text, &r, &why)) {
    Require(!why.empty(), "a refused recipe says why", text);
    return;
  }
  const std::string canon = sched::RecipeText(r);
  sched::Recipe again;
  Require(sched::ParseRecipe(canon, &again, &why), "the canonical text parses", canon + ": " + why);
  Require(sched::RecipeText(again) == canon, "the canonical text is a fixed point", canon);
  sched::CollSpec spec;
  spec.nranks = 3 + static_cast<int>(size % 4);
  spec.count = 1 + size * 7;
  spec.coll = static_cast<sched::Coll>(size % 6);
  sched::GenEnv env;
  env.shared_memory = env.single_copy = env.zero_copy = (size & 1) != 0;
  if (sched::DeclineRecipe(spec, r, env).empty()) {
    for (int rank = 0; rank < spec.nranks; ++rank) {
      const ir::Program p = sched::BuildProgram(spec, r, rank);
      // Memory follows the data, not the chunk a recipe names (shmpipe@1G on a small call once
      // sized its slots by the chunk): a loose bound, far below a wrong one.
      const uint64_t data = p.send_bytes + p.recv_bytes + 64ull * spec.nranks;
      Require(p.scratch_bytes + p.shm_slot_bytes <= 64 * data + (4u << 20),
              "scratch and slots in proportion to the data", canon);
    }
  }
}

// Program text that parses prints and parses back to the same text.
void Ir(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<ir::Program> ps;
  std::string why;
  if (!ir::ParsePrograms(text, &ps, &why)) return;
  const std::string printed = ir::PrintPrograms(ps);
  std::vector<ir::Program> again;
  Require(ir::ParsePrograms(printed, &again, &why), "printed programs parse", printed + why);
  Require(ir::PrintPrograms(again) == printed, "printing is a fixed point", printed);
}

// A topology that loads dumps and loads back to the same text.
void Topology(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  weft::Topology t;
  std::string why;
  if (!weft::Topology::FromText(text, &t, &why)) return;
  const std::string dumped = t.ToText();
  weft::Topology again;
  Require(weft::Topology::FromText(dumped, &again, &why), "a dump loads", dumped + why);
  Require(again.ToText() == dumped, "dumping is a fixed point", dumped);
}

// A wisdom file that parses prints and parses back to the same text (a file weft-tune rewrote
// reads as the one it read).
void Wisdom(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tune::Wisdom w;
  std::string why;
  if (!tune::ParseWisdom(text, &w, &why)) {
    Require(!why.empty(), "a refused file says why", text);
    return;
  }
  const std::string printed = tune::WisdomText(w);
  tune::Wisdom again;
  Require(tune::ParseWisdom(printed, &again, &why), "printed wisdom parses", printed + why);
  Require(tune::WisdomText(again) == printed, "printing is a fixed point", printed);
}

// Tool arguments, split at spaces, as weft-sim and weft-plan read them.
void SpecArgs(const uint8_t* data, size_t size) {
  std::vector<std::string> words{"weft-sim"};
  std::string word;
  for (size_t i = 0; i <= size; ++i) {
    const char c = i < size ? static_cast<char>(data[i]) : ' ';
    if (c == ' ' || c == '\n' || c == '\0') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  tools::SpecArgs a;
  if (tools::ParseSpecArgs(static_cast<int>(argv.size()), argv.data(), &a, nullptr, nullptr)) {
    Require(a.spec.nranks >= 1 && a.spec.nranks <= tools::kMaxRanks, "ranks in range",
            std::to_string(a.spec.nranks));
    Require(a.spec.root >= 0 && a.spec.root < a.spec.nranks, "root in range",
            std::to_string(a.spec.root));
  }
}

const Target kTargets[] = {{"recipe", Recipe},
                           {"ir", Ir},
                           {"topology", Topology},
                           {"spec_args", SpecArgs},
                           {"wisdom", Wisdom}};

}  // namespace

const Target* Targets(size_t* count) {
  *count = sizeof(kTargets) / sizeof(kTargets[0]);
  return kTargets;
}

}  // namespace weft::fuzz
