// base/strings.h. Expected values are worked out by hand from the UTF-8 definition (Unicode 15,
// table 3-7 "Well-Formed UTF-8 Byte Sequences").
#include "base/strings.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ampscope {
namespace strings_test {
namespace {

TEST(Strings, PrefixSuffixContains) {
  EXPECT_TRUE(StartsWith("cudaMemcpyAsync", "cudaMemcpy"));
  EXPECT_FALSE(StartsWith("cuda", "cudaMemcpy"));
  EXPECT_TRUE(StartsWith("x", ""));
  EXPECT_TRUE(EndsWith("a.amptrace", ".amptrace"));
  EXPECT_FALSE(EndsWith("amptrace", ".amptrace"));
  EXPECT_TRUE(Contains("multi_tensor_apply_kernel", "tensor_apply"));
  EXPECT_FALSE(Contains("abc", "abcd"));
}

// Terminal columns: Unicode's EastAsianWidth.txt gives U+65E5/U+672C (日本) and U+1F534 (🔴)
// width W, U+0301 is a combining mark (general category Mn), ESC [ ... m is an ECMA-48 CSI
// sequence that a terminal does not print.
TEST(Strings, DisplayWidthIsTerminalColumns) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("\xC3\xA9t\xC3\xA9"), 3u);            // "été": 2 two-byte code points + 't'
  EXPECT_EQ(DisplayWidth("\xE2\x80\xA6"), 1u);                   // "…" U+2026, three bytes
  EXPECT_EQ(DisplayWidth("\xE2\x89\xA5" "70%"), 4u);             // ≥ is one column
  EXPECT_EQ(DisplayWidth("12 \xC2\xB5s"), 5u);                   // µ
  EXPECT_EQ(DisplayWidth("\xE6\x97\xA5\xE6\x9C\xAC"), 4u);       // 日本: wide, 2 each
  EXPECT_EQ(DisplayWidth("\xF0\x9F\x94\xB4 x"), 4u);             // 🔴 (2), a space, 'x'
  EXPECT_EQ(DisplayWidth("\x1b[31mFAIL\x1b[0m"), 4u);            // colour codes: no width
  EXPECT_EQ(DisplayWidth("e\xCC\x81"), 1u);                      // e + combining acute
  EXPECT_EQ(DisplayWidth("a\x80" "b"), 3u);                      // a stray continuation byte shows as U+FFFD
}

TEST(Strings, DisplayPrefixBytesNeverSplitsASequence) {
  EXPECT_EQ(DisplayPrefixBytes("abcdef", 4), 4u);
  EXPECT_EQ(DisplayPrefixBytes("ab", 4), 2u);
  EXPECT_EQ(DisplayPrefixBytes("\xE6\x97\xA5\xE6\x9C\xAC", 3), 3u);  // one wide character fits in 3 columns
  EXPECT_EQ(DisplayPrefixBytes("\x1b[31mFAIL", 2), 7u);           // the colour code and "FA"
  EXPECT_EQ(DisplayPrefixBytes("\xC3\xA9t", 1), 2u);               // "é", not half of it
  EXPECT_EQ(DisplayPrefixBytes("abc", 0), 0u);
}

TEST(Strings, Utf8SequenceLengthFollowsTable3_7) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x80\xA6", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xF4\x8F\xBF\xBF", 0), 4u);  // U+10FFFF, the last code point
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // a lone continuation byte
  EXPECT_EQ(Utf8SequenceLength("\xC0\x80", 0), 0u);          // overlong NUL
  EXPECT_EQ(Utf8SequenceLength("\xE0\x80\xAF", 0), 0u);      // overlong '/'
  EXPECT_EQ(Utf8SequenceLength("\xED\xA0\x80", 0), 0u);      // U+D800, a surrogate
  EXPECT_EQ(Utf8SequenceLength("\xF4\x90\x80\x80", 0), 0u);  // U+110000, beyond Unicode
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82", 0), 0u);          // truncated
  EXPECT_EQ(Utf8SequenceLength("\xFF", 0), 0u);
}

TEST(Strings, SanitizeUtf8ReplacesEachBadByte) {
  const std::string kFffd = "\xEF\xBF\xBD";
  EXPECT_EQ(SanitizeUtf8("plain"), "plain");
  EXPECT_EQ(SanitizeUtf8("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");
  // The bytes of issue 16's kernel name: two bad bytes, two replacement characters.
  EXPECT_EQ(SanitizeUtf8("k\xff\xfe_x"), "k" + kFffd + kFffd + "_x");
  // One replacement per bad byte (as the Chrome trace writer has always done), so a truncated
  // 3-byte sequence gives two; the byte after it is kept.
  EXPECT_EQ(SanitizeUtf8("\xE2\x82" "A"), kFffd + kFffd + "A");
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8("\xc0\xaf\xff\x80zz\xf4\x90\x80\x80")));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_TRUE(IsValidUtf8(""));
}

TEST(Strings, SanitizedTextDumpsAsJson) {
  // nlohmann::json::dump throws type_error 316 on invalid UTF-8 (the crash of issue 16).
  const std::string bad = "name \xff\xfe end";
  EXPECT_THROW(nlohmann::json(bad).dump(), nlohmann::json::type_error);
  const std::string dumped = nlohmann::json(SanitizeUtf8(bad)).dump();
  EXPECT_EQ(nlohmann::json::parse(dumped).get<std::string>(), "name \xEF\xBF\xBD\xEF\xBF\xBD end");
}

}  // namespace
}  // namespace strings_test
}  // namespace ampscope
