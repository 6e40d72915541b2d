// A minimal XML 1.0 well-formedness checker and tree builder for the JUnit tests: the XML
// declaration, elements, attributes (quoted, unique), character and entity references, comments,
// balanced tags, one root. Not a validating parser: it is enough to prove a CI system can read
// the JUnit file and to count testsuite/testcase/failure elements. Header-only (used by tests/cli).
#pragma once

#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ampscope::testing {

struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attributes;  // values with references decoded
  std::vector<XmlNode> children;
  std::string text;  // concatenated character data, references decoded

  std::vector<const XmlNode*> Children(const std::string& child_name) const {
    std::vector<const XmlNode*> out;
    for (const XmlNode& c : children)
      if (c.name == child_name) out.push_back(&c);
    return out;
  }
  std::string Attr(const std::string& key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? std::string() : it->second;
  }
};

class XmlChecker {
 public:
  // Returns true and fills *root when `text` is well-formed; otherwise false with *error set.
  static bool Parse(const std::string& text, XmlNode* root, std::string* error) {
    XmlChecker p(text);
    if (!p.Document(root)) {
      *error = p.error_ + " at byte " + std::to_string(p.pos_);
      return false;
    }
    return true;
  }

 private:
  explicit XmlChecker(const std::string& text) : s_(text) {}

  bool Fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return false;
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  bool StartsWith(const char* prefix) const { return s_.compare(pos_, std::char_traits<char>::length(prefix), prefix) == 0; }
  void SkipSpace() {
    while (!AtEnd() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  static bool NameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
  static bool NameChar(char c) {
    return NameStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
  }
  bool Name(std::string* out) {
    if (AtEnd() || !NameStart(s_[pos_])) return Fail("expected a name");
    size_t start = pos_;
    while (!AtEnd() && NameChar(s_[pos_])) ++pos_;
    *out = s_.substr(start, pos_ - start);
    return true;
  }
  // After '&': an entity or character reference up to ';'.
  bool Reference(std::string* out) {
    size_t semi = s_.find(';', pos_);
    if (semi == std::string::npos || semi - pos_ > 10) return Fail("unterminated reference");
    std::string ref = s_.substr(pos_, semi - pos_);
    static const std::map<std::string, std::string> kEntities = {
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
    if (auto it = kEntities.find(ref); it != kEntities.end()) {
      *out += it->second;
    } else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string digits = ref.substr(hex ? 2 : 1);
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        return Fail("bad character reference &" + ref + ";");
      const unsigned long code = std::stoul(digits, nullptr, hex ? 16 : 10);
      const bool allowed = code == 0x9 || code == 0xA || code == 0xD || (code >= 0x20 && code <= 0x10FFFF);
      if (!allowed) return Fail("character reference to a character XML 1.0 forbids");
      *out += code < 0x80 ? std::string(1, static_cast<char>(code)) : std::string("?");
    } else {
      return Fail("unknown entity &" + ref + ";");
    }
    pos_ = semi + 1;
    return true;
  }
  // Raw characters XML 1.0 forbids (C0 controls other than tab, LF, CR).
  bool CheckChar(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r') return Fail("control character in document");
    return true;
  }
  bool Comment() {  // after "<!--"
    size_t end = s_.find("-->", pos_);
    if (end == std::string::npos) return Fail("unterminated comment");
    pos_ = end + 3;
    return true;
  }
  bool Misc() {  // whitespace and comments between top-level constructs
    for (;;) {
      SkipSpace();
      if (StartsWith("<!--")) {
        pos_ += 4;
        if (!Comment()) return false;
        continue;
      }
      return true;
    }
  }
  bool Document(XmlNode* root) {
    if (StartsWith("\xEF\xBB\xBF")) pos_ += 3;
    if (StartsWith("<?xml")) {
      size_t end = s_.find("?>", pos_);
      if (end == std::string::npos) return Fail("unterminated XML declaration");
      pos_ = end + 2;
    }
    if (!Misc()) return false;
    if (!StartsWith("<")) return Fail("expected the root element");
    if (!Element(root)) return false;
    if (!Misc()) return false;
    if (!AtEnd()) return Fail("content after the root element");
    return true;
  }
  bool Element(XmlNode* node) {
    ++pos_;  // '<'
    if (!Name(&node->name)) return false;
    for (;;) {
      const size_t before = pos_;
      SkipSpace();
      if (AtEnd()) return Fail("unterminated start tag");
      if (StartsWith("/>")) {
        pos_ += 2;
        return true;
      }
      if (s_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (pos_ == before) return Fail("expected whitespace before an attribute");
      std::string key, value;
      if (!Name(&key)) return false;
      SkipSpace();
      if (AtEnd() || s_[pos_] != '=') return Fail("expected '=' after attribute " + key);
      ++pos_;
      SkipSpace();
      if (AtEnd() || (s_[pos_] != '"' && s_[pos_] != '\'')) return Fail("unquoted attribute value");
      const char quote = s_[pos_++];
      for (;;) {
        if (AtEnd()) return Fail("unterminated attribute value");
        const char c = s_[pos_];
        if (c == quote) {
          ++pos_;
          break;
        }
        if (c == '<') return Fail("'<' in attribute value");
        if (!CheckChar(c)) return false;
        if (c == '&') {
          ++pos_;
          if (!Reference(&value)) return false;
          continue;
        }
        value += c;
        ++pos_;
      }
      if (!node->attributes.emplace(key, value).second) return Fail("duplicate attribute " + key);
    }
    // Content until the matching end tag.
    for (;;) {
      if (AtEnd()) return Fail("missing end tag </" + node->name + ">");
      if (StartsWith("</")) {
        pos_ += 2;
        std::string name;
        if (!Name(&name)) return false;
        if (name != node->name) return Fail("end tag </" + name + "> does not match <" + node->name + ">");
        SkipSpace();
        if (AtEnd() || s_[pos_] != '>') return Fail("unterminated end tag");
        ++pos_;
        return true;
      }
      if (StartsWith("<!--")) {
        pos_ += 4;
        if (!Comment()) return false;
        continue;
      }
      if (StartsWith("<![CDATA[")) {
        size_t end = s_.find("]]>", pos_);
        if (end == std::string::npos) return Fail("unterminated CDATA");
        node->text += s_.substr(pos_ + 9, end - pos_ - 9);
        pos_ = end + 3;
        continue;
      }
      const char c = s_[pos_];
      if (c == '<') {
        node->children.emplace_back();
        if (!Element(&node->children.back())) return false;
        continue;
      }
      if (!CheckChar(c)) return false;
      if (c == '&') {
        ++pos_;
        if (!Reference(&node->text)) return false;
        continue;
      }
      if (c == '>' && pos_ >= 2 && s_.compare(pos_ - 2, 2, "]]") == 0) return Fail("']]>' in character data");
      node->text += c;
      ++pos_;
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace ampscope::testing
