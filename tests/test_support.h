// Helpers shared by the test binaries.
#pragma once

#include <string>

namespace ampscope::testing {

// Path of a file under shared/ (e.g. "traces/kineto/hta/nccl_data.json.gz").
std::string SharedPath(const std::string& relative);
// True if shared/ (with the real traces) is available; tests that need it GTEST_SKIP otherwise.
bool HaveShared();
// Path under the source tree / the build tree.
std::string SourcePath(const std::string& relative);
std::string BinaryPath(const std::string& relative);
// A fresh empty temporary directory (removed by the OS's tmp cleaning; tests may remove it).
std::string MakeTempDir(const std::string& prefix);
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& contents);

}  // namespace ampscope::testing
