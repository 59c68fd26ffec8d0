// The schedule compiler's pieces alone: recipes, piece splitting and folding, the verifier's
// in-flight rule, lowering (fusion, rescaling), the chunking pass, k-way kernels and the
// interpreter's fused pass.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compile/compile.h"
#include "core/half.h"
#include "exec/interpreter.h"
#include "exec/kway_reduce.h"
#include "sched/algos/builder.h"
#include "sched/ir/verify.h"
#include "sched/passes/bytecode.h"
#include "sim/sim.h"
#include "transport/shm/shm_segment.h"

namespace weft::sched {
namespace {

// A transport for programs that send nothing: local copies and reduces only.
struct NoMessages : Transport {
  Status Isend(int, const void*, uint64_t, int) override { return weftInternalError; }
  Status Irecv(int, void*, uint64_t, int) override { return weftInternalError; }
  Status Complete(bool, bool* done) override { return *done = true, weftSuccess; }
  void Cancel() override {}
};

// Runs a local-only program to the end on these buffers.
void RunLocally(const Bytecode& bc, const ExecBuffers& bufs) {
  Interpreter in;
  in.Start(&bc, bufs);
  NoMessages t;
  bool done = false;
  const char* why = nullptr;
  ASSERT_EQ(in.Resume(t, true, &done, &why), weftSuccess);
  EXPECT_TRUE(done);
}

TEST(Recipe, TextRoundTripsAndIsCanonical) {
  for (const char* text : {"rexch:-4,-2,2,4", "ring", "tree:4@256K", "shift:3", "rexch:2,2,2",
                           "rexch:-2,4,2@1M", "pairwise:8", "bruck", "copyin", "rexch:-4,4/ring",
                           "tree:2@4K/tree:4", "[rexch:-2,2/ring]@256K"}) {
    Recipe r;
    std::string why;
    ASSERT_TRUE(ParseRecipe(text, &r, &why)) << text << ": " << why;
    EXPECT_EQ(RecipeText(r), text);
    Recipe back;
    ASSERT_TRUE(ParseRecipe(RecipeText(r), &back, &why));
    EXPECT_EQ(back, r);
  }
  Recipe r;
  std::string why;
  ASSERT_TRUE(ParseRecipe("rexch:-2,2,4", &r, &why));
  EXPECT_EQ(RecipeText(r), "rexch:-2,4,2") << "full-exchange radices go between the halves";
  ASSERT_TRUE(ParseRecipe("tree:2@65536", &r, &why));
  EXPECT_EQ(RecipeText(r), "tree:2@64K");
  EXPECT_FALSE(ParseRecipe("spiral:2", &r, &why));
  EXPECT_NE(why.find("unknown generator 'spiral'"), std::string::npos) << why;
  EXPECT_FALSE(ParseRecipe("rexch:-2,x", &r, &why));
  EXPECT_NE(why.find("bad factor 'x'"), std::string::npos) << why;
  EXPECT_FALSE(ParseRecipe("ring@0", &r, &why));
  EXPECT_FALSE(ParseRecipe("ring@12Q", &r, &why));
  // Pipelined across levels: a composition in brackets, then its chunk.
  EXPECT_FALSE(ParseRecipe("[ring]@1M", &r, &why));
  EXPECT_NE(why.find("[NODE/NET]@SIZE"), std::string::npos) << why;
  EXPECT_FALSE(ParseRecipe("[ring/ring]", &r, &why));
  EXPECT_FALSE(ParseRecipe("[ring/ring]@2G", &r, &why));
  EXPECT_FALSE(ParseRecipe("[ring/spiral]@1M", &r, &why));
  EXPECT_NE(why.find("unknown generator 'spiral'"), std::string::npos) << why;
}

TEST(Recipe, DeclinesWithReasons) {
  CollSpec s;
  s.nranks = 3;
  s.count = 10;
  GenEnv env;
  EXPECT_NE(DeclineRecipe(s, {"rexch", {-2, -2, 2, 2}, 0}, env).find("more than the 3 ranks"),
            std::string::npos);
  EXPECT_NE(DeclineRecipe(s, {"rexch", {-4, 2}, 0}, env).find("no allgather radix"),
            std::string::npos);
  EXPECT_NE(DeclineRecipe(s, {"copyin", {}, 0}, env).find("one node"), std::string::npos);
  s.op = ir::kOpMatMul2x2;
  EXPECT_NE(DeclineRecipe(s, {"ring", {}, 0}, env).find("not commutative"), std::string::npos);
  EXPECT_EQ(DeclineRecipe(s, {"rexch", {-3, 3}, 0}, env), "");
  s.op = weftAvg;
  EXPECT_NE(DeclineRecipe(s, {"rexch", {-3, 3}, 0}, env).find("native"), std::string::npos);
  s.op = weftSum;
  s.coll = Coll::kAllToAll;
  EXPECT_NE(DeclineRecipe(s, {"pairwise", {}, 4096}, env).find("chunking"), std::string::npos);
}

TEST(Builder, SplitElemsFollowsLinesAndCoversTheCount) {
  // 100 doubles = 12.5 lines over 4 pieces: 4, 3, 3, 3 lines (the last takes the remainder).
  const std::vector<uint64_t> off = SplitElems(100, 4, 8);
  EXPECT_EQ(off, (std::vector<uint64_t>{0, 32, 56, 80, 100}));
  const std::vector<uint64_t> few = SplitElems(10, 4, 8);  // two lines: two empty pieces
  EXPECT_EQ(few, (std::vector<uint64_t>{0, 8, 10, 10, 10}));
  EXPECT_EQ(SplitElems(0, 3, 4), (std::vector<uint64_t>{0, 0, 0, 0}));
}

TEST(Builder, SplitForMessagesKeepsLinesOnlyWhileTheyStayNearEven) {
  // 1,024 doubles = 128 lines over 32 pieces: 4 lines each, as SplitElems.
  EXPECT_EQ(SplitForMessages(1024, 32, 8), SplitElems(1024, 32, 8));
  // 128 doubles = 16 lines over 32 pieces: lines would leave 16 pieces empty; 4 elements each.
  const std::vector<uint64_t> few = SplitForMessages(128, 32, 8);
  for (int k = 0; k <= 32; ++k) EXPECT_EQ(few[k], 4u * k);
  // 100 doubles over 4: lines give 32, 24, 24, 20 (32 > 9/8 of 25), so 25 each.
  EXPECT_EQ(SplitForMessages(100, 4, 8), (std::vector<uint64_t>{0, 25, 50, 75, 100}));
  // 10 over 4: 3, 3, 2, 2; 0 over 3 stays empty.
  EXPECT_EQ(SplitForMessages(10, 4, 8), (std::vector<uint64_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(SplitForMessages(0, 3, 4), (std::vector<uint64_t>{0, 0, 0, 0}));
  // 1,000 floats = 63 lines over 7: 9 lines each but the last (144, 136), within 1/8: lines.
  EXPECT_EQ(SplitForMessages(1000, 7, 4), SplitElems(1000, 7, 4));
}

TEST(Builder, FoldGroupsAreContiguousAndBalanced) {
  for (int P = 1; P <= 40; ++P) {
    for (int C = 1; C <= P; ++C) {
      FoldGroups f{P, C};
      EXPECT_EQ(f.First(0), 0);
      EXPECT_EQ(f.First(C), P);
      for (int g = 0; g < C; ++g) {
        EXPECT_GE(f.Size(g), P / C);
        EXPECT_LE(f.Size(g), P / C + 1);
        for (int r = f.First(g); r < f.First(g + 1); ++r) EXPECT_EQ(f.GroupOf(r), g);
      }
    }
  }
}

// Banked executions in a row take the banks in turn. The first of a run waits fully (every peer
// finished the previous execution); the next kBanks - 1 need no wait (their banks were last
// written before the run began); later ones need the peers to have finished the execution
// that last wrote their bank, and when they must read a counter they wait for half a ring
// more. Anything not banked, or too large for a bank, waits fully and ends the run.
TEST(BankPlacer, BanksRotateAndEntryWaitsFollowTheRing) {
  constexpr int K = BankPlacer::kBanks;
  BankPlacer p(2);
  BankPlacer::Entry e = p.Place(8, 100);
  EXPECT_EQ(e.bank, 0);
  EXPECT_FALSE(e.free) << "first of a run: nothing known before";
  EXPECT_EQ(e.need, 100u);
  EXPECT_EQ(e.want, 100u);
  // Execution i of the run starts at counter 100 + 2i (two signals each).
  for (int i = 1; i < K; ++i) {
    e = p.Place(BankPlacer::kBankBytes, 100 + 2 * i);
    EXPECT_EQ(e.bank, i);
    EXPECT_TRUE(e.free) << "bank " << i << " was last written before the run";
  }
  for (int i = K; i < 3 * K; ++i) {
    e = p.Place(8, 100 + 2 * i);
    EXPECT_EQ(e.bank, i % K);
    EXPECT_FALSE(e.free);
    EXPECT_EQ(e.need, 100u + 2 * (i - K + 1))
        << "the writer of this bank, execution " << i - K << ", finished";
    EXPECT_EQ(e.want, 100u + 2 * (i - K / 2 + 1)) << "half a ring more when reading";
  }
  e = p.Place(BankPlacer::kBankBytes + 1, 200);
  EXPECT_EQ(e.bank, -1) << "too large: the general slot";
  EXPECT_EQ(e.need, 200u);
  e = p.Place(8, 203);
  EXPECT_EQ(e.bank, 0) << "a new run";
  EXPECT_FALSE(e.free);
  EXPECT_EQ(e.need, 203u) << "after the general slot: the full wait";
  e = p.Place(0, 205);
  EXPECT_EQ(e.bank, -1) << "not banked";
  EXPECT_EQ(e.need, 205u);
}

// What a rank learns of a peer's counter (read, or implied by a stamp) answers later entry
// waits without a read, wrap-safe, and never goes backwards.
TEST(BankPlacer, KnownProgressAnswersEntryWaits) {
  BankPlacer p(3);
  EXPECT_FALSE(p.Known(1, 0)) << "nothing observed yet";
  p.Observe(1, 50);
  EXPECT_TRUE(p.Known(1, 50));
  EXPECT_TRUE(p.Known(1, 10));
  EXPECT_FALSE(p.Known(1, 51));
  EXPECT_FALSE(p.Known(2, 10)) << "per peer";
  p.Observe(1, 40);
  EXPECT_TRUE(p.Known(1, 50)) << "an older observation does not lower what is known";
  p.Observe(2, ~uint64_t{0} - 1);
  p.Observe(2, 3);  // the counter wrapped
  EXPECT_TRUE(p.Known(2, ~uint64_t{0}));
  EXPECT_TRUE(p.Known(2, 3));
  EXPECT_FALSE(p.Known(2, 4));
}

TEST(Verifier, RejectsTouchingBuffersOfMessagesInFlight) {
  Builder b(CollSpec{Coll::kAllReduce, 2, 4, weftFloat64}, 0);
  b.NeedScratch(32);
  b.Recv(1, ScratchAt(0), 32);
  b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(0)}, 32);  // before the waitall: a race
  b.WaitAll();
  std::string why;
  EXPECT_FALSE(ir::VerifyProgram(b.Take(), &why));
  EXPECT_NE(why.find("while a receive into it is in flight"), std::string::npos) << why;

  Builder c(CollSpec{Coll::kAllReduce, 2, 4, weftFloat64}, 0);
  c.Send(1, RecvAt(0), 32);
  c.Copy(RecvAt(0), SendAt(0), 32);  // overwrites a send's source
  c.WaitAll();
  EXPECT_FALSE(ir::VerifyProgram(c.Take(), &why));
  EXPECT_NE(why.find("while a send from it is in flight"), std::string::npos) << why;

  Builder d(CollSpec{Coll::kAllReduce, 2, 4, weftFloat64}, 0);
  d.Send(1, SendAt(0), 32);
  EXPECT_FALSE(ir::VerifyProgram(d.Take(), &why)) << "no final waitall";
}

// Rescaling a compiled program equals compiling at the new count, for counts that are
// multiples of the scale unit.
TEST(Bytecode, RescaleEqualsRecompiling) {
  struct Case {
    Coll coll;
    const char* recipe;
    int P;
  };
  for (const Case& c :
       {Case{Coll::kAllReduce, "rexch:-2,-3,3,2", 6}, Case{Coll::kAllReduce, "rexch:-2,2", 5},
        Case{Coll::kAllReduce, "ring", 3}, Case{Coll::kReduceScatter, "rexch:-2,-2", 7},
        Case{Coll::kAllGather, "shift:3", 5}, Case{Coll::kBroadcast, "tree:2", 6},
        Case{Coll::kAllToAll, "bruck", 5}}) {
    Recipe r;
    std::string why;
    ASSERT_TRUE(ParseRecipe(c.recipe, &r, &why));
    CollSpec s{c.coll, c.P, 0, weftFloat32};
    const uint64_t unit = RecipeScaleUnit(s, r);
    ASSERT_GT(unit, 0u) << c.recipe;
    for (int rank = 0; rank < c.P; ++rank) {
      s.count = 3 * unit;
      const Bytecode small = Lower(BuildProgram(s, r, rank), s.count, unit);
      s.count = 7 * unit;
      const Bytecode big = Lower(BuildProgram(s, r, rank), s.count, unit);
      Bytecode scaled;
      ASSERT_TRUE(Rescale(small, 7 * unit, &scaled)) << c.recipe;
      EXPECT_TRUE(scaled == big) << c.recipe << " rank " << rank << "\n"
                                 << DumpBytecode(scaled) << DumpBytecode(big);
      if (unit > 1) {
        EXPECT_FALSE(Rescale(small, 7 * unit + 1, &scaled)) << "a count off the unit";
      }
    }
  }
  Recipe chunked{"tree", {2}, 4096};
  EXPECT_EQ(RecipeScaleUnit(CollSpec{Coll::kBroadcast, 4, 100000, weftFloat32}, chunked), 0u);
}

TEST(Bytecode, HeaderAndIndicesAreChecked) {
  Builder b(CollSpec{Coll::kAllReduce, 2, 8, weftFloat64}, 0);
  b.Send(1, SendAt(0), 64);
  b.WaitAll();
  Bytecode bc = Lower(b.Take(), 8, 1);
  std::string why;
  EXPECT_TRUE(CheckBytecode(bc, &why)) << why;
  EXPECT_EQ(sizeof(BcInstr), 40u);
  bc.code[0].ref = 99;
  EXPECT_FALSE(CheckBytecode(bc, &why));
  bc.code[0].ref = 0;
  bc.version = 99;
  EXPECT_FALSE(CheckBytecode(bc, &why));
  EXPECT_NE(why.find("version"), std::string::npos);
}

// A reduce followed by copies of its result: one fused run, and the interpreter's blocked pass
// gives the same bytes as instruction-at-a-time.
TEST(Bytecode, FusedRunsGiveTheSameResult) {
  const uint64_t n = 10000, bytes = n * 8;
  Builder b(CollSpec{Coll::kAllReduce, 1, n, weftFloat64}, 0);
  b.NeedScratch(3 * bytes);
  b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(0)}, bytes);
  b.Copy(ScratchAt(bytes), RecvAt(0), bytes);
  b.Reduce(ScratchAt(2 * bytes), {RecvAt(0), ScratchAt(bytes)}, bytes);
  b.Copy(ScratchAt(8), RecvAt(0), 64);  // another length: ends the run
  const ir::Program p = b.Take();
  std::string why;
  ASSERT_TRUE(ir::VerifyProgram(p, &why)) << why;
  const Bytecode fused = Lower(p, n, 0);
  EXPECT_EQ(fused.code[0].fused, 3);
  Bytecode plain = fused;
  for (BcInstr& i : plain.code) i.fused = 0;

