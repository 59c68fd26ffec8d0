#include "compile/compile.h"

#include <algorithm>
#include <limits>

#include "compile/hierarchical.h"
#include "sched/algos/registry.h"
#include "sched/passes/chunk.h"
#include "sched/passes/feed_sends.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {

// Where oneshot (one copy in, one pass out) stops beating shmpipe, by the largest buffer of
// the call. Measured at 2 ranks in two runs of weft-tune --regret -b 4 -e 64M -f 4
// (bench/tuning/first-regret/oneshot-cutoff): at a largest buffer of 8 KiB oneshot beat shmpipe
// by 1.14-1.32x for reduce_scatter, allgather and alltoall (4 KiB blocks), and at 16 KiB by 1.11x
// (bcast) and 1.27-1.36x (reduce), whose ranks read one peer's buffer at most; allreduce at 16 KiB
// went either way (1.41x, 1.0x), so it keeps 4 KiB (docs/intra-node.md's measurement).
// Gather runs oneshot up to a 4 MiB root buffer: it beat the MPI library's gather at 2 ranks
// from 2 KiB to 2 MiB per rank (0.94-1.44x native in two runs of WEFT_RECIPE=oneshot|cma
// weft-bench gather -b 2K -e 2M -f 4 --place out), where cma, whose root alone reads every block
// at process_vm_readv's speed, ran 0.74-1.0x. Above, the tree (over MPI: tree:2 ran 0.84-1.09x
// in one such run), not oneshot: its slots would hold the whole root buffer in the node segment
// for the communicator's life. A scatter's peers each read their own block, so cma wins there
// from 8 KiB (1.26-1.75x native against oneshot's 1.12-1.51x in one run of each, weft-bench
// scatter with the same flags).
// Scans run oneshot up to 128 KiB (scan) and 4 KiB (exscan), doubling above, since doubling
// sends a rank's input straight from its buffer and an exscan's receiver takes it straight into
// its own (one message at 2 ranks, as MPI's linear scan). At 2 ranks, Open MPI, one run of
// WEFT_RECIPE=oneshot|doubling weft-bench scan|exscan -b 2K -e 256K -f 2 --place out in each
// regime (hot / rotated): scan oneshot 1.03-2.06x / 1.12-2.09x native up to 128 KiB, 0.85x / 1.12x
// at 256 KiB, doubling 1.29x / 0.99x there; exscan oneshot 0.43-0.80x hot from 8 KiB (rotated
// 0.96-1.31x), doubling 0.87-0.96x / 0.90-1.02x.
uint64_t OneShotMaxBytes(Coll c) {
  switch (c) {
    case Coll::kGather:
      return 4u << 20;
    case Coll::kScan:
      return 128u << 10;
    case Coll::kExScan:
      return 4u << 10;
    case Coll::kAllReduce:
      return 4u << 10;
    case Coll::kBroadcast:
    case Coll::kReduce:
      return 16u << 10;
    default:
      return 8u << 10;
  }
}

