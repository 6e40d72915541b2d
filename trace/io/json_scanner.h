// A restartable JSON tokenizer over one contiguous window of a chunked input.
//
// The streaming readers parse the input in "units" (one trace event, one top-level member).
// A Scanner works on the bytes buffered so far; when a unit runs past the end of the window
// it answers kNeedMore, the reader buffers more input and parses the unit again from its
// start. Nothing of a unit is acted on before it is complete, so where chunk boundaries fall
// never changes the result.
//
// Values are views into the window: numbers as their text, strings as the raw bytes between
// the quotes (DecodeString undoes escapes), objects and arrays as their whole raw text.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ampscope::json {

// The first '"' or '\\' in [p, end), or `end`. Strings are most of a trace's bytes (kernel
// names, call stacks), so this runs 16 bytes at a time where SSE2 is available.
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

enum class Result : uint8_t { kOk, kNeedMore, kError };

enum class Kind : uint8_t { kNone, kNull, kBool, kNumber, kString, kObject, kArray };
const char* KindName(Kind k);  // "null", "a boolean", "a number", "a string", "an object", "an array"

struct Value {
  Kind kind = Kind::kNone;
  bool escaped = false;        // kString: contains backslash escapes
  bool bool_value = false;     // kBool
  std::string_view text;       // see the header comment
  const char* where = nullptr; // first byte of the value, for error offsets
};

class Scanner {
 public:
  Scanner(const char* begin, const char* end) : p_(begin), end_(end) {}

  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }
  const char* end() const { return end_; }

  // Skips JSON whitespace. False when the window ends first.
  bool SkipWs() {
    while (p_ < end_) {
      char c = *p_;
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return true;
      ++p_;
    }
    return false;
  }
  // Next byte after whitespace, or kNeedMore.
  Result Peek(char* c) {
    if (!SkipWs()) return Result::kNeedMore;
    *c = *p_;
    return Result::kOk;
  }
  void Advance() { ++p_; }

  // At '"': a string. Fast path: no escapes before the closing quote.
  Result ParseString(Value* v) {
    const char* start = p_ + 1;
    const char* q = FindQuoteOrBackslash(start, end_);
    if (q == end_) return Result::kNeedMore;
    if (*q == '"') {
      v->kind = Kind::kString;
      v->escaped = false;
      v->text = std::string_view(start, static_cast<size_t>(q - start));
      v->where = p_;
      p_ = q + 1;
      return Result::kOk;
    }
    return ParseEscapedString(v);
  }

  // Any value at the current position (after whitespace). Objects and arrays are skipped
  // over and captured whole.
  Result ParseValue(Value* v);

  // Object member prologue: after '{' or a previous member. Sets *done at '}' (consumed);
  // otherwise reads `"key" :` and leaves the position at the value.
  Result NextMember(bool first, Value* key, bool* done);
  // Array element prologue: after '[' or a previous element. Sets *done at ']' (consumed).
  Result NextElement(bool first, bool* done);

  // The error of the last kError: where and what was expected.
  const char* error_at() const { return error_at_; }
  const std::string& error() const { return error_; }
  Result Fail(const char* at, std::string what) {
    error_at_ = at;
    error_ = std::move(what);
    return Result::kError;
  }
  // "'x'", "end of input" or "byte 0x.." for messages.
  std::string Describe(const char* at) const;

 private:
  Result ParseEscapedString(Value* v);
  Result ParseNumber(Value* v);
  Result ParseLiteral(Value* v);
  Result SkipComposite(Value* v);

  const char* p_;
  const char* end_;
  const char* error_at_ = nullptr;
  std::string error_;
};

// Undoes JSON escapes (\n, \", \uXXXX with surrogate pairs -> UTF-8). False on a bad escape.
bool DecodeString(std::string_view raw, std::string* out);
// Integer-valued JSON number text to int64 ("12", "-3", also "12.0" or "1.2e1"). False if not
// an integer or out of range.
bool ParseInt64(std::string_view text, int64_t* out);
// JSON number text (also NaN / Infinity as Python writes them) to double.
bool ParseDouble(std::string_view text, double* out);
// Raw JSON text without insignificant whitespace: "[[32, 64], [64]]" -> "[[32,64],[64]]".
void CompactJson(std::string_view raw, std::string* out);

}  // namespace ampscope::json
