#include "sched/ir/text.h"

#include <cstdlib>
#include <sstream>

#include "core/dtype.h"

namespace weft::ir {
namespace {

constexpr const char* kSpaceNames[] = {"send", "recv", "scratch", "shm", "peer_send", "peer_recv"};

std::vector<std::string> SplitOperands(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ' && c != '\t') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool ParseU64(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-') return false;
  char* end = nullptr;
  *out = std::strtoull(s.c_str(), &end, 10);
  return *end == '\0';
}

bool ParseInt(const std::string& s, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  *out = static_cast<int>(v);
  return *end == '\0';
}

bool ParseRef(const std::string& s, Ref* r) {
  size_t plus = s.rfind('+');
  if (plus == std::string::npos || !ParseU64(s.substr(plus + 1), &r->offset)) return false;
  std::string name = s.substr(0, plus);
  r->rank = 0;
  size_t paren = name.find('(');
  if (paren != std::string::npos) {
    if (name.back() != ')' ||
        !ParseInt(name.substr(paren + 1, name.size() - paren - 2), &r->rank)) {
      return false;
    }
    name = name.substr(0, paren);
  }
  for (int i = 0; i < 6; ++i) {
    if (name == kSpaceNames[i]) {
      r->space = static_cast<Space>(i);
      return HasRank(r->space) == (paren != std::string::npos);
    }
  }
  return false;
}

bool ParseRedOp(const std::string& s, weftRedOp_t* op) {
  if (s == "matmul2x2") {
    *op = kOpMatMul2x2;
    return true;
  }
  return ParseOp(s, op);
}

// Parses one instruction line (without indentation) into *in.
bool ParseInstr(const std::string& line, Instr* in, std::string* why) {
  std::istringstream ls(line);
  std::string mnemonic;
  ls >> mnemonic;
  std::string rest;
  std::getline(ls, rest);
  *in = Instr{};
  if (!ParseMnemonic(mnemonic, &in->op)) {
    *why = "unknown opcode '" + mnemonic + "'";
    return false;
  }
  std::vector<std::string> ops = SplitOperands(rest);
  size_t k = 0;
  auto next = [&](std::string* tok) {
    if (k >= ops.size()) return false;
    *tok = ops[k++];
    return true;
  };
  std::string tok;
  for (const char* c = OperandSpec(in->op); *c; ++c) {
    if (*c == ' ') continue;
    bool ok = true;
    switch (*c) {
      case 'D':
        ok = next(&tok) && ParseRef(tok, &in->dst);
        break;
      case 'S': {
        Ref r;
        ok = next(&tok) && ParseRef(tok, &r);
        in->srcs.push_back(r);
        break;
      }
      case 'R': {
        Ref r;
        while (k < ops.size() && ParseRef(ops[k], &r)) {
          in->srcs.push_back(r);
          ++k;
        }
        ok = !in->srcs.empty();
        break;
      }
      case 'N':
        ok = next(&tok) && ParseU64(tok, &in->bytes);
        break;
      case 'P':
        ok = next(&tok) && ParseInt(tok, &in->peer);
        break;
      case 'C':
        ok = next(&tok) && ParseInt(tok, &in->counter);
        break;
      case 'V':
        ok = next(&tok) && ParseU64(tok, &in->value);
        break;
      case 'T':
        ok = next(&tok) && ParseInt(tok, &in->tag) && in->tag >= 0;
        break;
      case 'O':
        ok = next(&tok) && ParseRedOp(tok, &in->redop);
        break;
      default:
        ok = false;
    }
    if (!ok) {
      *why = std::string("bad or missing operand '") + *c + "' of " + mnemonic;
      return false;
    }
  }
  if (k != ops.size()) {
    *why = "too many operands for " + mnemonic;
    return false;
  }
  return true;
}

bool ParseHeader(const std::string& line, Program* p, std::string* why) {
  std::istringstream is(line);
  std::string word;
  if (!(is >> word) || word != "program") {
    *why = "expected 'program'";
    return false;
  }
  std::string key;
  int fields = 0;
  while (is >> key) {
    std::string value;
    if (!(is >> value)) break;
    bool ok = true;
    if (key == "rank")
      ok = ParseInt(value, &p->rank);
    else if (key == "nranks")
      ok = ParseInt(value, &p->nranks);
    else if (key == "dtype")
      ok = ParseType(value, &p->dtype);
    else if (key == "send")
      ok = ParseU64(value, &p->send_bytes);
    else if (key == "recv")
      ok = ParseU64(value, &p->recv_bytes);
    else if (key == "scratch")
      ok = ParseU64(value, &p->scratch_bytes);
    else if (key == "shm")
      ok = ParseU64(value, &p->shm_slot_bytes);
    else if (key == "banked" && value == "1")
      p->shm_banked = true, --fields;  // optional: printed only when set
    else
      ok = false;
    if (!ok) {
      *why = "bad header field '" + key + " " + value + "'";
      return false;
    }
    ++fields;
  }
  if (fields != 7) {
    *why = "header needs rank, nranks, dtype, send, recv, scratch and shm";
    return false;
  }
  return true;
}

}  // namespace

