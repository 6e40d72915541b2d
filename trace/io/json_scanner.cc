#include "trace/io/json_scanner.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ampscope::json {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool Read4Hex(std::string_view s, size_t i, uint32_t* v) {
  if (i + 4 > s.size()) return false;
  uint32_t r = 0;
  for (size_t k = 0; k < 4; ++k) {
    int h = HexValue(s[i + k]);
    if (h < 0) return false;
    r = (r << 4) | static_cast<uint32_t>(h);
  }
  *v = r;
  return true;
}

}  // namespace

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
    default: return "nothing";
  }
}

std::string Scanner::Describe(const char* at) const {
  if (at >= end_) return "end of input";
  unsigned char c = static_cast<unsigned char>(*at);
  char buf[16];
  if (c >= 0x20 && c < 0x7f) {
    std::snprintf(buf, sizeof(buf), "'%c'", c);
  } else {
    std::snprintf(buf, sizeof(buf), "byte 0x%02x", c);
  }
  return buf;
}

Result Scanner::ParseEscapedString(Value* v) {
  const char* start = p_ + 1;
  const char* q = start;
  while (true) {
    if (q >= end_) return Result::kNeedMore;
    char c = *q;
    if (c == '"') break;
    if (c == '\\') {
      if (q + 1 >= end_) return Result::kNeedMore;
      q += 2;
      continue;
    }
    ++q;
  }
  v->kind = Kind::kString;
  v->escaped = true;
  v->text = std::string_view(start, static_cast<size_t>(q - start));
  v->where = p_;
  p_ = q + 1;
  return Result::kOk;
}

Result Scanner::ParseNumber(Value* v) {
  const char* q = p_;
  if (q < end_ && *q == '-') ++q;
  if (q >= end_) return Result::kNeedMore;
  if (*q == 'I') {  // -Infinity (Python's json writes it; the callers reject it as a time)
    static constexpr char kInf[] = "Infinity";
    for (size_t k = 0; k < 8; ++k, ++q) {
      if (q >= end_) return Result::kNeedMore;
      if (*q != kInf[k]) return Fail(q, "expected a JSON value, found " + Describe(p_));
    }
  } else {
    if (!IsDigit(*q)) return Fail(p_, "expected a digit in a number, found " + Describe(q));
    while (q < end_ && IsDigit(*q)) ++q;
    if (q < end_ && *q == '.') {
      ++q;
      if (q >= end_) return Result::kNeedMore;
      if (!IsDigit(*q)) return Fail(q, "expected a digit after '.' in a number, found " + Describe(q));
      while (q < end_ && IsDigit(*q)) ++q;
    }
    if (q < end_ && (*q == 'e' || *q == 'E')) {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      if (q >= end_) return Result::kNeedMore;
      if (!IsDigit(*q)) return Fail(q, "expected a digit in a number's exponent, found " + Describe(q));
      while (q < end_ && IsDigit(*q)) ++q;
    }
    // A number that touches the end of the window may continue in the next chunk.
    if (q >= end_) return Result::kNeedMore;
  }
  v->kind = Kind::kNumber;
  v->text = std::string_view(p_, static_cast<size_t>(q - p_));
  v->where = p_;
  p_ = q;
  return Result::kOk;
}

Result Scanner::ParseLiteral(Value* v) {
  struct Literal {
    const char* text;
    size_t len;
    Kind kind;
    bool value;
  };
  static constexpr Literal kLiterals[] = {
      {"true", 4, Kind::kBool, true},    {"false", 5, Kind::kBool, false}, {"null", 4, Kind::kNull, false},
      {"NaN", 3, Kind::kNumber, false},  {"Infinity", 8, Kind::kNumber, false},
  };
  for (const Literal& lit : kLiterals) {
    if (*p_ != lit.text[0]) continue;
    size_t avail = static_cast<size_t>(end_ - p_);
    size_t n = avail < lit.len ? avail : lit.len;
    if (std::memcmp(p_, lit.text, n) != 0) break;
    if (n < lit.len) return Result::kNeedMore;
    v->kind = lit.kind;
    v->bool_value = lit.value;
    v->text = std::string_view(p_, lit.len);
    v->where = p_;
    p_ += lit.len;
    return Result::kOk;
  }
  return Fail(p_, "expected a JSON value, found " + Describe(p_));
}

