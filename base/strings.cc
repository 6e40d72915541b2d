#include "base/strings.h"

#include <cstdint>

namespace ampscope {

namespace {

// The code point of the well-formed sequence of `n` bytes at s[i].
char32_t CodePointAt(std::string_view s, size_t i, size_t n) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

// Columns of one code point (a small wcwidth).
size_t CodePointWidth(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return 0;  // controls print nothing useful
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
      (cp >= 0x20D0 && cp <= 0x20FF))
    return 0;  // combining marks, zero-width spaces, variation selectors
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;  // East Asian wide and emoji
  return 1;
}

// Length of an ANSI CSI sequence (ESC [ ... final byte 0x40..0x7E) at s[i], or 0.
size_t AnsiLength(std::string_view s, size_t i) {
  if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return 0;
  size_t j = i + 2;
  while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
  return j < s.size() ? j - i + 1 : s.size() - i;
}

// Walks `s` in display units (an ANSI sequence, or one UTF-8 sequence or bad byte), stopping
// before the unit that would make the width exceed `columns`. Returns the bytes walked.
size_t WalkColumns(std::string_view s, size_t columns, size_t* width) {
  size_t w = 0, i = 0;
  while (i < s.size()) {
    if (size_t a = AnsiLength(s, i)) {
      i += a;
      continue;
    }
    const size_t n = Utf8SequenceLength(s, i);
    const size_t cw = n == 0 ? 1 : CodePointWidth(CodePointAt(s, i, n));
    if (w + cw > columns) break;
    w += cw;
    i += n == 0 ? 1 : n;
  }
  *width = w;
  return i;
}

}  // namespace

size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  WalkColumns(s, static_cast<size_t>(-1), &w);
  return w;
}

size_t DisplayPrefixBytes(std::string_view s, size_t columns) {
  size_t w = 0;
  return WalkColumns(s, columns, &w);
}


size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;  // 0x80..0xC1 (continuation or overlong 2-byte lead) and 0xF5..0xFF
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;  // overlong / too big
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                                            // surrogates
  return n;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string SanitizeUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace ampscope