  // A partial overlap with a run's destination must not fuse.
  Builder c(CollSpec{Coll::kAllReduce, 1, n, weftFloat64}, 0);
  c.NeedScratch(3 * bytes);
  c.Copy(ScratchAt(0), SendAt(0), bytes);
  c.Copy(RecvAt(0), ScratchAt(8), bytes - 8);
  EXPECT_EQ(Lower(c.Take(), n, 0).code[0].fused, 0);

  auto run = [&](const Bytecode& bc) {
    std::vector<double> send(n), recv(n), scratch(3 * n);
    for (uint64_t i = 0; i < n; ++i) send[i] = i * 0.5, scratch[i] = 3.0 - i;
    RunLocally(bc, ExecBuffers{reinterpret_cast<const unsigned char*>(send.data()),
                               reinterpret_cast<unsigned char*>(recv.data()),
                               reinterpret_cast<unsigned char*>(scratch.data())});
    recv.insert(recv.end(), scratch.begin(), scratch.end());
    return recv;
  };
  const std::vector<double> a = run(fused), b2 = run(plain);
  EXPECT_EQ(a, b2);
  EXPECT_EQ(a[n + 2 * n + 5], 2 * (5 * 0.5 + 3.0 - 5));
}

// A radix-P step reduces P sources in one instruction: 300 must survive lowering and run.
TEST(Bytecode, ReduceWithHundredsOfSources) {
  const int k = 300;
  const uint64_t n = 5;
  Builder b(CollSpec{Coll::kAllReduce, 1, n, weftInt32}, 0);
  b.NeedScratch(k * n * 4);
  std::vector<ir::Ref> srcs;
  for (int j = 0; j < k; ++j) srcs.push_back(ScratchAt(j * n * 4));
  b.Reduce(RecvAt(0), srcs, n * 4);
  const Bytecode bc = Lower(b.Take(), n, 0);
  ASSERT_EQ(bc.code[0].nsrc, static_cast<uint32_t>(k));
  std::vector<int32_t> scratch(k * n), recv(n);
  for (int j = 0; j < k; ++j) {
    for (uint64_t i = 0; i < n; ++i) scratch[j * n + i] = j + static_cast<int32_t>(i);
  }
  RunLocally(bc, ExecBuffers{nullptr, reinterpret_cast<unsigned char*>(recv.data()),
                             reinterpret_cast<unsigned char*>(scratch.data())});
  for (uint64_t i = 0; i < n; ++i) EXPECT_EQ(recv[i], k * (k - 1) / 2 + k * static_cast<int>(i));
}