std::vector<Recipe> CandidateRecipes(const CollSpec& spec, const GenEnv& env,
                                     const tune::CostModel& model, bool every) {
  std::vector<Recipe> out;
  auto add = [&](const char* gen, std::vector<int> factors, uint64_t chunk = 0) {
    Recipe r{gen, std::move(factors), chunk};
    if (DeclineRecipe(spec, r, env).empty()) out.push_back(r);
  };
  const std::vector<int> radices = patterns::RadicesUpTo(spec.nranks, 4);
  const uint64_t bytes = spec.count * ElemBytes(spec);
  // One node with a segment: the shared-memory schedules are the candidates, by size alone.
  // The cost model does not see that shmpipe's intermediate copies stay in cache, so it would
  // rank the point-to-point schedules first; measured at 2 ranks (docs/intra-node.md), oneshot
  // and shmpipe beat them at every size and collective, oneshot up to about 4 KiB (one copy in,
  // one pass out, two waits) and shmpipe above (1.4-2x oneshot at 32 KiB, whose every rank
  // reads every peer's whole input); OneShotMaxBytes has the cut-off per collective. (Later,
  // two runs of weft-tune --regret found ring or rexch:-2,2 ahead of shmpipe for allreduce at
  // 1-4 MiB by 1.17-1.27x: wisdom records such winners; the rule here keeps shmpipe.)
  // A bcast from 64 KiB up reads the root's buffer by single copy where permitted: one copy
  // instead of two, 1.37-1.75x native against shmpipe's 1.0-1.26x from 64 KiB to 16 MiB (two
  // runs of WEFT_RECIPE=cma|shmpipe weft-bench broadcast -b 64K -e 16M -f 4). For allgather and
  // alltoall it measured slower than shmpipe (CMA copies at about half memcpy's speed here).
  // Where the ranks do not share a cache and slots are streamed, shmpipe wins instead: 2.3-2.6x
  // native at 64 KiB-16 MiB in a run of WEFT_RECIPE=shmpipe WEFT_DEBUG=INFO weft-bench
  // broadcast -b 64K -e 16M -f 4 whose probe said 387 ns, where cma ran 0.80-1.7x in the runs
  // of scripts/bench-slot-stores.sh without a shared cache (bench/intra-node/cache-distance).
  if (env.shared_memory) {
    if (env.zero_copy) add("zerocopy", {});
    const uint64_t largest = std::max(SendBytes(spec, spec.root), RecvBytes(spec, spec.root));
    if (spec.coll == Coll::kBroadcast &&
        (every || (largest >= (64u << 10) && !env.slots_streamed))) {
      add("cma", {});
    }
    // A calibrated model was tried here for allreduce above oneshot's cut-off (ranking
    // shmpipe against ring and rexch). Their order does not hold between runs on this
    // machine: at 8 MiB, 2 ranks, shmpipe 1430 us against ring 1942 in one sweep and ring 931
    // against shmpipe 1175 in the next, minutes later (bench/tuning/first-regret/2ranks-openmpi,
    // regret-calibrated and regret-wisdom). So the rule stays, and per-machine winners are
    // wisdom's to record.
    // Gather and scatter have no shmpipe (shm_pipeline.cc): above oneshot's cut-off a scatter's
    // peers read by single copy, and a gather runs the tree below.
    if (every) {
      add("oneshot", {});
      add("shmpipe", {});
      // cma serves allgather and alltoall too: the rule above never picks it for them, but a
      // tuner measuring every candidate must see it (the bcast's was added above).
      if (spec.coll != Coll::kBroadcast) add("cma", {});
    } else if (out.empty()) {
      if (largest <= OneShotMaxBytes(spec.coll)) {
        add("oneshot", {});
      } else if (spec.coll == Coll::kScatter) {
        add("cma", {});
      } else if (spec.coll != Coll::kGather) {
        add("shmpipe", {});
        // One exception, where the handover rate is calibrated: alltoall weighs shmpipe
        // against the pairwise exchange over MPI by the model. Each rank sends each peer its
        // block once either way; whether two copies through a slot beat MPI's single copy
        // depends on how fast lines move between the cores, which the handover rate measures.
        // On the Xeon VM, pairwise:4 beat shmpipe by 1.2-1.9x from 32 KiB to 32 MiB in every
        // regret run, and the calibrated model ranked the two in the measured order in all 12
        // rows of two runs (bench/tuning/model-loop); on the EPYC VM of
        // bench/tuning/first-regret shmpipe had won at 32 KiB by 2x. The model is the same on
        // every rank (wisdom is agreed when the communicator is made), so every rank chooses
        // alike. Only from 32 KiB blocks, where it was measured: at 8 KiB blocks pairwise:4 was
        // the fastest in none of eleven 2-rank regret runs on both VMs (shmpipe, oneshot or
        // cma were), and where the model took it there it ran 1.9x behind shmpipe
        // (bench/tuning/regret-epyc, runs 3 and 6).
        if (spec.coll == Coll::kAllToAll && model.handover_gbytes_per_s > 0 &&
            largest / static_cast<uint64_t>(spec.nranks) >= (32u << 10)) {
          add("pairwise", {4});
        }
      }
      // Likewise a bcast under 64 KiB weighs single copy against the rule's pick: one
      // process_vm_readv against two copies through a slot, whose order depends on the
      // calibrated single-copy call and handover rates. On the Xeon VM cma beat shmpipe at
      // 32 KiB by 1.4-1.7x in all four regret runs (bench/tuning/regret-xeon,
      // -alltoall-model), the calibrated model's worst row there, and the model ranked the two
      // in that order; on the EPYC VM of bench/tuning/first-regret cma had lost to oneshot there
      // by 2.2x, before single_copy_us was calibrated.
      if (spec.coll == Coll::kBroadcast && model.handover_gbytes_per_s > 0 && !env.slots_streamed) {
        add("cma", {});
      }
    }
    if (!out.empty() && !every) return out;
  }
  switch (spec.coll) {
    case Coll::kAllReduce: {
      add("rexch", RecursiveExchange().DefaultFactors(spec));
      add("rexch", radices);  // recursive doubling: latency-optimal for small vectors
      std::vector<int> two = patterns::RadicesUpTo(spec.nranks, 2);
      std::vector<int> f;
      for (int r : two) f.push_back(-r);
      f.insert(f.end(), two.rbegin(), two.rend());
      add("rexch", f);
      add("ring", {});
      add("tree", {2});
      break;
    }
    case Coll::kReduceScatter: {
      std::vector<int> f;
      for (int r : radices) f.push_back(-r);
      add("rexch", f);
      add("shift", {2});
      add("ring", {});
      break;
    }
    case Coll::kAllGather:
      add("rexch", std::vector<int>(radices.rbegin(), radices.rend()));
      add("shift", {2});
      add("ring", {});
      break;
    case Coll::kBroadcast:
    case Coll::kReduce:
      add("tree", {2});
      add("tree", {4});
      if (bytes >= (256u << 10)) add("tree", {2}, 64u << 10);
      break;
    case Coll::kGather:
    case Coll::kScatter:
      add("tree", {2});
      add("tree", {std::max(2, spec.nranks)});  // linear: the root and every other rank
      break;
    case Coll::kAllToAll:
      add("pairwise", {4});
      add("bruck", {});
      if (NumNodes(spec) > 1) {
        add("nodea2a", {4});
        add("nodepair", {});
      }
      break;
    case Coll::kScan:
    case Coll::kExScan:
      add("doubling", {});
      break;
  }
  // Across nodes, the NODE/NET compositions too (none for alltoall, uneven nodes or one node).
  for (Recipe& h : HierarchicalCandidates(spec, env)) out.push_back(std::move(h));
  return out;
}

