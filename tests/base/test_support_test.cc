// tests/support/test_support.h: under CI=true a missing input fails the test instead of
// skipping it (issue 16: CI must not be green because ../shared, protoc or Chromium was missing).
#include "support/test_support.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace ampscope {
namespace test_support_test {
namespace {

class CiEnvironment {
 public:
  explicit CiEnvironment(const char* value) {
    const char* old = std::getenv("CI");
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv("CI", value, 1);
    } else {
      unsetenv("CI");
    }
  }
  ~CiEnvironment() {
    if (had_) {
      setenv("CI", old_.c_str(), 1);
    } else {
      unsetenv("CI");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

void RequireAMissingInput() { AMPSCOPE_REQUIRE_INPUT(false, "a test input that is not there"); }

TEST(TestSupport, InputsRequiredFollowsCi) {
  {
    CiEnvironment ci(nullptr);
    EXPECT_FALSE(testing::InputsRequired());
  }
  for (const char* off : {"", "0", "false"}) {
    CiEnvironment ci(off);
    EXPECT_FALSE(testing::InputsRequired()) << off;
  }
  for (const char* on : {"true", "1", "yes"}) {
    CiEnvironment ci(on);
    EXPECT_TRUE(testing::InputsRequired()) << on;
  }
}

TEST(TestSupport, MissingInputFailsUnderCi) {
  CiEnvironment ci("true");
  EXPECT_FATAL_FAILURE(RequireAMissingInput(), "required input missing (CI=true makes this a failure): a test input");
}

}  // namespace
}  // namespace test_support_test
}  // namespace ampscope