TEST(KWayReduce, OrderAliasingAndHalfPrecision) {
  // Non-commutative: a*b*c in that order, destination equal to the middle source.
  std::vector<uint64_t> a{0x0001000100000001ull}, b{0x0001000000010001ull},
      c{0x0002000100010003ull};
  const uint64_t want = MatMul2x2(MatMul2x2(a[0], b[0]), c[0]);
  EXPECT_NE(want, MatMul2x2(MatMul2x2(b[0], a[0]), c[0])) << "the test op must not commute";
  const void* srcs[3] = {a.data(), b.data(), c.data()};
  KWayReduce(b.data(), srcs, 3, 1, weftUint64, ir::kOpMatMul2x2);
  EXPECT_EQ(b[0], want);

  // fp16: 2048 + 1 + 1 rounds to 2048 twice when rounded per step, but is 2050 in fp32.
  std::vector<uint16_t> x{FloatToHalf(2048)}, y{FloatToHalf(1)}, z{FloatToHalf(1)}, out(1);
  const void* hs[3] = {x.data(), y.data(), z.data()};
  KWayReduce(out.data(), hs, 3, 1, weftFloat16, weftSum);
  EXPECT_EQ(HalfToFloat(out[0]), 2050.0f);

  // Three doubles with the destination aliasing the last source.
  std::vector<double> p(5000, 1.0), q(5000, 2.0), r(5000, 4.0);
  const void* ds[3] = {p.data(), q.data(), r.data()};
  KWayReduce(r.data(), ds, 3, r.size(), weftFloat64, weftSum);
  EXPECT_EQ(r[4999], 7.0);
}