std::string DeclineRecipe(const CollSpec& spec, const Recipe& recipe, const GenEnv& env) {
  if (!recipe.levels.empty()) return DeclineHierarchical(spec, recipe, env);
  const Generator* g = FindGenerator(recipe.generator);
  if (g == nullptr) return "unknown generator '" + recipe.generator + "'";
  std::string why = g->Decline(spec, recipe.factors, env);
  if (g->ChunksItself()) return why;
  if (why.empty() && recipe.chunk_bytes) why = passes::DeclineChunking(spec);
  if (why.empty() && recipe.chunk_bytes && !g->Pipelinable()) {
    why = recipe.generator + " does not number its steps, so it is not chunked";
  }
  return why;
}

namespace {
ir::Program Generated(const CollSpec& spec, const Recipe& recipe, int rank) {
  if (!recipe.levels.empty()) return BuildHierarchical(spec, recipe, rank);
  const Generator* g = FindGenerator(recipe.generator);
  if (g->ChunksItself()) return g->GenerateChunked(spec, recipe.factors, recipe.chunk_bytes, rank);
  if (recipe.chunk_bytes == 0) return g->Generate(spec, recipe.factors, rank);
  return passes::Pipeline(spec, recipe.chunk_bytes, rank, [&](const CollSpec& piece) {
    return g->Generate(piece, recipe.factors, rank);
  });
}
}  // namespace

ir::Program BuildProgram(const CollSpec& spec, const Recipe& recipe, int rank) {
  ir::Program p = Generated(spec, recipe, rank);
  passes::FeedSends(&p, ElemBytes(spec));
  return p;
}

std::vector<ir::Program> BuildAllPrograms(const CollSpec& spec, const Recipe& recipe) {
  std::vector<ir::Program> ps;
  ps.reserve(spec.nranks);
  for (int r = 0; r < spec.nranks; ++r) ps.push_back(BuildProgram(spec, recipe, r));
  return ps;
}

uint64_t RecipeScaleUnit(const CollSpec& spec, const Recipe& recipe) {
  if (recipe.chunk_bytes || !recipe.levels.empty()) return 0;  // chunks, blocks follow count
  return FindGenerator(recipe.generator)->ScaleUnit(spec, recipe.factors);  // 0 if it chunks
}