std::string RefText(const Ref& r) {
  std::string s(kSpaceNames[static_cast<int>(r.space)]);
  if (HasRank(r.space)) {
    s += '(';
    s += std::to_string(r.rank);
    s += ')';
  }
  s += '+';
  s += std::to_string(r.offset);
  return s;
}

std::string InstrText(const Instr& in) {
  std::vector<std::string> parts;
  for (const char* c = OperandSpec(in.op); *c; ++c) {
    switch (*c) {
      case 'D':
        parts.push_back(RefText(in.dst));
        break;
      case 'S':
        parts.push_back(in.srcs.empty() ? "?" : RefText(in.srcs[0]));
        break;
      case 'R':
        for (const Ref& r : in.srcs) parts.push_back(RefText(r));
        break;
      case 'N':
        parts.push_back(std::to_string(in.bytes));
        break;
      case 'P':
        parts.push_back(std::to_string(in.peer));
        break;
      case 'C':
        parts.push_back(std::to_string(in.counter));
        break;
      case 'V':
        parts.push_back(std::to_string(in.value));
        break;
      case 'O':
        parts.push_back(in.redop == kOpMatMul2x2 ? "matmul2x2" : OpName(in.redop));
        break;
      case 'T':
        parts.push_back(std::to_string(in.tag));
        break;
      default:
        break;
    }
  }
  std::string s = Mnemonic(in.op);
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? " " : ", ") + parts[i];
  return s;
}

std::string PrintProgram(const Program& p) {
  std::string s = "program rank " + std::to_string(p.rank) + " nranks " + std::to_string(p.nranks) +
                  " dtype " + TypeName(p.dtype) + " send " + std::to_string(p.send_bytes) +
                  " recv " + std::to_string(p.recv_bytes) + " scratch " +
                  std::to_string(p.scratch_bytes) + " shm " + std::to_string(p.shm_slot_bytes) +
                  (p.shm_banked ? " banked 1\n" : "\n");
  for (const Instr& in : p.code) s += "  " + InstrText(in) + "\n";
  return s + "end\n";
}

std::string PrintPrograms(const std::vector<Program>& ps) {
  std::string s;
  for (const Program& p : ps) s += PrintProgram(p);
  return s;
}

bool ParsePrograms(const std::string& text, std::vector<Program>* out, std::string* why) {
  out->clear();
  std::istringstream is(text);
  std::string line;
  int lineno = 0;
  Program* cur = nullptr;
  auto fail = [&](const std::string& reason) {
    *why = "line " + std::to_string(lineno) + ": " + reason;
    return false;
  };
  while (std::getline(is, line)) {
    ++lineno;
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    std::string body = line.substr(start);
    if (cur == nullptr) {
      out->emplace_back();
      cur = &out->back();
      std::string reason;
      if (!ParseHeader(body, cur, &reason)) return fail(reason);
    } else if (body == "end") {
      cur = nullptr;
    } else {
      Instr in;
      std::string reason;
      if (!ParseInstr(body, &in, &reason)) return fail(reason);
      cur->code.push_back(std::move(in));
    }
  }
  if (cur != nullptr) return fail("missing 'end'");
  if (out->empty()) return fail("no program");
  return true;
}

bool ParseProgram(const std::string& text, Program* out, std::string* why) {
  std::vector<Program> ps;
  if (!ParsePrograms(text, &ps, why)) return false;
  if (ps.size() != 1) {
    *why = "expected one program, found " + std::to_string(ps.size());
    return false;
  }
  *out = std::move(ps[0]);
  return true;
}

}  // namespace weft::ir