// Pipelining pays off in the model: a chunked tree broadcast of 4 MiB over 16 ranks is
// predicted faster than the whole-vector tree, and both run correctly. (Model defaults: whole
// 2519 us, chunked 2129 us; the chunked tree sits at the root's injection bound, 4 children x
// 4 MiB at 8 GB/s = 2097 us, so a binomial tree gains about 15% here, no more.)
TEST(ChunkPass, PipelinedBroadcastBeatsTheWholeVectorTree) {
  CollSpec s{Coll::kBroadcast, 16, 1 << 19, weftFloat64};
  s.root = 5;
  double t[2];
  int i = 0;
  for (uint64_t chunk : {uint64_t{0}, uint64_t{256} << 10}) {
    Recipe r{"tree", {2}, chunk};
    const std::vector<ir::Program> ps = BuildAllPrograms(s, r);
    std::string why;
    ASSERT_TRUE(ir::VerifyMatching(ps, &why)) << why;
    const sim::SimResult res = sim::Simulate(s, ps, sim::SimOptions{});
    ASSERT_TRUE(res.pass) << res.why;
    t[i++] = res.predicted_us;
  }
  EXPECT_LT(t[1], 0.9 * t[0]) << "chunked " << t[1] << " us vs whole " << t[0] << " us";
  EXPECT_LT(t[1], 1.05 * 4 * (4 << 20) / 8e3) << "the root's injection bound";
}