namespace {
// The ranks whose programs stand for the call: the first, middle and last; across nodes also
// the first and last rank of up to 8 nodes spread over the placement (where a flat recipe's
// groups straddle a node boundary, that pair waits on the network while the first rank of a
// node may not), and for hierarchical recipes the first rank of the smallest node, which
// carries the most network traffic on nodes of unequal size (hierarchical.h). From the spec
// alone, so every rank decides alike.
std::vector<int> SampledRanks(const CollSpec& spec, const Recipe& r) {
  const int P = spec.nranks;
  std::vector<int> ranks = {0, P / 2, P - 1};
  if (spec.nodes && spec.nodes->nranks == P) {
    const auto& nodes = spec.nodes->ranks_of_node;
    constexpr size_t kNodes = 8;
    const size_t step = std::max<size_t>(1, nodes.size() / kNodes);
    for (size_t n = 0; n < nodes.size(); n += step) {
      ranks.push_back(nodes[n].front());
      ranks.push_back(nodes[n].back());
    }
    if (!r.levels.empty()) {
      ranks.push_back(
          std::min_element(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
            return a.size() < b.size();
          })->front());
    }
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// The modelled time of recipe r for spec: the slowest sampled rank's estimate. The node
// boundaries joined the sample when at 64 + 64 + 32 ranks and 1,024 doubles selection took the
// flat rexch:-5,-2,-2,-2,-2,-2,2,2,2,2,2,5, whose groups straddle the boundaries (the ranks
// there cross the network in most rounds, ranks 0, 80 and 159 in few), over
// oneshot/rexch:-3,3: weft-sim's replay (15 us network) gives the flat one 237 us against
// 67 us.
double ModelUs(const CollSpec& spec, const Recipe& r, const tune::CostModel& model) {
  double worst = 0;
  for (int rank : SampledRanks(spec, r)) {
    worst = std::max(worst, tune::EstimateProgramUs(BuildProgram(spec, r, rank), model));
  }
  return worst;
}
}  // namespace

std::vector<RankedRecipe> RankRecipes(const CollSpec& spec, const GenEnv& env,
                                      const tune::CostModel& model) {
  Recipe chosen;
  std::string why;
  if (!SelectRecipe(spec, env, model, nullptr, &chosen, &why)) return {};
  std::vector<RankedRecipe> out{{chosen, ModelUs(spec, chosen, model)}};
  for (Recipe& r : CandidateRecipes(spec, env, model, /*every=*/true)) {
    // Two families can name one recipe (at P = 2, rexch's default and its radix-2 form).
    if (std::any_of(out.begin(), out.end(), [&](const RankedRecipe& x) { return x.recipe == r; })) {
      continue;
    }
    const double us = ModelUs(spec, r, model);
    out.push_back({std::move(r), us});
  }
  std::stable_sort(out.begin() + 1, out.end(), [](const RankedRecipe& a, const RankedRecipe& b) {
    return a.model_us < b.model_us;
  });
  return out;
}

bool SelectRecipe(const CollSpec& spec, const GenEnv& env, const tune::CostModel& model,
                  const Recipe* forced, Recipe* out, std::string* why) {
  if (forced != nullptr) {
    *why = DeclineRecipe(spec, *forced, env);
    if (!why->empty()) return false;
    *out = *forced;
    return true;
  }
  const std::vector<Recipe> cands = CandidateRecipes(spec, env, model);
  if (cands.empty()) {
    *why = "no generator accepts " + SpecText(spec);
    return false;
  }
  if (cands.size() == 1) {
    *out = cands[0];
    return true;
  }
  double best = std::numeric_limits<double>::infinity();
  const double latency = std::min(model.intra.latency_us, model.inter.latency_us);
  for (const Recipe& r : cands) {
    // A schedule whose latency alone loses is not built: a ring at P = 4096 has 8190 rounds,
    // and building it made selection cost milliseconds.
    if (r.levels.empty() && FindGenerator(r.generator)->MinRounds(spec) * latency >= best) {
      continue;
    }
    const double worst = ModelUs(spec, r, model);
    if (worst < best) {
      best = worst;
      *out = r;
    }
  }
  return true;
}

}  // namespace weft::sched
