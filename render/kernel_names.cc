#include "render/kernel_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "base/strings.h"

namespace ampscope::render {

namespace {

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsOpen(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
bool IsClose(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

// Splits at `sep` where no bracket is open. A name cut short leaves brackets open: the rest is
// then one piece, which is what a reader of the cut name sees too.
std::vector<std::string_view> SplitTop(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // "operator()" and "operator<" are names, not brackets.
    if (c == '(' && i + 1 < s.size() && s[i + 1] == ')' && i >= 8 && s.substr(i - 8, 8) == "operator") {
      ++i;
      continue;
    }
    if (IsOpen(c)) {
      ++depth;
    } else if (IsClose(c)) {
      if (depth > 0) --depth;
    } else if (depth == 0 && s.substr(i, sep.size()) == sep) {
      out.push_back(s.substr(start, i - start));
      i += sep.size() - 1;
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// The content between the bracket at s[open] and its match (or the end of a cut name).
std::string_view Inside(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(' && i + 1 < s.size() && s[i + 1] == ')' && i >= 8 && s.substr(i - 8, 8) == "operator") {
      ++i;
      continue;
    }
    if (IsOpen(s[i])) ++depth;
    if (IsClose(s[i]) && --depth == 0) return s.substr(open + 1, i - open - 1);
  }
  return s.substr(open + 1);
}

bool IsLiteral(std::string_view s) {
  if (s == "true" || s == "false") return true;
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i >= s.size() || !(s[i] >= '0' && s[i] <= '9')) return false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x' || c == '.' ||
          c == 'u' || c == 'U' || c == 'l' || c == 'L'))
      return false;
  }
  return true;
}

// Removes casts on literals ("(int)128" -> "128", "(cudnnKernelDataType_t)2" -> "2") and the
// spellings of anonymous namespaces.
std::string Normalize(std::string_view in) {
  std::string s(in);
  for (std::string_view anon : {"(anonymous namespace)::", "<unnamed>::", "{anonymous}::"}) {
    for (size_t p = s.find(anon); p != std::string::npos; p = s.find(anon, p)) s.erase(p, anon.size());
  }
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') {
      size_t close = s.find(')', i);
      if (close != std::string::npos && close + 1 < s.size() &&
          ((s[close + 1] >= '0' && s[close + 1] <= '9') || s[close + 1] == '-')) {
        std::string_view type(s.data() + i + 1, close - i - 1);
        bool simple = !type.empty() && std::all_of(type.begin(), type.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ' ' ||
                 c == ':';
        });
        if (simple) {
          i = close;
          continue;
        }
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

struct Node {
  std::string head;   // unqualified name ("MulFunctor")
  std::string outer;  // outermost namespace ("at", "cudnn"), empty when none
  std::vector<Node> args;
  bool literal = false;  // a number, bool or "...": dropped
  bool op = false;       // names an operation (functor, lambda's function)
};

bool OpLikeName(const Node& n) {
  const std::string& h = n.head;
  if (h.find("Functor") != std::string::npos || h.find("functor") != std::string::npos) return true;
  if (EndsWith(h, "Op") || EndsWith(h, "Ops") || EndsWith(h, "_op")) return true;
  static const char* const kStdOps[] = {"plus",      "minus",      "multiplies", "divides",       "modulus",
                                        "negate",    "equal_to",   "not_equal_to", "greater",     "less",
                                        "greater_equal", "less_equal", "logical_and", "logical_or", "logical_not",
                                        "bit_and",   "bit_or",     "bit_xor",    "maximum",       "minimum"};
  return n.outer == "std" && std::find(std::begin(kStdOps), std::end(kStdOps), h) != std::end(kStdOps);
}

Node ParseEntity(std::string_view s, int depth);

// "name<args>(params) const": the name and its template arguments.
Node ParseComponent(std::string_view c, int depth) {
  Node n;
  c = TrimView(c);
  size_t open = std::string_view::npos;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] == '<' || c[i] == '(') {
      if (c[i] == '(' && i >= 8 && c.substr(i - 8, 8) == "operator") continue;
      open = i;
      break;
    }
  }
  n.head = std::string(TrimView(c.substr(0, open)));
  if (open != std::string_view::npos && c[open] == '<' && depth < 8)
    for (std::string_view a : SplitTop(Inside(c, open), ",")) n.args.push_back(ParseEntity(a, depth + 1));
  return n;
}