// Skips a whole object or array, checking bracket nesting and strings but not the finer
// grammar inside (values in skipped composites are never used as numbers).
Result Scanner::SkipComposite(Value* v) {
  // Bracket stack: nesting deeper than this is not a trace.
  constexpr int kMaxDepth = 512;
  char stack[kMaxDepth];
  int depth = 0;
  const char* q = p_;
  while (true) {
    if (q >= end_) return Result::kNeedMore;
    char c = *q;
    switch (c) {
      case '"': {
        Value s;
        const char* saved = p_;
        p_ = q;
        Result r = ParseString(&s);
        q = p_;
        p_ = saved;
        if (r != Result::kOk) return r;
        continue;
      }
      case '{':
      case '[':
        if (depth == kMaxDepth) return Fail(q, "JSON nested too deeply");
        stack[depth++] = c == '{' ? '}' : ']';
        break;
      case '}':
      case ']':
        if (depth > 0 && stack[depth - 1] != c)
          return Fail(q, std::string("expected '") + stack[depth - 1] + "', found '" + c + "' (mismatched brackets)");
        if (--depth == 0) {
          ++q;
          v->kind = stack[0] == '}' ? Kind::kObject : Kind::kArray;
          v->text = std::string_view(p_, static_cast<size_t>(q - p_));
          v->where = p_;
          p_ = q;
          return Result::kOk;
        }
        break;
      default:
        break;
    }
    ++q;
  }
}

Result Scanner::ParseValue(Value* v) {
  if (!SkipWs()) return Result::kNeedMore;
  v->escaped = false;
  char c = *p_;
  if (c == '"') return ParseString(v);
  if (c == '-' || IsDigit(c)) return ParseNumber(v);
  if (c == '{' || c == '[') return SkipComposite(v);
  return ParseLiteral(v);
}

Result Scanner::NextMember(bool first, Value* key, bool* done) {
  if (!SkipWs()) return Result::kNeedMore;
  char c = *p_;
  if (c == '}') {
    ++p_;
    *done = true;
    return Result::kOk;
  }
  if (!first) {
    if (c != ',') return Fail(p_, "expected ',' or '}' after an object member, found " + Describe(p_));
    ++p_;
    if (!SkipWs()) return Result::kNeedMore;
    c = *p_;
  }
  if (c != '"') return Fail(p_, "expected a member name (a string) in an object, found " + Describe(p_));
  Result r = ParseString(key);
  if (r != Result::kOk) return r;
  if (!SkipWs()) return Result::kNeedMore;
  if (*p_ != ':') return Fail(p_, "expected ':' after a member name, found " + Describe(p_));
  ++p_;
  if (!SkipWs()) return Result::kNeedMore;
  *done = false;
  return Result::kOk;
}

Result Scanner::NextElement(bool first, bool* done) {
  if (!SkipWs()) return Result::kNeedMore;
  char c = *p_;
  if (c == ']') {
    ++p_;
    *done = true;
    return Result::kOk;
  }
  if (!first) {
    if (c != ',') return Fail(p_, "expected ',' or ']' after an array element, found " + Describe(p_));
    ++p_;
    if (!SkipWs()) return Result::kNeedMore;
  }
  *done = false;
  return Result::kOk;
}

bool DecodeString(std::string_view raw, std::string* out) {
  out->clear();
  out->reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i >= raw.size()) return false;
    switch (raw[i]) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case '/': out->push_back('/'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'u': {
        uint32_t cp;
        if (!Read4Hex(raw, i + 1, &cp)) return false;
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00) {  // high surrogate: a low one must follow
          uint32_t lo;
          if (i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u' && Read4Hex(raw, i + 3, &lo) &&
              lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;  // lone surrogate: the replacement character
          }
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          cp = 0xFFFD;
        }
        AppendUtf8(cp, out);
        break;
      }
      default: return false;
    }
  }
  return true;
}

bool ParseInt64(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = b + text.size();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec == std::errc() && ptr == e) {
    *out = v;
    return true;
  }
  // "12.0" or "1.2e1": accept when the value is an exact integer.
  double d;
  if (!ParseDouble(text, &d) || !std::isfinite(d) || d != std::floor(d)) return false;
  if (d < -9.2e18 || d > 9.2e18) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool ParseDouble(std::string_view text, double* out) {
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [ptr, ec] = std::from_chars(b, e, *out);
  if (ec == std::errc() && ptr == e) return true;
  if (ec == std::errc::result_out_of_range && ptr == e) {
    *out = text[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

void CompactJson(std::string_view raw, std::string* out) {
  out->clear();
  out->reserve(raw.size());
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (in_string) {
      out->push_back(c);
      if (c == '\\' && i + 1 < raw.size()) {
        out->push_back(raw[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '"') in_string = true;
    out->push_back(c);
  }
}

}  // namespace ampscope::json
