// weft-fuzz: a bounded mutation fuzzer over the targets of fuzz_targets.h, for CI (no clang
// needed; run under the ASan build it finds memory errors too). It replays every file of the
// given directories (the corpus and the regressions: every crash found is kept there), then
// mutates them: byte flips, inserts, deletions, duplications, splices and tokens taken from
// the corpus. On a crash it writes the input to fuzz-crash-TARGET-HASH (in the working
// directory) before the process dies, to be added to tests/fuzz/regressions/TARGET.
//   weft-fuzz TARGET DIR... [--runs N] [--seconds S] [--seed X]
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_targets.h"

namespace {

const weft::fuzz::Target* g_target = nullptr;
std::string g_current;  // the input being run, for the crash handler

uint64_t Hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void OnCrash(int sig) {
  char name[128];
  std::snprintf(name, sizeof name, "fuzz-crash-%s-%016llx", g_target ? g_target->name : "?",
                static_cast<unsigned long long>(Hash(g_current)));
  if (FILE* f = std::fopen(name, "wb")) {
    std::fwrite(g_current.data(), 1, g_current.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr, "weft-fuzz: signal %d on an input of %zu bytes, saved as %s\n", sig,
               g_current.size(), name);
  signal(sig, SIG_DFL);
  raise(sig);
}

void Run(const std::string& input) {
  g_current = input;
  g_target->run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::vector<std::string> LoadDir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());  // the same order, so runs repeat
  for (const std::string& n : names) {
    std::ifstream f(dir + "/" + n, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

// Words of the corpus (split at spaces and punctuation, punctuation kept as tokens).
std::vector<std::string> Tokens(const std::vector<std::string>& corpus) {
  std::set<std::string> set;
  for (const std::string& s : corpus) {
    std::string w;
    for (char c : s) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
        w += c;
        continue;
      }
      if (!w.empty()) set.insert(w);
      w.clear();
      if (c != ' ' && c != '\n') set.insert(std::string(1, c));
    }
    if (!w.empty()) set.insert(w);
  }
  set.insert("99999999999999999999");
  set.insert("-2147483648");
  set.insert("4294967296");
  set.insert("16G");
  return {set.begin(), set.end()};
}

std::string Mutate(std::string s, const std::vector<std::string>& corpus,
                   const std::vector<std::string>& tokens, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = pick(s.size() + 1);
    switch (rng() % 7) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // a random byte
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 2:  // delete a range
        if (!s.empty()) s.erase(pick(s.size()), 1 + pick(8));
        break;
      case 3:  // duplicate a range
        if (!s.empty()) {
          const size_t from = pick(s.size());
          s.insert(at, s.substr(from, 1 + pick(16)));
        }
        break;
      case 4:  // a token of the corpus
        if (!tokens.empty()) s.insert(at, tokens[pick(tokens.size())]);
        break;
      case 5:  // splice another input in
        if (!corpus.empty()) {
          const std::string& o = corpus[pick(corpus.size())];
          s = s.substr(0, at) + o.substr(pick(o.size() + 1));
        }
        break;
      default:  // truncate
        s.resize(at);
        break;
    }
  }
  if (s.size() > 4096) s.resize(4096);
  return s;
}

int Usage() {
  size_t n = 0;
  const weft::fuzz::Target* t = weft::fuzz::Targets(&n);
  std::fprintf(stderr,
               "usage: weft-fuzz TARGET DIR... [--runs N] [--seconds S] [--seed X]\n"
               "targets:");
  for (size_t i = 0; i < n; ++i) std::fprintf(stderr, " %s", t[i].name);
  std::fprintf(stderr, "\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  size_t n = 0;
  const weft::fuzz::Target* targets = weft::fuzz::Targets(&n);
  for (size_t i = 0; i < n; ++i) {
    if (std::strcmp(argv[1], targets[i].name) == 0) g_target = &targets[i];
  }
  if (g_target == nullptr) return Usage();
  long long runs = 20000;
  double seconds = 60;
  uint64_t seed = 1;
  std::vector<std::string> corpus;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--runs" || a == "--seconds" || a == "--seed") && i + 1 < argc) {
      const char* v = argv[++i];
      if (a == "--runs") runs = std::strtoll(v, nullptr, 10);
      if (a == "--seconds") seconds = std::strtod(v, nullptr);
      if (a == "--seed") seed = std::strtoull(v, nullptr, 10);
    } else {
      std::vector<std::string> more = LoadDir(a);
      corpus.insert(corpus.end(), more.begin(), more.end());
    }
  }
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, OnCrash);
  for (const std::string& c : corpus) Run(c);  // every seed and every kept crash
  const std::vector<std::string> tokens = Tokens(corpus);
  std::mt19937_64 rng(seed);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long long done = 0;
  std::string input;
  for (; done < runs && std::chrono::steady_clock::now() < until; ++done) {
    const std::string& base = corpus.empty() ? input : corpus[rng() % corpus.size()];
    input = Mutate(base, corpus, tokens, rng);
    Run(input);
  }
  std::printf("weft-fuzz %s: %zu corpus inputs replayed, %lld mutated inputs run, no crash\n",
              g_target->name, corpus.size(), done);
  return 0;
}
