// base/units.h: the one ns -> µs conversion for output. Expected values by hand.
#include "base/units.h"

#include <gtest/gtest.h>

namespace ampscope {
namespace units_test {
namespace {

TEST(Units, NsToUs) {
  EXPECT_EQ(NsToUs(0), 0.0);
  EXPECT_EQ(NsToUs(1500), 1.5);
  EXPECT_EQ(NsToUs(-250), -0.25);
  // An epoch-like time: 1,700,000,000,000,000,123 ns is beyond 2^53, so the double is the
  // nearest representable value; the exact decimal form is the Chrome writer's job.
  EXPECT_NEAR(NsToUs(1'700'000'000'000'000'123), 1.700000000000000123e15, 1.0);
}

TEST(Units, NsToUsRounded3KeepsWholeNanoseconds) {
  EXPECT_EQ(NsToUsRounded3(1'234'567), 1234.567);
  EXPECT_EQ(NsToUsRounded3(1), 0.001);
  EXPECT_EQ(NsToUsRounded3(-1'500), -1.5);
  // 12345 ns / 1e3 is 12.345000000000001 as a double; rounding to 3 decimals prints 12.345.
  EXPECT_EQ(NsToUsRounded3(12'345), 12.345);
}

}  // namespace
}  // namespace units_test
}  // namespace ampscope
