#include "tune/wisdom.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sched/coll_spec.h"

namespace weft::tune {
namespace {

struct ParamField {
  const char* name;
  double* (*field)(CostModel&);
  double max;  // larger values are refused as corrupt (no machine is that slow or fast)
};

// Every calibratable field, with what weft-tune measures for it (docs/tuning.md).
const ParamField kParams[] = {
    {"intra.latency_us", [](CostModel& m) { return &m.intra.latency_us; }, 1e6},
    {"intra.gbytes_per_s", [](CostModel& m) { return &m.intra.gbytes_per_s; }, 1e5},
    {"intra.eager_bytes", [](CostModel& m) { return &m.intra.eager_bytes; }, 1e12},
    {"intra.rendezvous_us", [](CostModel& m) { return &m.intra.rendezvous_us; }, 1e6},
    {"intra.cached_bytes", [](CostModel& m) { return &m.intra.cached_bytes; }, 1e12},
    {"intra.cached_gbytes_per_s", [](CostModel& m) { return &m.intra.cached_gbytes_per_s; }, 1e5},
    {"intra.eager_gbytes_per_s", [](CostModel& m) { return &m.intra.eager_gbytes_per_s; }, 1e5},
    {"intra.recv_overhead_us", [](CostModel& m) { return &m.intra.recv_overhead_us; }, 1e6},
    {"inter.latency_us", [](CostModel& m) { return &m.inter.latency_us; }, 1e6},
    {"inter.gbytes_per_s", [](CostModel& m) { return &m.inter.gbytes_per_s; }, 1e5},
    {"inter.eager_bytes", [](CostModel& m) { return &m.inter.eager_bytes; }, 1e12},
    {"inter.rendezvous_us", [](CostModel& m) { return &m.inter.rendezvous_us; }, 1e6},
    {"inter.cached_bytes", [](CostModel& m) { return &m.inter.cached_bytes; }, 1e12},
    {"inter.cached_gbytes_per_s", [](CostModel& m) { return &m.inter.cached_gbytes_per_s; }, 1e5},
    {"inter.eager_gbytes_per_s", [](CostModel& m) { return &m.inter.eager_gbytes_per_s; }, 1e5},
    {"inter.recv_overhead_us", [](CostModel& m) { return &m.inter.recv_overhead_us; }, 1e6},
    {"message_overhead_us", [](CostModel& m) { return &m.message_overhead_us; }, 1e6},
    {"link_message_us", [](CostModel& m) { return &m.link_message_us; }, 1e6},
    {"counter_wait_us", [](CostModel& m) { return &m.counter_wait_us; }, 1e6},
    {"call_overhead_us", [](CostModel& m) { return &m.call_overhead_us; }, 1e6},
    {"copy_gbytes_per_s", [](CostModel& m) { return &m.copy_gbytes_per_s; }, 1e5},
    {"reduce_gbytes_per_s", [](CostModel& m) { return &m.reduce_gbytes_per_s; }, 1e5},
    {"reduce_half_gbytes_per_s", [](CostModel& m) { return &m.reduce_half_gbytes_per_s; }, 1e5},
    {"compute_cached_bytes", [](CostModel& m) { return &m.compute_cached_bytes; }, 1e12},
    {"reduce_cached_gbytes_per_s", [](CostModel& m) { return &m.reduce_cached_gbytes_per_s; }, 1e5},
    {"handover_gbytes_per_s", [](CostModel& m) { return &m.handover_gbytes_per_s; }, 1e5},
    {"single_copy_us", [](CostModel& m) { return &m.single_copy_us; }, 1e6},
    {"single_copy_gbytes_per_s", [](CostModel& m) { return &m.single_copy_gbytes_per_s; }, 1e5},
    {"wake_us", [](CostModel& m) { return &m.wake_us; }, 1e6},
};

const ParamField* FindField(const std::string& name) {
  for (const ParamField& f : kParams) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

// A whole-string decimal in [lo, hi]; rejects "1e999", "nan", "12abc", "".
bool ParseNumber(const std::string& s, double lo, double hi, double* out) {
  if (s.empty() || s.size() > 40) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi) {
    return false;
  }
  *out = v;
  return true;
}

// "WORD REST": the first word and the rest of the line after one space.
void SplitLine(const std::string& line, std::string* word, std::string* rest) {
  const size_t sp = line.find(' ');
  *word = line.substr(0, sp);
  *rest = sp == std::string::npos ? "" : line.substr(sp + 1);
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

const std::vector<std::string>& WisdomParamNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ParamField& f : kParams) n.push_back(f.name);
    return n;
  }();
  return names;
}

bool ParseParamLine(const std::string& text, WisdomParam* out, std::string* why) {
  std::string name, value;
  SplitLine(Trim(text), &name, &value);
  const ParamField* f = FindField(name);
  if (f == nullptr) {
    *why = "unknown parameter '" + name + "'";
    return false;
  }
  double v = 0;
  if (!ParseNumber(Trim(value), 0, f->max, &v)) {
    *why = "parameter " + name + " has a bad value '" + value + "'";
    return false;
  }
  *out = {name, v};
  return true;
}

