// Tests that read ../shared: a missing input skips the test on a developer machine and fails it
// under CI=true (CI must never pass by skipping).
#pragma once

#include <cstdlib>
#include <string>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace ampscope::testing {

inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

inline bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace ampscope::testing

// In a TEST body: `REQUIRE_SHARED_FILE(path);` returns from the test when the file is missing.
#define REQUIRE_SHARED_FILE(path)                                                          \
  do {                                                                                     \
    if (!::ampscope::testing::FileExists(path)) {                                          \
      if (::ampscope::testing::InCi()) {                                                   \
        FAIL() << "CI=true and the shared input is missing: " << (path);                   \
      } else {                                                                             \
        GTEST_SKIP() << "shared input not available: " << (path);                          \
      }                                                                                    \
    }                                                                                      \
  } while (0)