// The simulator names what is wrong: a deadlock (each rank waits for a receive the other posts
// only after its own waitall), a size mismatch, a wrong result.
TEST(Simulator, ReportsDeadlocksMismatchesAndWrongResults) {
  const CollSpec spec{Coll::kAllReduce, 2, 4, weftFloat64};
  std::vector<ir::Program> ps;
  for (int r = 0; r < 2; ++r) {
    Builder b(spec, r);
    b.NeedScratch(32);
    b.Recv(1 - r, ScratchAt(0), 32);
    b.WaitAll();
    b.Send(1 - r, SendAt(0), 32);
    b.WaitAll();
    ps.push_back(b.Take());
  }
  std::string why;
  ASSERT_TRUE(ir::VerifyMatching(ps, &why)) << "statically fine: " << why;
  sim::SimResult res = sim::Simulate(spec, ps, sim::SimOptions{});
  EXPECT_FALSE(res.pass);
  EXPECT_NE(res.why.find("deadlock"), std::string::npos) << res.why;
  EXPECT_NE(res.why.find("rank 1"), std::string::npos) << res.why;

  ps.clear();
  for (int r = 0; r < 2; ++r) {
    Builder b(spec, r);
    b.NeedScratch(32);
    b.Send(1 - r, SendAt(0), r == 0 ? 32 : 24);
    b.Recv(1 - r, ScratchAt(0), 32);
    b.WaitAll();
    ps.push_back(b.Take());
  }
  res = sim::Simulate(spec, ps, sim::SimOptions{});
  EXPECT_NE(res.why.find("sends 24 bytes to rank 0"), std::string::npos) << res.why;

  ps.clear();
  for (int r = 0; r < 2; ++r) {
    Builder b(spec, r);
    b.Copy(RecvAt(0), SendAt(0), 32);  // no exchange at all: a wrong allreduce
    ps.push_back(b.Take());
  }
  res = sim::Simulate(spec, ps, sim::SimOptions{});
  EXPECT_NE(res.why.find("first wrong element"), std::string::npos) << res.why;
}

}  // namespace
}  // namespace weft::sched
