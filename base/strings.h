// String helpers every layer uses. No allocation unless the function returns a std::string.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ampscope {

inline bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}
inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
inline bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Columns a UTF-8 string takes in a terminal or a fixed-width table: a code point takes 1,
// East Asian wide characters and most emoji 2 (Unicode's EastAsianWidth W/F ranges that
// matter for names and our symbols), combining marks, zero-width characters, C0/C1 controls
// and ANSI CSI sequences (ESC [ ... final byte: colour codes) 0. A byte that does not start a
// well-formed sequence takes 1 (a terminal shows it as U+FFFD).
size_t DisplayWidth(std::string_view s);
// Bytes of the longest prefix of `s` at most `columns` wide; it never ends inside a UTF-8 or
// ANSI sequence (cutting and wrapping text to a width).
size_t DisplayPrefixBytes(std::string_view s, size_t columns);

// Length of the well-formed UTF-8 sequence that starts at s[i] (1 to 4), or 0 if the bytes
// there are not one: a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate (U+D800..U+DFFF) or a code point above U+10FFFF (Unicode 15, table 3-7).
size_t Utf8SequenceLength(std::string_view s, size_t i);

// `s` with every byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD
// (one replacement character per bad byte). JSON must be valid UTF-8, and names and
// arguments from traces and command lines need not be: every JSON writer passes its text
// through this (or an equivalent escaper) so that nlohmann's dump cannot throw type_error 316.
std::string SanitizeUtf8(std::string_view s);
// True if `s` is entirely well-formed UTF-8 (then SanitizeUtf8(s) == s).
bool IsValidUtf8(std::string_view s);

}  // namespace ampscope
