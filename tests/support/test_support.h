// Helpers shared by the test binaries: paths, temporary files, and what to do when an input
// (../shared, protoc, Chromium, /dev/full, a pseudo-terminal) is missing.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ampscope::testing {

// Path of a file under shared/ (e.g. "traces/kineto/hta/nccl_data.json.gz").
std::string SharedPath(const std::string& relative);
// True if shared/ (with the real traces) is available; tests that need it use
// AMPSCOPE_REQUIRE_INPUT(HaveShared(), ...).
bool HaveShared();
// One Kineto trace of each kind under shared/traces/kineto (relative paths for SharedPath):
// the tests that check a property of every shared trace iterate over these.
const std::vector<std::string>& SharedKinetoTraceKinds();
// True when a missing input must fail the test rather than skip it: under CI=true (any value
// but "", "0" or "false"), so that CI cannot be green because its inputs were not there.
bool InputsRequired();
// Path under the source tree / the build tree.
std::string SourcePath(const std::string& relative);
std::string BinaryPath(const std::string& relative);
// A fresh empty temporary directory (removed by the OS's tmp cleaning; tests may remove it).
std::string MakeTempDir(const std::string& prefix);
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& contents);

}  // namespace ampscope::testing

// In a test body or SetUp: if `available` is false, the test is skipped, or, under CI=true,
// fails with `what` (why the input is missing and how to get it).
#define AMPSCOPE_REQUIRE_INPUT(available, what)                                                   \
  do {                                                                                          \
    if (!(available)) {                                                                         \
      if (::ampscope::testing::InputsRequired()) {                                              \
        GTEST_FAIL() << "required input missing (CI=true makes this a failure): " << what;    \
      } else {                                                                                  \
        GTEST_SKIP() << what;                                                                   \
      }                                                                                         \
    }                                                                                           \
  } while (0)

