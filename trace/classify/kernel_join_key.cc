#include "trace/classify/kernel_join_key.h"

#include <cctype>
#include <string_view>

namespace ampscope {

namespace {

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Drops a trailing "(...)" parameter list (balanced), if the name ends with one.
std::string_view WithoutParameters(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      // "(anonymous namespace)" or a cast is not a parameter list: a parameter list follows a name
      // or a template's '>'.
      if (i == 0 || !(IsIdent(s[i - 1]) || s[i - 1] == '>' || s[i - 1] == ' ')) return s;
      return s.substr(0, i);
    }
  }
  return s;
}

// Removes the qualifier that ends `out` (called at a "::"): an identifier, a template-id
// ("Foo<int>"), "(anonymous namespace)", "<unnamed>" or Nsight Compute's "unnamed>".
void DropQualifier(std::string& out) {
  for (std::string_view anon : {"(anonymous namespace)", "<unnamed>", "unnamed>"}) {
    if (out.size() >= anon.size() && std::string_view(out).substr(out.size() - anon.size()) == anon) {
      out.resize(out.size() - anon.size());
      return;
    }
  }
  if (!out.empty() && out.back() == '>') {  // a template-id: back to its '<'
    int depth = 0;
    size_t i = out.size();
    while (i-- > 0) {
      if (out[i] == '>') ++depth;
      if (out[i] == '<' && --depth == 0) break;
    }
    if (i == std::string::npos || i >= out.size()) return;
    out.resize(i);
  }
  while (!out.empty() && IsIdent(out.back())) out.pop_back();
}

constexpr std::string_view kCasts[] = {"(unsigned long long)", "(unsigned long)", "(unsigned int)", "(unsigned short)",
                                       "(unsigned char)", "(signed char)", "(long long)", "(unsigned)", "(long)",
                                       "(int)", "(short)", "(char)", "(bool)"};

}  // namespace

std::string KernelJoinKey(std::string_view name) {
  name = WithoutParameters(name);
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (name.compare(i, 2, "::") == 0) {
      DropQualifier(out);
      i += 2;
      continue;
    }
    bool cast = false;
    if (name[i] == '(')
      for (std::string_view c : kCasts)
        if (name.compare(i, c.size(), c) == 0) {
          i += c.size();
          cast = true;
          break;
        }
    if (cast) continue;
    const char c = name[i];
    if (c == ' ' || c == '\t') {
      // Keep one space only between two word characters ("unsigned int", "void foo").
      size_t j = i;
      while (j < name.size() && (name[j] == ' ' || name[j] == '\t')) ++j;
      if (!out.empty() && IsIdent(out.back()) && j < name.size() && IsIdent(name[j])) out.push_back(' ');
      i = j;
      continue;
    }
    // An integer suffix (3ul, 4u, 128UL) after a number that starts a word.
    if ((c == 'u' || c == 'U' || c == 'l' || c == 'L') && !out.empty() &&
        std::isdigit(static_cast<unsigned char>(out.back()))) {
      size_t k = out.size();
      while (k > 0 && std::isdigit(static_cast<unsigned char>(out[k - 1]))) --k;
      size_t j = i;
      while (j < name.size() && (name[j] == 'u' || name[j] == 'U' || name[j] == 'l' || name[j] == 'L')) ++j;
      if ((k == 0 || !IsIdent(out[k - 1])) && (j == name.size() || !IsIdent(name[j]))) {
        i = j;
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  if (out.compare(0, 5, "void ") == 0) out.erase(0, 5);
  return out;
}

std::string KernelBaseName(std::string_view key) {
  // The last identifier at template depth 0.
  int depth = 0;
  std::string last, current;
  for (char c : key) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') depth = depth > 0 ? depth - 1 : 0;
    if (depth == 0 && IsIdent(c)) {
      current.push_back(c);
    } else if (!current.empty()) {
      last = std::move(current);
      current.clear();
    }
  }
  return current.empty() ? last : current;
}

}  // namespace ampscope