std::optional<Node> FindOp(const Node& n);

std::optional<Node> FirstOp(const std::vector<Node>& args) {
  for (const Node& a : args)
    if (auto op = FindOp(a)) return op;
  return std::nullopt;
}

// The innermost operation in `n`: ReduceOp<float, MeanOps<float, float>, ...> -> MeanOps<...>.
std::optional<Node> FindOp(const Node& n) {
  if (n.literal) return std::nullopt;
  if (auto inner = FirstOp(n.args)) return inner;
  if (n.op) return n;
  return std::nullopt;
}

Node ParseEntity(std::string_view s, int depth) {
  s = TrimView(s);
  Node n;
  if (s.empty() || IsLiteral(s)) {
    n.literal = true;
    return n;
  }
  // A name cut short ("at::native::fun..."): what is left of the cut identifier says nothing;
  // the reader sees "…" in its place. ("...<..." keeps its head: the cut is further in.)
  if (EndsWith(s, "...") && s.find_first_of("<(") == std::string_view::npos) {
    n.head = "\xE2\x80\xA6";
    return n;
  }
  std::vector<std::string_view> comps = SplitTop(s, "::");
  for (std::string_view& c : comps) c = TrimView(c);
  // A lambda is named by the function it is defined in: the component before the first lambda,
  // or, for a lambda in operator(), the class that operator belongs to.
  for (size_t i = 0; i < comps.size(); ++i) {
    if (!(StartsWith(comps[i], "{lambda") || StartsWith(comps[i], "[lambda"))) continue;
    size_t j = i;
    while (j > 0 && StartsWith(comps[j - 1], "operator")) --j;
    if (j == 0) break;
    Node fn = ParseComponent(comps[j - 1], depth);
    if (auto op = FirstOp(fn.args)) return *op;
    fn.op = true;
    fn.outer.clear();
    return fn;
  }
  n = ParseComponent(comps.back(), depth);
  if (comps.size() > 1) n.outer = std::string(TrimView(comps.front()));
  n.op = OpLikeName(n);
  return n;
}

std::string Render(const Node& n, int level) {
  std::string out = n.head;
  std::vector<const Node*> args;
  for (const Node& a : n.args)
    if (!a.literal) args.push_back(&a);
  if (args.empty()) return out;
  if (level >= 2) return out + "<\xE2\x80\xA6>";
  out += "<";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + Render(*args[i], level + 1);
  return out + ">";
}

// <length><identifier>... from s[*pos] (Itanium ABI source names), skipping substitutions (S_,
// S0_) and the nested-name marker N. Stops at anything else.
std::vector<std::string> SourceNames(std::string_view s, size_t* pos) {
  std::vector<std::string> names;
  size_t i = *pos;
  while (i < s.size()) {
    if (s[i] == 'N') {
      ++i;
    } else if (s[i] == 'S') {
      size_t u = s.find('_', i);
      if (u == std::string_view::npos || u - i > 4) break;
      i = u + 1;
    } else if (s[i] >= '1' && s[i] <= '9') {
      size_t len = 0;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') len = len * 10 + static_cast<size_t>(s[i++] - '0');
      if (len == 0 || i + len > s.size()) break;
      names.emplace_back(s.substr(i, len));
      i += len;
    } else {
      break;
    }
  }
  *pos = i;
  return names;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : "::") + n;
  return out;
}

std::string Demangle(std::string_view name) {
  if (!StartsWith(name, "_Z")) return std::string(name);
  int status = 0;
  std::string mangled(name);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && out) return std::string(out.get());
  // A mangled name cut short (profilers cut long names): read the qualified name and the first
  // template argument's name, as far as they go ("cutlass_cudnn_train::Kernel<conv::kernel::
  // ImplicitGemmConvolution<...>>").
  size_t pos = 2;
  std::vector<std::string> head = SourceNames(name, &pos);
  if (head.empty()) return mangled;
  std::string text = Join(head);
  if (pos < name.size() && name[pos] == 'I') {
    ++pos;
    std::vector<std::string> arg = SourceNames(name, &pos);
    const bool arg_has_args = pos < name.size() && name[pos] == 'I';
    text += "<" + (arg.empty() ? std::string("...") : Join(arg) + (arg_has_args ? "<...>" : "")) + ">";
  }
  return text;
}

}  // namespace