bool ParseWisdom(const std::string& text, Wisdom* out, std::string* why) {
  *out = Wisdom{};
  std::istringstream is(text);
  std::string raw;
  int lineno = 0;
  bool have_version = false;
  WisdomSection* cur = nullptr;
  int section_lines = 0;
  auto fail = [&](const std::string& reason) {
    *why = "line " + std::to_string(lineno) + ": " + reason;
    return false;
  };
  while (std::getline(is, raw)) {
    ++lineno;
    const std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    std::string word, rest;
    SplitLine(line, &word, &rest);
    rest = Trim(rest);
    if (!have_version) {
      double v = 0;
      if (word != "weft-wisdom" || !ParseNumber(rest, 0, 1e9, &v)) {
        return fail("not a wisdom file (want 'weft-wisdom " + std::to_string(kWisdomVersion) +
                    "' first)");
      }
      if (v != kWisdomVersion) {
        return fail("version " + rest + "; this weft reads version " +
                    std::to_string(kWisdomVersion) + " (run weft-tune again)");
      }
      have_version = true;
      continue;
    }
    if (word == "section") {
      if (cur != nullptr) return fail("'section' inside a section (an 'end' is missing)");
      out->sections.emplace_back();
      cur = &out->sections.back();
      section_lines = 0;
      continue;
    }
    if (cur == nullptr) return fail("'" + word + "' outside a section");
    if (word == "end") {
      double n = 0;
      if (!ParseNumber(rest, 0, 1e6, &n) || n != section_lines) {
        return fail("section ends with '" + line + "' but holds " + std::to_string(section_lines) +
                    " lines (truncated or edited)");
      }
      if (cur->key.ranks == 0) return fail("section without 'ranks'");
      cur = nullptr;
      continue;
    }
    ++section_lines;
    if (word == "ranks") {
      double r = 0;
      if (!ParseNumber(rest, 1, 1 << 24, &r) || r != std::floor(r)) {
        return fail("bad rank count '" + rest + "'");
      }
      cur->key.ranks = static_cast<int>(r);
    } else if (word == "topology") {
      cur->key.topology = rest;
    } else if (word == "mpi") {
      cur->key.mpi = rest;
    } else if (word == "cpu") {
      cur->key.cpu = rest;
    } else if (word == "param") {
      WisdomParam param;
      std::string param_why;
      if (!ParseParamLine(rest, &param, &param_why)) return fail(param_why);
      cur->params.push_back(std::move(param));
    } else if (word == "range") {
      std::vector<Override> one;
      std::string range_why;
      if (!ParseOverrides(rest, &one, &range_why) || one.size() != 1) {
        return fail(range_why.empty() ? "want one COLL:RANGE=RECIPE" : range_why);
      }
      cur->ranges.push_back(std::move(one[0]));
    } else {
      return fail("unknown line '" + word + "'");
    }
  }
  if (!have_version) return fail("empty (no 'weft-wisdom' line)");
  if (cur != nullptr) return fail("the last section has no 'end' (truncated)");
  return true;
}

std::string OverrideText(const Override& o) {
  std::string s = o.every_coll ? "*" : sched::CollName(o.coll);
  s += ':';
  if (o.lo == 0 && o.hi == UINT64_MAX) {
    s += '*';
  } else {
    s += std::to_string(o.lo) + '-';
    if (o.hi != UINT64_MAX) s += std::to_string(o.hi);
  }
  return s + '=' + sched::RecipeText(o.recipe);
}

std::string SectionText(const WisdomSection& s) {
  std::ostringstream body;
  int n = 0;
  auto line = [&](const std::string& l) {
    body << l << '\n';
    ++n;
  };
  line("ranks " + std::to_string(s.key.ranks));
  if (!s.key.topology.empty()) line("topology " + s.key.topology);
  if (!s.key.mpi.empty()) line("mpi " + s.key.mpi);
  if (!s.key.cpu.empty()) line("cpu " + s.key.cpu);
  for (const WisdomParam& p : s.params) {
    std::ostringstream v;
    v.precision(10);
    v << p.value;
    line("param " + p.name + " " + v.str());
  }
  for (const Override& o : s.ranges) line("range " + OverrideText(o));
  return "section\n" + body.str() + "end " + std::to_string(n) + "\n";
}

std::string WisdomText(const Wisdom& w) {
  std::string s = "weft-wisdom " + std::to_string(kWisdomVersion) + "\n";
  for (const WisdomSection& sec : w.sections) s += SectionText(sec);
  return s;
}

const WisdomSection* FindSection(const Wisdom& w, const WisdomKey& key) {
  for (const WisdomSection& s : w.sections) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::string WhyNoSection(const Wisdom& w, const WisdomKey& key) {
  if (FindSection(w, key) != nullptr) return "";
  if (w.sections.empty()) return "it has no sections";
  std::string why;
  for (const WisdomSection& s : w.sections) {
    if (s.key.ranks != key.ranks) continue;
    if (s.key.topology != key.topology) {
      why = "its " + std::to_string(key.ranks) + "-rank section is for nodes " + s.key.topology +
            ", this communicator's are " + key.topology;
    } else if (s.key.mpi != key.mpi) {
      why = "it was measured with another MPI (" + s.key.mpi + ")";
    } else {
      why = "it was measured on another CPU (" + s.key.cpu + ")";
    }
  }
  if (why.empty()) why = "it has no section for " + std::to_string(key.ranks) + " ranks";
  return why;
}

void ApplyParams(const WisdomSection& s, CostModel* model) {
  for (const WisdomParam& p : s.params) {
    if (const ParamField* f = FindField(p.name)) *f->field(*model) = p.value;
  }
}

bool GetParam(const CostModel& model, const std::string& name, double* value) {
  const ParamField* f = FindField(name);
  if (f == nullptr) return false;
  CostModel copy = model;
  *value = *f->field(copy);
  return true;
}

}  // namespace weft::tune
