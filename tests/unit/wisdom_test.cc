// Wisdom files: what weft-tune writes reads back equal; every malformed file (truncated,
// another version, unknown lines, numbers out of range, bad ranges) is refused with the line
// and a reason, never half used; sections are found only for their own key.
#include "tune/wisdom.h"

#include <gtest/gtest.h>

#include <random>

namespace weft::tune {
namespace {

WisdomSection Section(int ranks, const std::string& topology) {
  WisdomSection s;
  s.key = {ranks, topology, "Open MPI v4.1.4, package: Debian OpenMPI", "AMD EPYC"};
  s.params = {{"intra.latency_us", 0.41}, {"reduce_half_gbytes_per_s", 1.8}};
  std::vector<Override> o;
  std::string why;
  EXPECT_TRUE(
      ParseOverrides("allreduce:0-4096=oneshot;allreduce:4096-=rexch:-2,2;bcast:*=cma", &o, &why))
      << why;
  s.ranges = o;
  return s;
}

const std::string kGood =
    "# a comment\n"
    "weft-wisdom 1\n"
    "section\n"
    "ranks 4\n"
    "topology 2x2\n"
    "mpi Open MPI v4.1.4\n"
    "cpu AMD EPYC\n"
    "param intra.latency_us 0.84\n"
    "param inter.gbytes_per_s 1.2\n"
    "range allreduce:0-4K=rexch:2\n"
    "range alltoall:*=nodea2a:4\n"
    "end 8\n";

TEST(Wisdom, RoundTrips) {
  Wisdom w;
  w.sections = {Section(2, "1x2"), Section(4, "2x2:rr")};
  const std::string text = WisdomText(w);
  Wisdom back;
  std::string why;
  ASSERT_TRUE(ParseWisdom(text, &back, &why)) << why << "\n" << text;
  ASSERT_EQ(back.sections.size(), 2u);
  EXPECT_EQ(back.sections[1].key, w.sections[1].key);
  EXPECT_EQ(back.sections[0].params.size(), 2u);
  EXPECT_EQ(back.sections[0].ranges.size(), 3u);
  EXPECT_EQ(WisdomText(back), text);
  ASSERT_TRUE(ParseWisdom(kGood, &back, &why)) << why;
  EXPECT_EQ(back.sections[0].ranges[0].hi, 4096u);
}

TEST(Wisdom, FindsOnlyItsOwnShape) {
  Wisdom w;
  w.sections = {Section(2, "1x2"), Section(4, "2x2")};
  WisdomKey k = w.sections[1].key;
  EXPECT_EQ(FindSection(w, k), &w.sections[1]);
  EXPECT_EQ(WhyNoSection(w, k), "");
  k.topology = "2x2:rr";
  EXPECT_EQ(FindSection(w, k), nullptr);
  EXPECT_NE(WhyNoSection(w, k).find("nodes 2x2"), std::string::npos) << WhyNoSection(w, k);
  k = w.sections[1].key;
  k.cpu = "Intel Xeon";
  EXPECT_NE(WhyNoSection(w, k).find("another CPU"), std::string::npos);
  k = w.sections[1].key;
  k.mpi = "MPICH 4.0";
  EXPECT_NE(WhyNoSection(w, k).find("another MPI"), std::string::npos);
  k.ranks = 8;
  EXPECT_NE(WhyNoSection(w, k).find("no section for 8 ranks"), std::string::npos);
}

TEST(Wisdom, AppliesCalibratedParameters) {
  CostModel m;
  const double copy = m.copy_gbytes_per_s;
  ApplyParams(Section(2, "1x2"), &m);
  EXPECT_EQ(m.intra.latency_us, 0.41);
  EXPECT_EQ(m.reduce_half_gbytes_per_s, 1.8);
  EXPECT_EQ(m.copy_gbytes_per_s, copy);  // not calibrated: the default stays
  double v = 0;
  ASSERT_TRUE(GetParam(m, "intra.latency_us", &v));
  EXPECT_EQ(v, 0.41);
  EXPECT_FALSE(GetParam(m, "warp_speed", &v));
  for (const std::string& name : WisdomParamNames()) EXPECT_TRUE(GetParam(m, name, &v)) << name;
  // fp16 reduces at their own rate once calibrated.
  EXPECT_GT(m.ReduceUs(1 << 20, weftFloat16, 1 << 20), m.ReduceUs(1 << 20, weftFloat32, 1 << 20));
}

TEST(Wisdom, RefusesMalformedFiles) {
  const std::string head = "weft-wisdom 1\nsection\nranks 2\n";
  const struct {
    std::string text, reason;
  } cases[] = {
      {"", "empty"},
      {"hello\n", "not a wisdom file"},
      {"weft-wisdom 2\n", "version 2"},
      {"weft-wisdom one\n", "not a wisdom file"},
      {head, "no 'end'"},
      {head + "end 2\n", "holds 1 lines"},
      {head + "end x\n", "truncated or edited"},
      {"weft-wisdom 1\nsection\nend 0\n", "without 'ranks'"},
      {"weft-wisdom 1\nranks 2\n", "outside a section"},
      {head + "section\n", "inside a section"},
      {head + "color blue\nend 2\n", "unknown line 'color'"},
      {"weft-wisdom 1\nsection\nranks two\nend 1\n", "bad rank count"},
      {"weft-wisdom 1\nsection\nranks 0\nend 1\n", "bad rank count"},
      {"weft-wisdom 1\nsection\nranks 2.5\nend 1\n", "bad rank count"},
      {"weft-wisdom 1\nsection\nranks 99999999999999999999\nend 1\n", "bad rank count"},
      {head + "param warp 1\nend 2\n", "unknown parameter 'warp'"},
      {head + "param intra.latency_us -1\nend 2\n", "bad value"},
      {head + "param intra.latency_us nan\nend 2\n", "bad value"},
      {head + "param intra.latency_us 1e999\nend 2\n", "bad value"},
      {head + "param intra.gbytes_per_s 1e300\nend 2\n", "bad value"},
      {head + "param intra.latency_us 3x\nend 2\n", "bad value"},
      {head + "param intra.latency_us\nend 2\n", "bad value"},
      {head + "range allreduce:4K-1K=ring\nend 2\n", "bad range"},
      {head + "range allreduce:*=warp\nend 2\n", "warp"},
      {head + "range frobnicate:*=ring\nend 2\n", "unknown collective"},
      {head + "range allreduce:*=ring;bcast:*=ring\nend 2\n", "want one"},
  };
  for (const auto& c : cases) {
    Wisdom w;
    std::string why;
    EXPECT_FALSE(ParseWisdom(c.text, &w, &why)) << c.text;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.text << " -> " << why;
    EXPECT_NE(why.find("line "), std::string::npos) << why;
  }
}

// Every prefix of a good file either is refused or holds whole sections only; a flipped byte
// never crashes and what parses prints back to a fixed point.
TEST(Wisdom, TruncationsAndMutations) {
  Wisdom two;
  two.sections = {Section(2, "1x2"), Section(4, "2x2")};
  const std::string text = WisdomText(two);
  for (size_t n = 0; n < text.size(); ++n) {
    Wisdom w;
    std::string why;
    if (!ParseWisdom(text.substr(0, n), &w, &why)) continue;
    // Accepted only where the cut falls after the version line or a section's end line
    // (the last one's newline may go): whole sections, the first ones.
    ASSERT_LE(w.sections.size(), 2u) << n;
    EXPECT_TRUE(w.sections.size() < 2 || n + 1 == text.size()) << n;
    for (size_t i = 0; i < w.sections.size(); ++i) {
      EXPECT_EQ(SectionText(w.sections[i]), SectionText(two.sections[i])) << n;
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string t = text;
    for (int k = 0; k < 1 + i % 3; ++k) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    Wisdom w;
    std::string why;
    if (!ParseWisdom(t, &w, &why)) {
      EXPECT_FALSE(why.empty());
      continue;
    }
    const std::string printed = WisdomText(w);
    Wisdom again;
    ASSERT_TRUE(ParseWisdom(printed, &again, &why)) << printed << why;
    EXPECT_EQ(WisdomText(again), printed);
  }
}

}  // namespace
}  // namespace weft::tune