std::string ShortKernelName(std::string_view name) {
  std::string full = Normalize(Demangle(TrimView(name)));
  std::string_view s = full;
  if (StartsWith(s, "void ")) s.remove_prefix(5);
  Node top = ParseEntity(s, 0);
  if (top.literal || top.head.empty()) return std::string(TrimView(name));
  // Generic wrappers: the real kernel is the argument.
  std::vector<const Node*> types;
  for (const Node& a : top.args)
    if (!a.literal) types.push_back(&a);
  if ((top.head == "Kernel" || top.head == "Kernel2" || top.head == "device_kernel") && types.size() == 1)
    return Render(*types[0], 0);
  std::string head = top.head;
  // A library's namespace says which library the kernel is from; PyTorch's and std's do not.
  if (!top.outer.empty() && top.outer != "at" && top.outer != "c10" && top.outer != "std" && top.outer != "torch")
    head = top.outer + "::" + head;
  std::vector<Node> ops;
  for (const Node* a : types)
    if (auto op = FindOp(*a)) ops.push_back(*op);
  Node shown;
  shown.head = head;
  if (!ops.empty()) {
    shown.args = ops;
  } else {
    for (const Node* a : types) shown.args.push_back(*a);
  }
  return Render(shown, 0);
}

namespace {

// The words of a name: runs of letters, digits and '_' (separators are not words).
std::vector<std::string> NameWords(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    const bool in_word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (in_word) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

}  // namespace

std::vector<std::string> DistinctShortNames(const std::vector<std::string>& full_names) {
  std::vector<std::string> out;
  out.reserve(full_names.size());
  for (const std::string& n : full_names) out.push_back(ShortKernelName(n));
  std::map<std::string, std::vector<size_t>> by_short;
  for (size_t i = 0; i < out.size(); ++i) by_short[out[i]].push_back(i);
  for (const auto& [short_name, rows] : by_short) {
    // The distinct full names behind this short name, in first-seen order.
    std::vector<std::string> distinct;
    for (size_t i : rows)
      if (std::find(distinct.begin(), distinct.end(), full_names[i]) == distinct.end()) distinct.push_back(full_names[i]);
    if (distinct.size() < 2) continue;
    std::vector<std::vector<std::string>> words;
    size_t longest = 0;
    for (const std::string& n : distinct) {
      words.push_back(NameWords(n));
      longest = std::max(longest, words.back().size());
    }
    // Word positions where the names differ (a missing word differs too).
    std::vector<size_t> differing;
    for (size_t p = 0; p < longest; ++p) {
      for (size_t k = 1; k < words.size(); ++k) {
        const std::string* a = p < words[0].size() ? &words[0][p] : nullptr;
        const std::string* b = p < words[k].size() ? &words[k][p] : nullptr;
        if (a == nullptr || b == nullptr || *a != *b) {
          differing.push_back(p);
          break;
        }
      }
    }
    std::vector<std::string> suffix(distinct.size());
    std::set<std::string> seen;
    bool told_apart = differing.size() <= 4;
    for (size_t k = 0; k < distinct.size() && told_apart; ++k) {
      std::string s;
      for (size_t p : differing) s += (s.empty() ? "" : " ") + (p < words[k].size() ? words[k][p] : std::string("-"));
      suffix[k] = " [" + s + "]";
      told_apart = seen.insert(s).second;
    }
    for (size_t k = 0; k < distinct.size(); ++k)
      if (!told_apart) suffix[k] = " #" + std::to_string(k + 1);
    for (size_t i : rows) {
      const size_t k = static_cast<size_t>(std::find(distinct.begin(), distinct.end(), full_names[i]) - distinct.begin());
      out[i] = short_name + suffix[k];
    }
  }
  return out;
}

}  // namespace ampscope::render
