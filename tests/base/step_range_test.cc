// base/step_range.h and base/numeric_option.h: every form the CLI documents, and the inputs
// that used to throw (std::stoll / std::stoull on 23 digits).
#include "base/step_range.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/numeric_option.h"

namespace ampscope {
namespace step_range_test {
namespace {

TEST(StepRange, Forms) {
  auto r = ParseStepRange("2..5");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->first, 2);
  EXPECT_EQ(r->last, 5);
  r = ParseStepRange("3");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, 3);
  EXPECT_EQ(r->last, 3);
  r = ParseStepRange("4..");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, 4);
  EXPECT_FALSE(r->last.has_value());
  r = ParseStepRange("..7");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->first.has_value());
  EXPECT_EQ(r->last, 7);
  r = ParseStepRange("..");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->first.has_value() || r->last.has_value());
  r = ParseStepRange(" 1 .. 2 ");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, 1);
  EXPECT_EQ(r->last, 2);
  r = ParseStepRange("5..5");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->last, 5);
}

TEST(StepRange, Errors) {
  for (const char* bad : {"", " ", "a..b", "1...2", "-1..2", "1..-2", "1-2", "1..2x", "+3", "0x10"}) {
    auto r = ParseStepRange(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), std::string("expected N..M, N.., ..M or N, got '") + bad + "'");
  }
  auto r = ParseStepRange("5..2");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "the last step 2 comes before the first 5");
  // Issue 16: this aborted `ampscope record` with an uncaught std::out_of_range.
  r = ParseStepRange("1..99999999999999999999999");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "step 99999999999999999999999 is out of range (at most 9223372036854775807)");
  r = ParseStepRange("9223372036854775808");  // 2^63
  EXPECT_FALSE(r.ok());
  r = ParseStepRange("9223372036854775807");  // 2^63 - 1 fits
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, std::numeric_limits<int64_t>::max());
}

TEST(NumericOption, Integers) {
  auto v = ParseInt64Option("42", "--top", 1);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 42);
  EXPECT_EQ(*ParseInt64Option("-3", "x"), -3);
  EXPECT_EQ(ParseInt64Option("0", "--top", 1).status().message(), "--top: 0 is out of range (1..9223372036854775807)");
  EXPECT_EQ(ParseInt64Option("ten", "--top").status().message(), "--top: expected an integer, got 'ten'");
  EXPECT_EQ(ParseInt64Option("", "--top").status().message(), "--top: expected an integer, got ''");
  EXPECT_EQ(ParseInt64Option("1.5", "-j").status().message(), "-j: expected an integer, got '1.5'");
  EXPECT_FALSE(ParseInt64Option("99999999999999999999", "--top").ok());
  EXPECT_FALSE(ParseInt64Option(" 1", "--top").ok());
}

TEST(NumericOption, Doubles) {
  EXPECT_EQ(*ParseDoubleOption("0.25", "--threshold"), 0.25);
  EXPECT_EQ(*ParseDoubleOption("1e-3", "--threshold"), 0.001);
  EXPECT_EQ(ParseDoubleOption("nan", "--threshold").status().message(), "--threshold: nan is not a finite number");
  EXPECT_FALSE(ParseDoubleOption("inf", "--threshold").ok());
  EXPECT_FALSE(ParseDoubleOption("1e999", "--threshold").ok());
  EXPECT_EQ(ParseDoubleOption("150", "--pct", 0, 100).status().message(), "--pct: 150 is out of range (0..100)");
  EXPECT_EQ(ParseDoubleOption("x", "--pct").status().message(), "--pct: expected a number, got 'x'");
}

}  // namespace
}  // namespace step_range_test
}  // namespace ampscope
